import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freshStorage, type TestStorage } from '@keyway/identity-server/testing';
import { freePort, startCluster } from '../cluster.mjs';

// Faults an operator meets, injected against real processes: three identity-server processes on one PostgreSQL behind
// the development balancer (scripts/cluster.mjs, what `npm run start:cluster` runs), under a steady load of sign-ins
// and token validations. Each test prints what was held and what was lost.
//
// CLUSTER_CLI (an earlier build's dist/cli.js) and CLUSTER_READINESS (its health path, e.g. /health) run the same
// faults against that build: how the closing note of #38 measured "before".

const ORG = 'org_keyway_dev';
const KEY = 'kw_dev_api_key_not_secret';
const SKIP = process.env.TEST_DATABASE_URL ? undefined : 'TEST_DATABASE_URL is unset';
/** nginx (Debian's nginx-light, which .ci/run installs) runs the example configuration of deploy/nginx. */
const NGINX = spawnSync('nginx', ['-v']).status === 0;

/**
 * nginx with deploy/nginx/keyway.conf as printed, its replica addresses and listening port set to this cluster's, in
 * a scratch prefix (pid, logs and temporary files there).
 */
async function startNginx(replicas: string[]): Promise<{ url: string; take(i: number, out: boolean): Promise<void>; stop(): Promise<void> }> {
  const prefix = mkdtempSync(path.join(tmpdir(), 'keyway-nginx-'));
  const port = await freePort();
  const example = readFileSync(path.join(import.meta.dirname, '../../deploy/nginx/keyway.conf'), 'utf8');
  let i = 0;
  const site = example.replace(/server 127\.0\.0\.1:880\d/g, () => `server ${new URL(replicas[i++]!).host}`).replace('listen 8080;', `listen 127.0.0.1:${port};`);
  expect(i, 'the example names three replicas').toBe(3);
  writeFileSync(path.join(prefix, 'keyway.conf'), site);
  const conf = path.join(prefix, 'nginx.conf');
  writeFileSync(
    path.join(prefix, 'nginx.conf'),
    `pid ${prefix}/nginx.pid;\nerror_log ${prefix}/error.log;\nworker_processes 1;\nevents { worker_connections 256; }\nhttp {\n  access_log off;\n  client_body_temp_path ${prefix}/body;\n  proxy_temp_path ${prefix}/proxy;\n  include ${prefix}/keyway.conf;\n}\n`,
  );
  const child: ChildProcess = spawn('nginx', ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = `http://127.0.0.1:${port}`;
  freshBases.add(url);
  for (let tries = 0; ; tries++) {
    if ((await fetch(`${url}/health`).catch(() => undefined))?.ok) break;
    if (tries > 100) throw new Error(`nginx did not start: ${readFileSync(path.join(prefix, 'error.log'), 'utf8')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    /**
     * What an operator does before restarting a replica behind open-source nginx (no active health checks): mark it
     * `down` and reload (new workers take the new list; the old ones finish their requests), then bring it back.
     */
    async take(i: number, out: boolean) {
      const host = new URL(replicas[i]!).host;
      const current = readFileSync(path.join(prefix, 'keyway.conf'), 'utf8');
      writeFileSync(path.join(prefix, 'keyway.conf'), current.replace(new RegExp(`server ${host}( down)?`), `server ${host}${out ? ' down' : ''}`));
      expect(spawnSync('nginx', ['-p', prefix, '-c', conf, '-s', 'reload']).status).toBe(0);
      await new Promise((r) => setTimeout(r, 300));
    },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGQUIT');
      await exited;
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}

/** A TCP relay in front of PostgreSQL: `cut()` is the database going away (connections dropped, new ones refused). */
async function databaseRelay(target: URL): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const port = await freePort();
  let server: net.Server | undefined;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => (s === client ? upstream : client).destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const cut = async () => {
    await new Promise<void>((resolve) => {
      server?.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  };
  await listen();
  return { port, cut, restore: listen, close: cut };
}

/**
 * Clients of nginx open a connection per request: reloading nginx (to take a replica out) closes its idle kept-alive
 * client connections, and a request sent on one as it closes fails on the client's side, whatever the replicas do.
 */
const fresh = new Agent({ pipelining: 0 });
const freshBases = new Set<string>();

interface Tally {
  ok: number;
  failed: Array<{ what: string; status: number | string }>;
  /** Acknowledged sign-ins: the person each token names, to look for afterwards. */
  persons: string[];
  tokens: string[];
}

/** A JSON call at the balancer (or a replica); an answer that is not 2xx, or no answer, counts as a failure. */
async function call(base: string, tally: Tally | undefined, what: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  try {
    const res = await fetch(base + path, { ...(freshBases.has(base) ? { dispatcher: fresh } : {}), method, headers: { 'keyway-orgid': ORG, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const json = (await res.json().catch(() => ({}))) as any;
    if (res.ok) tally && tally.ok++;
    else tally?.failed.push({ what, status: `${res.status} ${json?.errors?.[0]?.message ?? ''}` });
    return res.ok ? json : undefined;
  } catch (err) {
    tally?.failed.push({ what, status: String((err as Error).cause ?? err) });
    return undefined;
  }
}

/** One e-mail-code sign-in (3 calls), then three validations of its token. */
async function signInAndValidate(base: string, tally: Tally, email: string): Promise<void> {
  const id = await call(base, tally, 'POST /id/v2', 'POST', '/id/v2', { handle: email, factor: { method: 'otp_via_email' } });
  if (!id) return;
  const mail = await call(base, tally, 'GET /dev/mailbox.json', 'GET', `/dev/mailbox.json?to=${encodeURIComponent(email)}&limit=1`);
  const code = mail?.result?.[0]?.code as string | undefined;
  if (!code) return;
  const att = await call(base, tally, 'POST /attestation/v3', 'POST', '/attestation/v3', { challenge_id: id.result[0].id, challenge_type: 'otp', data: { otp: code } });
  const token = att?.result?.token as string | undefined;
  if (!token) return;
  tally.tokens.push(token);
  tally.persons.push(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).person_id as string);
  for (let i = 0; i < 3; i++) {
    const v = await call(base, tally, 'POST /token/validate', 'POST', '/token/validate', { token });
    if (v && v.result?.valid !== true) tally.failed.push({ what: 'POST /token/validate', status: `valid: ${v.result?.valid}` });
  }
}

/** `workers` loops of sign-ins and validations until `stop()`; answers the tally. */
function steadyLoad(base: string, workers: number, prefix: string): { stop(): Promise<Tally> } {
  const tally: Tally = { ok: 0, failed: [], persons: [], tokens: [] };
  let running = true;
  let n = 0;
  const loops = Array.from({ length: workers }, async () => {
    while (running) await signInAndValidate(base, tally, `${prefix}-${n++}@example.com`);
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return tally;
    },
  };
}

/** Every acknowledged sign-in's person is there, and every token it got still validates. Answers what is missing. */
async function lost(base: string, tally: Tally): Promise<string[]> {
  const missing: string[] = [];
  for (const person of tally.persons) {
    const res = await fetch(`${base}/persons/${person}`, { headers: { 'keyway-api-key': KEY } });
    if (res.status !== 200) missing.push(`person ${person}: ${res.status}`);
  }
  for (const token of tally.tokens) {
    const res = await call(base, undefined, '', 'POST', '/token/validate', { token });
    if (res?.result?.valid !== true) missing.push(`token of ${token.slice(-8)}: ${JSON.stringify(res?.result)}`);
  }
  return missing;
}

describe.skipIf(SKIP !== undefined)(`three identity-server processes behind the balancer${SKIP ? ` (skipped: ${SKIP})` : ''}`, () => {
  let storage: TestStorage;
  let relay: Awaited<ReturnType<typeof databaseRelay>>;
  let cluster: Awaited<ReturnType<typeof startCluster>>;
  const output: string[] = [];

  beforeAll(async () => {
    storage = await freshStorage('postgres');
    // Every replica reaches PostgreSQL through the relay, so the test can take the database away.
    const url = new URL(storage.databaseUrl!);
    relay = await databaseRelay(new URL(url));
    url.hostname = '127.0.0.1';
    url.port = String(relay.port);
    const balancerPort = await freePort();
    cluster = await startCluster({
      replicas: 3,
      balancerPort,
      publicUrl: `http://127.0.0.1:${balancerPort}`,
      env: {
        DATABASE_URL: url.toString(),
        DATA_DIR: storage.dataDir,
        KEYWAY_SECRETS_KEY: randomBytes(32).toString('hex'),
        NODE_ENV: 'development',
        KEYWAY_TRUST_PROXY: 'loopback',
        KEYWAY_DRAIN_SECONDS: '1',
        KEYWAY_RATE_LIMIT_PER_IP: '0',
        KEYWAY_RATE_LIMIT_PER_HANDLE: '0',
      },
      ...(process.env.CLUSTER_CLI ? { cli: process.env.CLUSTER_CLI, readinessPath: process.env.CLUSTER_READINESS ?? '/health' } : {}),
      output: (name: string, text: string) => (process.env.CLUSTER_OUTPUT ? process.stdout.write(`[${name}] ${text}`) : output.push(`[${name}] ${text}`.replace(/\n(?=.)/g, `\n[${name}] `))),
    });
  }, 60_000);
  // The replicas' output since the previous test, shown when a test fails (CLUSTER_OUTPUT=1 shows it as it comes).
  afterEach(({ task }) => {
    if (task.result?.state === 'fail') console.log(output.join('').slice(-20_000));
    output.length = 0;
  });
  afterAll(async () => {
    await cluster?.stop();
    await relay?.close();
    await storage?.cleanup();
  });

  it(`a rolling restart under steady load (SIGTERM to each replica in turn) fails no request and loses no write, through the development balancer${NGINX ? ' and through nginx with deploy/nginx/keyway.conf' : ' (nginx is not installed: its half is skipped)'}`, async () => {
    const nginx = NGINX ? await startNginx(cluster.replicas.map((r: { url: string }) => r.url)) : undefined;
    try {
      const loads = [{ name: 'balancer', load: steadyLoad(cluster.url, 3, 'rolling') }, ...(nginx ? [{ name: 'nginx', load: steadyLoad(nginx.url, 2, 'rolling-nginx') }] : [])];
      await new Promise((r) => setTimeout(r, 500));
      const exits: string[] = [];
      await cluster.rollingRestart({
        beforeRestart: (i: number) => nginx?.take(i, true),
        onRestarted: async (name: string, exit: { code: number | null; signal: string | null }, i: number) => {
          exits.push(`${name}: exit ${exit.code ?? exit.signal}`);
          await nginx?.take(i, false);
        },
      });
      await new Promise((r) => setTimeout(r, 500));
      // Each replica drained and stopped by itself (exit code 0), not killed.
      expect(exits).toEqual(['identity-1: exit 0', 'identity-2: exit 0', 'identity-3: exit 0']);
      for (const { name, load } of loads) {
        const tally = await load.stop();
        const missing = await lost(cluster.url, tally);
        console.log(`rolling restart through the ${name}: ${tally.ok} requests answered, ${tally.failed.length} failed; ${tally.persons.length} sign-ins acknowledged, ${missing.length} lost`);
        expect(tally.failed, name).toEqual([]);
        expect(tally.persons.length, name).toBeGreaterThan(10);
        expect(missing, name).toEqual([]);
      }
    } finally {
      await nginx?.stop();
    }
  }, 120_000);

  it('a replica killed (kill -9) between /id and /attestation: the person finishes signing in on another one', async () => {
    const [a, b, c] = cluster.replicas as Array<{ url: string }>;
    const email = 'killed-mid-flow@example.com';
    const id = await call(a!.url, undefined, '', 'POST', '/id/v2', { handle: email, factor: { method: 'otp_via_email' } });
    const code = (await call(b!.url, undefined, '', 'GET', `/dev/mailbox.json?to=${encodeURIComponent(email)}&limit=1`)).result[0].code as string;
    await cluster.kill(0);
    const att = await call(b!.url, undefined, '', 'POST', '/attestation/v3', { challenge_id: id.result[0].id, challenge_type: 'otp', data: { otp: code } });
    expect(att?.result?.token, 'the sign-in could not be finished on another replica').toBeTypeOf('string');
    expect((await call(c!.url, undefined, '', 'POST', '/token/validate', { token: att.result.token })).result.valid).toBe(true);
    // The code was used once: a replay on the third replica is refused.
    const replay = await fetch(`${c!.url}/attestation/v3`, { method: 'POST', headers: { 'keyway-orgid': ORG, 'content-type': 'application/json' }, body: JSON.stringify({ challenge_id: id.result[0].id, challenge_type: 'otp', data: { otp: code } }) });
    expect(replay.status).toBe(401);
    // The killed replica is started again (as an orchestrator would) and serves.
    await cluster.ready(0);
    expect((await call(a!.url, undefined, '', 'POST', '/token/validate', { token: att.result.token })).result.valid).toBe(true);
  }, 60_000);

  it('PostgreSQL goes away: requests answer 503 with Retry-After at once; when it is back every replica serves again by itself', async () => {
    const before = steadyLoad(cluster.url, 2, 'before-outage');
    await new Promise((r) => setTimeout(r, 1000));
    const acknowledged = await before.stop();
    const pids = cluster.replicas.map((r: { pid: number }) => r.pid);

    await relay.cut();
    const started = Date.now();
    const answers = await Promise.all(
      cluster.replicas.map(async (r: { url: string }) => {
        const res = await fetch(`${r.url}/id/v2`, { method: 'POST', headers: { 'keyway-orgid': ORG, 'content-type': 'application/json' }, body: JSON.stringify({ handle: 'outage@example.com', factor: { method: 'otp_via_email' } }) });
        return { status: res.status, retryAfter: res.headers.get('retry-after'), message: ((await res.json()) as any).errors?.[0]?.message as string };
      }),
    );
    const took = Date.now() - started;
    for (const a of answers) {
      expect(a.status).toBe(503);
      expect(a.retryAfter).toBe('5');
      expect(a.message).toMatch(/^the database is unavailable \(.+\): try again in a few seconds$/);
    }
    // Readiness tells the balancer (and an orchestrator) why, once its cached answer (half a second) is renewed.
    let ready: Response;
    for (const asked = Date.now(); ; ) {
      ready = await fetch(`${cluster.replicas[0].url}/health/ready`);
      if (ready.status === 503 || Date.now() - asked > 2000) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as any).errors[0].message).toMatch(/database/);

    await relay.restore();
    const back = Date.now();
    // Within seconds every replica answers again: the same processes, no restart.
    for (const r of cluster.replicas as Array<{ url: string }>) {
      for (;;) {
        const ok = await call(r.url, undefined, '', 'POST', '/id/v2', { handle: 'after-outage@example.com', factor: { method: 'otp_via_email' } });
        if (ok) break;
        expect(Date.now() - back, `${r.url} did not recover`).toBeLessThan(10_000);
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    const recovered = Date.now() - back;
    expect(cluster.replicas.map((r: { pid: number }) => r.pid)).toEqual(pids);
    const after = steadyLoad(cluster.url, 2, 'after-outage');
    await new Promise((r) => setTimeout(r, 1000));
    const tally = await after.stop();
    const missing = await lost(cluster.url, acknowledged);
    console.log(`database outage: 3 replicas answered 503 + Retry-After within ${took} ms; all serving again ${recovered} ms after the database returned, without a restart; ${acknowledged.persons.length} sign-ins acknowledged before, ${missing.length} lost; ${tally.failed.length} failures after`);
    expect(took).toBeLessThan(6000);
    expect(missing).toEqual([]);
    expect(tally.failed).toEqual([]);
    expect(tally.persons.length).toBeGreaterThan(0);
  }, 60_000);
});
