// Test support of every package's tests (`@keyway/identity-server/testing`): a real identity server on a fresh store,
// its development mailbox, and the checks of real requests and answers against the REST contract. Used by the tests of
// this package, the SDK, React, the docs server, interop, the site and e2e (also outside a test runner: e2e's global
// setup; failed checks throw node:assert errors); never by the server itself.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { startIdentityServer, type IdentityServer, type IdentityServerOptions } from './index.js';
import { OpenApiContract, SPEC_ID } from './openapi.js';

export type Backend = 'sqlite' | 'postgres';

/** Storage backends every suite runs on: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const BACKENDS: Backend[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestStorage {
  dataDir: string;
  databaseUrl?: string;
  cleanup(): Promise<void>;
}

/**
 * A fresh, isolated store: a temp directory for SQLite, or a new schema in a PostgreSQL database (`databaseUrl`, by
 * default TEST_DATABASE_URL). The benchmarks use it too.
 */
export async function freshStorage(backend: Backend, { databaseUrl = process.env.TEST_DATABASE_URL }: { databaseUrl?: string | undefined } = {}): Promise<TestStorage> {
  const dataDir = mkdtempSync(join(tmpdir(), 'keyway-id-'));
  if (backend === 'sqlite') return { dataDir, cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
  const base = databaseUrl;
  if (!base) throw new Error('the postgres backend needs TEST_DATABASE_URL');
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
  /** Closes the server and deletes its store. */
  stop(): Promise<void>;
}

export interface TestServerOptions extends IdentityServerOptions {
  /** Storage backend of a fresh store (default `sqlite`); ignored when `storage` is given. */
  backend?: Backend;
  /** A store to reuse (a restart on the same data); deleted by `stop()`. */
  storage?: TestStorage;
}

/**
 * A real identity server for a test: development mode, any free port, on a fresh store (SQLite in a temp directory,
 * or a new PostgreSQL schema); `stop()` closes it and deletes the store. Options are those of `startIdentityServer`.
 */
export async function startTestIdentityServer({ backend = 'sqlite', storage, ...opts }: TestServerOptions = {}): Promise<TestServer> {
  const st = storage ?? (await freshStorage(backend));
  let server: IdentityServer;
  try {
    server = await startIdentityServer({ port: 0, dataDir: st.dataDir, ...(st.databaseUrl ? { databaseUrl: st.databaseUrl } : {}), devMode: true, ...opts });
  } catch (err) {
    if (!storage) await st.cleanup();
    throw err;
  }
  return Object.assign(server, {
    storage: st,
    async stop() {
      await server.close();
      await st.cleanup();
    },
  });
}

/** A message of the development mailbox (`/dev/mailbox.json`). */
export interface MailboxMessage {
  code: string | null;
  link: string | null;
  subject: string;
  text: string;
  html: string;
  to: string;
  created_at: string;
  /** Outbox state: `pending` while the SMTP relay has not taken it, `sent`, or `failed` once given up. */
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  sent_at: string | null;
}

/** Newest dev-mailbox message to `to`. */
export async function lastMessage(server: { url: string }, to: string): Promise<MailboxMessage> {
  const res = await fetch(`${server.url}/dev/mailbox.json?to=${encodeURIComponent(to)}&limit=1`);
  const body = (await res.json()) as { result: MailboxMessage[] };
  const msg = body.result[0];
  if (!msg) throw new Error(`no message for ${to}`);
  return msg;
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

/**
 * Opens a sign-in link as its owner does: the link's page names the sign-in, and the owner answers it (`confirm` signs
 * in the tab that asked, `deny` refuses). Returns the final answer (a 303 to the link's redirect target, or a page).
 */
export async function answerLink(link: string, decision: 'confirm' | 'deny' = 'confirm'): Promise<Response> {
  const page = await fetch(link, { redirect: 'manual' });
  const html = await page.text();
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`the link's page (${page.status}) has no form: ${html.slice(0, 200)}`);
  const fields = new URLSearchParams([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, '&')]));
  fields.set('decision', decision);
  return fetch(new URL(action.replace(/&amp;/g, '&'), link), { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields.toString() });
}

