import { describe, expect, it } from 'vitest';
import { contractApi } from './contract.js';
import { BACKENDS, decodeClaims, lastMessage, signInWithEmail, useTestServer } from './helpers.js';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

describe.each(BACKENDS)('management API (%s)', (backend) => {
  const t = useTestServer(backend);

  it('needs the organization API key, which can be rotated', async () => {
    const call = contractApi(t.server);
    const other = await call('POST', '/organizations/suborganizations', { org_name: 'Rotating' }, KEY);
    const subKey = (key: string) => ({ org: other.body.result.id, headers: { 'keyway-api-key': key } });
    const rotated = await call('PUT', '/organizations/api-keys', undefined, subKey(other.body.result.api_key));
    expect(rotated.body.result.api_key).not.toBe(other.body.result.api_key);
    expect((await call('GET', '/organizations', undefined, subKey(other.body.result.api_key))).status).toBe(401);
    expect((await call('GET', '/organizations', undefined, subKey(rotated.body.result.api_key))).status).toBe(200);
    expect((await call('GET', '/persons')).status).toBe(401);
    expect((await call('GET', '/persons', undefined, { headers: { 'keyway-api-key': 'wrong' } })).body.errors[0].message).toBe('Keyway-API-Key is not valid for this organization');
  });

  it('creates, finds, changes and deletes persons with handles and groups', async () => {
    const call = contractApi(t.server);
    const created = await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'Made@Example.com' }], groups: ['editors'], attributes: { end_user_read_only: { plan: 'gold' } } }, KEY);
    expect(created.status).toBe(201);
    const id = created.body.result.person_id;
    expect(created.body.result).toMatchObject({ active: true, person_type: 'regular', handles: [{ type: 'email_address', value: 'made@example.com' }], groups: ['editors'], attributes: { end_user_read_only: { plan: 'gold' } } });
    const dup = await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'made@example.com' }] }, KEY);
    expect(dup.body.errors[0]).toEqual({ httpcode: 409, message: 'person exists' });

    // The person signs in and sees the attribute the organization set; the token carries the groups.
    const token = await signInWithEmail(t.server, 'made@example.com');
    expect(decodeClaims(token)).toMatchObject({ person_id: id, groups: ['editors'], first_token: false });
    expect((await call('GET', '/attributes?buckets=end_user_read_only', undefined, { token })).body.result).toEqual({ end_user_read_only: { plan: 'gold' } });

    await call('POST', `/persons/${id}/handles`, { handles: [{ type: 'phone_number', value: '+447700900555' }] }, KEY);
    expect((await call('GET', `/persons/${id}/handles`, undefined, KEY)).body.result).toHaveLength(2);
    const filtered = await call('GET', `/persons?filter=${encodeURIComponent('handles.value eq "+447700900555" and groups co "edit"')}`, undefined, KEY);
    expect(filtered.body.result.map((p: any) => p.person_id)).toEqual([id]);
    expect(filtered.body.meta.pagination).toEqual({ limit: 100, offset: 0, total_count: 1 });
    const badFilter = await call('GET', `/persons?filter=${encodeURIComponent('handles.value eq')}`, undefined, KEY);
    expect(badFilter.body.errors[0]).toEqual({ httpcode: 400, message: 'filter: expected a value at the end' });
    const badAttr = await call('GET', `/persons?filter=${encodeURIComponent('active eq true or shoe_size eq "9"')}`, undefined, KEY);
    expect(badAttr.body.errors[0].message).toMatch(/^filter: unknown attribute "shoe_size" \(use person_id, active, .*\) at position 19$/);

    expect((await call('PUT', `/persons/${id}/groups`, { groups: ['admins'] }, KEY)).body.result).toEqual(['admins']);
    expect((await call('GET', `/persons/${id}/groups`, undefined, KEY)).body.result).toEqual(['admins']);
    expect((await call('DELETE', `/persons/${id}/handles/${encodeURIComponent('phone_number:+447700900555')}`, undefined, KEY)).status).toBe(204);
    expect((await call('DELETE', `/persons/${id}/handles/${encodeURIComponent('email_address:made@example.com')}`, undefined, KEY)).status).toBe(409);

    const off = await call('PATCH', `/persons/${id}`, { active: false }, KEY);
    expect(off.body.result.active).toBe(false);
    const id2 = await t.call('POST', '/id/v2', { handle: 'made@example.com', factor: { method: 'otp_via_email' } });
    const { code } = await lastMessage(t.server, 'made@example.com');
    const refused = await t.call('POST', '/attestation/v3', { challenge_id: id2.body.result[0].id, challenge_type: 'otp', data: { otp: code } });
    expect(refused.body.errors[0]).toEqual({ httpcode: 403, message: `Person ${id} is inactive` });

    expect((await call('DELETE', `/persons/${id}`, undefined, KEY)).status).toBe(204);
    expect((await call('GET', `/persons/${id}`, undefined, KEY)).status).toBe(404);
  });

  it('configures the organization: self-registration, handle patterns, allowed factors, password rules, token lifetime', async () => {
    const call = contractApi(t.server);
    const cfg = await call('PATCH', '/organizations/config', {
      handle_patterns: ['@example\\.org$'],
      allowed_factors: ['otp_via_email', 'password'],
      token_duration_seconds: 600,
      password_validation_rules: [{ name: 'long', pattern: '^.{16,}$', match_type: 'must_match' }],
    }, KEY);
    expect(cfg.status).toBe(204);
    expect((await call('GET', '/organizations/config', undefined, KEY)).body.result).toMatchObject({ allow_self_registration: true, token_duration_seconds: 600, allowed_factors: ['otp_via_email', 'password'] });
    try {
      const outsider = await t.call('POST', '/id/v2', { handle: 'x@example.com', factor: { method: 'otp_via_email' } });
      const { code } = await lastMessage(t.server, 'x@example.com');
      const att = await t.call('POST', '/attestation/v3', { challenge_id: outsider.body.result[0].id, challenge_type: 'otp', data: { otp: code } });
      expect(att.body.errors[0]).toEqual({ httpcode: 403, message: 'person cannot be registered' });
      const token = decodeClaims(await signInWithEmail(t.server, 'in@example.org'));
      expect(token.exp - token.iat).toBe(600);
      const sms = await t.call('POST', '/id/v2', { handle: '+447700900777', factor: { method: 'otp_via_sms' } });
      expect(sms.body.errors[0]).toEqual({ httpcode: 400, message: 'authentication method "otp_via_sms" is not allowed for this organization' });
      const pw = await t.call('POST', '/id/v2', { handle: 'pw@example.org', factor: { method: 'password', options: { sign_up: true } } });
      const [, set] = pw.body.result;
      expect(set.options.validation_rules).toEqual({ regular_expressions: [{ name: 'long', pattern: '^.{16,}$', match_type: 'must_match' }] });
      const short = await t.call('POST', '/attestation/v3', { challenge_id: set.id, challenge_type: 'password_set', data: { password: 'short1' } });
      expect(short.body.errors[0].message).toBe('password does not satisfy the validation rules: long');
    } finally {
      await call('PATCH', '/organizations/config', { handle_patterns: [], allowed_factors: [], password_validation_rules: [], token_duration_seconds: 3600 }, KEY);
    }
  });

  it('creates suborganizations with their own API key and shared person pool', async () => {
    const call = contractApi(t.server);
    const sub = await call('POST', '/organizations/suborganizations', { org_name: 'Acme Europe', share_person_pool: true }, KEY);
    expect(sub.status).toBe(200);
    expect(sub.body.result).toMatchObject({ parent_id: t.server.orgId, org_name: 'Acme Europe', tenant_name: 'acme-europe' });
    const own = await call('GET', '/organizations', undefined, KEY);
    expect(own.body.result.managed_organizations.map((o: any) => o.id)).toContain(sub.body.result.id);
    expect((await call('GET', '/organizations/suborganizations', undefined, KEY)).body.result).toContain(sub.body.result.id);
    const subKey = { org: sub.body.result.id, headers: { 'keyway-api-key': sub.body.result.api_key } };
    expect((await call('GET', '/organizations', undefined, subKey)).body.result.id).toBe(sub.body.result.id);
    const parentPerson = decodeClaims(await signInWithEmail(t.server, 'pool@example.com'));
    const inSub = decodeClaims(await signInWithEmail({ url: t.server.url, orgId: sub.body.result.id }, 'pool@example.com'));
    expect(inSub).toMatchObject({ person_id: parentPerson.person_id, oid: sub.body.result.id });
  });

  it('manages OIDC provider credentials without ever returning the secret', async () => {
    const call = contractApi(t.server);
    const body = { client_id: 'corp-client', client_secret: 'super-secret-value', label: 'Corp SSO', provider: 'keycloak', issuer: 'https://sso.corp.example/realms/main' };
    const created = await call('POST', '/organizations/sso/oidc/provider-credentials', body, KEY);
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain('super-secret-value');
    expect((await call('POST', '/organizations/sso/oidc/provider-credentials', body, KEY)).status).toBe(409);
    const noIssuer = await call('POST', '/organizations/sso/oidc/provider-credentials', { ...body, client_id: 'x', issuer: undefined }, KEY);
    expect(noIssuer.body.errors[0].message).toBe('issuer is required for provider "keycloak"');
    expect((await call('PATCH', '/organizations/sso/oidc/provider-credentials/corp-client', { label: 'Corp' }, KEY)).body.result.label).toBe('Corp');
    const gone = await call('GET', '/organizations/sso/oidc/provider-credentials/corp-client', undefined, KEY);
    expect((await call('GET', '/organizations/sso/oidc/provider-credentials', undefined, KEY)).body.result.map((p: any) => p.client_id)).toEqual(['corp-client']);
    const deleted = await call('DELETE', '/organizations/sso/oidc/provider-credentials/corp-client', undefined, KEY);
    expect(deleted.status).toBe(200);
    expect(deleted.body.result).toEqual(gone.body.result);
    expect((await call('GET', '/organizations/sso/oidc/provider-credentials/corp-client', undefined, KEY)).status).toBe(404);
  });
});

