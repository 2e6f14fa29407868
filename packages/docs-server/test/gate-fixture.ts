import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Writes a miniature site build (relative path → content) into a new temporary directory; returns it. */
export function writeSite(prefix: string, files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [rel, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), body);
  }
  return dir;
}

/** A full email-code sign-in at a real identity server (code read from its dev mailbox); returns the user token. */
export async function signInAt(identity: { url: string; orgId: string }, email: string, orgId = identity.orgId): Promise<string> {
  const headers = { 'content-type': 'application/json', 'keyway-orgid': orgId };
  const id = await fetch(`${identity.url}/id/v2`, { method: 'POST', headers, body: JSON.stringify({ handle: email, factor: { method: 'otp_via_email' } }) });
  const challenge = ((await id.json()) as { result: { id: string }[] }).result[0]!;
  const mail = await fetch(`${identity.url}/dev/mailbox.json?to=${encodeURIComponent(email)}&limit=1`);
  const { code } = ((await mail.json()) as { result: { code: string }[] }).result[0]!;
  const att = await fetch(`${identity.url}/attestation/v3`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ challenge_id: challenge.id, challenge_type: 'otp', data: { otp: code } }),
  });
  return ((await att.json()) as { result: { token: string } }).result.token;
}

/** The token of a new anonymous person (a visitor who never signed in): `POST /persons/anonymous` answers it as `result`. */
export async function anonymousTokenAt(identity: { url: string; orgId: string }): Promise<string> {
  const res = await fetch(`${identity.url}/persons/anonymous`, { method: 'POST', headers: { 'content-type': 'application/json', 'keyway-orgid': identity.orgId }, body: '{}' });
  if (!res.ok) throw new Error(`POST /persons/anonymous answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { result: string }).result;
}
