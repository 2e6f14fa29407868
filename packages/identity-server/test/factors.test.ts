import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { generate } from 'otplib';
import { BACKENDS, api, cookiesOf, decodeClaims, lastMessage, proveByLink, signInWithEmail, startTestServer, useTestServer } from './helpers.js';

describe.each(BACKENDS)('password, TOTP, recovery, direct ID, impersonation, other organizations (%s)', (backend) => {
  const t = useTestServer(backend);

  async function answer(challenge: { id: string; type: string }, data: Record<string, unknown>) {
    return t.call('POST', '/attestation/v3', { challenge_id: challenge.id, challenge_type: challenge.type, data });
  }

  it('signs up with a password after proving the address, checked against the server-sent rules, then verifies it', async () => {
    const id = await t.call('POST', '/id/v2', { handle: 'pw@example.com', factor: { method: 'password', options: { sign_up: true } } });
    const [link, set] = id.body.result;
    expect([link.type, link.authentication_method, set.type]).toEqual(['proxy', 'email_link', 'password_set']);
    // The password cannot be set before the address is proved (#36).
    expect((await answer(set, { password: 'correct horse 42 battery' })).status).toBe(403);
    await proveByLink(t.server, 'pw@example.com', link);
    const names = set.options.validation_rules.regular_expressions.map((r: any) => r.name);
    expect(names).toEqual(expect.arrayContaining(['min_length', 'digit', 'letter']));
    const weak = await answer(set, { password: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.body.errors[0].message).toBe('password does not satisfy the validation rules: min_length, digit');
    const ok = await answer(set, { password: 'correct horse 42 battery' });
    expect(ok.status).toBe(200);
    expect(decodeClaims(ok.body.result.token)).toMatchObject({ first_token: false, authenticated_methods: ['email_link', 'password'] });

    const again = await t.call('POST', '/id/v2', { handle: 'PW@example.com', factor: { method: 'password' } });
    const [verify] = again.body.result;
    expect(verify.type).toBe('password_verify');
    const wrong = await answer(verify, { password: 'not it at all 1' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.errors[0].message).toBe('incorrect password');
    const empty = await answer(verify, { password: '' });
    expect(empty.body.errors[0]).toEqual({ httpcode: 400, message: 'body.data.password must NOT have fewer than 1 characters' });
    const right = await answer(verify, { password: 'correct horse 42 battery' });
    expect(decodeClaims(right.body.result.token).person_id).toBe(decodeClaims(ok.body.result.token).person_id);
    const me = await t.call('GET', '/me', undefined, { token: right.body.result.token });
    // How the password is stored, never the hash (#15: a stolen token must not yield offline-crackable material).
    expect(me.body.result.credentials).toEqual([expect.objectContaining({ type: 'password', label: 'Password', params: { hash_algorithm: 'scrypt' } })]);
    expect(JSON.stringify(me.body.result)).not.toContain('correct horse');
  });

  it('asks a person who signed up by email code for a password like anyone else, and refuses any (#36: no "no password set")', async () => {
    await signInWithEmail(t.server, 'nopw@example.com');
    const r = await t.call('POST', '/id/v2', { handle: 'nopw@example.com', factor: { method: 'password' } });
    expect(r.body.result.map((c: any) => c.type)).toEqual(['password_verify']);
    expect((await answer(r.body.result[0], { password: 'any password 1' })).body.errors[0]).toEqual({ httpcode: 401, message: 'incorrect password' });
  });

  it('recovers an account: code by email, then a new password', async () => {
    const token = await signInWithEmail(t.server, 'lost@example.com');
    const setId = await t.call('POST', '/id/v2', { factor: { method: 'password' } }, { token });
    await answer(setId.body.result[0], { password: 'first password 1' });

    const rec = await t.call('POST', '/recover', { handle: 'lost@example.com', factor: { method: 'otp_via_email' } });
    expect(rec.status).toBe(200);
    const [otp, reset] = rec.body.result;
    expect(otp.type).toBe('otp');
    expect(reset.type).toBe('password_reset');
    expect(reset.options.validation_rules.regular_expressions.length).toBeGreaterThan(0);
    const early = await answer(reset, { password: 'second password 2' });
    expect(early.status).toBe(403);
    const mail = await lastMessage(t.server, 'lost@example.com');
    expect(mail.subject).toContain('account recovery');
    expect((await answer(otp, { otp: mail.code })).status).toBe(200);
    const done = await answer(reset, { password: 'second password 2' });
    expect(done.status).toBe(200);
    const login = await t.call('POST', '/id/v2', { handle: 'lost@example.com', factor: { method: 'password' } });
    expect((await answer(login.body.result[0], { password: 'first password 1' })).status).toBe(401);

    // Unknown handles get the same answer, but nothing is sent.
    const ghost = await t.call('POST', '/recover', { handle: 'ghost@example.com', factor: { method: 'otp_via_email' } });
    expect(ghost.status).toBe(200);
    await expect(lastMessage(t.server, 'ghost@example.com')).rejects.toThrow('no message');
    const user = await t.call('POST', '/recover', { handle: 'someuser', factor: { method: 'otp_via_email' } });
    expect(user.body.errors[0].message).toBe('recovery needs an email address or phone number as handle');
  });

  it('registers TOTP with key URI, QR code and recovery codes, then verifies codes once each', async () => {
    const token = await signInWithEmail(t.server, 'totp@example.com');
    const reg = await t.call('POST', '/id/v2', { factor: { method: 'totp' } }, { token });
    const [ch] = reg.body.result;
    expect(ch.type).toBe('totp_register');
    expect(ch.options.key_uri).toMatch(/^otpauth:\/\/totp\/Keyway%20Dev:totp%40example\.com\?secret=[A-Z2-7]+/);
    expect(Buffer.from(ch.options.qr_code_data_b64, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(ch.options.recovery_codes).toHaveLength(10);
    const secret = new URL(ch.options.key_uri).searchParams.get('secret')!;
    expect((await answer(ch, { otp: '' })).body.errors[0].message).toBe('body.data.otp must NOT have fewer than 1 characters');
    const code = await generate({ secret });
    const ok = await answer(ch, { otp: code });
    expect(ok.status).toBe(200);
    expect(decodeClaims(ok.body.result.token).authenticated_methods).toEqual(['otp_via_email', 'totp']);

    const v = await t.call('POST', '/id/v2', { handle: 'totp@example.com', factor: { method: 'totp' } });
    const [verify] = v.body.result;
    expect(verify.type).toBe('totp_verify');
    const replay = await answer(verify, { otp: code });
    expect(replay.status).toBe(401); // the registration already used this time step
    const recovery = await answer(verify, { otp: ch.options.recovery_codes[0] });
    expect(recovery.status).toBe(200);
    const v2 = await t.call('POST', '/id/v2', { handle: 'totp@example.com', factor: { method: 'totp' } });
    expect((await answer(v2.body.result[0], { otp: ch.options.recovery_codes[0] })).status).toBe(401);
    const me = await t.call('GET', '/me', undefined, { token: recovery.body.result.token });
    expect(me.body.result.credentials.find((c: any) => c.type === 'totp').params).toEqual({ recovery_codes_total: 10, recovery_codes_unused: 9 });

    // An address without an authenticator app gets the same challenge (#36: no enumeration); no code passes.
    const stranger = await t.call('POST', '/id/v2', { handle: 'nototp@example.com', factor: { method: 'totp' } });
    expect(stranger.body.result.map((c: any) => c.type)).toEqual(['totp_verify']);
    expect((await answer(stranger.body.result[0], { otp: '123456' })).body.errors[0]).toEqual({ httpcode: 401, message: 'incorrect code' });
  });

  it('signs the same person in elsewhere with a single-use direct ID (a challenge pack with a nonce)', async () => {
    const token = await signInWithEmail(t.server, 'direct@example.com');
    const d = await t.call('POST', '/direct-id', undefined, { token });
    const pack = await t.call('GET', `/challenge_pack/${d.body.result}`);
    const [nonce] = pack.body.result;
    expect(nonce).toMatchObject({ type: 'nonce', authentication_method: 'direct_id' });
    const wrong = await answer(nonce, { challenge: 'guess' });
    expect(wrong.status).toBe(401);
    const ok = await answer(nonce, { challenge: nonce.options.challenge });
    expect(decodeClaims(ok.body.result.token)).toMatchObject({ person_id: decodeClaims(token).person_id, authenticated_methods: ['direct_id'] });
    const reuse = await answer(nonce, { challenge: nonce.options.challenge });
    expect(reuse.body.errors[0]).toEqual({ httpcode: 401, message: 'challenge has already been answered' });
  });

  it('lets members of "impersonators" act as another person, through a challenge pack link', async () => {
    const target = decodeClaims(await signInWithEmail(t.server, 'target@example.com'));
    const adminToken = await signInWithEmail(t.server, 'admin@example.com');
    const denied = await t.call('POST', `/persons/${target.person_id}/impersonate/v2`, { target_url: 'http://localhost:3000/app' }, { token: adminToken });
    expect(denied.status).toBe(403);
    await t.server.db.updateTable('persons').set({ groups: '["impersonators"]' }).where('id', '=', decodeClaims(adminToken).person_id).execute();
    const admin = await signInWithEmail(t.server, 'admin@example.com');
    const r = await t.call('POST', `/persons/${target.person_id}/impersonate/v2`, { target_url: 'http://localhost:3000/app' }, { token: admin });
    expect(r.status).toBe(200);
    expect(decodeClaims(r.body.result.token)).toMatchObject({ person_id: target.person_id, authenticated_methods: ['impersonate'], impersonator: decodeClaims(admin).person_id });
    const url = new URL(r.body.result.url);
    expect(url.origin + url.pathname).toBe('http://localhost:3000/app');
    const pack = await t.call('GET', `/challenge_pack/${url.searchParams.get('challenge_pack_id')}`);
    const [nonce] = pack.body.result;
    const signedIn = await answer(nonce, { challenge: nonce.options.challenge });
    expect(decodeClaims(signedIn.body.result.token)).toMatchObject({ person_id: target.person_id, impersonator: decodeClaims(admin).person_id });
    const byKey = await t.call('POST', `/persons/${target.person_id}/impersonate`, undefined, { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } });
    expect(decodeClaims(byKey.body.result.token).person_id).toBe(target.person_id);
  });

  it('gives tokens for suborganizations (/token, /token/v2 container) and asks for a required factor first', async () => {
    const now = new Date().toISOString();
    await t.server.db
      .insertInto('organizations')
      .values([
        { id: 'org_child', parent_id: t.server.orgId, org_name: 'Child', tenant_name: 'child', settings: '{}', created_at: now },
        { id: 'org_strict', parent_id: t.server.orgId, org_name: 'Strict', tenant_name: 'strict', settings: JSON.stringify({ required_factor: { method: 'oidc', options: { provider: 'corp' } } }), created_at: now },
        { id: 'org_other', parent_id: null, org_name: 'Other', tenant_name: 'other', settings: '{}', created_at: now },
      ])
      .execute();
    t.server.reloadOrganizations();
    const token = await signInWithEmail(t.server, 'multi@example.com');
    const orgs = await t.call('GET', '/me/orgs', undefined, { token });
    expect(orgs.body.result.org_hierarchy.map((o: any) => o.id)).toEqual([t.server.orgId, 'org_child', 'org_strict']);
    expect(orgs.body.result.org_hierarchy[0].children_ids).toEqual(['org_child', 'org_strict']);

    const v1 = await t.call('GET', '/token', undefined, { token, org: 'org_child' });
    expect(v1.body.result.type).toBe('token');
    expect(decodeClaims(v1.body.result.token)).toMatchObject({ oid: 'org_child', person_id: decodeClaims(token).person_id });
    const v2 = await t.call('GET', '/token/v2', undefined, { token, org: 'org_child' });
    const inner = decodeClaims(v2.body.result.token).user_token;
    expect(decodeClaims(inner).oid).toBe('org_child');
    expect((await t.call('POST', '/token/validate', { token: inner }, { org: 'org_child' })).body.result.valid).toBe(true);
    expect((await t.call('POST', '/token/validate', { token: inner })).body.result.invalidity_reason).toBe('token belongs to another organization');

    const strict = await t.call('GET', '/token/v2', undefined, { token, org: 'org_strict' });
    expect(strict.body.result.type).toBe('challenge_list');
    expect(strict.body.result.challenges[0]).toMatchObject({ type: 'authn_context_update', options: { target_org_id: 'org_strict', factor: { method: 'oidc', options: { provider: 'corp' } } } });
    const other = await t.call('GET', '/token/v2', undefined, { token, org: 'org_other' });
    expect(other.status).toBe(403);
    expect(other.body.errors[0].message).toBe('person has no access to organization "org_other"');
  });

  it('runs the hosted login: authorize page, email code, redirect with code and state, PKCE token exchange with id_token', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const redirect = 'http://localhost:3000/login';
    const authorize = `${t.server.url}/oauth2/authorize?` + new URLSearchParams({ response_type: 'code', client_id: 'keyway-dev-client', redirect_uri: redirect, state: 'st4te-1234', scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256', nonce: 'n0nce' });
    const pageRes = await fetch(authorize);
    expect(pageRes.status).toBe(200);
    expect(pageRes.headers.get('x-frame-options')).toBe('DENY');
    expect(pageRes.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await pageRes.text();
    const requestId = /name="request_id" value="([^"]+)"/.exec(html)![1]!;
    // The browser that opened the page posts its forms (with the cookie the page set).
    const cookie = cookiesOf(pageRes);
    const form = (data: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body: new URLSearchParams(data).toString(), redirect: 'manual' as const });
    const codePage = await (await fetch(`${t.server.url}/oauth2/login`, form({ request_id: requestId, email: 'hosted@example.com' }))).text();
    const challengeId = /name="challenge_id" value="([^"]+)"/.exec(codePage)![1]!;
    const { code: otp } = await lastMessage(t.server, 'hosted@example.com');
    const bad = await fetch(`${t.server.url}/oauth2/login/code`, form({ request_id: requestId, challenge_id: challengeId, code: otp === '000000' ? '111111' : '000000' }));
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('incorrect code');
    const done = await fetch(`${t.server.url}/oauth2/login/code`, form({ request_id: requestId, challenge_id: challengeId, code: otp! }));
    expect(done.status).toBe(303);
    const back = new URL(done.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(redirect);
    expect(back.searchParams.get('state')).toBe('st4te-1234');
    const code = back.searchParams.get('code')!;

    const exchange = (data: Record<string, string>) => fetch(`${t.server.url}/oauth2/tokens`, form(data)).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const base = { grant_type: 'authorization_code', code, client_id: 'keyway-dev-client', redirect_uri: redirect };
    const wrongVerifier = await exchange({ ...base, code_verifier: randomBytes(32).toString('base64url') });
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.body.error).toBe('invalid_grant');
    const ok = await exchange({ ...base, code_verifier: verifier });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    const jwks = createLocalJWKSet(await (await fetch(`${t.server.url}/.well-known/jwks.json`)).json());
    const { payload } = await jwtVerify(ok.body.id_token, jwks, { issuer: t.server.url, audience: 'keyway-dev-client' });
    expect(payload).toMatchObject({ nonce: 'n0nce', email: 'hosted@example.com', sub: decodeClaims(ok.body.access_token).person_id });
    // The access token is the client's: userinfo accepts it, first-party person calls do not (#36).
    expect((await fetch(`${t.server.url}/oauth2/userinfo`, { headers: { authorization: `Bearer ${ok.body.access_token}` } })).status).toBe(200);
    expect((await t.call('GET', '/me', undefined, { token: ok.body.access_token })).status).toBe(401);
    expect((await exchange({ ...base, code_verifier: verifier })).body.error_description).toBe('authorization code was already used: the tokens it gave have been revoked');

    // With a signed-in person's user token the authorize endpoint answers at once; unregistered redirects are refused.
    const userToken = await signInWithEmail(t.server, 'hosted@example.com');
    const direct = await fetch(authorize + `&token=${userToken}`, { redirect: 'manual' });
    expect(direct.status).toBe(302);
    expect(new URL(direct.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    const evil = await fetch(authorize.replace(encodeURIComponent(redirect), encodeURIComponent('https://evil.example/cb')), { redirect: 'manual' });
    expect(evil.status).toBe(400);
    // An invalid request of a known client and registered redirect URI goes back to the client (RFC 6749 §4.1.2.1).
    const plain = await fetch(authorize.replace('S256', 'plain'), { redirect: 'manual' });
    expect(plain.status).toBe(302);
    const refused = new URL(plain.headers.get('location')!);
    expect(refused.origin + refused.pathname).toBe(redirect);
    expect(Object.fromEntries(refused.searchParams)).toEqual({ error: 'invalid_request', error_description: 'code_challenge_method must be "S256"', state: 'st4te-1234', iss: t.server.url });
  });
});
