// Tokens from a real identity server (started by the suite with devMode, so its dev mailbox holds the codes).

/** Signs a person in with a one-time e-mail code and returns their user token. */
export async function signInWithCode(identityUrl: string, orgId: string, email: string): Promise<string> {
  const headers = { 'content-type': 'application/json', 'keyway-orgid': orgId };
  const id = await fetch(`${identityUrl}/id/v2`, { method: 'POST', headers, body: JSON.stringify({ handle: email, factor: { method: 'otp_via_email' } }) });
  const challenge = ((await id.json()) as { result: { challenges: { id: string }[] } }).result.challenges[0]!;
  const mail = await fetch(`${identityUrl}/dev/mailbox.json?to=${encodeURIComponent(email)}&limit=1`);
  const { code } = ((await mail.json()) as { result: { code: string }[] }).result[0]!;
  const att = await fetch(`${identityUrl}/attestation/v3`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ challenge_id: challenge.id, challenge_type: 'otp', data: { otp: code } }),
  });
  return ((await att.json()) as { result: { token: string } }).result.token;
}

/** The token of a new anonymous person (a visitor who never signed in). */
export async function anonymousToken(identityUrl: string, orgId: string): Promise<string> {
  const res = await fetch(`${identityUrl}/persons/anonymous`, { method: 'POST', headers: { 'content-type': 'application/json', 'keyway-orgid': orgId }, body: '{}' });
  if (!res.ok) throw new Error(`POST /persons/anonymous answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { result: { token: string } }).result.token;
}
