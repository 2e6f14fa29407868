import { describe, expect, it } from 'vitest';
import { OpenApiContract } from '../src/openapi.js';
import { contractApi } from './contract.js';
import { api, BACKENDS, useTestServer } from './helpers.js';

const KEY = 'kw_dev_api_key_not_secret';
const doc = OpenApiContract.load()!.doc as { paths: Record<string, Record<string, { security?: Array<Record<string, unknown>> }>> };

/** Every operation that only a management API key may call. */
const MANAGEMENT = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops)
    .filter(([method, op]) => method !== 'parameters' && (op.security ?? []).length > 0 && (op.security ?? []).every((s) => 'ApiKey' in s))
    .map(([method]) => ({ method: method.toUpperCase(), path })),
);

/** Management operations of the reference this server does not serve yet (the sweep fails when this list is stale). */
const NOT_YET = new Set<string>([]);

describe.each(BACKENDS)('authorization of the management API (%s)', (backend) => {
  const t = useTestServer(backend);

  it('answers 401/403 to every management operation without a valid key for the organization', async () => {
    const call = api(t.server);
    const sub = await call('POST', '/organizations/suborganizations', { org_name: 'Stranger' }, { headers: { 'keyway-api-key': KEY } });
    const foreignKey = sub.body.result.api_key as string;
    const missing: string[] = [];
    for (const op of MANAGEMENT) {
      const path = op.path.replace(/\{[^}]+\}/g, 'x');
      const body = ['POST', 'PUT', 'PATCH'].includes(op.method) ? {} : undefined;
      const attempts = [
        await call(op.method, path, body),
        await call(op.method, path, body, { headers: { 'keyway-api-key': 'kw_wrong_key_0123456789abcdef0123' } }),
        await call(op.method, path, body, { headers: { 'keyway-api-key': foreignKey } }), // another organization's valid key
      ];
      const label = `${op.method} ${op.path}`;
      if (attempts[0]!.status === 404 && /^no route/.test(attempts[0]!.body?.errors?.[0]?.message ?? '')) {
        missing.push(label);
        continue;
      }
      for (const res of attempts) expect([401, 403], `${label} answered ${res.status}`).toContain(res.status);
    }
    expect(missing.sort(), JSON.stringify(missing)).toEqual([...NOT_YET].sort());
    // The organization is still there (DELETE /organizations was among the calls).
    expect((await call('GET', '/organizations', undefined, { headers: { 'keyway-api-key': KEY } })).status).toBe(200);
  });

  it("never lets one organization's key read or change another organization's data", async () => {
    const call = contractApi(t.server);
    const A = { headers: { 'keyway-api-key': KEY } };
    const sub = await call('POST', '/organizations/suborganizations', { org_name: 'Neighbour' }, A);
    const B = { org: sub.body.result.id as string, headers: { 'keyway-api-key': sub.body.result.api_key as string } };

    // Organization A's data, one object of each kind.
    const person = (await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'owned@example.com' }], attributes: { end_user_read_write: { secret: 'a-only' } } }, A)).body.result;
    await call('PUT', `/persons/${person.person_id}/credentials/password`, { password: 'Secret pass 123!', skip_validation: true }, A);
    const credential = (await call('GET', `/persons/${person.person_id}/credentials`, undefined, A)).body.result[0];
    await call('POST', '/groups', { name: 'a-group' }, A);
    await call('POST', '/rbac/permissions', { name: 'a:perm' }, A);
    await call('POST', '/rbac/roles', { name: 'a-role', permissions: ['a:perm'] }, A);
    const client = (await call('POST', '/oauth2/clients', { client_name: 'A app', scopes: ['openid'], grant_types: ['authorization_code'], redirect_uris: ['https://a.example.com/cb'] }, A)).body.result;
    const hook = (await call('POST', '/organizations/webhooks', { name: 'A hook', target_url: 'https://a.example.com/hook' }, A)).body.result;
    await call('PUT', '/organizations/attributes/end_user_no_access', { a_secret: 'orgA' }, A);
    const values: Record<string, string> = {
      person_id: person.person_id,
      group_name: 'a-group',
      role_name: 'a-role',
      permission_name: 'a:perm',
      oauth_client_id: client.client_id,
      webhook_id: hook.id,
      credential_id: credential.id,
      handle: 'email_address:owned@example.com',
      bucket_name: 'end_user_no_access',
    };
    const aIds = [person.person_id, client.client_id, hook.id, credential.id, 'a-group', 'a-role', 'a:perm', 'owned@example.com', 'a-only', 'orgA'];

    const checked: string[] = [];
    for (const op of MANAGEMENT) {
      const label = `${op.method} ${op.path}`;
      if (NOT_YET.has(label)) continue;
      const params = op.path.match(/\{([^}]+)\}/g)?.map((p) => p.slice(1, -1)) ?? [];
      if (params.some((p) => !(p in values))) continue; // ids of kinds organization A has none of (SAML providers)
      const path = op.path.replace(/\{([^}]+)\}/g, (_m, p: string) => encodeURIComponent(values[p]!));
      if (op.method === 'GET') {
        const res = await api(t.server)('GET', path, undefined, B); // (the CSV template is not JSON)
        const text = JSON.stringify(res.body);
        if (params.length && !['bucket_name'].every((p) => params.includes(p) && params.length === 1)) expect([400, 404], `${label} as B answered ${res.status}`).toContain(res.status);
        if (res.status < 300) for (const id of aIds) expect(text.includes(id), `${label} as B shows "${id}": ${text.slice(0, 300)}`).toBe(false);
      } else if (params.length && !(params.length === 1 && params[0] === 'bucket_name')) {
        // Writes addressed to A's objects: refused whatever the body (an empty body, or a minimal valid one).
        const res = await call(op.method, path, op.method === 'DELETE' ? undefined : {}, B);
        expect(res.status >= 400 && res.status < 500, `${label} as B answered ${res.status}`).toBe(true);
      }
      checked.push(label);
    }
    expect(checked.length).toBeGreaterThan(40);
    expect((await call('POST', '/rbac/check', { person_id: person.person_id, permission_name: 'a:perm' }, B)).status).toBe(404);
    expect((await call('PUT', '/persons', { handles: [{ type: 'email_address', value: 'owned@example.com' }], attributes: { end_user_read_write: { secret: 'b' } } }, B)).body.result.person_id).not.toBe(person.person_id);

    // A's data is untouched.
    expect((await call('GET', `/persons/${person.person_id}`, undefined, A)).body.result.attributes).toEqual({ end_user_read_write: { secret: 'a-only' } });
    expect((await call('GET', `/persons/${person.person_id}/credentials`, undefined, A)).body.result).toHaveLength(1);
    expect((await call('GET', '/rbac/roles/a-role', undefined, A)).status).toBe(200);
    expect((await call('GET', `/organizations/webhooks/${hook.id}`, undefined, A)).status).toBe(200);
    expect((await call('GET', `/oauth2/clients/${client.client_id}`, undefined, A)).status).toBe(200);
    expect((await call('GET', '/organizations/attributes/end_user_no_access', undefined, A)).body.result).toEqual({ a_secret: 'orgA' });
  });

  it('deletes an organization only without suborganizations, and its key dies with it', async () => {
    const call = contractApi(t.server);
    const parent = await call('POST', '/organizations/suborganizations', { org_name: 'Doomed parent' }, { headers: { 'keyway-api-key': KEY } });
    const P = { org: parent.body.result.id as string, headers: { 'keyway-api-key': parent.body.result.api_key as string } };
    const child = await call('POST', '/organizations/suborganizations', { org_name: 'Doomed child' }, P);
    const C = { org: child.body.result.id as string, headers: { 'keyway-api-key': child.body.result.api_key as string } };
    const person = await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'doomed@example.com' }] }, C);
    const refused = await call('DELETE', '/organizations', undefined, P);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].message).toContain(C.org);
    expect((await call('DELETE', '/organizations', undefined, C)).status).toBe(204);
    expect([401, 404]).toContain((await api(t.server)('GET', '/organizations', undefined, C)).status);
    expect(await t.server.db.selectFrom('persons').select('id').where('id', '=', person.body.result.person_id).executeTakeFirst()).toBeUndefined();
    expect((await call('DELETE', '/organizations', undefined, P)).status).toBe(204);
  });
});
