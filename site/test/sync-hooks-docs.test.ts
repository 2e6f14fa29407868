// The sync hook pages run against the real identity server (started in-process, fresh database): the custom claims guide
// step by step with its own requests and its own endpoint (billing-claims.ts), and the verifying endpoint of the sync hooks
// concept page. A token must really carry the hook's claims, a refusal must answer what the guide shows, a dead endpoint must
// leave the token without them, and the guide's query must read the recorded calls. When the server and the pages drift
// apart, these tests fail.
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_HOST, docsDir, parseCurls, readPage, sendCurl, startLocalServer, type Curl, type LiveServer, type LocalServer, type Page } from './docs-helpers';

const accessDir = path.join(docsDir, 'access');
const GUIDE = path.join(accessDir, 'guides', 'webhooks', 'custom-claims.md');
const CONCEPT = path.join(accessDir, 'concepts', 'sync-hooks.md');
const samplesDir = path.resolve(docsDir, '..', '..', 'node_modules', '.cache', 'keyway-sync-hook-samples');

type Block = Page['code'][number];
type Row = { created_at: string; webhook_id: string; status: string; last_status: number | null; last_error: string | null };
/** The server object behind LiveServer: its database too (a Kysely instance). */
type ServerWithDb = LiveServer & { db: unknown };

let local: LocalServer | undefined;
let guide: Page;
let concept: Page;
const servers: Server[] = [];

beforeAll(async () => {
  [guide, concept] = await Promise.all([readPage(GUIDE, accessDir), readPage(CONCEPT, accessDir)]);
  local = await startLocalServer();
  fs.mkdirSync(samplesDir, { recursive: true });
}, 60_000);

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
  await local?.close();
  fs.rmSync(samplesDir, { recursive: true, force: true });
});

function block(p: Page, title: string): { block: Block; index: number } {
  const index = p.code.findIndex((c) => c.meta.includes(`title="${title}"`));
  const found = p.code[index];
  if (!found) throw new Error(`${p.rel}: no block titled ${title}`);
  return { block: found, index };
}
function curlOf(p: Page, title: string): Curl {
  const [c] = parseCurls(block(p, title).block.value);
  if (!c) throw new Error(`${p.rel}: block ${title} holds no request`);
  return c;
}
/** The JSON block right after the block titled `title`. */
function jsonAfter(p: Page, title: string): unknown {
  const next = p.code[block(p, title).index + 1];
  if (next?.lang !== 'json') throw new Error(`${p.rel}: no JSON after ${title}`);
  return JSON.parse(next.value) as unknown;
}
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

/** Transpiles a TypeScript sample as shown (with the local server's address), writes it next to the installed packages, loads it. */
async function loadSample<T>(p: Page, title: string, live: LiveServer): Promise<T> {
  const js = ts.transpileModule(block(p, title).block.value.replaceAll(API_HOST, live.url), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
  }).outputText;
  const file = path.join(samplesDir, `${title.replace(/\W+/g, '_')}-${Date.now()}-${Math.random().toString(36).slice(2)}.mjs`);
  fs.writeFileSync(file, js);
  const mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as T & { server: Server };
  servers.push(mod.server);
  if (!mod.server.listening) await new Promise((resolve) => mod.server.once('listening', resolve));
  return mod;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** Runs SQL on the server's own database, through the server's own query builder. */
async function query(live: LiveServer, text: string): Promise<Row[]> {
  // kysely as the identity server resolves it (the same copy as the server's `db`).
  const require = createRequire(path.join(docsDir, '..', 'package.json'));
  const kysely = createRequire(require.resolve('@keyway/identity-server')).resolve('kysely');
  const { sql } = (await import(/* @vite-ignore */ pathToFileURL(kysely).href)) as { sql: { raw(s: string): { execute(db: unknown): Promise<{ rows: Row[] }> } } };
  return (await sql.raw(text).execute((live as ServerWithDb).db)).rows;
}

