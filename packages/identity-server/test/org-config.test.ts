import { describe, expect, it } from 'vitest';
import { Sealer } from '../src/sealed.js';
import { contractApi } from './contract.js';
import { BACKENDS, useTestServer } from './helpers.js';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

describe.each(BACKENDS)('external credentials and KYC configuration (%s)', (backend) => {
  const t = useTestServer(backend);

  it('stores secret fields encrypted and never returns them', async () => {
    const call = contractApi(t.server);
    const created = await call('POST', '/organizations/config/external-credentials', { label: 'SMTP', type: 'smtp', public_fields: { host: 'smtp.example.com', port: 587 }, secret_fields: { password: 'hunter2-very-secret' } }, KEY);
    expect(created.status).toBe(201);
    const id = created.body.result.id as string;
    expect(created.body.result).toMatchObject({ label: 'SMTP', type: 'smtp', public_fields: { host: 'smtp.example.com', port: 587 }, secret_field_names: ['password'] });
    const answers = [created, await call('GET', `/organizations/config/external-credentials/${id}`, undefined, KEY), await call('GET', '/organizations/config/external-credentials', undefined, KEY)];
    for (const a of answers) expect(JSON.stringify(a.body)).not.toContain('hunter2');

    // At rest: no clear text, and only the key (here the data dir's) with the right record context opens it.
    const row = await t.server.db.selectFrom('external_credentials').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.secret_fields).not.toContain('hunter2');
    expect(row.secret_fields).toMatch(/^v1\./);
    const sealer = Sealer.fromConfig(undefined, t.server.storage.dataDir);
    expect(sealer.open(row.secret_fields, `external_credentials:${row.org_id}:${row.id}`)).toEqual({ password: 'hunter2-very-secret' });
    expect(() => sealer.open(row.secret_fields, `external_credentials:${row.org_id}:other`)).toThrow();
    expect(() => new Sealer(Buffer.alloc(32, 7)).open(row.secret_fields, `external_credentials:${row.org_id}:${row.id}`)).toThrow();

    const patched = await call('PATCH', `/organizations/config/external-credentials/${id}`, { label: 'Primary SMTP', secret_fields: { username: 'mailer' } }, KEY);
    expect(patched.body.result).toMatchObject({ label: 'Primary SMTP', secret_field_names: ['password', 'username'] });
    expect((await call('POST', '/organizations/config/external-credentials', { label: 'x', type: 'carrier_pigeon' }, KEY)).status).toBe(400);
    expect((await call('GET', '/organizations/config/external-credentials/nope', undefined, KEY)).status).toBe(404);
    expect((await call('DELETE', `/organizations/config/external-credentials?cred_id=${id}`, undefined, KEY)).status).toBe(204);
    expect((await call('DELETE', `/organizations/config/external-credentials?cred_id=${id}`, undefined, KEY)).status).toBe(404);
  });

  it('keeps the KYC configuration', async () => {
    const call = contractApi(t.server);
    expect((await call('GET', '/organizations/config/kyc', undefined, KEY)).body.result).toEqual({ enabled: false, provider: 'none', required_for_registration: false, allowed_document_countries: [] });
    const patched = await call('PATCH', '/organizations/config/kyc', { enabled: true, provider: 'document_check', allowed_document_countries: ['GB', 'DE'] }, KEY);
    expect(patched.body.result).toEqual({ enabled: true, provider: 'document_check', required_for_registration: false, allowed_document_countries: ['GB', 'DE'] });
    expect((await call('GET', '/organizations/config/kyc', undefined, KEY)).body.result.allowed_document_countries).toEqual(['GB', 'DE']);
    expect((await call('PATCH', '/organizations/config/kyc', { allowed_document_countries: ['gb'] }, KEY)).status).toBe(400);
    expect((await call('PATCH', '/organizations/config/kyc', {}, KEY)).status).toBe(400);
  });
});
