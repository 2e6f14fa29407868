import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { contractApi } from './contract.js';
import { BACKENDS, decodeClaims, useTestServer } from './helpers.js';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

/** A loopback webhook receiver that records what it gets and answers with `status()`. */
async function receiver(status: () => number = () => 204) {
  const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const code = status();
      if (code < 300) received.push({ headers: req.headers, body });
      res.writeHead(code).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hook`, port, received, server, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

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
    const rx = await new Promise<Awaited<ReturnType<typeof receiver>>>((resolve) => {
      const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          calls++;
          if (calls === 1) return void res.writeHead(503).end();
          received.push({ headers: req.headers, body });
          res.writeHead(200).end();
        });
      });
      server.listen(port, '127.0.0.1', () => resolve({ url: '', port, received, server, close: () => new Promise<void>((r) => server.close(() => r())) }));
    });
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
});