describe('the custom claims guide against the local identity server', () => {
  it('runs steps 1 to 5: the hook adds its claims, refuses with the documented answer, and is ignored once it is down', async () => {
    const { live, apiKey } = local as LocalServer;
    const management = { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey, 'Content-Type': 'application/json' };
    const person = await fetch(`${live.url}/persons`, { method: 'POST', headers: management, body: JSON.stringify({ handles: [{ type: 'email_address', value: 'billing.guide@example.com' }] }) });
    const personId = ((await person.json()) as { result: { person_id: string } }).result.person_id;
    const vars: Record<string, string> = { KEYWAY_ORG_ID: live.orgId, KEYWAY_API_KEY: apiKey, PERSON_ID: personId };
    const run = async (title: string, c: Curl = curlOf(guide, title)) => {
      const res = await sendCurl(live, c, vars, guide.rel);
      // 204 answers have no body.
      return { ...res, json: (res.text ? JSON.parse(res.text) : {}) as { result?: Record<string, unknown> | string; errors?: unknown[] } };
    };

    // Steps 1 and 2: the attribute and the template.
    expect((await run("The person's plan, read-only for them")).status).toBe(204);
    expect((await run('Set the token template')).status).toBe(204);

    // Step 3: the guide's endpoint, listening where step 4 registers it (the port moved to a free one).
    const register = curlOf(guide, 'Register the claims endpoint');
    const target = (JSON.parse(register.data ?? '{}') as { target_url: string }).target_url;
    const sampleSource = block(guide, 'billing-claims.ts').block.value;
    expect(sampleSource, 'the endpoint defaults to the URL step 4 registers').toContain(`'${target}'`);
    expect(sampleSource, 'and listens on its port').toContain(`?? ${new URL(target).port}`);
    const port = await freePort();
    const hookUrl = Object.assign(new URL(target), { port: String(port) }).href;
    Object.assign(process.env, { KEYWAY_ORG_ID: live.orgId, KEYWAY_API_KEY: apiKey, HOOK_URL: hookUrl, PORT: String(port), SUSPENDED_PERSONS: '' });
    const endpoint = await loadSample<{ suspended: Set<string>; server: Server }>(guide, 'billing-claims.ts', live);

    // Step 4: register it and attach it to token_minted, as documented.
    const registered = await run('Register the claims endpoint', { ...register, data: (register.data ?? '').replace(target, hookUrl) });
    expect(registered.status, registered.text).toBe(201);
    const documentedHook = (jsonAfter(guide, 'Register the claims endpoint') as { result: Record<string, unknown> }).result;
    expect(registered.json.result as Record<string, unknown>).toMatchObject({ name: documentedHook.name, timeout: documentedHook.timeout, custom_headers: documentedHook.custom_headers });
    vars.WEBHOOK_ID = String((registered.json.result as Record<string, unknown>).id);
    const attached = await run('Call it whenever a token is minted');
    expect(attached.status, attached.text).toBe(201);
    expect(attached.json).toEqual(jsonAfter(guide, 'Call it whenever a token is minted'));

    // Step 5: the new token carries the template's claim and the endpoint's claims.
    const minted = await run('A new token for the test person');
    expect(minted.status, minted.text).toBe(201);
    // The result is the token itself.
    const claims = claimsOf(String(minted.json.result));
    const documented = JSON.parse(block(guide, 'Your claims in the token').block.value) as Record<string, unknown>;
    expect(Object.keys(documented).sort()).toEqual(['billing_account', 'plan', 'seats']);
    expect(claims).toMatchObject({ plan: documented.plan, seats: documented.seats, person_id: personId });
    expect(claims.billing_account).toMatch(/^acct_/);

    // A suspended account: the token is refused with exactly the documented answer.
    endpoint.suspended.add(personId);
    const refused = await run('A new token for the test person');
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual(JSON.parse(block(guide, 'Response when the hook refuses').block.value));
    endpoint.suspended.delete(personId);

    // The endpoint stopped: the token comes at once, with the template's claim and without the hook's.
    endpoint.server.closeAllConnections();
    await new Promise((resolve) => endpoint.server.close(resolve));
    const alone = await run('A new token for the test person');
    expect(alone.status, alone.text).toBe(201);
    const without = claimsOf(String(alone.json.result));
    expect(without.plan).toBe('team');
    expect(without.seats).toBeUndefined();
    expect(without.billing_account).toBeUndefined();

    // The guide's query reads the three calls, newest first, with the notes the guide names.
    const rows = (await query(live, block(guide, 'The latest sync hook calls').block.value)).filter((r) => r.webhook_id === vars.WEBHOOK_ID);
    expect(rows.map((r) => [r.status, r.last_status, r.last_error])).toEqual([
      ['failed', null, expect.stringMatching(/^could not connect/)],
      ['delivered', 200, 'refused: billing account suspended'],
      ['delivered', 200, null],
    ]);
    for (const note of ['refused: billing account suspended', 'could not connect', 'no answer within']) expect(guide.raw).toContain(note);
    await fetch(`${live.url}/organizations/webhooks/${vars.WEBHOOK_ID}`, { method: 'DELETE', headers: { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey } });
    await fetch(`${live.url}/organizations/config/token-template`, { method: 'PUT', headers: management, body: JSON.stringify({ content: '{}' }) });
  }, 60_000);
});

