import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, decodeClaims, freshStorage, lastMessage, signInWithEmail, startTestServer } from './helpers.js';
import { REPLICAS_SKIP_REASON, startReplicas, within, type Replicas } from './replicas.js';

/** How stale a replica's organization settings may be: the bound the READMEs state. */
const SETTINGS_STALENESS_MS = 1000;
/** How late a replica may honour a revocation made on another: the bound the READMEs state (src/tokens/revocations.ts). */
const REVOCATION_STALENESS_MS = 1000;
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
    expect(me.body.result.handles).toContainEqual({ type: 'email_address', value: 'roaming@example.com', verified: true });
  });

  it(`a token revoked on one replica is refused at once there, and by every other replica within ${REVOCATION_STALENESS_MS} ms`, async () => {
    const [a, b, c] = r.calls as [Replicas['calls'][0], Replicas['calls'][0], Replicas['calls'][0]];
    const id = await a('POST', '/id/v2', { handle: 'revoked@example.com', factor: { method: 'otp_via_email' } });
    const { code } = await lastMessage(r.servers[0]!, 'revoked@example.com');
    const token = (await a('POST', '/attestation/v3', { challenge_id: id.body.result[0].id, challenge_type: 'otp', data: { otp: code } })).body.result.token as string;
    for (const call of r.calls) expect((await call('GET', '/me', undefined, { token })).status).toBe(200);
    expect((await b('POST', '/token/revoke', { token })).status).toBe(204);
    expect((await b('GET', '/me', undefined, { token })).status).toBe(401);
    for (const call of [a, c]) {
      const took = await within(REVOCATION_STALENESS_MS, async () => (await call('GET', '/me', undefined, { token })).status === 401);
      expect(took, 'the other replica still takes the revoked token').toBeDefined();
      expect((await call('POST', '/token/validate', { token })).body.result).toEqual({ valid: false, invalidity_reason: 'token has been revoked' });
    }
    // A bound on a person's tokens of a client (revoke-all; a password reset or a first proof for every client) travels the same way.
    const fresh = await signInWithEmail(r.servers[0]!, 'bound@example.com');
    const person = decodeClaims(fresh).person_id as string;
    const client = (await a('POST', '/oauth2/clients', { client_name: 'Bound', scopes: ['openid'], grant_types: ['authorization_code'], redirect_uris: ['https://app.example/cb'] }, KEY)).body.result as { client_id: string; client_secret: string };
    const access = (await a('POST', '/oauth2/tokens/mint', { client_id: client.client_id, person_id: person }, KEY)).body.result.access_token as string;
    const userinfo = (server: { url: string }) => fetch(`${server.url}/oauth2/userinfo`, { headers: { authorization: `Bearer ${access}` } }).then((res) => res.status);
    for (const s of r.servers) expect(await userinfo(s)).toBe(200);
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    // The client made on a reaches c's settings within their own bound; then c revokes the person's tokens of the client.
    const revokeAll = () => fetch(`${r.servers[2]!.url}/oauth2/tokens/revoke-all`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ person_id: person }) });
    expect(await within(SETTINGS_STALENESS_MS, async () => (await revokeAll()).status === 200)).toBeDefined();
    expect(await userinfo(r.servers[2]!)).toBe(401);
    for (const s of r.servers.slice(0, 2)) expect(await within(REVOCATION_STALENESS_MS, async () => (await userinfo(s)) === 401)).toBeDefined();
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

describe.skipIf(REPLICAS_SKIP_REASON !== undefined)(`three replicas on one PostgreSQL agree on settings and limits${REPLICAS_SKIP_REASON ? ` (${REPLICAS_SKIP_REASON})` : ''}`, () => {
  let r: Replicas;
  beforeAll(async () => {
    r = await startReplicas(3, { limits: { perIpPerMinute: 0, perHandlePerMinute: 3 } });
  });
  afterAll(() => r?.stop());

  it(`a management API key rotated on one replica is refused by every replica within ${SETTINGS_STALENESS_MS} ms, and the new key works everywhere`, async () => {
    // Every replica has used (and cached) the organization before the rotation.
    for (const call of r.calls) expect((await call('GET', '/persons', undefined, KEY)).status).toBe(200);
    const rotated = await r.calls[0]!('PUT', '/organizations/api-keys', undefined, KEY);
    expect(rotated.status).toBe(200);
    const fresh = { headers: { 'keyway-api-key': rotated.body.result.api_key as string } };
    for (const [i, call] of r.calls.entries()) {
      const took = await within(SETTINGS_STALENESS_MS, async () => (await call('GET', '/persons', undefined, KEY)).status === 401);
      expect(took, `replica ${i} still accepts the old key after ${SETTINGS_STALENESS_MS} ms`).toBeDefined();
      expect((await call('GET', '/persons', undefined, fresh)).status, `replica ${i} refuses the new key`).toBe(200);
    }
  });

  it('the per-handle limit (3 a minute) holds across replicas: 9 starts spread over 3 replicas get 3 codes', async () => {
    const answers = [];
    for (let i = 0; i < 9; i++) answers.push((await r.calls[i % 3]!('POST', '/id/v2', { handle: 'busy@example.com', factor: { method: 'otp_via_email' } })).status);
    expect(answers).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429]);
  });
});

