import { describe, expect, it } from 'vitest';
import { contractApi } from './contract.js';
import { BACKENDS, decodeClaims, signInWithEmail, useTestServer } from './helpers.js';

describe.each(BACKENDS)('organization settings (%s)', (backend) => {
  const t = useTestServer(backend);

  it('signs persons of a pooled organization in as themselves, and renames the groups claim when asked', async () => {
    const home = decodeClaims(await signInWithEmail(t.server, 'pooled@example.com'));
    await t.server.db.updateTable('persons').set({ groups: '["editors"]' }).where('id', '=', home.person_id).execute();
    const now = new Date().toISOString();
    await t.server.db
      .insertInto('organizations')
      .values({ id: 'org_pool', parent_id: null, org_name: 'Pool', tenant_name: 'pool', settings: JSON.stringify({ person_pool_orgs_ids: [t.server.orgId], groups_claim_name: 'roles' }), created_at: now })
      .execute();
    t.server.reloadOrganizations();
    const pooled = decodeClaims(await signInWithEmail({ url: t.server.url, orgId: 'org_pool' }, 'pooled@example.com'));
    expect(pooled).toMatchObject({ person_id: home.person_id, oid: 'org_pool', first_token: false, roles: ['editors'] });
    expect(pooled.groups).toBeUndefined();
    const again = decodeClaims(await signInWithEmail(t.server, 'pooled@example.com'));
    expect(again.groups).toEqual(['editors']);
  });

  it('checks the consistency headers', async () => {
    const token = await signInWithEmail(t.server, 'consistent@example.com');
    const ok = await t.call('POST', '/token/revoke', { token }, { headers: { 'keyway-required-consistency': 'all_regions', 'keyway-required-consistency-timeout': '5' } });
    expect(ok.status).toBe(204);
    const bad = await t.call('POST', '/token/revoke', { token }, { headers: { 'keyway-required-consistency': 'everywhere' } });
    expect(bad.body.errors[0]).toEqual({ httpcode: 400, message: 'Keyway-Required-Consistency must be local_region or all_regions' });
    const badTimeout = await t.call('POST', '/token/revoke', { token }, { headers: { 'keyway-required-consistency-timeout': '-1' } });
    expect(badTimeout.status).toBe(400);
  });
});

describe.each(BACKENDS)('allowed domains (%s)', (backend) => {
  const t = useTestServer(backend);
  const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

  it('limit redirect targets, and open CORS and passkeys to the listed domains', async () => {
    const call = contractApi(t.server);
    const origin = 'https://app.example';
    const preflight = () => fetch(`${t.server.url}/id/v2`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect((await preflight()).headers.get('access-control-allow-origin')).toBeNull();
    const link = (target: string) => t.call('POST', '/id/v2', { handle: 'dom@example.com', factor: { method: 'email_link', options: { redirect_target: target } } });
    expect((await link('https://app.example/welcome')).status).toBe(400); // no list yet: only the server and the configured app origins

    expect((await call('POST', '/organizations/config/domains', { domains: ['app.example', 'docs.example'] }, KEY)).status).toBe(204);
    expect((await call('GET', '/organizations/config/domains', undefined, KEY)).body.result).toEqual(['app.example', 'docs.example']);
    expect((await preflight()).headers.get('access-control-allow-origin')).toBe(origin);
    expect((await link('https://app.example/welcome')).status).toBe(200);
    const refused = await link('https://anywhere.example/x');
    expect(refused.body.errors[0]).toEqual({ httpcode: 400, message: 'factor.options.redirect_target: domain "anywhere.example" is not allowed for this organization' });
    const passkey = await t.call('POST', '/id/v2', { handle: 'dom@example.com', factor: { method: 'webauthn' } }, { headers: { origin } });
    expect(passkey.body.result[0].options.rpId).toBe('app.example');

    expect((await call('DELETE', '/organizations/config/domains', { domains: ['app.example'] }, KEY)).status).toBe(204);
    expect((await preflight()).headers.get('access-control-allow-origin')).toBeNull();
    expect((await call('GET', '/organizations/config/domains', undefined, KEY)).body.result).toEqual(['docs.example']);
  });
});

describe.each(BACKENDS)('token template (%s)', (backend) => {
  const t = useTestServer(backend);
  const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

  it('adds claims rendered from the person attributes and refuses reserved claims', async () => {
    const call = contractApi(t.server);
    const template = JSON.stringify({ plan: '{{ person.attributes.end_user_read_only.plan }}', label: 'plan {{ person.attributes.end_user_read_only.plan }} / {{ person.attributes.end_user_read_only.missing }}', seats: '{{ person.attributes.end_user_no_access.seats }}' });
    expect((await call('PUT', '/organizations/config/token-template', { content: template }, KEY)).status).toBe(204);
    expect((await call('GET', '/organizations/config/token-template', undefined, KEY)).body.result.content).toBe(template);
    const first = decodeClaims(await signInWithEmail(t.server, 'tpl@example.com'));
    expect(first).toMatchObject({ plan: null, label: 'plan  / ', seats: null });
    await call('PATCH', `/persons/${first.person_id}/attributes`, { end_user_read_only: { plan: 'gold' }, end_user_no_access: { seats: 12 } }, KEY);
    const second = decodeClaims(await signInWithEmail(t.server, 'tpl@example.com'));
    expect(second).toMatchObject({ plan: 'gold', label: 'plan gold / ', seats: 12, person_id: first.person_id });

    const reserved = await call('PUT', '/organizations/config/token-template', { content: '{"oid":"x"}' }, KEY);
    expect(reserved.body.errors[0]).toEqual({ httpcode: 400, message: 'token template may not set the reserved claim "oid"' });
    const broken = await call('PUT', '/organizations/config/token-template', { content: '{"a":' }, KEY);
    expect(broken.body.errors[0].message).toMatch(/^token template is not valid JSON: /);
    await call('PUT', '/organizations/config/token-template', { content: '{}' }, KEY);
  });
});
