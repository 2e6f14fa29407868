import { afterAll, beforeAll } from 'vitest';
import type { IdentityServerOptions } from '../src/index.js';
import { answerLink, lastMessage, startTestIdentityServer, type Backend, type TestServer, type TestStorage } from '../src/testing.js';

export { answerLink, BACKENDS, freshStorage, lastMessage, type TestServer, type TestStorage } from '../src/testing.js';

/** A test server of this package's suites (see `startTestIdentityServer` of `@keyway/identity-server/testing`). */
export function startTestServer(backend: Backend, opts: IdentityServerOptions = {}, storage?: TestStorage): Promise<TestServer> {
  return startTestIdentityServer({ backend, ...opts, ...(storage ? { storage } : {}) });
}

export interface Answer<T = any> {
  status: number;
  // `errors` is typed as present: tests read it where the answer is an error.
  body: { result: T; errors: [{ httpcode: number; message: string }, ...Array<{ httpcode: number; message: string }>]; meta?: any };
  headers: Headers;
}

/** Small JSON client: `api(server)('POST', '/id/v2', body, { token })`. */
export function api(server: { url: string; orgId: string }) {
  return async <T = any>(
    method: string,
    path: string,
    body?: unknown,
    opts: { token?: string; org?: string | null; headers?: Record<string, string>; raw?: string } = {},
  ): Promise<Answer<T>> => {
    const headers: Record<string, string> = { 'keyway-sdkversion': '3.29.3', ...opts.headers };
    if (opts.org !== null) headers['keyway-orgid'] = opts.org ?? server.orgId;
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let payload: string | undefined;
    if (opts.raw !== undefined) payload = opts.raw;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    const res = await fetch(server.url + path, { method, headers, body: payload });
    const text = await res.text();
    let parsed: any;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = { text };
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
}

/** Full email-OTP sign-in: ID request, code from the mailbox, attestation. Returns the token. */
export async function signInWithEmail(server: { url: string; orgId: string }, email: string, previousToken?: string): Promise<string> {
  const call = api(server);
  const id = await call('POST', '/id/v2', { handle: email, factor: { method: 'otp_via_email' } }, previousToken ? { token: previousToken } : {});
  if (id.status !== 200) throw new Error(`/id/v2 answered ${id.status}: ${JSON.stringify(id.body)}`);
  const challenge = id.body.result[0];
  const { code } = await lastMessage(server, email.toLowerCase());
  const att = await call('POST', '/attestation/v3', { challenge_id: challenge.id, challenge_type: 'otp', data: { otp: code } });
  if (att.status !== 200) throw new Error(`/attestation/v3 answered ${att.status}: ${JSON.stringify(att.body)}`);
  return att.body.result.token as string;
}

/**
 * The proof that comes first when a password or passkey reaches an address (#36): the owner opens the link sent to the
 * address (read from the mailbox, where its owner reads it) and confirms; the tab that asked polls the token.
 */
export async function proveByLink(server: { url: string; orgId: string }, email: string, proxy: { id: string; type: string }): Promise<string> {
  if (proxy.type !== 'proxy') throw new Error(`expected the link (proxy) challenge first, got ${proxy.type}`);
  const call = api(server);
  const { link } = await lastMessage(server, email.toLowerCase());
  const confirmed = await answerLink(link!);
  if (confirmed.status >= 400) throw new Error(`confirming the link answered ${confirmed.status}`);
  const poll = await call('GET', `/challenge/${proxy.id}/v2`);
  if (poll.status !== 200) throw new Error(`the poll answered ${poll.status}: ${JSON.stringify(poll.body)}`);
  return poll.body.result as string;
}

/** Sign-up with a password as an honest person does it (#36): `/id` with `sign_up`, the link, then the password. */
export async function signUpWithPassword(server: { url: string; orgId: string }, email: string, password: string): Promise<string> {
  const call = api(server);
  const id = await call('POST', '/id/v2', { handle: email, factor: { method: 'password', options: { sign_up: true } } });
  if (id.status !== 200) throw new Error(`/id/v2 answered ${id.status}: ${JSON.stringify(id.body)}`);
  const [proxy, set] = id.body.result;
  await proveByLink(server, email, proxy);
  const res = await call('POST', '/attestation/v3', { challenge_id: set.id, challenge_type: 'password_set', data: { password } });
  if (res.status !== 200) throw new Error(`password_set answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.result.token as string;
}

/**
 * The cookies a response sets, as a `Cookie` header a browser would send back (the hosted login binds its forms to the
 * browser that opened the page with one).
 */
export function cookiesOf(res: Response): string {
  return res.headers.getSetCookie().map((c) => c.split(';')[0]!).join('; ');
}

export function decodeClaims(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

/** Starts a test server before the suite and stops it after; `t.server` and `t.call` are set once it runs. */
export function useTestServer(backend: 'sqlite' | 'postgres', opts: IdentityServerOptions = {}) {
  const t = {} as { server: TestServer; call: ReturnType<typeof api> };
  beforeAll(async () => {
    t.server = await startTestServer(backend, opts);
    t.call = api(t.server);
  });
  afterAll(() => t.server.stop());
  return t;
}
