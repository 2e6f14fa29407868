import { describe, expect, it } from 'vitest';
import { contractApi, expectMatchesSpec } from './contract.js';
import { BACKENDS, useTestServer } from './helpers.js';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

describe.each(BACKENDS)('persons bulk import (%s)', (backend) => {
  const t = useTestServer(backend);

  async function upload(csv: string, key = 'kw_dev_api_key_not_secret') {
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'persons.csv');
    const res = await fetch(`${t.server.url}/persons/bulk-import`, { method: 'POST', headers: { 'keyway-orgid': t.server.orgId, 'keyway-api-key': key }, body: form });
    const body = (await res.json()) as Record<string, any>;
    expectMatchesSpec('POST', '/persons/bulk-import', res.status, body);
    return { status: res.status, body };
  }

  it('serves the CSV template', async () => {
    const res = await fetch(`${t.server.url}/persons/bulk-import`, { headers: { 'keyway-orgid': t.server.orgId, 'keyway-api-key': 'kw_dev_api_key_not_secret' } });
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect((await res.text()).split('\n')[0]).toBe('handle_type,handle_value,active,region,groups,roles,attr:end_user_read_only:plan');
    expect((await fetch(`${t.server.url}/persons/bulk-import`, { headers: { 'keyway-orgid': t.server.orgId } })).status).toBe(401);
  });

  it('imports 10,000 persons, reports the bad rows and keeps the good ones; a second run updates', async () => {
    const call = contractApi(t.server);
    await call('POST', '/rbac/roles', { name: 'reader' }, KEY);
    const lines = ['handle_type,handle_value,region,groups,roles,attr:end_user_read_only:plan,attr:end_user_no_access:score'];
    for (let i = 0; i < 10_000; i++) lines.push(`email_address,bulk${i}@example.com,europe-belgium,importers,reader,"pro, yearly",${i}`);
    lines[101] = 'email_address,not-an-email,europe-belgium,importers,reader,pro,1'; // row 102 of the file
    lines[5001] = 'email_address,bulk5000@example.com,mars,importers,,pro,1';
    lines[7001] = 'email_address,bulk7000@example.com,eu-west,,pilot,pro,1';
    const started = Date.now();
    const first = await upload(lines.join('\n') + '\n');
    const ms = Date.now() - started;
    expect(first.status).toBe(200);
    expect(first.body.result.successful_imports).toBe(9_997);
    expect(first.body.result.failed_imports).toBe(3);
    expect(first.body.result.failures.map((f: { row: number }) => f.row)).toEqual([102, 5002, 7002]);
    expect(first.body.result.failures[1].message).toMatch(/^unknown region "mars"/);
    expect(first.body.result.failures[2].message).toBe('unknown role "pilot"');
    console.log(`bulk import (${backend}): 10,000 rows in ${ms} ms`);

    const listed = await call('GET', '/persons?limit=1&filter=' + encodeURIComponent('groups eq "importers"'), undefined, KEY);
    expect(listed.body.meta.pagination.total_count).toBe(9_997);
    const one = await call('GET', '/persons?filter=' + encodeURIComponent('handles.value eq "bulk42@example.com"'), undefined, KEY);
    expect(one.body.result[0]).toMatchObject({ region: 'europe-belgium', groups: ['importers'], roles: ['reader'], attributes: { end_user_read_only: { plan: 'pro, yearly' }, end_user_no_access: { score: 42 } } });

    // Re-sending fixed rows updates the existing persons instead of duplicating them.
    const again = await upload('handle_type,handle_value,region,attr:end_user_read_only:plan\nemail_address,bulk42@example.com,us-central,gold\nemail_address,bulk5000@example.com,eu-north,silver\n');
    expect(again.body.result).toEqual({ successful_imports: 2, failed_imports: 0, failures: [] });
    const updated = await call('GET', '/persons?filter=' + encodeURIComponent('handles.value eq "bulk42@example.com"'), undefined, KEY);
    expect(updated.body.meta.pagination.total_count).toBe(1);
    expect(updated.body.result[0]).toMatchObject({ region: 'us-iowa', attributes: { end_user_read_only: { plan: 'gold' } } });
    expect((await call('GET', '/persons?limit=1', undefined, KEY)).body.meta.pagination.total_count).toBe(9_998);
  }, 120_000);

  it('refuses files it cannot read, naming the problem', async () => {
    expect((await upload('email,name\nada@example.com,Ada\n')).body.errors[0].message).toBe('the header row has no "handle_type" column (GET /persons/bulk-import gives the template)');
    expect((await upload('handle_type,handle_value,shoe_size\nemail_address,a@example.com,9\n')).body.errors[0].message).toMatch(/^unknown column "shoe_size"/);
    expect((await upload('handle_type,handle_value,attr:wallet:x\nemail_address,a@example.com,9\n')).body.errors[0].message).toBe('column "attr:wallet:x": unknown attribute bucket "wallet"');
    expect((await upload('handle_type,handle_value\n"email_address,a@example.com\n')).body.errors[0].message).toMatch(/^file is not valid CSV/);
    const dup = await upload('handle_type,handle_value\nemail_address,twice@example.com\nemail_address,twice@example.com\nemail_address,short\n');
    expect(dup.body.result).toMatchObject({ successful_imports: 1, failed_imports: 2 });
    expect(dup.body.result.failures[0]).toEqual({ row: 3, message: 'handle email_address:twice@example.com already appears in row 2' });
    expect((await upload('handle_type,handle_value\n', 'wrong')).status).toBe(401);
    const res = await fetch(`${t.server.url}/persons/bulk-import`, { method: 'POST', headers: { 'keyway-orgid': t.server.orgId, 'keyway-api-key': 'kw_dev_api_key_not_secret', 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(415);
  });

  it('answers 400, not 500, to a multipart body it cannot parse (no boundary, as a hand-written request sends it)', async () => {
    const headers = { 'keyway-orgid': t.server.orgId, 'keyway-api-key': 'kw_dev_api_key_not_secret', 'content-type': 'multipart/form-data' };
    const res = await fetch(`${t.server.url}/persons/bulk-import`, { method: 'POST', headers, body: 'handle_type,handle_value\n' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { message: string }[] }).errors[0]!.message).toMatch(/^multipart body could not be read/);
  });
});
