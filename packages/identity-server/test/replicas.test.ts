import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastMessage } from './helpers.js';
import { REPLICAS_SKIP_REASON, startReplicas, within, type Replicas } from './replicas.js';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

if (REPLICAS_SKIP_REASON) console.warn(`test/replicas.test.ts: ${REPLICAS_SKIP_REASON}`);

// Three identity servers on one PostgreSQL schema behave as one server (issue #23). Each test talks to the
// replicas directly, the way a round-robin balancer would spread one client's calls.
describe.skipIf(REPLICAS_SKIP_REASON !== undefined)(`three replicas on one PostgreSQL${REPLICAS_SKIP_REASON ? ` (${REPLICAS_SKIP_REASON})` : ''}`, () => {
  let r: Replicas;
  beforeAll(async () => {
    r = await startReplicas(3, { limits: { perIpPerMinute: 0, perHandlePerMinute: 0 }, webhooks: { retryBaseMs: 40, maxAttempts: 4, pollMs: 30 } });
  });
  afterAll(() => r?.stop());

  it('a sign-in started on one replica is finished on another, and its token works on the third', async () => {
    const [a, b, c] = r.calls as [Replicas['calls'][0], Replicas['calls'][0], Replicas['calls'][0]];
    const id = await a('POST', '/id/v2', { handle: 'roaming@example.com', factor: { method: 'otp_via_email' } });
    expect(id.status).toBe(200);
    const { code } = await lastMessage(r.servers[2]!, 'roaming@example.com');
    const att = await b('POST', '/attestation/v3', { challenge_id: id.body.result[0].id, challenge_type: 'otp', data: { otp: code } });
    expect(att.status).toBe(200);
    const me = await c('GET', '/me', undefined, { token: att.body.result.token });
    expect(me.status).toBe(200);
    expect(me.body.result.handles).toContainEqual({ type: 'email_address', value: 'roaming@example.com' });
  });

  it('a token revoked on one replica is refused by every replica at once', async () => {
    const [a, b, c] = r.calls as [Replicas['calls'][0], Replicas['calls'][0], Replicas['calls'][0]];
    const id = await a('POST', '/id/v2', { handle: 'revoked@example.com', factor: { method: 'otp_via_email' } });
    const { code } = await lastMessage(r.servers[0]!, 'revoked@example.com');
    const token = (await a('POST', '/attestation/v3', { challenge_id: id.body.result[0].id, challenge_type: 'otp', data: { otp: code } })).body.result.token as string;
    for (const call of r.calls) expect((await call('GET', '/me', undefined, { token })).status).toBe(200);
    expect((await b('POST', '/token/revoke', { token })).status).toBe(200);
    for (const call of [a, b, c]) {
      expect((await call('GET', '/me', undefined, { token })).status).toBe(401);
      expect((await call('POST', '/token/validate', { token })).body.result).toEqual({ valid: false, invalidity_reason: 'token has been revoked' });
    }
  });

  it('5 wrong codes spread over the three replicas end the challenge everywhere', async () => {
    const id = await r.calls[0]!('POST', '/id/v2', { handle: 'spread@example.com', factor: { method: 'otp_via_email' } });
    const challengeId = id.body.result[0].id as string;
    const { code } = await lastMessage(r.servers[0]!, 'spread@example.com');
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const answer = await r.calls[i % 3]!('POST', '/attestation/v3', { challenge_id: challengeId, challenge_type: 'otp', data: { otp: wrong } });
      expect(answer.body.errors[0]).toEqual({ httpcode: 401, message: 'incorrect code' });
    }
    for (const call of r.calls) {
      const right = await call('POST', '/attestation/v3', { challenge_id: challengeId, challenge_type: 'otp', data: { otp: code } });
      expect(right.status).toBe(429);
      expect(right.body.errors[0].message).toContain('too many incorrect answers');
    }
  });

  it('a webhook event is delivered once, though every replica polls the deliveries', async () => {
    const received: string[] = [];
    const rx: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((done) => rx.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(rx.address() as AddressInfo).port}/hook`;
      const hook = await r.calls[0]!('POST', '/organizations/webhooks', { name: 'Once', target_url: url }, KEY);
      expect(hook.status).toBe(201);
      await r.calls[0]!('POST', `/organizations/webhooks/${hook.body.result.id}/triggers`, { trigger_type: 'event', trigger_name: 'PersonCreated_v1' }, KEY);
      const handles = ['once-a@example.com', 'once-b@example.com', 'once-c@example.com', 'once-d@example.com', 'once-e@example.com', 'once-f@example.com'];
      await Promise.all(handles.map((value, i) => r.calls[i % 3]!('POST', '/persons', { handles: [{ type: 'email_address', value }] }, KEY)));
      expect(await within(8000, async () => received.length >= handles.length)).toBeDefined();
      // Every replica polls every 30 ms: a second delivery of any event would come within a few polls.
      await new Promise((done) => setTimeout(done, 600));
      expect(received).toHaveLength(handles.length);
      const ids = received.map((b) => (JSON.parse(Buffer.from(b.split('.')[1]!, 'base64url').toString()) as { event: { id: string } }).event.id);
      expect(new Set(ids).size).toBe(handles.length);
    } finally {
      await new Promise<void>((done) => rx.close(() => done()));
    }
  });
});
