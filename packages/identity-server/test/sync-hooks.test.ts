import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { describe, expect, it } from 'vitest';
import { contractApi } from './contract.js';
import { BACKENDS, decodeClaims, signInWithEmail, useTestServer } from './helpers.js';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

/** A loopback sync-hook endpoint: records each call and answers with what `answer()` says, after `delayMs`. */
async function hookEndpoint(answer: () => { status?: number; body?: unknown; delayMs?: number }) {
  const calls: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      calls.push({ headers: req.headers, body });
      const a = answer();
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(a.status ?? 200, { 'content-type': 'application/json' }).end(typeof a.body === 'string' ? a.body : JSON.stringify(a.body ?? {}));
      }, a.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/claims`;
  return { url, calls, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe.each(BACKENDS)('sync hooks at token_minted (%s)', (backend) => {
  const t = useTestServer(backend);

  /** Registers a webhook with the token_minted sync-hook trigger; returns its id. */
  async function register(name: string, url: string, timeout = 3) {
    const call = contractApi(t.server);
    const hook = await call('POST', '/organizations/webhooks', { name, target_url: url, timeout }, KEY);
    const trigger = await call('POST', `/organizations/webhooks/${hook.body.result.id}/triggers`, { trigger_type: 'sync_hook', trigger_name: 'token_minted' }, KEY);
    expect(trigger.status).toBe(201);
    return hook.body.result.id as string;
  }
  const unregister = (id: string) => contractApi(t.server)('DELETE', `/organizations/webhooks/${id}`, undefined, KEY);
  const callsOf = (webhookId: string) => t.server.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('created_at').execute();

  it('only known hook points can be attached', async () => {
    const call = contractApi(t.server);
    const hook = await call('POST', '/organizations/webhooks', { name: 'Nowhere', target_url: 'https://hooks.example.com/x' }, KEY);
    const bad = await call('POST', `/organizations/webhooks/${hook.body.result.id}/triggers`, { trigger_type: 'sync_hook', trigger_name: 'password_changed' }, KEY);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toBe('unknown sync hook "password_changed": this server calls sync hooks at token_minted');
    const good = { trigger_type: 'sync_hook', trigger_name: 'token_minted' };
    expect((await call('POST', `/organizations/webhooks/${hook.body.result.id}/triggers`, good, KEY)).status).toBe(201);
    expect((await call('POST', `/organizations/webhooks/${hook.body.result.id}/triggers`, good, KEY)).status).toBe(409);
    expect((await call('GET', `/organizations/webhooks/${hook.body.result.id}/triggers`, undefined, KEY)).body.result).toEqual([good]);
    await unregister(hook.body.result.id);
  });

  it('adds the claims the endpoint answers, after verifying a signed call; reserved claims stay Keyway\'s', async () => {
    const call = contractApi(t.server);
    const endpoint = await hookEndpoint(() => ({ body: { claims: { plan: 'team', seats: 25, person_id: 'pid:evil', groups: ['admins'], exp: 1 } } }));
    const id = await register('Billing', endpoint.url);
    // A token template claim of the same name: the hook's answer wins.
    await call('PUT', '/organizations/config/token-template', { content: '{"plan": "free", "tier": "basic"}' }, KEY);
    const token = await signInWithEmail(t.server, 'hooked@example.com');
    const claims = decodeClaims(token);
    expect(claims).toMatchObject({ plan: 'team', seats: 25, tier: 'basic', groups: [] });
    expect(claims.person_id).not.toBe('pid:evil');
    expect(claims.exp).toBeGreaterThan(Date.now() / 1000);
    expect((await call('POST', '/token/validate', { token })).body.result.valid).toBe(true);

    // What the endpoint received: a JWT signed with the published webhook keys, naming the hook point and the person.
    const [received] = endpoint.calls;
    expect(received!.headers['content-type']).toBe('application/jwt');
    expect(received!.headers['keyway-sync-hook']).toBe('token_minted');
    expect(received!.headers['keyway-webhook-id']).toBe(id);
    const jwks = (await call('GET', '/organizations/webhooks/verification-jwks', undefined, KEY)).body as unknown as JSONWebKeySet; // bare, no envelope
    const { payload } = await jwtVerify(received!.body, createLocalJWKSet(jwks), { issuer: t.server.url, audience: endpoint.url, algorithms: ['ES256'] });
    expect(payload).toMatchObject({ trigger_type: 'sync_hook', trigger_name: 'token_minted', org_id: t.server.orgId, person_id: claims.person_id, webhook_id: id });
    expect((payload.data as { token: Record<string, unknown> }).token).toMatchObject({ oid: t.server.orgId, person_id: claims.person_id, authenticated_methods: ['otp_via_email'], tier: 'basic' });

    // Every call is recorded, with what was ignored.
    const [recorded] = await callsOf(id);
    expect(recorded).toMatchObject({ event_type: 'sync_hook:token_minted', status: 'delivered', attempts: 1, last_status: 200, last_error: 'reserved claims ignored: person_id, groups, exp' });

    // Minted tokens go through the hook too.
    const minted = await call('POST', `/persons/${encodeURIComponent(claims.person_id)}/mint-token`, {}, KEY);
    expect(decodeClaims(minted.body.result)).toMatchObject({ plan: 'team', seats: 25 });
    await call('PUT', '/organizations/config/token-template', { content: '{}' }, KEY);
    await unregister(id);
    await endpoint.close();
  });

  it('an answer with allow: false refuses the token, and nothing of the sign-in is recorded as a success', async () => {
    const call = contractApi(t.server);
    let deny = true;
    const endpoint = await hookEndpoint(() => (deny ? { body: { allow: false, reason: 'billing account suspended' } } : { body: { claims: {} } }));
    const id = await register('Policy', endpoint.url);
    const audit = await call('POST', '/organizations/webhooks', { name: 'Audit', target_url: 'https://audit.example.com/hook' }, KEY);
    await call('POST', `/organizations/webhooks/${audit.body.result.id}/triggers`, { trigger_type: 'event', trigger_name: 'AuthenticationSucceeded_v1' }, KEY);

    const idRes = await call('POST', '/id/v2', { handle: 'blocked@example.com', factor: { method: 'otp_via_email' } });
    const { code } = await (await fetch(`${t.server.url}/dev/mailbox.json?to=blocked%40example.com&limit=1`)).json().then((b: { result: Array<{ code: string }> }) => b.result[0]!);
    const refused = await call('POST', '/attestation/v3', { challenge_id: idRes.body.result[0].id, challenge_type: 'otp', data: { otp: code } });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].message).toBe('refused by the sync hook "Policy": billing account suspended');
    expect(await t.server.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', audit.body.result.id).execute()).toEqual([]);
    expect((await callsOf(id))[0]).toMatchObject({ status: 'delivered', last_error: 'refused: billing account suspended' });

    const person = (await call('GET', `/persons?filter=${encodeURIComponent('handles.value eq "blocked@example.com"')}`, undefined, KEY)).body.result[0];
    const mint = await call('POST', `/persons/${encodeURIComponent(person.person_id)}/mint-token`, {}, KEY);
    expect(mint.status).toBe(403);

    // Once the endpoint allows it again, the person signs in.
    deny = false;
    expect(decodeClaims(await signInWithEmail(t.server, 'blocked@example.com')).person_id).toBe(person.person_id);
    await unregister(id);
    await unregister(audit.body.result.id);
    await endpoint.close();
  });

  it('errors, bad answers and timeouts do not block the sign-in: the token comes without that hook\'s claims', async () => {
    let mode: 'error' | 'garbage' | 'slow' = 'error';
    const endpoint = await hookEndpoint(() => (mode === 'error' ? { status: 500, body: { claims: { x: 1 } } } : mode === 'garbage' ? { body: 'not json' } : { delayMs: 2500, body: { claims: { late: true } } }));
    const steady = await hookEndpoint(() => ({ body: { claims: { steady: true } } }));
    const id = await register('Flaky', endpoint.url, 1);
    const steadyId = await register('Steady', steady.url);

    expect(decodeClaims(await signInWithEmail(t.server, 'flaky@example.com'))).toMatchObject({ steady: true });
    mode = 'garbage';
    expect(decodeClaims(await signInWithEmail(t.server, 'flaky@example.com')).x).toBeUndefined();
    mode = 'slow';
    const started = Date.now();
    const claims = decodeClaims(await signInWithEmail(t.server, 'flaky@example.com'));
    expect(Date.now() - started).toBeLessThan(2400);
    expect(claims.late).toBeUndefined();
    expect(claims.steady).toBe(true);
    expect((await callsOf(id)).map((c) => [c.status, c.last_status, c.last_error])).toEqual([
      ['failed', 500, 'receiver answered 500: answer ignored'],
      ['failed', 200, 'answer is not a JSON object: ignored'],
      ['failed', null, 'no answer within 1 s: ignored'],
    ]);

    // Detached: no more calls.
    await contractApi(t.server)('DELETE', `/organizations/webhooks/${id}/triggers`, { trigger_type: 'sync_hook', trigger_name: 'token_minted' }, KEY);
    const before = endpoint.calls.length;
    await signInWithEmail(t.server, 'flaky@example.com');
    expect(endpoint.calls.length).toBe(before);
    await unregister(id);
    await unregister(steadyId);
    await endpoint.close();
    await steady.close();
  });
});
