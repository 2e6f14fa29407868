import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { contractApi } from './contract.js';
import { BACKENDS, decodeClaims, signInWithEmail, useTestServer } from './helpers.js';
import { receiver, until } from './webhook-receiver.js';
import { retryDelay } from '../src/webhooks/service.js';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

describe.each(BACKENDS)('webhooks (%s)', (backend) => {
  const t = useTestServer(backend, { webhooks: { retryBaseMs: 40, maxAttempts: 4, pollMs: 30 } });
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of closers) await c();
  });

  it('manages webhooks and triggers', async () => {
    const call = contractApi(t.server);
    const created = await call('POST', '/organizations/webhooks', { name: 'Audit', target_url: 'https://audit.example.com/hook', custom_headers: { 'X-Team': ['identity'] } }, KEY);
    expect(created.status).toBe(201);
    const id = created.body.result.id as string;
    expect(created.body.result).toMatchObject({ name: 'Audit', timeout: '10s', custom_headers: { 'X-Team': ['identity'] } });
    expect((await call('POST', '/organizations/webhooks', { name: 'Plain', target_url: 'http://audit.example.com/hook' }, KEY)).status).toBe(400);
    expect((await call('POST', '/organizations/webhooks', { name: 'Sneaky', target_url: 'https://a.example.com/', custom_headers: { 'Content-Type': ['text/plain'] } }, KEY)).body.errors[0].message).toBe('custom_headers: "Content-Type" is set by Keyway and cannot be overridden');
    expect((await call('POST', '/organizations/webhooks', { name: 'Sneaky', target_url: 'https://a.example.com/', custom_headers: { 'Keyway-Idempotency-Key': ['fixed'] } }, KEY)).body.errors[0].message).toBe('custom_headers: "Keyway-Idempotency-Key" is set by Keyway and cannot be overridden');
    expect((await call('PATCH', `/organizations/webhooks/${id}`, { timeout: 20 }, KEY)).body.result.timeout).toBe('20s');
    expect((await call('GET', `/organizations/webhooks/${id}`, undefined, KEY)).body.result.timeout).toBe('20s');
    expect((await call('GET', '/organizations/webhooks', undefined, KEY)).body.result.map((w: { id: string }) => w.id)).toContain(id);

    const trigger = { trigger_type: 'event', trigger_name: 'PersonCreated_v1' };
    expect((await call('POST', `/organizations/webhooks/${id}/triggers`, trigger, KEY)).status).toBe(201);
    expect((await call('POST', `/organizations/webhooks/${id}/triggers`, trigger, KEY)).status).toBe(409);
    expect((await call('GET', `/organizations/webhooks/${id}/triggers`, undefined, KEY)).body.result).toEqual([trigger]);
    expect((await call('DELETE', `/organizations/webhooks/${id}/triggers`, trigger, KEY)).status).toBe(204);
    expect((await call('DELETE', `/organizations/webhooks/${id}/triggers`, trigger, KEY)).status).toBe(404);
    expect((await call('DELETE', `/organizations/webhooks/${id}`, undefined, KEY)).status).toBe(204);
    expect((await call('GET', `/organizations/webhooks/${id}`, undefined, KEY)).status).toBe(404);
  });

  it('signs deliveries with the published keys (loopback receiver)', async () => {
    const call = contractApi(t.server);
    const rx = await receiver();
    closers.push(rx.close);
    const hook = await call('POST', '/organizations/webhooks', { name: 'Local', target_url: rx.url, custom_headers: { 'X-Team': ['identity', 'audit'] } }, KEY);
    const id = hook.body.result.id as string;
    await call('POST', `/organizations/webhooks/${id}/triggers`, { trigger_type: 'event', trigger_name: 'PersonCreated_v1' }, KEY);
    await call('POST', `/organizations/webhooks/${id}/triggers`, { trigger_type: 'event', trigger_name: 'OrderShipped_v1' }, KEY);
    const person = await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'hooked@example.com' }] }, KEY);
    const generated = await call('POST', '/test-events', [{ event_name: 'OrderShipped_v1', count: 2, analytics_correlation_id: 'corr-7' }, { event_name: 'NobodyListens_v1' }], KEY);
    expect(generated.status).toBe(201);
    // The document's answer: one object per generated event, delivered or not.
    const list = generated.body.result as Array<{ event_id: string; event_name: string; organization_id: string; timestamp: string }>;
    expect(list.map((e) => e.event_name)).toEqual(['OrderShipped_v1', 'OrderShipped_v1', 'NobodyListens_v1']);
    expect(list.every((e) => e.organization_id === t.server.orgId && !Number.isNaN(Date.parse(e.timestamp)))).toBe(true);
    expect(new Set(list.map((e) => e.event_id)).size).toBe(3);

    await until('three deliveries', () => (rx.received.length >= 3 ? true : undefined));
    const jwks = createLocalJWKSet((await call('GET', '/organizations/webhooks/verification-jwks', undefined, KEY)).body as unknown as JSONWebKeySet); // the bare key set, as the public document answers it
    const payloads = [];
    for (const r of rx.received) {
      expect(r.headers['content-type']).toBe('application/jwt');
      expect(r.headers['x-team']).toBe('identity, audit');
      expect(r.headers['keyway-webhook-id']).toBe(id);
      const { payload } = await jwtVerify(r.body, jwks, { issuer: t.server.url, audience: rx.url });
      // The idempotency key is the event id of the signed payload.
      expect(r.headers['keyway-idempotency-key']).toBe((payload as { event: { id: string } }).event.id);
      payloads.push(payload as { event: { type: string; test: boolean; data: Record<string, unknown>; org_id: string } });
    }
    const created = payloads.find((p) => p.event.type === 'PersonCreated_v1')!;
    expect(created.event).toMatchObject({ org_id: t.server.orgId, test: false, data: { person_id: person.body.result.person_id, source: 'management' } });
    const shipped = payloads.filter((p) => p.event.type === 'OrderShipped_v1');
    expect(shipped.map((p) => p.event.test)).toEqual([true, true]);
    // Each delivery carries the id the answer gave, and the correlation id asked for.
    expect(shipped.map((p) => (p.event as unknown as { id: string }).id).sort()).toEqual(list.slice(0, 2).map((e) => e.event_id).sort());
    expect(shipped.every((p) => p.event.data.analytics_correlation_id === 'corr-7')).toBe(true);
    // A tampered payload does not verify.
    const [h, p, s] = rx.received[0]!.body.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...decodeClaims(rx.received[0]!.body), event: { type: 'Forged' } })).toString('base64url')}.${s}`;
    await expect(jwtVerify(forged, jwks)).rejects.toThrow(/signature/);
    void p;
  });

  it('retries with backoff while the receiver is down or failing, and loses nothing', async () => {
    const call = contractApi(t.server);
    // A port with nobody listening: take one, then close it.
    const probe = await receiver();
    const port = probe.port;
    await probe.close();
    const hook = await call('POST', '/organizations/webhooks', { name: 'Flaky', target_url: `http://127.0.0.1:${port}/hook`, timeout: 2 }, KEY);
    const id = hook.body.result.id as string;
    await call('POST', `/organizations/webhooks/${id}/triggers`, { trigger_type: 'event', trigger_name: 'Batch_v1' }, KEY);
    await call('POST', '/test-events', [{ event_name: 'Batch_v1', count: 5 }], KEY);
    const deliveries = () => t.server.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', id).execute();
    await until('two failed attempts each', async () => ((await deliveries()).every((d) => d.attempts >= 2) ? true : undefined));
    const waiting = await deliveries();
    expect(waiting).toHaveLength(5);
    expect(waiting.every((d) => d.status === 'pending' && /^could not connect/.test(d.last_error ?? ''))).toBe(true);

    // The receiver comes back on the same port, first answering 503 once, then 200: every event arrives exactly once.
    let calls = 0;
    const rx = await receiver(() => (++calls === 1 ? 503 : 200), port);
    closers.push(rx.close);
    await until('all five delivered', async () => ((await deliveries()).every((d) => d.status === 'delivered') ? true : undefined));
    const ids = rx.received.map((r) => r.headers['keyway-delivery-id']);
    expect(new Set(ids).size).toBe(5);
    expect(ids).toHaveLength(5);
    const rows = await deliveries();
    expect(rows.some((d) => d.last_status === 200 && d.attempts >= 3)).toBe(true);
  });

  it('records a delivery as failed once the attempts run out', async () => {
    const call = contractApi(t.server);
    const rx = await receiver(() => 500);
    closers.push(rx.close);
    const hook = await call('POST', '/organizations/webhooks', { name: 'Broken', target_url: rx.url }, KEY);
    await call('POST', `/organizations/webhooks/${hook.body.result.id}/triggers`, { trigger_type: 'event', trigger_name: 'Doomed_v1' }, KEY);
    await call('POST', '/test-events', [{ event_name: 'Doomed_v1' }], KEY);
    const row = await until('the failure', async () => {
      const d = await t.server.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.body.result.id).executeTakeFirst();
      return d?.status === 'failed' ? d : undefined;
    });
    expect(row).toMatchObject({ attempts: 4, last_status: 500, last_error: 'receiver answered 500' });
  });

  it('keeps the dead letters of a webhook and replays them with the same event id', async () => {
    const call = contractApi(t.server);
    let answer = 500;
    const rx = await receiver(() => answer);
    closers.push(rx.close);
    const hook = await call('POST', '/organizations/webhooks', { name: 'Dead letters', target_url: rx.url }, KEY);
    const id = hook.body.result.id as string;
    await call('POST', `/organizations/webhooks/${id}/triggers`, { trigger_type: 'event', trigger_name: 'Lost_v1' }, KEY);
    const events = (await call('POST', '/test-events', [{ event_name: 'Lost_v1', count: 2 }], KEY)).body.result as Array<{ event_id: string }>;
    const list = (query = '') => call('GET', `/organizations/webhooks/${id}/deliveries${query}`, undefined, KEY);
    const dead = await until('two dead letters', async () => {
      const page = await list('?status=failed');
      return page.body.result.length === 2 ? page : undefined;
    });
    expect(dead.status).toBe(200);
    expect(dead.body.meta.pagination).toEqual({ limit: 100, offset: 0, total_count: 2 });
    const letters = dead.body.result as Array<{ id: string; event_id: string; event_type: string; status: string; attempts: number; last_status: number; last_error: string }>;
    expect(letters.map((d) => d.event_id).sort()).toEqual(events.map((e) => e.event_id).sort());
    for (const d of letters) expect(d).toMatchObject({ webhook_id: id, event_type: 'Lost_v1', status: 'failed', attempts: 4, last_status: 500, last_error: 'receiver answered 500' });
    // Every attempt of an event carried its event id as the idempotency key.
    expect(rx.calls).toHaveLength(8);
    for (const e of events) expect(rx.calls.filter((c) => c.headers['keyway-idempotency-key'] === e.event_id)).toHaveLength(4);
    expect((await list('?status=delivered')).body.result).toEqual([]);
    const first = await list('?limit=1');
    expect(first.body.result).toHaveLength(1);
    expect(first.body.meta.cursor_pagination.cursor).not.toBe('');
    expect((await list(`?limit=1&cursor=${first.body.meta.cursor_pagination.cursor}`)).body.result[0].id).not.toBe(first.body.result[0].id);
    const bad = await list('?status=lost');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toMatch(/status/);

    // A sync hook call recorded for the webhook is neither listed nor replayed.
    await t.server.db.insertInto('webhook_deliveries').values({ id: 'sync-call-1', webhook_id: id, org_id: t.server.orgId, event_type: 'sync_hook:token_minted', event: '{}', status: 'failed', attempts: 1, next_attempt_at: new Date().toISOString(), last_status: 500, last_error: 'receiver answered 500: answer ignored', created_at: new Date().toISOString(), delivered_at: null }).execute();
    expect((await list()).body.result.map((d: { id: string }) => d.id)).not.toContain('sync-call-1');
    const syncReplay = await call('POST', `/organizations/webhooks/${id}/deliveries/sync-call-1/replay`, undefined, KEY);
    expect(syncReplay.status).toBe(409);
    expect(syncReplay.body.errors[0].message).toBe('delivery "sync-call-1" is a sync hook call: only event deliveries are replayed');

    // Unknown, of another webhook, or of another organization: 404.
    const other = await call('POST', '/organizations/webhooks', { name: 'Other', target_url: rx.url }, KEY);
    expect((await call('POST', `/organizations/webhooks/${id}/deliveries/no-such-delivery/replay`, undefined, KEY)).body.errors[0].message).toBe(`webhook "${id}" has no delivery "no-such-delivery"`);
    expect((await call('POST', `/organizations/webhooks/${other.body.result.id}/deliveries/${letters[0]!.id}/replay`, undefined, KEY)).status).toBe(404);
    const sub = await call('POST', '/organizations/suborganizations', { org_name: `Webhooks ${backend}` }, KEY);
    const subKey = { org: sub.body.result.id, headers: { 'keyway-api-key': sub.body.result.api_key } };
    expect((await call('GET', `/organizations/webhooks/${id}/deliveries`, undefined, subKey)).status).toBe(404);
    expect((await call('POST', `/organizations/webhooks/${id}/deliveries/${letters[0]!.id}/replay`, undefined, subKey)).status).toBe(404);

    // The receiver recovers; a replay queues the dead letter again and it arrives with its original event id.
    answer = 200;
    const replayed = await call('POST', `/organizations/webhooks/${id}/deliveries/${letters[0]!.id}/replay`, undefined, KEY);
    expect(replayed.status).toBe(200);
    expect(replayed.body.result).toMatchObject({ id: letters[0]!.id, event_id: letters[0]!.event_id, status: 'pending', attempts: 0 });
    const again = await call('POST', `/organizations/webhooks/${id}/deliveries/${letters[0]!.id}/replay`, undefined, KEY);
    expect(again.status).toBe(409);
    expect(again.body.errors[0].message).toMatch(new RegExp(`^delivery "${letters[0]!.id}" is (pending|delivered): only failed deliveries are replayed$`));
    // The receiver has the request before the server records its answer: wait for the record.
    const delivered = await until('the replay delivered', async () => {
      const page = (await list('?status=delivered')).body.result;
      return page.length === 1 ? page : undefined;
    });
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0]!.headers['keyway-idempotency-key']).toBe(letters[0]!.event_id);
    expect(decodeClaims(rx.received[0]!.body)).toMatchObject({ delivery_id: letters[0]!.id, attempt: 1, event: { id: letters[0]!.event_id, type: 'Lost_v1' } });
    expect(delivered[0]).toMatchObject({ id: letters[0]!.id, attempts: 1, last_status: 200 });
    expect(delivered[0].last_error).toBeUndefined();
    expect((await call('POST', `/organizations/webhooks/${id}/deliveries/${letters[0]!.id}/replay`, undefined, KEY)).body.errors[0].message).toBe(`delivery "${letters[0]!.id}" is delivered: only failed deliveries are replayed`);
    expect((await list('?status=failed')).body.result.map((d: { id: string }) => d.id)).toEqual([letters[1]!.id]);
  });

  it('never makes a sign-in wait for a slow receiver', async () => {
    const call = contractApi(t.server);
    const rx = await receiver(() => 'hang');
    closers.push(rx.close);
    const hook = await call('POST', '/organizations/webhooks', { name: 'Slow', target_url: rx.url, timeout: 5 }, KEY);
    const id = hook.body.result.id as string;
    await call('POST', `/organizations/webhooks/${id}/triggers`, { trigger_type: 'event', trigger_name: 'AuthenticationSucceeded_v1' }, KEY);
    await call('POST', `/organizations/webhooks/${id}/triggers`, { trigger_type: 'event', trigger_name: 'PersonCreated_v1' }, KEY);
    const started = Date.now();
    const token = await signInWithEmail(t.server, `slow-receiver-${backend}@example.com`);
    const took = Date.now() - started;
    expect(decodeClaims(token).person_id).toMatch(/^pid:/);
    // The receiver holds the connection for the whole 5 s timeout; the sign-in did not wait for it.
    expect(took).toBeLessThan(2500);
    await until('the receiver reached', () => (rx.calls.length >= 1 ? true : undefined));
    const pending = (await call('GET', `/organizations/webhooks/${id}/deliveries?status=pending`, undefined, KEY)).body.result as Array<{ event_type: string }>;
    expect(pending.map((d) => d.event_type).sort()).toEqual(['AuthenticationSucceeded_v1', 'PersonCreated_v1']);
  });

  it("a receiver that hangs holds back no other webhook's deliveries", async () => {
    const call = contractApi(t.server);
    const stuck = await receiver(() => 'hang');
    const healthy = await receiver(() => 200);
    closers.push(stuck.close, healthy.close);
    const hook = async (name: string, url: string) => {
      const id = (await call('POST', '/organizations/webhooks', { name, target_url: url, timeout: 5 }, KEY)).body.result.id as string;
      await call('POST', `/organizations/webhooks/${id}/triggers`, { trigger_type: 'event', trigger_name: `${name}_v1` }, KEY);
    };
    await hook('Stuck', stuck.url);
    await hook('Healthy', healthy.url);
    await call('POST', '/test-events', [{ event_name: 'Stuck_v1', count: 3 }], KEY);
    await until('the stuck receiver holding its deliveries', () => (stuck.calls.length >= 3 ? true : undefined));
    // While those three wait out their 5 s timeout, events for the other webhook go out at once.
    const started = Date.now();
    await call('POST', '/test-events', [{ event_name: 'Healthy_v1', count: 2 }], KEY);
    await until('the healthy receiver served', () => (healthy.received.length >= 2 ? true : undefined));
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('webhook retry delay', () => {
  it('doubles per failed attempt with equal jitter: between half and all of the backoff, at most an hour', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(1000, n, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((n) => retryDelay(1000, n, () => 0.999_999))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelay(10_000, 30, () => 1 - Number.EPSILON)).toBe(3_600_000);
    expect(retryDelay(10_000, 30, () => 0)).toBe(1_800_000);
    // Real randomness spreads deliveries that failed together.
    const delays = Array.from({ length: 50 }, () => retryDelay(1000, 3));
    expect(delays.every((d) => d >= 2000 && d <= 4000)).toBe(true);
    expect(new Set(delays).size).toBeGreaterThan(10);
  });
});
