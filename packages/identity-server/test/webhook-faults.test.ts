import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkg, startCli } from './cli-process.js';
import { decodeClaims } from './helpers.js';
import { receiver, until, type ReceiverAnswer } from './webhook-receiver.js';

// "Faults survived, nothing lost": a real identity server (dist/cli.js) delivers events to a local receiver that first
// fails (500), then hangs past the webhook's timeout; the server is killed (SIGKILL) with deliveries pending and in
// flight, and started again on the same data; the receiver recovers. Every event arrives (counted by its idempotency
// key), and the ones whose attempts ran out are read from the dead-letter list and replayed through the API.

const ORG = 'org_webhook_faults';
const HEADERS = { 'keyway-orgid': ORG, 'keyway-api-key': 'kw_dev_api_key_not_secret' };

interface Delivery {
  id: string;
  event_id: string;
  status: string;
  attempts: number;
}

describe('webhook deliveries survive a failing receiver and a killed server (dist/cli.js)', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'keyway-webhook-faults-'));
  const env = {
    KEYWAY_API_PORT: '0', KEYWAY_API_HOST: '127.0.0.1', DATA_DIR: dataDir, KEYWAY_ORG_ID: ORG, NODE_ENV: 'development', DATABASE_URL: '',
    // Retries in a fraction of a second instead of 10 s, 5 attempts, an attempt cut short by the crash due again 300 ms after its timeout.
    KEYWAY_WEBHOOK_RETRY_BASE_MS: '100', KEYWAY_WEBHOOK_MAX_ATTEMPTS: '5', KEYWAY_WEBHOOK_POLL_MS: '50', KEYWAY_WEBHOOK_CLAIM_MARGIN_MS: '300',
  };
  const cleanup: Array<() => Promise<void>> = [];
  beforeAll(() => {
    const built = spawnSync('npx', ['tsc', '-b'], { cwd: pkg, encoding: 'utf8' });
    expect(built.status, built.stdout + built.stderr).toBe(0);
  });
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses no event: retried, held across SIGKILL, dead letters replayed with their event id', async () => {
    let answer: ReceiverAnswer = 500;
    const rx = await receiver(() => answer);
    cleanup.push(rx.close);

    let server = startCli(env);
    cleanup.push(() => server.stop());
    let { url } = await server.ready;
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, body === undefined ? { method, headers: HEADERS } : { method, headers: { ...HEADERS, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = (await res.json()) as { result: unknown };
      expect(res.status, `${method} ${path}: ${JSON.stringify(json)}`).toBeLessThan(300);
      return json.result;
    };
    const hook = (await api('POST', '/organizations/webhooks', { name: 'Faulty receiver', target_url: rx.url, timeout: 1 })) as { id: string };
    await api('POST', `/organizations/webhooks/${hook.id}/triggers`, { trigger_type: 'event', trigger_name: 'Fault_v1' });
    const deliveries = async (status?: string) => (await api('GET', `/organizations/webhooks/${hook.id}/deliveries?limit=1000${status ? `&status=${status}` : ''}`)) as Delivery[];
    const emit = async (count: number) => ((await api('POST', '/test-events', [{ event_name: 'Fault_v1', count }])) as Array<{ event_id: string }>).map((e) => e.event_id);
    const emitted: string[] = [];

    const t0 = Date.now();
    // 1. The receiver answers 500: the first events run out of attempts and become dead letters.
    const doomed = await emit(5);
    emitted.push(...doomed);
    const dead = await until('five dead letters', async () => {
      const failed = await deliveries('failed');
      return failed.length === 5 ? failed : undefined;
    });
    expect(dead.every((d) => d.attempts === 5)).toBe(true);
    expect(rx.calls.filter((c) => c.answer === 500)).toHaveLength(25);

    // 2. The receiver hangs past the 1 s timeout; while attempts are in flight more events come, and the server is killed.
    answer = 'hang';
    emitted.push(...(await emit(5)));
    await until('five attempts hanging', () => (rx.calls.filter((c) => c.answer === 'hang').length >= 5 ? true : undefined));
    emitted.push(...(await emit(5)));
    const held = (await deliveries('pending')).length;
    expect(held).toBe(10);
    await server.kill();
    const killedAt = Date.now();

    // 3. Started again on the same data; the receiver recovers.
    answer = 200;
    server = startCli(env);
    ({ url } = await server.ready);
    const restartMs = Date.now() - killedAt;
    await until('every held delivery delivered', async () => ((await deliveries('delivered')).length === 10 ? true : undefined), 15_000);
    expect(await deliveries('pending')).toEqual([]);

    // 4. The dead letters, read from the list, are replayed through the API and arrive with their original event id.
    const letters = await deliveries('failed');
    expect(letters.map((d) => d.event_id).sort()).toEqual([...doomed].sort());
    for (const d of letters) expect(await api('POST', `/organizations/webhooks/${hook.id}/deliveries/${d.id}/replay`)).toMatchObject({ event_id: d.event_id, status: 'pending', attempts: 0 });
    await until('the replays delivered', async () => ((await deliveries('delivered')).length === 15 ? true : undefined));
    expect(await deliveries('failed')).toEqual([]);

    // What the receiver accepted: each event by its idempotency key, which is the id of the event it signed.
    const keys = rx.received.map((r) => {
      const key = r.headers['keyway-idempotency-key'] as string;
      expect((decodeClaims(r.body) as { event: { id: string } }).event.id).toBe(key);
      return key;
    });
    const delivered = new Set(keys);
    const lost = emitted.filter((id) => !delivered.has(id));
    expect(lost).toEqual([]);
    expect([...delivered].every((k) => emitted.includes(k))).toBe(true);
    console.log(
      `webhooks: ${emitted.length} emitted, ${delivered.size} delivered, ${lost.length} lost, ${letters.length} dead-lettered then replayed; ` +
        `${held} held across SIGKILL, ${keys.length - delivered.size} duplicates (same idempotency key), ${rx.calls.length - rx.received.length} failed or timed-out attempts; ` +
        `${Date.now() - t0} ms in all, ${restartMs} ms of it restarting the server`,
    );
  });
});
