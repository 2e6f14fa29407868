import { describe, expect, it } from 'vitest';
import { contractApi, expectMatchesSpec } from './contract.js';
import bcrypt from 'bcryptjs';
import { BACKENDS, decodeClaims, lastMessage, useTestServer } from './helpers.js';
import { migrations } from '../src/db/migrations.js';

// Issue #24, tags Persons, Person Credentials, Person handles, Person Consents, Persons Bulk Import, Groups, RBAC:
// calls made exactly as the public "SlashID API" document describes them (method, path, field names, status code,
// result shape; `SlashID-` headers read as `Keyway-`), against the real server on both databases. Every answer is
// also checked against api/openapi.yaml (contractApi).

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

describe.each(BACKENDS)('public-document calls: groups, RBAC, persons (%s)', (backend) => {
  const t = useTestServer(backend);
  const newPerson = async (email: string) => {
    const res = await contractApi(t.server)('POST', '/persons', { handles: [{ type: 'email_address', value: email }] }, KEY);
    expect(res.status).toBe(201);
    return res.body.result.person_id as string;
  };

  it('groups: names in listings, created and members_count, documented status codes', async () => {
    const call = contractApi(t.server);
    const [a, b] = [await newPerson('grp-a@example.com'), await newPerson('grp-b@example.com')];
    expect((await call('POST', '/groups', { name: 'writers', description: 'Write' }, KEY)).status).toBe(201);
    await call('POST', '/groups', { name: 'auditors' }, KEY);
    const list = await call('GET', '/groups', undefined, KEY);
    expect(list.status).toBe(200);
    expect(list.body.result).toEqual(['auditors', 'writers']);

    const added = await call('POST', '/groups/writers/persons', { persons: [a, b] }, KEY);
    expect(added.status).toBe(201);
    expect(added.body.result).toBeUndefined();
    const group = await call('GET', '/groups/writers', undefined, KEY);
    expect(group.body.result).toEqual({ name: 'writers', description: 'Write', created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), members_count: 2 });
    expect((await call('GET', '/groups/writers/persons', undefined, KEY)).body.result).toEqual([a, b]);

    const removed = await call('DELETE', `/groups/writers/persons/${a}`, undefined, KEY);
    expect(removed.status).toBe(200);
    expect((await call('GET', '/groups/writers/persons', undefined, KEY)).body.result).toEqual([b]);
    expect((await call('GET', '/groups/writers', undefined, KEY)).body.result.members_count).toBe(1);
    const deleted = await call('DELETE', '/groups/writers', undefined, KEY);
    expect(deleted.status).toBe(200);
    expect((await call('GET', '/groups/writers', undefined, KEY)).status).toBe(404);
    expect((await call('GET', `/persons/${b}/groups`, undefined, KEY)).body.result).toEqual([]);
  });

  it('RBAC: 204 on create and change, names in listings, created, permission_name and granted', async () => {
    const call = contractApi(t.server);
    const made = await call('POST', '/rbac/permissions', { name: 'pages:read', description: 'Read pages' }, KEY);
    expect(made.status).toBe(204);
    await call('POST', '/rbac/permissions', { name: 'pages:write' }, KEY);
    expect((await call('POST', '/rbac/roles', { name: 'page-editor', permissions: ['pages:read'] }, KEY)).status).toBe(204);
    expect((await call('GET', '/rbac/permissions', undefined, KEY)).body.result).toEqual(['pages:read', 'pages:write']);
    expect((await call('GET', '/rbac/roles', undefined, KEY)).body.result).toEqual(['page-editor']);
    expect((await call('GET', '/rbac/permissions/pages:read', undefined, KEY)).body.result).toEqual({ name: 'pages:read', description: 'Read pages', created: expect.stringMatching(/^\d{4}-/) });
    const role = await call('GET', '/rbac/roles/page-editor', undefined, KEY);
    expect(role.body.result).toEqual({ name: 'page-editor', permissions: ['pages:read'], created: expect.stringMatching(/^\d{4}-/) });

    expect((await call('PATCH', '/rbac/permissions/pages:write', { description: 'Write pages' }, KEY)).status).toBe(204);
    expect((await call('GET', '/rbac/permissions/pages:write', undefined, KEY)).body.result.description).toBe('Write pages');
    // The document makes every field of the permission change optional: an empty change changes nothing.
    expect((await call('PATCH', '/rbac/permissions/pages:write', {}, KEY)).status).toBe(204);
    expect((await call('GET', '/rbac/permissions/pages:write', undefined, KEY)).body.result.description).toBe('Write pages');
    expect((await call('PATCH', '/rbac/roles/page-editor', { permissions: ['pages:read', 'pages:write'] }, KEY)).status).toBe(204);
    expect((await call('GET', '/rbac/roles/page-editor', undefined, KEY)).body.result.permissions).toEqual(['pages:read', 'pages:write']);

    const id = await newPerson('rbac-doc@example.com');
    expect((await call('PUT', `/persons/${id}/roles`, { roles: ['page-editor'] }, KEY)).status).toBe(204);
    expect((await call('GET', `/persons/${id}/roles`, undefined, KEY)).body.result).toEqual(['page-editor']);
    expect((await call('PUT', `/persons/${id}/additional-permissions`, { permissions: ['pages:write'] }, KEY)).status).toBe(204);
    expect((await call('GET', `/persons/${id}/additional-permissions`, undefined, KEY)).body.result).toEqual(['pages:write']);
    expect((await call('GET', `/persons/${id}/permissions`, undefined, KEY)).body.result).toEqual(['pages:read', 'pages:write']);

    const check = await call('POST', '/rbac/check', { person_id: id, permission_name: 'pages:write' }, KEY);
    expect(check.status).toBe(200);
    expect(check.body.result).toMatchObject({ granted: true });
    expect((await call('POST', '/rbac/check', { person_id: id, permission_name: 'pages:delete' }, KEY)).body.result).toMatchObject({ granted: false });
    // Keyway's earlier field name stays accepted.
    expect((await call('POST', '/rbac/check', { person_id: id, permission: 'pages:read' }, KEY)).body.result).toMatchObject({ granted: true });
    expect((await call('POST', '/rbac/check', { person_id: id }, KEY)).status).toBe(400);
  });

  it('handles, consents, direct-id and mint-token answer the documented codes and shapes', async () => {
    const call = contractApi(t.server);
    const id = await newPerson('handles-doc@example.com');
    const added = await call('POST', `/persons/${id}/handles`, [{ type: 'phone_number', value: '+447700900123' }, { type: 'username', value: 'doc-user' }], KEY);
    expect(added.status).toBe(204);
    expect((await call('GET', `/persons/${id}/handles`, undefined, KEY)).body.result).toEqual([
      { type: 'email_address', value: 'handles-doc@example.com', verified: false },
      { type: 'phone_number', value: '+447700900123', verified: false },
      { type: 'username', value: 'doc-user', verified: false },
    ]);

    const consent = await call('POST', `/persons/${id}/consent/gdpr`, { consent_levels: ['analytics'] }, KEY);
    expect(consent.status).toBe(201);
    expect(consent.body.result.consents.map((c: { consent_level: string }) => c.consent_level)).toEqual(['analytics']);

    const direct = await call('POST', `/persons/${id}/direct-id`, { duration_secs: 120 }, KEY);
    expect(direct.status).toBe(201);
    expect(typeof direct.body.result).toBe('string');
    expect((await call('POST', `/persons/${id}/direct-id`, undefined, KEY)).status).toBe(201);

    const minted = await call('POST', `/persons/${id}/mint-token`, { custom_claims: { plan: 'pro' } }, KEY);
    expect(minted.status).toBe(201);
    expect(typeof minted.body.result).toBe('string');
    expect(decodeClaims(minted.body.result)).toMatchObject({ person_id: id, plan: 'pro' });
  });

  it('regions: the document\'s names in and out; earlier names accepted and stored as the new ones', async () => {
    const call = contractApi(t.server);
    const made = await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'tokyo@example.com' }], region: 'asia-japan' }, KEY);
    expect(made.body.result.region).toBe('asia-japan');
    const id = made.body.result.person_id as string;
    expect((await call('PATCH', `/persons/${id}`, { region: 'europe-england' }, KEY)).body.result.region).toBe('europe-england');
    expect((await call('PATCH', `/persons/${id}`, { region: 'eu-north' }, KEY)).body.result.region).toBe('europe-belgium');
    const old = await call('PUT', '/persons', { handles: [{ type: 'email_address', value: 'iowa@example.com' }], region: 'us-central' }, KEY);
    expect(old.body.result.region).toBe('us-iowa');
    expect((await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'default@example.com' }] }, KEY)).body.result.region).toBe('europe-belgium');
    expect((await call('PATCH', `/persons/${id}`, { region: 'mars' }, KEY)).status).toBe(400);

    // The SDK-facing anonymous person takes the same names; an unknown one is a 400 naming it.
    const anon = await call('POST', '/persons/anonymous', { region: 'australia-sydney' });
    expect(anon.status).toBe(200);
    expect((await call('GET', `/persons/${decodeClaims(anon.body.result).person_id}`, undefined, KEY)).body.result.region).toBe('australia-sydney');
    const mars = await call('POST', '/persons/anonymous', { region: 'mars' });
    expect(mars.status).toBe(400);
    expect(mars.body.errors[0].message).toMatch(/unknown region "mars"|region/);

    // A filter written with an earlier name finds the persons stored under the new one.
    const filtered = await call('GET', `/persons?filter=${encodeURIComponent('region eq "us-central"')}`, undefined, KEY);
    expect(filtered.body.result.map((p: { person_id: string }) => p.person_id)).toEqual([old.body.result.person_id]);

    // Migration 0014 rewrites values stored under the earlier names.
    await t.server.db.updateTable('persons').set({ region: 'ap-southeast' }).where('id', '=', id).execute();
    await t.server.db.updateTable('persons').set({ region: 'eu-west' }).where('id', '=', old.body.result.person_id).execute();
    await migrations(backend)['0014_region_names']!.up(t.server.db);
    expect((await call('GET', `/persons/${id}`, undefined, KEY)).body.result.region).toBe('australia-sydney');
    expect((await call('GET', `/persons/${old.body.result.person_id}`, undefined, KEY)).body.result.region).toBe('europe-belgium');
  });

  it('If-Match: a change with the ETag of the last read passes, a stale one answers 412 and changes nothing', async () => {
    const call = contractApi(t.server);
    await call('POST', '/rbac/permissions', { name: 'etag:a' }, KEY);
    await call('POST', '/rbac/permissions', { name: 'etag:b' }, KEY);
    await call('POST', '/rbac/roles', { name: 'etag-role', permissions: ['etag:a'] }, KEY);
    const id = await newPerson('etag@example.com');

    // A person's roles (and, the same way, additional permissions).
    const roles = await call('GET', `/persons/${id}/roles`, undefined, KEY);
    const tag = roles.headers.get('etag')!;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const first = await call('PUT', `/persons/${id}/roles`, { roles: ['etag-role'] }, { headers: { ...KEY.headers, 'if-match': tag } });
    expect(first.status).toBe(204);
    expect(first.headers.get('etag')).not.toBe(tag);
    const stale = await call('PUT', `/persons/${id}/roles`, { roles: [] }, { headers: { ...KEY.headers, 'if-match': tag } });
    expect(stale.status).toBe(412);
    expect(stale.body.errors[0]).toEqual({ httpcode: 412, message: expect.stringContaining('the object changed since it was read') });
    expect((await call('GET', `/persons/${id}/roles`, undefined, KEY)).body.result).toEqual(['etag-role']);
    expect((await call('GET', `/persons/${id}/roles`, undefined, KEY)).headers.get('etag')).toBe(first.headers.get('etag'));
    expect((await call('PUT', `/persons/${id}/roles`, { roles: [] }, { headers: { ...KEY.headers, 'if-match': '*' } })).status).toBe(204);
    const perms = await call('GET', `/persons/${id}/additional-permissions`, undefined, KEY);
    await call('PUT', `/persons/${id}/additional-permissions`, { permissions: ['etag:b'] }, KEY); // someone else's change
    expect((await call('PUT', `/persons/${id}/additional-permissions`, { permissions: ['etag:a'] }, { headers: { ...KEY.headers, 'if-match': perms.headers.get('etag')! } })).status).toBe(412);
    expect((await call('GET', `/persons/${id}/additional-permissions`, undefined, KEY)).body.result).toEqual(['etag:b']);

    // Roles and permissions of the organization.
    const role = await call('GET', '/rbac/roles/etag-role', undefined, KEY);
    const changed = await call('PATCH', '/rbac/roles/etag-role', { permissions: ['etag:a', 'etag:b'] }, { headers: { ...KEY.headers, 'if-match': role.headers.get('etag')! } });
    expect(changed.status).toBe(204);
    expect((await call('GET', '/rbac/roles/etag-role', undefined, KEY)).headers.get('etag')).toBe(changed.headers.get('etag'));
    expect((await call('PATCH', '/rbac/roles/etag-role', { description: 'late' }, { headers: { ...KEY.headers, 'if-match': role.headers.get('etag')! } })).status).toBe(412);
    expect((await call('GET', '/rbac/roles/etag-role', undefined, KEY)).body.result).toEqual({ name: 'etag-role', permissions: ['etag:a', 'etag:b'], created: expect.any(String) });
    const permission = await call('GET', '/rbac/permissions/etag:a', undefined, KEY);
    expect((await call('PATCH', '/rbac/permissions/etag:a', { description: 'A' }, { headers: { ...KEY.headers, 'if-match': permission.headers.get('etag')! } })).status).toBe(204);
    expect((await call('PATCH', '/rbac/permissions/etag:a', { description: 'B' }, { headers: { ...KEY.headers, 'if-match': permission.headers.get('etag')! } })).status).toBe(412);
    expect((await call('GET', '/rbac/permissions/etag:a', undefined, KEY)).body.result.description).toBe('A');
    expect((await call('PATCH', '/rbac/permissions/etag:nope', { description: 'x' }, { headers: { ...KEY.headers, 'if-match': '*' } })).status).toBe(404);
  });

  it('a person may be created without handles and given them later; groups may be set to none by omitting them', async () => {
    const call = contractApi(t.server);
    const bare = await call('POST', '/persons', { attributes: { end_user_read_write: { step: 1 } } }, KEY);
    expect(bare.status).toBe(201);
    expect(bare.body.result).toMatchObject({ person_type: 'regular', handles: [], attributes: { end_user_read_write: { step: 1 } } });
    const id = bare.body.result.person_id as string;
    expect((await call('POST', `/persons/${id}/handles`, [{ type: 'email_address', value: 'later@example.com' }], KEY)).status).toBe(204);
    expect((await call('GET', `/persons?handle=email_address:later@example.com`, undefined, KEY)).body.result.map((p: { person_id: string }) => p.person_id)).toEqual([id]);
    // PUT without handles has nothing to find a person by: it creates one.
    const put = await call('PUT', '/persons', { groups: ['no-handle'] }, KEY);
    expect(put.status).toBe(200);
    expect(put.body.result.person_id).not.toBe(id);
    expect(put.body.result.handles).toEqual([]);

    await call('PUT', `/persons/${id}/groups`, { groups: ['a-team'] }, KEY);
    const cleared = await call('PUT', `/persons/${id}/groups`, {}, KEY);
    expect(cleared.status).toBe(200);
    expect(cleared.body.result).toEqual([]);
    expect((await call('GET', `/persons/${id}/groups`, undefined, KEY)).body.result).toEqual([]);
  });

  it('password credentials as the document sends them: imported bcrypt hashes, reset_handle, force_change, rotate without a body', async () => {
    const call = contractApi(t.server);
    const id = await newPerson('hash@example.com');
    const signIn = async (password: string) => {
      const start = await t.call('POST', '/id/v2', { handle: 'hash@example.com', factor: { method: 'password' } });
      const ch = start.body.result[0];
      return t.call('POST', '/attestation/v3', { challenge_id: ch.id, challenge_type: ch.type, data: { password } });
    };
    const imported = await call('PUT', `/persons/${id}/credentials/password`, { type: 'password', label: 'From the old system', params: { password_hash: bcrypt.hashSync('Old system pass 7', 4) } }, KEY);
    expect(imported.status).toBe(200);
    expect(imported.body.result).toMatchObject({ type: 'password', label: 'From the old system', params: { hash_algorithm: 'bcrypt' } });
    expect(JSON.stringify(imported.body.result)).not.toContain('$2');
    expect((await signIn('wrong password 1')).status).toBe(401);
    expect((await signIn('Old system pass 7')).status).toBe(200);
    // The first sign-in that proves the password replaces the imported hash with this server's own.
    expect((await call('GET', `/persons/${id}/credentials`, undefined, KEY)).body.result[0].params).toEqual({ hash_algorithm: 'scrypt' });
    expect((await signIn('Old system pass 7')).status).toBe(200);

    const argon = await call('PUT', `/persons/${id}/credentials/password`, { type: 'password', params: { password_hash: '$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo' } }, KEY);
    expect(argon.status).toBe(400);
    expect(argon.body.errors[0].message).toMatch(/^params\.password_hash: the format "argon2id" is not supported/);
    expect((await call('PUT', `/persons/${id}/credentials/password`, { type: 'totp', params: { password_hash: 'x' } }, KEY)).status).toBe(400);
    expect((await signIn('Old system pass 7')).status).toBe(200); // nothing changed

    // Reset: reset_handle (or, absent, the first e-mail address); force_change refuses the current password until reset.
    const reset = await call('POST', `/persons/${id}/credentials/password-reset`, { reset_handle: { type: 'email_address', value: 'hash@example.com' }, redirect_target: 'http://localhost:3000/reset' }, KEY);
    expect(reset.status).toBe(202);
    expect((await signIn('Old system pass 7')).status).toBe(200);
    const forced = await call('POST', `/persons/${id}/credentials/password-reset`, { force_change: true, redirect_target: 'http://localhost:3000/reset' }, KEY);
    expect(forced.status).toBe(202);
    expect(forced.body.result.sent_to).toEqual({ type: 'email_address', value: 'hash@example.com' });
    expect((await lastMessage(t.server, 'hash@example.com')).link).toMatch(/^http:\/\/localhost:3000\/reset\?challenge_pack_id=/);
    expect((await signIn('Old system pass 7')).status).toBe(403);

    await call('PUT', `/persons/${id}/credentials/password`, { password: 'Fresh pass 88', skip_validation: true }, KEY);
    const rotated = await call('POST', `/persons/${id}/credentials/password-rotate`, undefined, KEY);
    expect(rotated.status).toBe(200);
    expect((await signIn('Fresh pass 88')).status).toBe(403);
  });

  it('bulk import: the CSV in the part `persons`, answered with successful_imports, failed_imports and failed_csv', async () => {
    const csv = 'handle_type,handle_value,groups\nemail_address,bulk-doc@example.com,importers\nemail_address,"not, an email",importers\n';
    const form = new FormData();
    form.append('persons', new Blob([csv], { type: 'text/csv' }), 'persons.csv');
    const res = await fetch(`${t.server.url}/persons/bulk-import`, { method: 'POST', headers: { 'keyway-orgid': t.server.orgId, ...KEY.headers }, body: form });
    const body = (await res.json()) as { result: Record<string, unknown> };
    expectMatchesSpec('POST', '/persons/bulk-import', res.status, body);
    expect(res.status).toBe(200);
    expect(body.result).toMatchObject({ successful_imports: 1, failed_imports: 1 });
    // The refused rows as sent, quoted where needed, ready to be fixed and sent again.
    expect(body.result.failed_csv).toBe('handle_type,handle_value,groups\nemail_address,"not, an email",importers\n');
    const found = await contractApi(t.server)('GET', '/persons?handle=email_address:bulk-doc@example.com', undefined, KEY);
    expect(found.body.result[0].groups).toEqual(['importers']);
  });

  it("a person's organizations carry tenant_name (and parent_id for a suborganization)", async () => {
    const call = contractApi(t.server);
    const id = await newPerson('orgs-doc@example.com');
    const orgs = await call('GET', `/persons/${id}/organizations`, undefined, KEY);
    expect(orgs.body.result).toEqual([{ id: t.server.orgId, org_name: 'Keyway Dev', tenant_name: 'keyway-dev', person_id: id, managed_organizations: [] }]);
  });
});
