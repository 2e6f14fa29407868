import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, api, lastMessage, startTestServer, type TestServer } from './helpers.js';
import { pkg, startCli } from './cli-process.js';

// What an operator relies on: liveness, readiness (draining, database), metrics Prometheus scrapes, a SIGTERM that
// drains before it stops, and storage faults of a real process that answer 503 and heal by themselves.


describe.each(BACKENDS)('health, readiness and metrics (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(backend);
  });
  afterAll(() => t?.stop());

  it('readiness is 200 while the database answers; /metrics speaks Prometheus with requests by route, memory and the event loop', async () => {
    expect((await api(t)('GET', '/health/ready')).body.result).toEqual({ ready: true });
    // The first scrape starts the counting; the requests after it are counted by their route template.
    await fetch(`${t.url}/metrics`);
    await api(t)('POST', '/token/validate', { token: 'not-a-token' });
    const res = await fetch(`${t.url}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^keyway_http_requests_total\{method="POST",route="\/token\/validate",status="200"\} 1$/m);
    expect(text).toMatch(/^keyway_http_request_duration_seconds_count\{method="POST",route="\/token\/validate"\} 1$/m);
    expect(text).toMatch(/^keyway_process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^keyway_nodejs_eventloop_lag_p99_seconds [\d.e-]+$/m);
    expect(text).toMatch(/^keyway_revocations_in_memory\{kind="token"\} \d+$/m);
    expect(text).toMatch(/^keyway_draining 0$/m);
    expect(text).toMatch(/^# TYPE keyway_mail_outbox gauge$/m);
    expect(text).toMatch(/^# TYPE keyway_webhook_deliveries gauge$/m);
    if (backend === 'postgres') expect(text).toMatch(/^keyway_db_pool_connections\{state="max"\} 10$/m);
    else expect(text).not.toMatch(/keyway_db_pool/);
  });
});

describe('metrics access', () => {
  it('production serves /metrics only with KEYWAY_METRICS_TOKEN, and only to its bearer', async () => {
    const closed = await startTestServer('sqlite', { devMode: false });
    const guarded = await startTestServer('sqlite', { devMode: false, metricsToken: 'scrape-secret' });
    try {
      expect((await fetch(`${closed.url}/metrics`)).status).toBe(404);
      const anonymous = await fetch(`${guarded.url}/metrics`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="keyway-metrics"');
      expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } })).status).toBe(200);
    } finally {
      await closed.stop();
      await guarded.stop();
    }
  });
});

const json = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'keyway-orgid': 'org_keyway_dev' }, body: JSON.stringify(body) });

describe('a real process', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'keyway-ops-'));
  beforeAll(() => {
    const built = spawnSync('npx', ['tsc', '-b'], { cwd: pkg, encoding: 'utf8' });
    expect(built.status, built.stdout + built.stderr).toBe(0);
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('on SIGTERM drains (readiness 503 "draining", requests still served, connections closed), then exits 0', async () => {
    const cli = startCli({ KEYWAY_API_PORT: '0', KEYWAY_API_HOST: '127.0.0.1', DATA_DIR: join(dataDir, 'drain'), NODE_ENV: 'production', KEYWAY_API_KEY: 'k', KEYWAY_DRAIN_SECONDS: '2', DATABASE_URL: '' });
    const { url } = await cli.ready;
    expect((await fetch(`${url}/health/ready`)).status).toBe(200);
    const sent = Date.now();
    cli.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toBe('draining: this replica is shutting down and takes no new requests');
    // Still alive, still serving, but every answer asks the client to close its connection.
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const served = await json(`${url}/token/validate`, { token: 'x' });
    expect(served.status).toBe(200);
    expect(served.headers.get('connection')).toBe('close');
    expect(await cli.exited).toBe(0);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(2000);
    expect(cli.output()).toContain('draining for 2 s');
  });

  it.skipIf(spawnSync('prlimit', ['--version']).status !== 0)('SQLite that cannot write (file size limit, as a full disk): 503 with Retry-After, reads still work, writes heal when the limit goes, nothing corrupted', async () => {
    const dir = join(dataDir, 'full');
    const cli = startCli({ KEYWAY_API_PORT: '0', KEYWAY_API_HOST: '127.0.0.1', DATA_DIR: dir, NODE_ENV: 'development', DATABASE_URL: '' });
    try {
      const { url } = await cli.ready;
      const server = { url, orgId: 'org_keyway_dev' };
      const signIn = async (email: string) => {
        const id = await json(`${url}/id/v2`, { handle: email, factor: { method: 'otp_via_email' } });
        if (id.status !== 200) return id;
        const { code } = await lastMessage(server, email);
        const challenge = ((await id.json()) as { result: Array<{ id: string }> }).result[0]!.id;
        return json(`${url}/attestation/v3`, { challenge_id: challenge, challenge_type: 'otp', data: { otp: code } });
      };
      const before = await signIn('before-full@example.com');
      expect(before.status).toBe(200);
      const token = ((await before.json()) as { result: { token: string } }).result.token;

      // Every file this process writes may now hold 1 byte: each write SQLite makes fails (EFBIG), as on a full disk.
      expect(spawnSync('prlimit', ['--pid', String(cli.child.pid), '--fsize=1:unlimited']).status).toBe(0);
      const refused = await json(`${url}/id/v2`, { handle: 'while-full@example.com', factor: { method: 'otp_via_email' } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(((await refused.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toMatch(/^the database (cannot be written: the disk is full|file cannot be read or written \(SQLITE_[A-Z_]+\)).*: try again in a few seconds$/);
      // Reading goes on: a token signed before is still validated.
      expect(((await (await json(`${url}/token/validate`, { token })).json()) as { result: { valid: boolean } }).result.valid).toBe(true);

      expect(spawnSync('prlimit', ['--pid', String(cli.child.pid), '--fsize=unlimited:unlimited']).status).toBe(0);
      const after = await signIn('after-full@example.com');
      expect(after.status).toBe(200);
    } finally {
      cli.child.kill('SIGINT');
      await cli.exited;
    }
    // Nothing half-written: the file is sound and holds both sign-ins, and not the refused one.
    const db = new Database(join(dir, 'identity.sqlite'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const handles = (db.prepare("select value from handles where value like '%-full@example.com' order by value").all() as Array<{ value: string }>).map((r) => r.value);
      expect(handles).toEqual(['after-full@example.com', 'before-full@example.com']);
    } finally {
      db.close();
    }
  });
});