describe.each(BACKENDS)('management API for one person (%s)', (backend) => {
  const t = useTestServer(backend);

  it('reads and writes every attribute bucket, consents and credentials, and hands out a direct ID', async () => {
    const call = contractApi(t.server);
    const token = await signInWithEmail(t.server, 'managed@example.com');
    const id = decodeClaims(token).person_id;
    const put = await call('PUT', `/persons/${id}/attributes`, { end_user_no_access: { risk: 3 }, end_user_read_only: { tier: 'gold' } }, KEY);
    expect(put.status).toBe(204);
    expect((await call('GET', `/persons/${id}/attributes?buckets=end_user_no_access,end_user_read_only`, undefined, KEY)).body.result).toEqual({ end_user_no_access: { risk: 3 }, end_user_read_only: { tier: 'gold' } });
    await call('PATCH', `/persons/${id}/attributes/end_user_no_access`, { note: 'vip' }, KEY);
    expect((await call('GET', `/persons/${id}/attributes/end_user_no_access?attributes=note`, undefined, KEY)).body.result).toEqual({ note: 'vip' });
    // The person still cannot read the no-access bucket, but sees the read-only one.
    expect((await call('GET', '/attributes?buckets=end_user_no_access', undefined, { token })).status).toBe(403);
    expect((await call('GET', '/attributes?buckets=end_user_read_only', undefined, { token })).body.result).toEqual({ end_user_read_only: { tier: 'gold' } });
    expect((await call('DELETE', `/persons/${id}/attributes/end_user_no_access?attributes=risk`, undefined, KEY)).status).toBe(204);
    expect((await call('GET', `/persons/${id}/attributes?buckets=end_user_no_access`, undefined, KEY)).body.result).toEqual({ end_user_no_access: { note: 'vip' } });

    await call('POST', `/persons/${id}/consent/gdpr`, { consent_levels: ['marketing', 'analytics'] }, KEY);
    expect((await call('GET', '/consent/gdpr', undefined, { token })).body.result.consents.map((c: any) => c.consent_level)).toEqual(['analytics', 'marketing']);
    expect((await call('DELETE', `/persons/${id}/consent/gdpr?deleteAll=true`, undefined, KEY)).status).toBe(204);
    expect((await call('GET', `/persons/${id}/consent/gdpr`, undefined, KEY)).body.result.consents).toEqual([]);

    const pw = await t.call('POST', '/id/v2', { factor: { method: 'password' } }, { token });
    await t.call('POST', '/attestation/v3', { challenge_id: pw.body.result[0].id, challenge_type: 'password_set', data: { password: 'managed password 1' } });
    const creds = await call('GET', `/persons/${id}/credentials`, undefined, KEY);
    expect(creds.body.result.map((c: any) => c.type)).toEqual(['password']);
    expect((await call('DELETE', `/persons/${id}/credentials/${creds.body.result[0].id}`, undefined, KEY)).status).toBe(204);
    // Without a password the factor still asks for one (it tells nothing of the person, #36); no password passes.
    const none = (await t.call('POST', '/id/v2', { handle: 'managed@example.com', factor: { method: 'password' } })).body.result[0];
    expect((await t.call('POST', '/attestation/v3', { challenge_id: none.id, challenge_type: 'password_verify', data: { password: 'managed password 1' } })).status).toBe(401);

    const minted = await call('POST', `/persons/${id}/mint-token`, { custom_claims: { tenant: 'blue' }, expiry_seconds: 120 }, KEY);
    expect(minted.status).toBe(201);
    expect(decodeClaims(minted.body.result)).toMatchObject({ person_id: id, authenticated_methods: ['api'], tenant: 'blue' });
    const claims = decodeClaims(minted.body.result);
    expect(claims.exp - claims.iat).toBe(120);
    expect((await call('POST', '/token/validate', { token: minted.body.result })).body.result.valid).toBe(true);
    const reserved = await call('POST', `/persons/${id}/mint-token`, { custom_claims: { oid: 'other', sub: 'x' } }, KEY);
    expect(reserved.body.errors[0]).toEqual({ httpcode: 400, message: 'custom_claims may not set reserved claims: oid, sub' });

    const weak = await call('PUT', `/persons/${id}/credentials/password`, { password: 'short' }, KEY);
    expect(weak.body.errors[0].message).toBe('password does not satisfy the validation rules: min_length, digit');
    const set = await call('PUT', `/persons/${id}/credentials/password`, { password: 'imported', skip_validation: true }, KEY);
    expect(set.body.result).toMatchObject({ type: 'password', params: { hash_algorithm: 'scrypt' } });
    const login = await t.call('POST', '/id/v2', { handle: 'managed@example.com', factor: { method: 'password' } });
    expect((await t.call('POST', '/attestation/v3', { challenge_id: login.body.result[0].id, challenge_type: 'password_verify', data: { password: 'imported' } })).status).toBe(200);
    // Organization-initiated reset: a link with a challenge pack holding password_reset.
    const reset = await call('POST', `/persons/${id}/credentials/password-reset`, { handle: { type: 'email_address', value: 'managed@example.com' }, redirect_target: 'http://localhost:3000/reset' }, KEY);
    expect(reset.status).toBe(202);
    expect(reset.body.result).toEqual({ sent_to: { type: 'email_address', value: 'managed@example.com' } });
    const link = new URL((await lastMessage(t.server, 'managed@example.com')).link!);
    expect(link.origin + link.pathname).toBe('http://localhost:3000/reset');
    const resetPack = await call('GET', `/challenge_pack/${link.searchParams.get('challenge_pack_id')}`);
    const [resetCh] = resetPack.body.result;
    expect(resetCh.type).toBe('password_reset');
    const resetDone = await call('POST', '/attestation/v3', { challenge_id: resetCh.id, challenge_type: 'password_reset', data: { password: 'a brand new password 9' } });
    expect(decodeClaims(resetDone.body.result.token).person_id).toBe(id);
    const login2 = await t.call('POST', '/id/v2', { handle: 'managed@example.com', factor: { method: 'password' } });
    expect((await t.call('POST', '/attestation/v3', { challenge_id: login2.body.result[0].id, challenge_type: 'password_verify', data: { password: 'a brand new password 9' } })).status).toBe(200);
    expect((await call('DELETE', `/persons/${id}/credentials`, undefined, KEY)).status).toBe(204);
    expect((await call('GET', `/persons/${id}/credentials`, undefined, KEY)).body.result).toEqual([]);
    expect((await call('GET', `/persons/${id}/organizations`, undefined, KEY)).body.result).toEqual([{ id: t.server.orgId, org_name: 'Keyway Dev', tenant_name: 'keyway-dev', person_id: id, managed_organizations: [] }]);
    const buckets = await call('GET', '/organizations/attribute-buckets', undefined, KEY);
    expect(buckets.body.result).toContainEqual(expect.objectContaining({ name: 'person_pool-end_user_read_only', end_user_access: 'read_only', shared_with_person_pool: true }));

    const direct = await call('POST', `/persons/${id}/direct-id`, undefined, KEY);
    expect(direct.status).toBe(201);
    const pack = await call('GET', `/challenge_pack/${direct.body.result}`);
    const [nonce] = pack.body.result;
    const signed = await call('POST', '/attestation/v3', { challenge_id: nonce.id, challenge_type: 'nonce', data: { challenge: nonce.options.challenge } });
    expect(decodeClaims(signed.body.result.token)).toMatchObject({ person_id: id, authenticated_methods: ['direct_id'] });
  });
});

