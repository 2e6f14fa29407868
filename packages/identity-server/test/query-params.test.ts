import { describe, expect, it } from 'vitest';
import { contractApi } from './contract.js';
import { api, BACKENDS, useTestServer } from './helpers.js';

// Query parameters of the management API that the public reference contract declares (issue #24, step 1): each is
// implemented, not merely accepted, and the older spellings our own clients used keep working.
const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

describe.each(BACKENDS)('management query parameters (%s)', (backend) => {
  const t = useTestServer(backend);

  it('GET /persons/{person_id}?fields keeps only the parts named, and names an unknown part', async () => {
    const call = contractApi(t.server);
    const created = await call('POST', '/persons', { active: true, handles: [{ type: 'email_address', value: 'fields@example.com' }], groups: ['editors'] }, KEY);
    const id = created.body.result.person_id as string;
    const some = await call('GET', `/persons/${id}?fields=handles,groups`, undefined, KEY);
    expect(some.status).toBe(200);
    expect(Object.keys(some.body.result).sort()).toEqual(['active', 'groups', 'handles', 'person_id', 'person_type', 'region']);
    expect(some.body.result.handles).toEqual([{ type: 'email_address', value: 'fields@example.com', verified: false }]);
    const repeated = await call('GET', `/persons/${id}?fields=roles&fields=attributes`, undefined, KEY);
    expect(Object.keys(repeated.body.result)).toEqual(expect.arrayContaining(['roles', 'attributes']));
    expect(repeated.body.result.handles).toBeUndefined();
    const all = await call('GET', `/persons/${id}`, undefined, KEY);
    expect(Object.keys(all.body.result)).toEqual(expect.arrayContaining(['handles', 'groups', 'roles', 'attributes']));
    const bad = await call('GET', `/persons/${id}?fields=handles,passwords`, undefined, KEY);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toBe('fields: unknown part "passwords" (use handles, groups, roles, attributes)');
  });

  it('GET /persons narrows by handle, ids and person type, projects with fields, and counts what it lists', async () => {
    const call = contractApi(t.server);
    const make = async (email: string) => (await call('POST', '/persons', { active: true, handles: [{ type: 'email_address', value: email }] }, KEY)).body.result.person_id as string;
    const [ada, bob, cy] = [await make('ada@list.example'), await make('bob@list.example'), await make('cy@list.example')];
    const anon = await call('POST', '/persons/anonymous', {});
    expect(anon.status).toBe(200);
    const byHandle = await call('GET', '/persons?handle=email_address:Ada@List.example', undefined, KEY);
    expect(byHandle.body.result.map((p: { person_id: string }) => p.person_id)).toEqual([ada]);
    expect(byHandle.body.meta.pagination.total_count).toBe(1);
    const byIds = await call('GET', `/persons?ids=${ada},${cy}&fields=handles`, undefined, KEY);
    expect(byIds.body.result.map((p: { person_id: string }) => p.person_id).sort()).toEqual([ada, cy].sort());
    expect(byIds.body.result[0].groups).toBeUndefined();
    expect(byIds.body.result[0].handles).toHaveLength(1);
    const both = await call('GET', `/persons?ids=${ada},${bob}&filter=${encodeURIComponent('handles.value sw "bob"')}`, undefined, KEY);
    expect(both.body.result.map((p: { person_id: string }) => p.person_id)).toEqual([bob]);
    const everyone = await call('GET', '/persons?all_regions=true', undefined, KEY);
    const regular = await call('GET', '/persons?all_person_types=false', undefined, KEY);
    expect(everyone.body.result.some((p: { person_type: string }) => p.person_type === 'anonymous')).toBe(true);
    expect(regular.body.result.every((p: { person_type: string }) => p.person_type === 'regular')).toBe(true);
    expect(regular.body.meta.pagination.total_count).toBe(everyone.body.meta.pagination.total_count - 1);
    const bad = await call('GET', '/persons?handle=ada@list.example', undefined, KEY);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toBe('handle "ada@list.example" must be type:value, e.g. email_address:ada@example.com');
  });

  it('suborganizations and a person\'s organizations are filtered by id or name', async () => {
    const call = contractApi(t.server);
    for (const org_name of ['Acme Docs EU', 'Acme Docs US', 'Globex']) await call('POST', '/organizations/suborganizations', { org_name, tenant_name: org_name.split(' ')[0]!.toLowerCase() }, KEY);
    const subs = (await call('GET', '/organizations', undefined, KEY)).body.result.managed_organizations as Array<{ id: string; org_name: string }>;
    const nameOf = (id: string) => subs.find((o) => o.id === id)!.org_name;
    const names = async (q: string) => (await call('GET', `/organizations/suborganizations?filter=${encodeURIComponent(q)}`, undefined, KEY)).body.result.map(nameOf).sort();
    expect(await names('org_name sw "acme docs"')).toEqual(['Acme Docs EU', 'Acme Docs US']);
    expect(await names('tenant_name eq "globex" or org_name co "EU"')).toEqual(['Acme Docs EU', 'Globex']);
    const bad = await call('GET', `/organizations/suborganizations?filter=${encodeURIComponent('handles.value eq "x"')}`, undefined, KEY);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toMatch(/^filter: unknown attribute "handles.value" \(use id, org_name, tenant_name\)/);
    const person = (await call('POST', '/persons', { active: true, handles: [{ type: 'email_address', value: 'orgs@example.com' }] }, KEY)).body.result.person_id as string;
    const home = await call('GET', `/persons/${person}/organizations?filter=${encodeURIComponent(`id eq "${t.server.orgId}"`)}`, undefined, KEY);
    expect(home.body.result.map((o: { id: string }) => o.id)).toEqual([t.server.orgId]);
    expect((await call('GET', `/persons/${person}/organizations?filter=${encodeURIComponent('org_name eq "nobody"')}`, undefined, KEY)).body.result).toEqual([]);
  });

  it('external credentials are removed by credentialId (cred_id still works), or all at once with deleteAll', async () => {
    const call = contractApi(t.server);
    const make = async (label: string) => (await call('POST', '/organizations/config/external-credentials', { label, type: 'smtp', public_fields: { host: 'smtp.example.com' }, secret_fields: { password: 'p' } }, KEY)).body.result[0] as string;
    const [a, b, c] = [await make('A'), await make('B'), await make('C')];
    expect((await call('DELETE', `/organizations/config/external-credentials?credentialId=${a}`, undefined, KEY)).status).toBe(204);
    expect((await call('DELETE', `/organizations/config/external-credentials?cred_id=${b}`, undefined, KEY)).status).toBe(204);
    const left = await call('GET', '/organizations/config/external-credentials', undefined, KEY);
    expect(left.body.result.map((x: { id: string }) => x.id)).toEqual([c]);
    const none = await call('DELETE', '/organizations/config/external-credentials', undefined, KEY);
    expect(none.status).toBe(400);
    expect(none.body.errors[0].message).toBe('name the external credential to remove with credentialId (or pass deleteAll=true)');
    await make('D');
    expect((await call('DELETE', '/organizations/config/external-credentials?deleteAll=true', undefined, KEY)).status).toBe(204);
    expect((await call('GET', '/organizations/config/external-credentials', undefined, KEY)).body.result).toEqual([]);
  });

  it('allowed domains: overwrite replaces the list; one domain, a body list or deleteAll removes', async () => {
    const call = contractApi(t.server);
    const domains = async () => (await call('GET', '/organizations/config/domains', undefined, KEY)).body.result as string[];
    await call('POST', '/organizations/config/domains', { domains: ['a.example.com', 'b.example.com'] }, KEY);
    await call('POST', '/organizations/config/domains?overwrite=true', { domains: ['c.example.com', 'd.example.com'] }, KEY);
    expect(await domains()).toEqual(['c.example.com', 'd.example.com']);
    await call('POST', '/organizations/config/domains?overwrite=false', { domains: ['e.example.com'] }, KEY);
    expect(await domains()).toEqual(['c.example.com', 'd.example.com', 'e.example.com']);
    await call('DELETE', '/organizations/config/domains?domain=C.example.com', undefined, KEY);
    expect(await domains()).toEqual(['d.example.com', 'e.example.com']);
    await call('DELETE', '/organizations/config/domains', { domains: ['d.example.com'] }, KEY);
    expect(await domains()).toEqual(['e.example.com']);
    const nothing = await call('DELETE', '/organizations/config/domains', undefined, KEY);
    expect(nothing.status).toBe(400);
    expect(await domains()).toEqual(['e.example.com']);
    expect((await call('DELETE', '/organizations/config/domains?deleteAll=true', undefined, KEY)).status).toBe(204);
    expect(await domains()).toEqual([]);
  });

  it('a webhook trigger is detached by the query (the body still works)', async () => {
    const call = contractApi(t.server);
    const hook = (await call('POST', '/organizations/webhooks', { name: 'Q', target_url: 'https://hooks.example.com/q', timeout: 5 }, KEY)).body.result.id as string;
    for (const trigger_name of ['AuthenticationSucceeded_v1', 'PersonCreated_v1']) await call('POST', `/organizations/webhooks/${hook}/triggers`, { trigger_type: 'event', trigger_name }, KEY);
    const q = await call('DELETE', `/organizations/webhooks/${hook}/triggers?trigger_type=event&trigger_name=AuthenticationSucceeded_v1`, undefined, KEY);
    expect(q.status).toBe(204);
    const b = await call('DELETE', `/organizations/webhooks/${hook}/triggers`, { trigger_type: 'event', trigger_name: 'PersonCreated_v1' }, KEY);
    expect(b.status).toBe(204);
    expect((await call('GET', `/organizations/webhooks/${hook}/triggers`, undefined, KEY)).body.result).toEqual([]);
    const half = await call('DELETE', `/organizations/webhooks/${hook}/triggers?trigger_type=event`, undefined, KEY);
    expect(half.status).toBe(400);
  });

  it('OIDC provider credentials are listed by provider (azuread names azure)', async () => {
    const call = contractApi(t.server);
    for (const provider of ['google', 'gitlab']) {
      const made = await call('POST', '/organizations/sso/oidc/provider-credentials', { client_id: `${provider}-client`, client_secret: 's', label: provider, provider }, KEY);
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    const google = await call('GET', '/organizations/sso/oidc/provider-credentials?oauth_provider=google', undefined, KEY);
    expect(google.body.result.map((c: { provider: string }) => c.provider)).toEqual(['google']);
    expect((await call('GET', '/organizations/sso/oidc/provider-credentials?oauth_provider=azuread', undefined, KEY)).body.result).toEqual([]);
    expect((await call('GET', '/organizations/sso/oidc/provider-credentials', undefined, KEY)).body.result).toHaveLength(2);
    expect((await call('GET', '/organizations/sso/oidc/provider-credentials?oauth_provider=myspace', undefined, KEY)).status).toBe(400);
  });

  it('DELETE /organizations deletes a subtree only when asked, and refuses a stale confirmation', async () => {
    const call = contractApi(t.server);
    const parent = await call('POST', '/organizations/suborganizations', { org_name: 'Parent' }, KEY);
    const parentKey = { headers: { 'keyway-api-key': parent.body.result.api_key as string }, org: parent.body.result.id as string };
    const child = await call('POST', '/organizations/suborganizations', { org_name: 'Child' }, parentKey);
    const childKey = { headers: { 'keyway-api-key': child.body.result.api_key as string }, org: child.body.result.id as string };
    await call('POST', '/organizations/suborganizations', { org_name: 'Grandchild' }, childKey);
    const refused = await call('DELETE', '/organizations', undefined, parentKey);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].message).toMatch(/pass delete_suborganizations=true$/);
    const stale = await call('DELETE', `/organizations?delete_suborganizations=true&confirmation_timestamp=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`, undefined, parentKey);
    expect(stale.status).toBe(400);
    expect(stale.body.errors[0].message).toMatch(/^confirmation_timestamp .* is more than five minutes away from the server's clock/);
    const gone = await call('DELETE', `/organizations?delete_suborganizations=true&confirmation_timestamp=${encodeURIComponent(new Date().toISOString())}`, undefined, parentKey);
    expect(gone.status).toBe(204);
    for (const key of [parentKey, childKey]) expect([401, 404]).toContain((await api(t.server)('GET', '/organizations', undefined, key)).status);
    expect((await call('GET', '/organizations', undefined, KEY)).status).toBe(200);
  });
});
