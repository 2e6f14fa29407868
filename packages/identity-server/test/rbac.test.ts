import { describe, expect, it } from 'vitest';
import { contractApi } from './contract.js';
import { BACKENDS, decodeClaims, lastMessage, signInWithEmail, useTestServer } from './helpers.js';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

describe.each(BACKENDS)('RBAC, organization attributes, person upsert and credentials (%s)', (backend) => {
  const t = useTestServer(backend);

  it('defines permissions and roles, grants them and checks them', async () => {
    const call = contractApi(t.server);
    for (const name of ['docs:read', 'docs:write', 'docs:publish']) expect((await call('POST', '/rbac/permissions', { name, description: `may ${name}` }, KEY)).status).toBe(204);
    expect((await call('POST', '/rbac/permissions', { name: 'docs:read' }, KEY)).body.errors[0]).toEqual({ httpcode: 409, message: 'permission "docs:read" already exists' });
    expect((await call('POST', '/rbac/permissions', { name: 'has space' }, KEY)).status).toBe(400);
    expect((await call('PATCH', '/rbac/permissions/docs:publish', { description: 'Publish pages' }, KEY)).status).toBe(204);
    expect((await call('GET', '/rbac/permissions/docs:publish', undefined, KEY)).body.result).toMatchObject({ name: 'docs:publish', description: 'Publish pages' });
    expect((await call('GET', '/rbac/permissions/nope', undefined, KEY)).status).toBe(404);

    const role = await call('POST', '/rbac/roles', { name: 'editor', permissions: ['docs:read', 'docs:write'] }, KEY);
    expect(role.status).toBe(204);
    expect((await call('POST', '/rbac/roles', { name: 'ghost', permissions: ['docs:fly'] }, KEY)).body.errors[0].message).toMatch(/^unknown permission: docs:fly/);
    expect((await call('POST', '/rbac/roles', { name: 'editor' }, KEY)).status).toBe(409);
    await call('POST', '/rbac/roles', { name: 'reader', permissions: ['docs:read'] }, KEY);

    const person = await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'rbac@example.com' }], roles: ['reader'] }, KEY);
    expect(person.body.result.roles).toEqual(['reader']);
    const id = person.body.result.person_id as string;
    expect((await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'nobody@example.com' }], roles: ['pilot'] }, KEY)).body.errors[0].message).toMatch(/^unknown role: pilot/);

    expect((await call('PUT', `/persons/${id}/roles`, { roles: ['reader', 'editor'] }, KEY)).status).toBe(204);
    expect((await call('PUT', `/persons/${id}/roles`, { roles: ['pilot'] }, KEY)).status).toBe(400);
    expect((await call('GET', `/persons/${id}/roles`, undefined, KEY)).body.result).toEqual(['editor', 'reader']);
    expect((await call('PUT', `/persons/${id}/additional-permissions`, { permissions: ['docs:publish'] }, KEY)).status).toBe(204);
    expect((await call('GET', `/persons/${id}/additional-permissions`, undefined, KEY)).body.result).toEqual(['docs:publish']);
    expect((await call('GET', `/persons/${id}/permissions`, undefined, KEY)).body.result).toEqual(['docs:publish', 'docs:read', 'docs:write']);
    const check = (permission: string) => call('POST', '/rbac/check', { person_id: id, permission_name: permission }, KEY).then((r) => r.body.result);
    expect(await check('docs:read')).toEqual({ granted: true, granted_by: ['editor', 'reader'] });
    expect(await check('docs:publish')).toEqual({ granted: true, granted_by: ['additional'] });
    expect(await check('docs:write')).toEqual({ granted: true, granted_by: ['editor'] });
    expect(await check('docs:delete')).toEqual({ granted: false, granted_by: [] });
    expect((await call('POST', '/rbac/check', { person_id: 'pid:unknown', permission_name: 'docs:read' }, KEY)).status).toBe(404);

    // The token template can put roles and permissions into every token, minted ones included.
    await call('PUT', '/organizations/config/token-template', { content: '{"roles": "{{ person.roles }}", "perms": "{{ person.permissions }}", "summary": "r={{ person.roles }}"}' }, KEY);
    const minted = await call('POST', `/persons/${id}/mint-token`, {}, KEY);
    expect(decodeClaims(minted.body.result)).toMatchObject({ roles: ['editor', 'reader'], perms: ['docs:publish', 'docs:read', 'docs:write'], summary: 'r=editor,reader' });
    await call('PUT', '/organizations/config/token-template', { content: '{}' }, KEY);

    // Changing a role changes what its holders may do at once; deleting removes it everywhere.
    await call('PATCH', '/rbac/roles/editor', { permissions: ['docs:read'] }, KEY);
    expect(await check('docs:write')).toEqual({ granted: false, granted_by: [] });
    expect((await call('DELETE', '/rbac/permissions/docs:publish', undefined, KEY)).status).toBe(204);
    expect((await call('GET', `/persons/${id}/additional-permissions`, undefined, KEY)).body.result).toEqual([]);
    expect((await call('DELETE', '/rbac/roles/reader', undefined, KEY)).status).toBe(204);
    expect((await call('GET', `/persons/${id}/roles`, undefined, KEY)).body.result).toEqual(['editor']);
    expect((await call('GET', '/rbac/roles', undefined, KEY)).body.result).toEqual(['editor']);
    expect((await call('DELETE', '/rbac/roles/reader', undefined, KEY)).status).toBe(404);

    // A suborganization inheriting the RBAC pool sees the parent's roles; one that does not, does not.
    const sub = await call('POST', '/organizations/suborganizations', { org_name: 'Heir', inherits_rbac_pools: true }, KEY);
    const asSub = { org: sub.body.result.id, headers: { 'keyway-api-key': sub.body.result.api_key } };
    expect((await call('GET', '/rbac/roles/editor', undefined, asSub)).body.result).toMatchObject({ name: 'editor', permissions: ['docs:read'] });
    expect((await call('DELETE', '/rbac/roles/editor', undefined, asSub)).status).toBe(404); // inherited, not its own
    const loner = await call('POST', '/organizations/suborganizations', { org_name: 'Loner' }, KEY);
    expect((await call('GET', '/rbac/roles', undefined, { org: loner.body.result.id, headers: { 'keyway-api-key': loner.body.result.api_key } })).body.result).toEqual([]);
  });

  it('stores organization attributes by bucket, visible to management calls only', async () => {
    const call = contractApi(t.server);
    expect((await call('PUT', '/organizations/attributes', { end_user_no_access: { plan: 'enterprise', seats: 40 } }, KEY)).status).toBe(204);
    expect((await call('PATCH', '/organizations/attributes/end_user_no_access', { seats: 41 }, KEY)).status).toBe(204);
    expect((await call('GET', '/organizations/attributes/end_user_no_access?attributes=seats', undefined, KEY)).body.result).toEqual({ seats: 41 });
    expect((await call('GET', '/organizations/attributes?buckets=end_user_no_access,end_user_read_only', undefined, KEY)).body.result).toEqual({ end_user_no_access: { plan: 'enterprise', seats: 41 }, end_user_read_only: {} });
    expect((await call('GET', '/organizations/attributes/shoes', undefined, KEY)).status).toBe(400);
    expect((await call('DELETE', '/organizations/attributes/end_user_no_access?attributes=plan', undefined, KEY)).status).toBe(204);
    expect((await call('GET', '/organizations/attributes/end_user_no_access', undefined, KEY)).body.result).toEqual({ seats: 41 });
    // Not mixed up with persons' attributes, nor with another organization's.
    const sub = await call('POST', '/organizations/suborganizations', { org_name: 'Attr sub' }, KEY);
    expect((await call('GET', '/organizations/attributes/end_user_no_access', undefined, { org: sub.body.result.id, headers: { 'keyway-api-key': sub.body.result.api_key } })).body.result).toEqual({});
    expect((await call('GET', '/organizations/attributes', undefined)).status).toBe(401);
  });

  it('PUT /persons creates once, then updates the same person', async () => {
    const call = contractApi(t.server);
    await call('POST', '/rbac/roles', { name: 'member' }, KEY);
    const body = { handles: [{ type: 'email_address', value: 'sync@example.com' }], groups: ['synced'], attributes: { end_user_read_only: { tier: 1 } } };
    const first = await call('PUT', '/persons', body, KEY);
    expect(first.status).toBe(200);
    const again = await call('PUT', '/persons', body, KEY);
    expect(again.body.result).toEqual(first.body.result);
    const updated = await call('PUT', '/persons', { handles: [{ type: 'email_address', value: 'sync@example.com' }, { type: 'phone_number', value: '+447700900123' }], roles: ['member'], attributes: { end_user_read_only: { tier: 2 } }, active: false }, KEY);
    expect(updated.body.result).toMatchObject({ person_id: first.body.result.person_id, active: false, roles: ['member'], groups: ['synced'], attributes: { end_user_read_only: { tier: 2 } } });
    expect(updated.body.result.handles).toHaveLength(2);
    const listed = await call('GET', `/persons?filter=${encodeURIComponent('handles.value eq "sync@example.com"')}`, undefined, KEY);
    expect(listed.body.meta.pagination.total_count).toBe(1);

    const other = await call('PUT', '/persons', { handles: [{ type: 'email_address', value: 'other-sync@example.com' }] }, KEY);
    const clash = await call('PUT', '/persons', { handles: [{ type: 'email_address', value: 'other-sync@example.com' }, { type: 'email_address', value: 'sync@example.com' }] }, KEY);
    expect(clash.status).toBe(409);
    expect(clash.body.errors[0].message).toContain(other.body.result.person_id);
    expect((await call('PUT', '/persons', { handles: [{ type: 'email_address', value: 'x@example.com' }], roles: ['pilot'] }, KEY)).status).toBe(400);
  });

  it('imports credentials and rotates a compromised password', async () => {
    const call = contractApi(t.server);
    const person = await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'creds@example.com' }] }, KEY);
    const id = person.body.result.person_id as string;
    const pw = await call('POST', `/persons/${id}/credentials`, { type: 'password', password: 'Imported pass 42!', label: 'Migrated' }, KEY);
    expect(pw.status).toBe(201);
    expect(pw.body.result).toMatchObject({ type: 'password', label: 'Migrated' });
    expect(JSON.stringify(pw.body.result)).not.toContain('Imported pass 42!');
    const totp = await call('POST', `/persons/${id}/credentials`, { type: 'totp', secret: 'JBSWY3DPEHPK3PXPJBSWY3DP' }, KEY);
    expect(totp.body.result).toMatchObject({ type: 'totp', label: 'Authenticator app' });
    expect(JSON.stringify(totp.body.result)).not.toContain('JBSWY3DP');
    expect((await call('POST', `/persons/${id}/credentials`, { type: 'passkey', secret: 'x' }, KEY)).status).toBe(400);
    expect((await call('POST', '/persons/pid:nobody/credentials', { type: 'password', password: 'x' }, KEY)).status).toBe(404);

    const signIn = async (password: string) => {
      const start = await t.call('POST', '/id/v2', { handle: 'creds@example.com', factor: { method: 'password' } });
      const ch = start.body.result[0];
      return t.call('POST', '/attestation/v3', { challenge_id: ch.id, challenge_type: ch.type, data: { password } });
    };
    expect((await signIn('Imported pass 42!')).body.result.token).toBeTruthy();

    const rotated = await call('POST', `/persons/${id}/credentials/password-rotate`, { reason: 'breach', handle: { type: 'email_address', value: 'creds@example.com' }, redirect_target: 'http://localhost:3000/reset' }, KEY);
    expect(rotated.body.result).toEqual({ rotation_required: true });
    expect((await lastMessage(t.server, 'creds@example.com')).link).toMatch(/^http:\/\/localhost:3000\/reset\?challenge_pack_id=/);
    expect((await signIn('Imported pass 42!')).body.errors[0]).toEqual({ httpcode: 403, message: 'password must be changed: reset it with the link you were sent, or through account recovery' });
    expect((await call('POST', `/persons/${id}/credentials/password-rotate`, { handle: { type: 'email_address', value: 'creds@example.com' } }, KEY)).body.errors[0].message).toMatch(/^redirect_target is required/);
    // A new password ends the rotation.
    await call('PUT', `/persons/${id}/credentials/password`, { password: 'Brand new pass 43!', skip_validation: true }, KEY);
    expect((await signIn('Brand new pass 43!')).body.result.token).toBeTruthy();

    const noPassword = await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'nopw@example.com' }] }, KEY);
    expect((await call('POST', `/persons/${noPassword.body.result.person_id}/credentials/password-rotate`, {}, KEY)).status).toBe(404);
    expect(await signInWithEmail(t.server, 'creds@example.com')).toBeTruthy();
  });
});