describe.each(BACKENDS)('groups (%s)', (backend) => {
  const t = useTestServer(backend);

  it('creates groups, adds and removes members, and deleting a group clears memberships', async () => {
    const call = contractApi(t.server);
    const created = await call('POST', '/groups', { name: 'editors', description: 'May edit pages' }, KEY);
    expect(created.status).toBe(201);
    expect(created.body.result).toMatchObject({ name: 'editors', description: 'May edit pages' });
    expect((await call('POST', '/groups', { name: 'editors' }, KEY)).status).toBe(409);
    const a = decodeClaims(await signInWithEmail(t.server, 'ga@example.com')).person_id;
    const b = decodeClaims(await signInWithEmail(t.server, 'gb@example.com')).person_id;
    expect((await call('POST', '/groups/editors/persons', { persons: [a, b] }, KEY)).status).toBe(201);
    const members = await call('GET', '/groups/editors/persons', undefined, KEY);
    expect(members.body.result).toEqual([a, b]);
    expect(decodeClaims(await signInWithEmail(t.server, 'ga@example.com')).groups).toEqual(['editors']);
    expect((await call('DELETE', `/groups/editors/persons/${b}`, undefined, KEY)).status).toBe(200);
    expect((await call('GET', '/groups/editors/persons', undefined, KEY)).body.meta.pagination.total_count).toBe(1);
    // Groups set on a person directly are listed too.
    await call('PUT', `/persons/${b}/groups`, { groups: ['reviewers'] }, KEY);
    expect((await call('GET', '/groups', undefined, KEY)).body.result).toEqual(['editors', 'reviewers']);
    expect((await call('DELETE', '/groups/editors', undefined, KEY)).status).toBe(200);
    expect((await call('GET', `/persons/${a}/groups`, undefined, KEY)).body.result).toEqual([]);
    expect((await call('GET', '/groups/editors', undefined, KEY)).status).toBe(404);
    expect((await call('POST', '/groups/nope/persons', { persons: [a] }, KEY)).body.errors[0]).toEqual({ httpcode: 404, message: 'group "nope" does not exist' });
  });
});