describe.skipIf(REPLICAS_SKIP_REASON !== undefined)(`replicas on one PostgreSQL share settings writes and signing keys${REPLICAS_SKIP_REASON ? ` (${REPLICAS_SKIP_REASON})` : ''}`, () => {
  it('a settings change made on a replica with an older copy of the settings does not undo a change made on another', async () => {
    const r = await startReplicas(2);
    try {
      const [a, b] = r.calls as [Replicas['calls'][0], Replicas['calls'][0]];
      // Both replicas read the organization (and cache it).
      for (const call of r.calls) expect((await call('GET', '/persons', undefined, KEY)).status).toBe(200);
      const rotated = await a('PUT', '/organizations/api-keys', undefined, KEY);
      const fresh = { headers: { 'keyway-api-key': rotated.body.result.api_key as string } };
      // b still accepts the old key (that is the stale cache); it writes another setting with it.
      const written = await b('PUT', '/organizations/config/token-template', { content: '{"team": "identity"}' }, KEY);
      expect([204, 401]).toContain(written.status);
      // Whatever b did, the key rotated on a must remain the one key: the old one refused, the new one accepted.
      await new Promise((done) => setTimeout(done, SETTINGS_STALENESS_MS));
      expect((await a('GET', '/persons', undefined, KEY)).status, 'the old key works again on the replica that rotated it').toBe(401);
      expect((await a('GET', '/persons', undefined, fresh)).status, 'the rotated key was undone').toBe(200);
    } finally {
      await r.stop();
    }
  });

  it('a token signed with a key that another replica created is accepted by every replica', async () => {
    // Keys rotate every 2 s here: a replica started after that creates a new key and signs with it.
    const r = await startReplicas(2, { keyRotationSeconds: 2 });
    try {
      await new Promise((done) => setTimeout(done, 2100));
      const late = await startTestServer('postgres', { keyRotationSeconds: 2, publicUrl: r.servers[0]!.url }, { ...r.servers[0]!.storage, cleanup: async () => {} });
      try {
        const token = await signInWithEmail(late, 'late-key@example.com');
        for (const [i, call] of r.calls.entries()) {
          const v = await call('POST', '/token/validate', { token });
          expect(v.body.result, `replica ${i}`).toMatchObject({ valid: true });
        }
        const jwks = (await (await fetch(`${r.servers[0]!.url}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };
        const published = jwks.keys.map((k) => k.kid);
        expect(published).toContain(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid);
      } finally {
        await late.close();
      }
    } finally {
      await r.stop();
    }
  });
});

// A replica whose connections to PostgreSQL are cut (a database restart, a failover, a network blip) while another
// revokes a token: it must neither die nor keep accepting the token once it can read again.
describe.skipIf(REPLICAS_SKIP_REASON !== undefined)('a revocation made while a replica reconnects to PostgreSQL', () => {
  it(`is honoured by the reconnected replica within ${REVOCATION_STALENESS_MS} ms of its reconnection`, async () => {
    const storage = await freshStorage('postgres');
    const named = (name: string) => {
      const u = new URL(storage.databaseUrl!);
      u.searchParams.set('application_name', name);
      return { ...storage, databaseUrl: u.toString(), cleanup: async () => {} };
    };
    const a = await startTestServer('postgres', {}, named('kw-replica-a'));
    const b = await startTestServer('postgres', { publicUrl: a.url }, named('kw-replica-b'));
    const pg = (await import('pg')).default;
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      const tokens = await Promise.all(['cut-1@example.com', 'cut-2@example.com'].map((e) => signInWithEmail(a, e)));
      const me = (server: { url: string; orgId: string }, token: string) => api(server)('GET', '/me', undefined, { token }).then((res) => res.status);
      for (const t of tokens) expect(await me(a, t)).toBe(200);
      // Every connection of replica a is cut; b revokes the first token while a has none.
      const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kw-replica-a'");
      expect(cut.rowCount).toBeGreaterThan(0);
      expect((await api(b)('POST', '/token/revoke', { token: tokens[0] })).status).toBe(204);
      // a is alive, reconnects by itself, and refuses the token revoked meanwhile; the other one still works.
      const took = await within(REVOCATION_STALENESS_MS + 1000, async () => (await me(a, tokens[0]!)) === 401);
      expect(took, 'the reconnected replica still takes the token revoked while it was cut off').toBeDefined();
      expect(await me(a, tokens[1]!)).toBe(200);
      expect((await fetch(`${a.url}/.well-known/jwks.json`)).status).toBe(200);
    } finally {
      await admin.end();
      await b.close();
      await a.close();
      await storage.cleanup();
    }
  });
});
