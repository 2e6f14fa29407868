import { describe, expect, it } from 'vitest';
import { Sealer } from '../src/crypto/sealed.js';
import { contractApi } from './contract.js';
import { BACKENDS, lastMessage, signInWithEmail, useTestServer } from './helpers.js';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

describe.each(BACKENDS)('external credentials and KYC configuration (%s)', (backend) => {
  const t = useTestServer(backend);

  it('stores secret fields encrypted and never returns them', async () => {
    const call = contractApi(t.server);
    const created = await call('POST', '/organizations/config/external-credentials', { label: 'SMTP', type: 'smtp', public_fields: { host: 'smtp.example.com', port: 587 }, secret_fields: { password: 'hunter2-very-secret' } }, KEY);
    expect(created.status).toBe(201);
    const id = created.body.result[0] as string;
    expect((await call('GET', `/organizations/config/external-credentials/${id}`, undefined, KEY)).body.result).toMatchObject({ label: 'SMTP', type: 'smtp', public_fields: { host: 'smtp.example.com', port: 587 }, secret_field_names: ['password'] });
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
    expect(patched.status).toBe(204);
    expect((await call('GET', `/organizations/config/external-credentials/${id}`, undefined, KEY)).body.result).toMatchObject({ label: 'Primary SMTP', secret_field_names: ['password', 'username'] });
    expect((await call('POST', '/organizations/config/external-credentials', { label: 'x', type: 'carrier_pigeon' }, KEY)).status).toBe(400);
    expect((await call('GET', '/organizations/config/external-credentials/nope', undefined, KEY)).status).toBe(404);
    expect((await call('DELETE', `/organizations/config/external-credentials?cred_id=${id}`, undefined, KEY)).status).toBe(204);
    expect((await call('DELETE', `/organizations/config/external-credentials?cred_id=${id}`, undefined, KEY)).status).toBe(404);
  });

  it('keeps the KYC configuration', async () => {
    const call = contractApi(t.server);
    expect((await call('GET', '/organizations/config/kyc', undefined, KEY)).body.result).toEqual({ enabled: false, provider: 'none', required_for_registration: false, allowed_document_countries: [] });
    const patched = await call('PATCH', '/organizations/config/kyc', { enabled: true, provider: 'document_check', allowed_document_countries: ['GB', 'DE'] }, KEY);
    expect(patched.status).toBe(204);
    expect((await call('GET', '/organizations/config/kyc', undefined, KEY)).body.result).toEqual({ enabled: true, provider: 'document_check', required_for_registration: false, allowed_document_countries: ['GB', 'DE'] });
    expect((await call('PATCH', '/organizations/config/kyc', { allowed_document_countries: ['gb'] }, KEY)).status).toBe(400);
    expect((await call('PATCH', '/organizations/config/kyc', {}, KEY)).status).toBe(400);
  });

  it('serves e-mail templates and sends with the organization\'s replacement', async () => {
    const call = contractApi(t.server);
    const list = await call('GET', '/organizations/config/templates', undefined, KEY);
    expect(list.body.result).toHaveLength(8);
    expect((await call('GET', '/organizations/config/templates/otp_via_email', undefined, KEY)).body.result).toMatchObject({ customized: false, subject: 'Your {{ org_name }} sign-in code: {{ code }}' });
    expect((await call('GET', '/organizations/config/templates/fax', undefined, KEY)).status).toBe(400);
    expect((await call('PUT', '/organizations/config/templates/otp_via_email', { subject: 'Code', html_body: '<p>no code here</p>' }, KEY)).body.errors[0].message).toBe('html_body of the email_otp_message template must contain {{ code }}');
    const put = await call('PUT', '/organizations/config/templates/otp_via_email', { subject: '{{ org_name }} code {{ code }}', html_body: '<p>Dear <i>reader</i>, use <b>{{code}}</b> within {{ minutes }} min.</p>' }, KEY);
    expect(put.status).toBe(204);
    expect((await call('GET', '/organizations/config/templates/otp_via_email', undefined, KEY)).body.result).toMatchObject({ customized: true, name: 'email_otp_message' });

    await t.call('POST', '/id/v2', { handle: 'templated@example.com', factor: { method: 'otp_via_email' } });
    const mail = await lastMessage(t.server, 'templated@example.com');
    expect(mail.subject).toBe(`Keyway Dev code ${mail.code}`);
    expect(mail.html).toBe(`<p>Dear <i>reader</i>, use <b>${mail.code}</b> within 10 min.</p>`);
    expect(mail.text).toBe(`Dear reader, use ${mail.code} within 10 min.`);
    // Other templates keep the built-in text.
    await t.call('POST', '/id/v2', { handle: 'linked@example.com', factor: { method: 'email_link' } });
    expect((await lastMessage(t.server, 'linked@example.com')).subject).toBe('Sign in to Keyway Dev');
  });

  it('reports pricing tiers and the monthly active persons of the hierarchy', async () => {
    const call = contractApi(t.server);
    expect((await call('GET', '/organizations/quota/all-tiers', undefined, KEY)).body.result.map((x: { name: string }) => x.name)).toEqual(['free', 'growth', 'enterprise']);
    const sub = await call('POST', '/organizations/suborganizations', { org_name: 'Quota sub' }, KEY);
    const S = { org: sub.body.result.id as string, headers: { 'keyway-api-key': sub.body.result.api_key as string } };
    expect((await call('GET', '/organizations/quota/current-tier', undefined, S)).body.result.name).toBe('free');
    const before = (await call('GET', '/organizations/quota/usage', undefined, KEY)).body.result;
    const mine = () => before.organizations.find((o: { id: string }) => o.id === t.server.orgId);
    await signInWithEmail(t.server, 'active1@example.com');
    await signInWithEmail(t.server, 'active1@example.com');
    await signInWithEmail(t.server, 'active2@example.com');
    await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'idle@example.com' }] }, S);
    const usage = (await call('GET', '/organizations/quota/usage', undefined, KEY)).body.result;
    const own = usage.organizations.find((o: { id: string }) => o.id === t.server.orgId);
    expect(own.monthly_active_persons).toBe(mine().monthly_active_persons + 2);
    expect(usage.organizations.find((o: { id: string }) => o.id === S.org)).toEqual({ id: S.org, monthly_active_persons: 0, persons: 1 });
    expect(usage.total_monthly_active_persons).toBe(before.total_monthly_active_persons + 2);
    expect(usage.period_start).toMatch(/-01T00:00:00\.000Z$/);
    // A suborganization sees its own part of the hierarchy only.
    expect((await call('GET', '/organizations/quota/usage', undefined, S)).body.result.organizations.map((o: { id: string }) => o.id)).toEqual([S.org]);
  });
});
