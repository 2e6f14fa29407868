import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, api, decodeClaims, signInWithEmail, startTestServer, useTestServer } from './helpers.js';

describe.each(BACKENDS)('person-facing calls (%s)', (backend) => {
  const t = useTestServer(backend);
  let token: string;
  beforeAll(async () => {
    token = await signInWithEmail(t.server, 'me@example.com');
  });

  it('GET /me returns the person, organizations, handles and credentials', async () => {
    const me = await t.call('GET', '/me', undefined, { token });
    expect(me.status).toBe(200);
    expect(me.body.result.person).toMatchObject({ active: true, person_id: decodeClaims(token).person_id, person_type: 'regular' });
    expect(me.body.result.handles).toEqual([{ type: 'email_address', value: 'me@example.com', verified: true }]);
    expect(me.body.result.organizations[0]).toMatchObject({ id: t.server.orgId, org_name: 'Keyway Dev' });
    expect(me.body.result.credentials).toEqual([]);
    const orgs = await t.call('GET', '/me/orgs', undefined, { token });
    expect(orgs.body.result.org_hierarchy[0]).toMatchObject({ id: t.server.orgId, name: 'Keyway Dev', children_ids: [] });
  });

  it('requires a valid bearer token', async () => {
    const none = await t.call('GET', '/me');
    expect(none.status).toBe(401);
    expect(none.body.errors[0].message).toMatch(/^missing bearer token/);
    const forged = await t.call('GET', '/me', undefined, { token: token.slice(0, -4) + 'AAAA' });
    expect(forged.status).toBe(401);
    expect(forged.body.errors[0].message).toBe('token signature is invalid');
    const garbage = await t.call('GET', '/me', undefined, { token: 'abc' });
    expect(garbage.body.errors[0].message).toBe('token is malformed');
  });

  it('stores attributes per bucket and enforces the end-user access rules', async () => {
    const put = await t.call('PUT', '/attributes', { end_user_read_write: { theme: 'dark', n: 3 } }, { token });
    expect(put.status).toBe(200);
    expect(put.body.result).toEqual({ end_user_read_write: { theme: 'dark', n: 3 } });
    await t.call('PATCH', '/attributes/end_user_read_write', { lang: 'en' }, { token });
    expect((await t.call('GET', '/attributes', undefined, { token })).body.result).toEqual({ end_user_read_write: { theme: 'dark', n: 3, lang: 'en' } });
    expect((await t.call('GET', '/attributes/end_user_read_write?attributes=lang,n', undefined, { token })).body.result).toEqual({ lang: 'en', n: 3 });
    await t.call('PUT', '/attributes/end_user_read_write', { only: true }, { token });
    expect((await t.call('GET', '/attributes/end_user_read_write', undefined, { token })).body.result).toEqual({ only: true });
    await t.call('DELETE', '/attributes/end_user_read_write?attributes=only', undefined, { token });
    expect((await t.call('GET', '/attributes/end_user_read_write', undefined, { token })).body.result).toEqual({});

    const ro = await t.call('PATCH', '/attributes/end_user_read_only', { x: 1 }, { token });
    expect(ro.status).toBe(403);
    expect(ro.body.errors[0].message).toBe('attribute bucket "end_user_read_only" is read-only for end users');
    expect((await t.call('GET', '/attributes?buckets=end_user_read_only,person_pool-end_user_read_write', undefined, { token })).body.result).toEqual({
      end_user_read_only: {},
      'person_pool-end_user_read_write': {},
    });
    const hidden = await t.call('GET', '/attributes?buckets=end_user_no_access', undefined, { token });
    expect(hidden.status).toBe(403);
    const unknown = await t.call('GET', '/attributes/secret_bucket', undefined, { token });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].message).toMatch(/^params\.bucket_name must be one of "end_user_read_write", /);
    // A forbidden bucket in a multi-bucket write writes nothing.
    const mixed = await t.call('PATCH', '/attributes', { end_user_read_write: { a: 1 }, end_user_no_access: { b: 2 } }, { token });
    expect(mixed.status).toBe(403);
    expect((await t.call('GET', '/attributes', undefined, { token })).body.result).toEqual({ end_user_read_write: {} });
  });

  it('records, replaces and removes GDPR consents', async () => {
    expect((await t.call('GET', '/consent/gdpr', undefined, { token })).body.result).toEqual({ consents: [] });
    const added = await t.call('POST', '/consent/gdpr', { consent_levels: ['marketing', 'analytics'] }, { token });
    expect(added.body.result.consents.map((c: any) => c.consent_level)).toEqual(['analytics', 'marketing']);
    expect(Date.parse(added.body.result.consents[0].created_at)).not.toBeNaN();
    const replaced = await t.call('PUT', '/consent/gdpr', { consent_levels: ['marketing', 'tracking'] }, { token });
    expect(replaced.body.result.consents.map((c: any) => c.consent_level)).toEqual(['marketing', 'tracking']);
    expect(added.status).toBe(201);
    expect((await t.call('DELETE', '/consent/gdpr?consent_levels=tracking', undefined, { token })).status).toBe(204);
    expect((await t.call('GET', '/consent/gdpr', undefined, { token })).body.result.consents.map((c: any) => c.consent_level)).toEqual(['marketing']);
    const neither = await t.call('DELETE', '/consent/gdpr', undefined, { token });
    expect(neither.status).toBe(400);
    expect(neither.body.errors[0].message).toBe('give consent_levels (comma-separated) or deleteAll=true');
    expect((await t.call('DELETE', '/consent/gdpr?deleteAll=true', undefined, { token })).status).toBe(204);
    expect((await t.call('GET', '/consent/gdpr', undefined, { token })).body.result).toEqual({ consents: [] });
  });

  it('validates and revokes tokens; revoked tokens stop working', async () => {
    const own = await signInWithEmail(t.server, 'revoke@example.com');
    const ok = await t.call('POST', '/token/validate', { token: own });
    expect(ok.body.result).toMatchObject({ valid: true });
    expect(ok.body.result.expires_in_seconds).toBeGreaterThan(3500);
    expect(Date.parse(ok.body.result.expires_at)).toBeGreaterThan(Date.now());
    const otherOrg = await t.call('POST', '/token/validate', { token: own }, { org: 'someone-else' });
    expect(otherOrg.body.result).toEqual({ valid: false, invalidity_reason: 'token belongs to another organization' });
    expect((await t.call('POST', '/token/revoke', { token: own })).status).toBe(204);
    expect((await t.call('POST', '/token/validate', { token: own })).body.result).toEqual({ valid: false, invalidity_reason: 'token has been revoked' });
    const me = await t.call('GET', '/me', undefined, { token: own });
    expect(me.status).toBe(401);
    expect(me.body.errors[0].message).toBe('token has been revoked');
    expect((await t.call('POST', '/token/revoke', { token: 'not.a.token' })).status).toBe(400);
  });

  it('creates anonymous persons and upgrades them by signing in with the anonymous token', async () => {
    const anon = await t.call('POST', '/persons/anonymous', { region: 'us-central' });
    expect(anon.status).toBe(200);
    const anonClaims = decodeClaims(anon.body.result);
    expect(anonClaims).toMatchObject({ person_type: 'anonymous', authenticated_methods: ['anonymous'], first_token: true });
    const upgraded = decodeClaims(await signInWithEmail(t.server, 'upgrade@example.com', anon.body.result));
    expect(upgraded.person_id).toBe(anonClaims.person_id);
    expect(upgraded.person_type).toBe('regular');
    expect(upgraded.authenticated_methods).toEqual(['anonymous', 'otp_via_email']);
    expect((await t.call('POST', '/persons/anonymous', undefined)).status).toBe(200);
  });

  it('adds a second factor of the same person to the token (MFA / step-up)', async () => {
    const first = await signInWithEmail(t.server, 'mfa@example.com');
    const id = await t.call('POST', '/id/v2', { handle: '+4915112345678', factor: { method: 'otp_via_sms' } }, { token: first });
    const res = await fetch(`${t.server.url}/dev/mailbox.json?to=%2B4915112345678`);
    const code = ((await res.json()) as any).result[0].code;
    const att = await t.call('POST', '/attestation/v3', { challenge_id: id.body.result[0].id, challenge_type: 'otp', data: { otp: code } });
    const claims = decodeClaims(att.body.result.token);
    expect(claims.person_id).toBe(decodeClaims(first).person_id);
    expect(claims.authenticated_methods).toEqual(['otp_via_email', 'otp_via_sms']);
    const me = await t.call('GET', '/me', undefined, { token: att.body.result.token });
    expect(me.body.result.handles.map((h: any) => h.value)).toEqual(['mfa@example.com', '+4915112345678']);
  });

  it('stores SDK analytics events and lists them with the management API key', async () => {
    const event = {
      event_name: 'KeywaySDKLoaded_v1',
      organization_id: t.server.orgId,
      analytics_correlation_id: 'c-1',
      window_location: 'http://localhost:3000/',
      user_agent: 'test',
      event_data: {},
    };
    expect((await t.call('POST', '/actions/sdk', event)).body.result).toEqual({ accepted: 1 });
    const beacon = await t.call('POST', '/events', undefined, { raw: JSON.stringify([{ ...event, event_name: 'VirtualPageLoaded_v1' }]), headers: { 'content-type': 'text/plain' }, token });
    expect(beacon.body.result).toEqual({ accepted: 1 });
    const unauth = await t.call('GET', '/events');
    expect(unauth.status).toBe(401);
    const list = await t.call('GET', '/events?limit=10', undefined, { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } });
    expect(list.status).toBe(200);
    expect(list.body.result.map((e: any) => e.event_name)).toEqual(['VirtualPageLoaded_v1', 'KeywaySDKLoaded_v1']);
    expect(list.body.result[0].person_id).toBe(decodeClaims(token).person_id);
    expect(list.body.meta.pagination).toEqual({ limit: 10, offset: 0, total_count: 2 });
    const byName = await t.call('GET', '/events?event_name=KeywaySDKLoaded_v1', undefined, { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } });
    expect(byName.body.meta.pagination.total_count).toBe(1);
  });

  it('publishes JWKS, OpenID configuration and allows the docs origin through CORS', async () => {
    const conf = await (await fetch(`${t.server.url}/.well-known/openid-configuration`)).json();
    expect(conf).toMatchObject({ issuer: t.server.url, jwks_uri: `${t.server.url}/.well-known/jwks.json` });
    const jwks = (await (await fetch(conf.jwks_uri)).json()) as { keys: Array<Record<string, string>> };
    // One key per algorithm: EC P-256 (ES256) and RSA (RS256), public parts only.
    expect(jwks.keys.find((k) => k.alg === 'ES256')).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'sig' });
    expect(jwks.keys.find((k) => k.alg === 'RS256')).toMatchObject({ kty: 'RSA', e: 'AQAB', use: 'sig' });
    for (const k of jwks.keys) expect([k.d, k.p, k.q]).toEqual([undefined, undefined, undefined]);
    const pre = await fetch(`${t.server.url}/id/v2`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,keyway-orgid,keyway-sdkversion' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('keyway-orgid');
    const evil = await fetch(`${t.server.url}/token/validate`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{"token":"x"}' });
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });
});