describe('the verifying endpoint of the sync hooks concept page', () => {
  it('adds its claims to a real token, and rejects calls meant for another target URL', async () => {
    const { live, apiKey } = local as LocalServer;
    const management = { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey, 'Content-Type': 'application/json' };
    const hookAt = async (hookUrl: string) => {
      const res = await fetch(`${live.url}/organizations/webhooks`, { method: 'POST', headers: management, body: JSON.stringify({ name: 'Concept sample', target_url: hookUrl, timeout: 3 }) });
      const id = ((await res.json()) as { result: { id: string } }).result.id;
      const trigger = await fetch(`${live.url}/organizations/webhooks/${id}/triggers`, { method: 'POST', headers: management, body: JSON.stringify({ trigger_type: 'sync_hook', trigger_name: 'token_minted' }) });
      expect(trigger.status).toBe(201);
      return id;
    };
    const anonymousClaims = async () => {
      const res = await fetch(`${live.url}/persons/anonymous`, { method: 'POST', headers: { 'Keyway-OrgID': live.orgId, 'Content-Type': 'application/json' }, body: '{}' });
      return claimsOf(((await res.json()) as { result: string }).result);
    };
    const remove = (id: string) => fetch(`${live.url}/organizations/webhooks/${id}`, { method: 'DELETE', headers: { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey } });

    // Registered at the URL it expects: its claims are in the token of a new (anonymous) person.
    const port = await freePort();
    const hookUrl = `http://localhost:${port}/keyway/claims`;
    Object.assign(process.env, { KEYWAY_ORG_ID: live.orgId, KEYWAY_API_KEY: apiKey, HOOK_URL: hookUrl, PORT: String(port) });
    await loadSample(concept, 'sync-hook-server.ts', live);
    const id = await hookAt(hookUrl);
    const claims = await anonymousClaims();
    expect(claims).toMatchObject({ plan: 'team', seats: 25, billing_account: `acct-for-${String(claims.person_id)}` });
    await remove(id);

    // Expecting another audience: it answers 401, which Keyway ignores; the token goes out without its claims.
    const otherPort = await freePort();
    Object.assign(process.env, { HOOK_URL: 'https://hooks.example.com/keyway/claims', PORT: String(otherPort) });
    await loadSample(concept, 'sync-hook-server.ts', live);
    const otherId = await hookAt(`http://localhost:${otherPort}/keyway/claims`);
    const plain = await anonymousClaims();
    expect(plain.person_id).toBeDefined();
    expect(plain.seats).toBeUndefined();
    const rows = (await query(live, "SELECT created_at, webhook_id, status, last_status, last_error FROM webhook_deliveries WHERE event_type = 'sync_hook:token_minted'")).filter((r) => r.webhook_id === otherId);
    expect(rows.map((r) => [r.status, r.last_status, r.last_error])).toEqual([['failed', 401, 'receiver answered 401: answer ignored']]);
    await remove(otherId);
    expect(concept.raw).toContain('audience: HOOK_URL');
  }, 60_000);
});