describe.each(BACKENDS)('OAuth2 clients (%s)', (backend) => {
  const t = useTestServer(backend);

  it('registers a confidential client whose secret the token, introspection and revocation endpoints require', async () => {
    const call = contractApi(t.server);
    const created = await call('POST', '/oauth2/clients', { client_name: 'Back office', scopes: ['openid'], grant_types: ['authorization_code'], redirect_uris: ['https://app.example/cb'], access_token_duration: 900 }, KEY);
    expect(created.status).toBe(201);
    const { client_id, client_secret } = created.body.result;
    expect(client_secret).toMatch(/^kwcs_/);
    expect(JSON.stringify((await call('GET', `/oauth2/clients/${client_id}`, undefined, KEY)).body)).not.toContain(client_secret);
    const refreshAlone = await call('POST', '/oauth2/clients', { client_name: 'Refresher', scopes: ['openid'], grant_types: ['refresh_token'] }, KEY);
    expect(refreshAlone.body.errors[0]).toEqual({ httpcode: 400, message: 'grant_types: refresh_token needs authorization_code (refresh tokens are issued with the authorization code grant)' });

    // Hosted login with the held token, then the code exchange needs the secret.
    const { createHash, randomBytes } = await import('node:crypto');
    const verifier = randomBytes(32).toString('base64url');
    const token = await signInWithEmail(t.server, 'client@example.com');
    const q = new URLSearchParams({ response_type: 'code', client_id, redirect_uri: 'https://app.example/cb', state: 'state-123456', scope: 'openid', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', token });
    const code = new URL((await fetch(`${t.server.url}/oauth2/authorize?${q}`, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
    const form = (data: Record<string, string>, basic?: string) =>
      fetch(`${t.server.url}/oauth2/tokens`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...(basic ? { authorization: `Basic ${Buffer.from(basic).toString('base64')}` } : {}) }, body: new URLSearchParams(data) });
    const base = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: 'https://app.example/cb' };
    const noSecret = await form({ ...base, client_id });
    expect(noSecret.status).toBe(401);
    expect(((await noSecret.json()) as any).error).toBe('invalid_client');
    const ok = await form(base, `${client_id}:${client_secret}`);
    expect(ok.status).toBe(200);
    const tokens = (await ok.json()) as { access_token: string; expires_in: number };
    expect(tokens.expires_in).toBe(900);
    const claims = decodeClaims(tokens.access_token);
    expect(claims.exp - claims.iat).toBe(900);

    const post = (path: string, data: Record<string, string>, basic: string) =>
      fetch(`${t.server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(basic).toString('base64')}` }, body: new URLSearchParams(data) });
    const auth = `${client_id}:${client_secret}`;
    expect(await (await post('/oauth2/tokens/introspect', { token: tokens.access_token }, auth)).json()).toMatchObject({ active: true, sub: claims.person_id, client_id });
    expect((await post('/oauth2/tokens/introspect', { token: tokens.access_token }, `${client_id}:wrong`)).status).toBe(401);
    expect((await post('/oauth2/tokens/revoke', { token: tokens.access_token }, auth)).status).toBe(200);
    expect(await (await post('/oauth2/tokens/introspect', { token: tokens.access_token }, auth)).json()).toEqual({ active: false });

    // A rotated secret replaces the old one.
    const rotated = await call('PUT', `/oauth2/clients/${client_id}/secret`, undefined, KEY);
    expect((await post('/oauth2/tokens/introspect', { token: token }, auth)).status).toBe(401);
    expect((await post('/oauth2/tokens/introspect', { token: token }, `${client_id}:${rotated.body.result.client_secret}`)).status).toBe(200);
    expect((await call('PATCH', `/oauth2/clients/${client_id}`, { client_name: 'Back office 2' }, KEY)).body.result.client_name).toBe('Back office 2');
    expect((await call('GET', '/oauth2/clients', undefined, KEY)).body.result.map((c: any) => c.client_id)).toEqual(['keyway-dev-client', client_id]);
    expect((await call('DELETE', `/oauth2/clients/${client_id}`, undefined, KEY)).status).toBe(204);
  });
});
