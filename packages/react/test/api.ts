/** Identity-server helpers without any DOM: usable by the component and the Chromium tests. */
import type { IdentityServer } from '@keyway/identity-server';
import { answerLink, startTestIdentityServer } from '@keyway/identity-server/testing';

export interface TestServer {
  api: IdentityServer;
  close(): Promise<void>;
}

/** The identity server in-process with a temporary database, in dev mode (mailbox), allowing `origins`. */
export async function startServer(origins = ['http://localhost:3000']): Promise<TestServer> {
  const api = await startTestIdentityServer({ corsOrigins: origins, limits: { perHandlePerMinute: 1000, perIpPerMinute: 10_000 } });
  return { api, close: () => api.stop() };
}

/** Retries `read` every 50 ms until it returns a value (at most `tries` times). */
export async function eventually<T>(read: () => Promise<T | undefined>, what: string, tries = 100): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await read();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

interface Message {
  code?: string;
  link?: string;
  created_at: string;
}

/** The code of the newest dev-mailbox message to `to` sent after `after` (ISO time). */
export const mailbox = (api: IdentityServer, to: string, after = '') =>
  eventually(async () => {
    const res = await fetch(`${api.url}/dev/mailbox.json?to=${encodeURIComponent(to)}`);
    const { result } = (await res.json()) as { result: Message[] };
    return result.find((m) => m.created_at > after);
  }, `a message to ${to}`);

/**
 * The owner of `to` opens the newest sign-in link sent there after `after` (read from the dev mailbox) and answers its
 * page (`confirm`: “Yes, sign me in”); returns the status of that answer.
 */
export async function answerMailedLink(api: IdentityServer, to: string, after: string, decision: 'confirm' | 'deny' = 'confirm'): Promise<number> {
  const { link } = await eventually(async () => {
    const m = await mailbox(api, to, after);
    return m.link ? m : undefined;
  }, `a link to ${to}`);
  return (await answerLink(link!, decision)).status;
}

/** Calls the management API of the dev organization (or `org`) with the dev API key. */
export async function manage(api: IdentityServer, method: string, path: string, body?: unknown, org = api.orgId) {
  const res = await fetch(api.url + path, {
    method,
    headers: { 'content-type': 'application/json', 'keyway-api-key': 'kw_dev_api_key_not_secret', 'keyway-orgid': org },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // Writes the public reference answers with 204 have no body.
  const text = await res.text();
  const json = (text ? JSON.parse(text) : {}) as { result?: any; errors?: Array<{ message: string }> };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json.errors?.[0]?.message}`);
  return json.result;
}

let n = 0;
/** A fresh email address per test. */
export const newEmail = (prefix = 'ada') => `${prefix}.${Date.now().toString(36)}${++n}@example.com`;
