import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startIdentityServer, type IdentityServerOptions, type IdentityServer } from '../src/index.js';

/** Storage backends every suite runs on: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const BACKENDS: Array<'sqlite' | 'postgres'> = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestStorage {
  dataDir: string;
  databaseUrl?: string;
  cleanup(): Promise<void>;
}

/** A fresh, isolated store: a temp directory for SQLite, or a new schema in the test PostgreSQL database. */
export async function freshStorage(backend: 'sqlite' | 'postgres'): Promise<TestStorage> {
  const dataDir = mkdtempSync(join(tmpdir(), 'keyway-id-'));
  if (backend === 'sqlite') return { dataDir, cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
  const base = process.env.TEST_DATABASE_URL!;
  const schema = `t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const pg = (await import('pg')).default;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    dataDir,
    databaseUrl: url.toString(),
    cleanup: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestServer extends IdentityServer {
  storage: TestStorage;
  stop(): Promise<void>;
}

export async function startTestServer(backend: 'sqlite' | 'postgres', opts: IdentityServerOptions = {}, storage?: TestStorage): Promise<TestServer> {
  const st = storage ?? (await freshStorage(backend));
  const server = await startIdentityServer({
    port: 0,
    dataDir: st.dataDir,
    ...(st.databaseUrl ? { databaseUrl: st.databaseUrl } : {}),
    devMode: true,
    ...opts,
  });
  return Object.assign(server, {
    storage: st,
    async stop() {
      await server.close();
      await st.cleanup();
    },
  });
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

/** Newest dev-mailbox message to `to`. */
export async function lastMessage(server: { url: string }, to: string) {
  const res = await fetch(`${server.url}/dev/mailbox.json?to=${encodeURIComponent(to)}&limit=1`);
  const body = (await res.json()) as { result: Array<{ code: string | null; link: string | null; subject: string; text: string; html: string; to: string; created_at: string }> };
  const msg = body.result[0];
  if (!msg) throw new Error(`no message for ${to}`);
  return msg;
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
