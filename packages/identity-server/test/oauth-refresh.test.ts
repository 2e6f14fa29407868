import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contractApi, protocolForm } from './contract.js';
import { BACKENDS, decodeClaims, signInWithEmail, useTestServer } from './helpers.js';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
const REDIRECT = 'https://app.example/cb';

describe.each(BACKENDS)('OAuth2 refresh tokens: rotation and reuse detection (%s)', (backend) => {
  const t = useTestServer(backend);

  const form = (path: string, fields: Record<string, string>, basic?: { id: string; secret: string }) => protocolForm(t.server, path, fields, basic);

  async function newClient(fields: Record<string, unknown> = {}) {
    const made = await contractApi(t.server)('POST', '/oauth2/clients', { client_name: 'Notes app', scopes: ['openid', 'email'], grant_types: ['authorization_code', 'refresh_token'], redirect_uris: [REDIRECT], public: true, ...fields }, KEY);
    expect(made.status).toBe(201);
    return made.body.result as { client_id: string; client_secret: string; refresh_token_duration: number };
  }

  /** Hosted login with an existing Keyway token (no sign-in page), then the code exchange. */
  async function codeGrant(clientId: string, email: string, basic?: { id: string; secret: string }) {
    const verifier = randomBytes(32).toString('base64url');
    const token = await signInWithEmail(t.server, email);
    const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, state: 'state-123456', scope: 'openid email', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', token });
    const code = new URL((await fetch(`${t.server.url}/oauth2/authorize?${q}`, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
    return form('/oauth2/tokens', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, ...(basic ? {} : { client_id: clientId }) }, basic);
  }

  const userinfo = async (accessToken: string) => (await fetch(`${t.server.url}/oauth2/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status;

  it('issues a refresh token with the code, rotates it at each use, and keeps the person and scopes', async () => {
    const client = await newClient();
    expect(client.refresh_token_duration).toBe(30 * 24 * 3600);
    const first = await codeGrant(client.client_id, 'refresh@example.com');
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).toMatch(/^kwrt_/);
    const personId = decodeClaims(first.body.access_token).person_id;

    const second = await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: client.client_id });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ token_type: 'bearer', scope: 'openid email' });
    expect(second.body.refresh_token).toMatch(/^kwrt_/);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect(decodeClaims(second.body.access_token)).toMatchObject({ person_id: personId, client_id: client.client_id, scope: 'openid email', authenticated_methods: ['otp_via_email'] });
    expect(decodeClaims(second.body.id_token)).toMatchObject({ sub: personId, aud: client.client_id, email: 'refresh@example.com' });
    expect(await userinfo(second.body.access_token)).toBe(200);

    // A narrower scope may be asked for; a wider one may not. The refresh token keeps the scopes of the grant.
    const narrow = await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: second.body.refresh_token, client_id: client.client_id, scope: 'email' });
    expect(narrow.body.scope).toBe('email');
    expect(narrow.body.id_token).toBeUndefined();
    expect((await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: narrow.body.refresh_token, client_id: client.client_id, scope: 'openid admin' })).body).toMatchObject({ error: 'invalid_scope', error_description: 'scopes not granted by this refresh token: admin' });
    const wide = await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: narrow.body.refresh_token, client_id: client.client_id });
    expect(wide.body.scope).toBe('openid email');

    // Introspection knows refresh tokens: the current one is active, a rotated one is not.
    expect((await form('/oauth2/tokens/introspect', { token: wide.body.refresh_token, client_id: client.client_id })).body).toMatchObject({ active: true, token_type: 'refresh_token', sub: personId, client_id: client.client_id });
    expect((await form('/oauth2/tokens/introspect', { token: first.body.refresh_token, client_id: client.client_id })).body).toEqual({ active: false });
  });

  it('a reused refresh token revokes the whole family, access tokens included', async () => {
    const client = await newClient();
    const first = await codeGrant(client.client_id, 'stolen@example.com');
    const second = await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: client.client_id });
    expect(second.status).toBe(200);
    // An attacker (or a confused client) replays the first token.
    const replay = await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: client.client_id });
    expect(replay.status).toBe(400);
    expect(replay.body).toMatchObject({ error: 'invalid_grant', error_description: 'refresh token was already used: every token of this grant has been revoked' });
    // The legitimate holder's newer tokens stop working too.
    const legit = await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: second.body.refresh_token, client_id: client.client_id });
    expect(legit.body).toMatchObject({ error: 'invalid_grant', error_description: 'refresh token has been revoked' });
    expect(await userinfo(second.body.access_token)).toBe(401);
    expect(await userinfo(first.body.access_token)).toBe(401);
    // Another sign-in starts a new family that works.
    const fresh = await codeGrant(client.client_id, 'stolen@example.com');
    expect((await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: fresh.body.refresh_token, client_id: client.client_id })).status).toBe(200);
  });

  it('concurrent uses of one refresh token count as reuse: nothing issued by them stays valid', async () => {
    const client = await newClient();
    const first = await codeGrant(client.client_id, 'race@example.com');
    const both = await Promise.all([0, 1].map(() => form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: client.client_id })));
    // One use wins the token; the other is seen as reuse and revokes the family (before or after the winner's answer).
    expect(both.filter((r) => r.status === 400 && r.body.error === 'invalid_grant')).not.toHaveLength(0);
    for (const winner of both.filter((r) => r.status === 200)) {
      expect((await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: winner.body.refresh_token, client_id: client.client_id })).body.error).toBe('invalid_grant');
      expect(await userinfo(winner.body.access_token)).toBe(401);
    }
    expect(await userinfo(first.body.access_token)).toBe(401);
  });

  it('refuses refresh tokens of other clients, unknown, expired, revoked or of deleted persons and clients', async () => {
    const call = contractApi(t.server);
    const client = await newClient();
    const other = await newClient({ client_name: 'Other app' });
    const granted = await codeGrant(client.client_id, 'strict@example.com');
    const rt = granted.body.refresh_token as string;
    expect((await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: rt, client_id: other.client_id })).body).toMatchObject({ error: 'invalid_grant', error_description: 'refresh token was issued to another client' });
    for (const bad of ['kwrt_nope.nope', `${rt}x`, 'not-a-refresh-token']) {
      expect((await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: bad, client_id: client.client_id })).body).toMatchObject({ error: 'invalid_grant', error_description: 'refresh token is not valid' });
    }
    const missing = await form('/oauth2/tokens', { grant_type: 'refresh_token', client_id: client.client_id });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('refresh_token');
    // Still usable after all these refusals (they did not consume it).
    const next = await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: rt, client_id: client.client_id });
    expect(next.status).toBe(200);

    // Expired.
    await t.server.db.updateTable('oauth_refresh_tokens').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('status', '=', 'active').where('client_id', '=', client.client_id).execute();
    expect((await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: next.body.refresh_token, client_id: client.client_id })).body).toMatchObject({ error: 'invalid_grant', error_description: 'refresh token has expired' });

    // RFC 7009 revocation of a refresh token ends its family.
    const g2 = await codeGrant(client.client_id, 'strict@example.com');
    const revoked = await fetch(`${t.server.url}/oauth2/tokens/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: g2.body.refresh_token, client_id: client.client_id }) });
    expect(revoked.status).toBe(200);
    expect((await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: g2.body.refresh_token, client_id: client.client_id })).body.error_description).toBe('refresh token has been revoked');
    expect(await userinfo(g2.body.access_token)).toBe(401);

    // A client that turns refresh tokens off (duration 0) stops honouring them; deleting the client revokes them.
    const g3 = await codeGrant(client.client_id, 'strict@example.com');
    expect((await call('PATCH', `/oauth2/clients/${client.client_id}`, { refresh_token_duration: 0 }, KEY)).status).toBe(200);
    expect((await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: g3.body.refresh_token, client_id: client.client_id })).body.error).toBe('unauthorized_client');
    expect((await codeGrant(client.client_id, 'strict@example.com')).body.refresh_token).toBeUndefined();
    const g4 = await codeGrant(other.client_id, 'strict@example.com');
    expect((await call('DELETE', `/oauth2/clients/${other.client_id}`, undefined, KEY)).status).toBe(204);
    expect(await userinfo(g4.body.access_token)).toBe(401);
    expect((await t.server.db.selectFrom('oauth_refresh_tokens').select('status').where('client_id', '=', other.client_id).execute()).every((r) => r.status === 'revoked')).toBe(true);

    // A deleted person's refresh tokens go with it.
    const third = await newClient({ client_name: 'Third app' });
    const g5 = await codeGrant(third.client_id, 'leaving@example.com');
    await call('DELETE', `/persons/${encodeURIComponent(decodeClaims(g5.body.access_token).person_id)}`, undefined, KEY);
    expect((await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: g5.body.refresh_token, client_id: third.client_id })).body.error).toBe('invalid_grant');
  });

  it('confidential clients authenticate to refresh; clients without the grant get no refresh token; revoke-all covers refresh tokens', async () => {
    const plain = await newClient({ client_name: 'No refresh', grant_types: ['authorization_code'] });
    expect(plain.refresh_token_duration).toBe(0);
    const noRefresh = await codeGrant(plain.client_id, 'plain@example.com');
    expect(noRefresh.status).toBe(200);
    expect(noRefresh.body.refresh_token).toBeUndefined();

    const secretive = await newClient({ client_name: 'Server app', public: false, refresh_token_duration: 3600 });
    const basic = { id: secretive.client_id, secret: secretive.client_secret };
    const granted = await codeGrant(secretive.client_id, 'server@example.com', basic);
    expect(granted.status).toBe(200);
    expect((await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: granted.body.refresh_token }, { ...basic, secret: 'wrong' })).status).toBe(401);
    const refreshed = await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: granted.body.refresh_token }, basic);
    expect(refreshed.status).toBe(200);
    const personId = decodeClaims(refreshed.body.access_token).person_id as string;
    expect((await form('/oauth2/tokens/revoke-all', { subject: personId }, basic)).status).toBe(200);
    expect((await form('/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token }, basic)).body.error_description).toBe('refresh token has been revoked');

    // Discovery tells clients about the grant.
    const conf = await (await fetch(`${t.server.url}/.well-known/openid-configuration`)).json();
    expect(conf.grant_types_supported).toContain('refresh_token');
    expect(conf.revocation_endpoint).toBe(`${t.server.url}/oauth2/tokens/revoke`);
  });
});