/** The token of a new anonymous person (a visitor who never signed in): `POST /persons/anonymous` answers it as `result`. */
export async function anonymousTokenAt(identity: { url: string; orgId: string }): Promise<string> {
  const res = await fetch(`${identity.url}/persons/anonymous`, { method: 'POST', headers: { 'content-type': 'application/json', 'keyway-orgid': identity.orgId }, body: '{}' });
  if (!res.ok) throw new Error(`POST /persons/anonymous answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { result: string }).result;
}

// ---------- checks against the REST contract ----------

let loaded: { contract: OpenApiContract; templates: Array<{ template: string; re: RegExp }> } | undefined;
/** The contract and its path templates, loaded on the first check (starting a server does not need them). */
function spec() {
  if (!loaded) {
    const contract = OpenApiContract.load();
    const templates = Object.keys(contract.doc.paths).map((template) => ({
      template,
      re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
    loaded = { contract, templates };
  }
  return loaded;
}

/** `/challenge/abc/v2` → `/challenge/{challenge_id}/v2`: the matching template with the fewest parameters that has `method`. */
export function specPath(path: string, method = 'get'): string | undefined {
  const { contract, templates } = spec();
  const clean = decodeURIComponent(path.split('?')[0]!);
  const params = (t: string) => (t.match(/\{/g) ?? []).length;
  const matches = templates.filter((t) => t.re.test(clean)).sort((a, b) => params(a.template) - params(b.template));
  return (matches.find((t) => contract.doc.paths[t.template]?.[method.toLowerCase()]) ?? matches[0])?.template;
}

/** Operations answered and validated so far: `METHOD /template status`. */
export const covered = new Set<string>();

/** Checks one real answer against the response schema the spec gives for its status code. */
export function expectMatchesSpec(method: string, path: string, status: number, body: unknown, contentType = 'application/json'): void {
  const { contract } = spec();
  const template = specPath(path, method);
  assert.ok(template !== undefined, `${method} ${path} is not in api/openapi.yaml`);
  const op = contract.doc.paths[template!]![method.toLowerCase()] as { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> } | undefined;
  assert.ok(op !== undefined, `${method} ${template} is not in api/openapi.yaml`);
  const response = op!.responses?.[String(status)] ?? op!.responses?.[`${String(status)[0]}XX`] ?? op!.responses?.default;
  assert.ok(response !== undefined, `${method} ${template} answered ${status}, which the spec does not list`);
  const media = response!.content?.[contentType] ? contentType : Object.keys(response!.content ?? {})[0];
  if (media) {
    const pointer = `${SPEC_ID}#/paths/${template!.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status in (op!.responses ?? {}) ? status : 'default'}/content/${media.replace(/\//g, '~1')}/schema`;
    const validate = contract.bodyAjv.getSchema(pointer) ?? contract.bodyAjv.compile({ $ref: pointer });
    const ok = validate(body);
    assert.ok(ok === true, `${method} ${path} → ${status} does not match the spec: ${JSON.stringify(validate.errors?.slice(0, 3))}\n${JSON.stringify(body).slice(0, 400)}`);
  }
  covered.add(`${method.toUpperCase()} ${template} ${status}`);
}

/** Error answers carry `errors[].httpcode` equal to the HTTP status (the SDK reads the body's code, not the status). */
export function expectErrorCodesMatchStatus(method: string, path: string, status: number, body: unknown): void {
  const errors = (body as { errors?: Array<{ httpcode?: unknown }> } | undefined)?.errors;
  if (status < 300 || !Array.isArray(errors)) return;
  for (const e of errors) assert.equal(e.httpcode, status, `${method} ${path} answered ${status} with an error whose httpcode is ${String(e.httpcode)}`);
}

/** Checks a JSON request body against the request schema the spec gives for the operation. */
export function expectRequestMatchesSpec(method: string, path: string, body: unknown): void {
  const { contract } = spec();
  const template = specPath(path, method);
  assert.ok(template !== undefined, `${method} ${path} is not in api/openapi.yaml`);
  const op = contract.doc.paths[template!]![method.toLowerCase()] as { requestBody?: { content?: Record<string, unknown> } } | undefined;
  assert.ok(op !== undefined, `${method} ${template} is not in api/openapi.yaml`);
  if (body === undefined) return;
  assert.ok(op!.requestBody?.content?.['application/json'] !== undefined, `${method} ${template} takes no JSON body in the spec`);
  const pointer = `${SPEC_ID}#/paths/${template!.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/requestBody/content/application~1json/schema`;
  const validate = contract.bodyAjv.getSchema(pointer) ?? contract.bodyAjv.compile({ $ref: pointer });
  assert.ok(validate(body) === true, `${method} ${path}: the request does not match the spec: ${JSON.stringify(validate.errors?.slice(0, 3))}\n${JSON.stringify(body).slice(0, 400)}`);
}
