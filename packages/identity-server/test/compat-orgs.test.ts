import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contractApi } from './contract.js';
import { BACKENDS, decodeClaims, lastMessage, signInWithEmail, useTestServer } from './helpers.js';
import { startSamlIdp, submitAutoPost } from './saml-idp.js';

// Issue #24: the organization, configuration, SSO, webhook and attribute operations called exactly as the public
// reference document describes them (method, path, parameter and field names, status code, result shape), with
// `SlashID-` headers read as `Keyway-`. Each answer is also checked against api/openapi.yaml (contractApi).
const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

describe.each(BACKENDS)('public reference calls: organizations, configuration, SSO, webhooks, attributes (%s)', (backend) => {
  const t = useTestServer(backend);

  it('attribute writes answer 204 without a body, and what they wrote reads back', async () => {
    const call = contractApi(t.server);
    const person = (await call('POST', '/persons', { active: true, handles: [{ type: 'email_address', value: 'attrs@compat.example' }] }, KEY)).body.result.person_id as string;
    for (const base of [`/persons/${person}`, '/organizations']) {
      const put = await call('PUT', `${base}/attributes`, { end_user_no_access: { risk: 1, note: 'a' } }, KEY);
      expect(put.status).toBe(204);
      expect(put.body).toBeUndefined();
      const patch = await call('PATCH', `${base}/attributes`, { end_user_no_access: { risk: 2 } }, KEY);
      expect(patch.status).toBe(204);
      expect((await call('GET', `${base}/attributes/end_user_no_access`, undefined, KEY)).body.result).toEqual({ risk: 2, note: 'a' });
      const putOne = await call('PUT', `${base}/attributes/end_user_read_only`, { plan: 'gold' }, KEY);
      expect(putOne.status).toBe(204);
      expect(putOne.body).toBeUndefined();
      const patchOne = await call('PATCH', `${base}/attributes/end_user_read_only`, { seats: 3 }, KEY);
      expect(patchOne.status).toBe(204);
      expect((await call('GET', `${base}/attributes/end_user_read_only`, undefined, KEY)).body.result).toEqual({ plan: 'gold', seats: 3 });
    }
  });

  it('configuration writes answer 204 as documented, and the change reads back', async () => {
    const call = contractApi(t.server);
    const domains = await call('POST', '/organizations/config/domains', { domains: ['app.compat.example', 'docs.compat.example'] }, KEY);
    expect(domains.status).toBe(204);
    expect(domains.body).toBeUndefined();
    const removed = await call('DELETE', '/organizations/config/domains?domain=app.compat.example', undefined, KEY);
    expect(removed.status).toBe(204);
    expect(JSON.stringify((await call('GET', '/organizations/config/domains', undefined, KEY)).body.result)).toContain('docs.compat.example');

    const template = await call('PUT', '/organizations/config/token-template', { content: '{"plan": "gold"}' }, KEY);
    expect(template.status).toBe(204);
    expect((await call('GET', '/organizations/config/token-template', undefined, KEY)).body.result.content).toBe('{"plan": "gold"}');

    const config = await call('PATCH', '/organizations/config', { groups_claim_name: 'teams' }, KEY);
    expect(config.status).toBe(204);
    expect((await call('GET', '/organizations/config', undefined, KEY)).body.result.groups_claim_name).toBe('teams');
    await call('PATCH', '/organizations/config', { groups_claim_name: 'groups' }, KEY);

    const kyc = await call('PATCH', '/organizations/config/kyc', { enabled: true }, KEY);
    expect(kyc.status).toBe(204);
    expect((await call('GET', '/organizations/config/kyc', undefined, KEY)).body.result.enabled).toBe(true);

    const cred = (await call('POST', '/organizations/config/external-credentials', { label: 'SMTP', type: 'smtp', secret_fields: { password: 'p' } }, KEY)).body.result;
    const id = (cred.id ?? cred[0]) as string;
    const patched = await call('PATCH', `/organizations/config/external-credentials/${id}`, { label: 'Primary SMTP' }, KEY);
    expect(patched.status).toBe(204);
    expect(JSON.stringify((await call('GET', `/organizations/config/external-credentials/${id}`, undefined, KEY)).body.result)).toContain('Primary SMTP');
  });

  it('SSO provider changes answer as documented: SAML PATCH 204, OIDC DELETE 200 with a body', async () => {
    const call = contractApi(t.server);
    const idp = await startSamlIdp('someone@compat.example');
    try {
      const saml = (await call('POST', '/organizations/sso/saml/provider-credentials', { label: 'IdP', idp_metadata_xml: idp.metadataXml }, KEY)).body.result.id as string;
      const patched = await call('PATCH', `/organizations/sso/saml/provider-credentials/${saml}`, { label: 'IdP (EU)' }, KEY);
      expect(patched.status).toBe(204);
      expect(patched.body).toBeUndefined();
      expect((await call('GET', `/organizations/sso/saml/provider-credentials/${saml}`, undefined, KEY)).body.result.label).toBe('IdP (EU)');
    } finally {
      await idp.close();
    }
    await call('POST', '/organizations/sso/oidc/provider-credentials', { client_id: 'compat-client', client_secret: 's3cret', label: 'Google', provider: 'google' }, KEY);
    const deleted = await call('DELETE', '/organizations/sso/oidc/provider-credentials/compat-client', undefined, KEY);
    expect(deleted.status).toBe(200);
    expect(deleted.body.result).toMatchObject({ client_id: 'compat-client', provider: 'google' });
    expect((await call('GET', '/organizations/sso/oidc/provider-credentials/compat-client', undefined, KEY)).status).toBe(404);
  });

  it('PATCH /organizations/config takes the document\'s fields, GET answers them, and they act', async () => {
    const call = contractApi(t.server);
    const patched = await call('PATCH', '/organizations/config', {
      token_duration: 900,
      allowed_factor_methods: ['otp_via_email', 'email_link'],
      authn_link_allowed_redirect_uris: ['https://app.compat.example/auth'],
      authn_redirect_page_ui_config: { title: 'Acme sign-in', background_color: '#112233' },
      sudo_mode_duration: 300,
      canonical_identity_ai_matching_enabled: true,
      requires_manual_approval: false,
      new_person_handle_patterns: ['@compat\\.example$'],
    }, KEY);
    expect(patched.status).toBe(204);
    try {
      const config = (await call('GET', '/organizations/config', undefined, KEY)).body.result;
      expect(config).toMatchObject({
        deny_self_registration: false, token_duration: 900, allowed_factor_methods: ['otp_via_email', 'email_link'],
        authn_link_allowed_redirect_uris: ['https://app.compat.example/auth'], authn_redirect_page_ui_config: { title: 'Acme sign-in', background_color: '#112233' },
        sudo_mode_duration: 300, canonical_identity_ai_matching_enabled: true, requires_manual_approval: false,
        new_person_handle_patterns: ['@compat\\.example$'], from_email: '', from_phone_number_sms: '', groups_claim_name: 'groups',
      });
      // token_duration is the lifetime of user tokens.
      const claims = decodeClaims(await signInWithEmail(t.server, 'ttl@compat.example'));
      expect(claims.exp - claims.iat).toBe(900);
      // allowed_factor_methods limits /id; new_person_handle_patterns limits who registers.
      const sms = await t.call('POST', '/id/v2', { handle: '+447700900124', factor: { method: 'otp_via_sms' } });
      expect(sms.body.errors[0].message).toBe('authentication method "otp_via_sms" is not allowed for this organization');
      // A link may return to a listed URI or below it, and its answer starts with the redirect page branding.
      const link = (target: string) => t.call('POST', '/id/v2', { handle: 'link@compat.example', factor: { method: 'email_link', options: { redirect_target: target } } });
      const below = await link('https://app.compat.example/auth/done?x=1');
      expect(below.status).toBe(200);
      expect(below.body.result[0]).toMatchObject({ type: 'ui_customization', options: { authn_redirect_page_ui_config: { title: 'Acme sign-in', background_color: '#112233' } } });
      expect(below.body.result[1]).toMatchObject({ type: 'proxy', id: below.body.result[0].id });
      expect((await link('https://app.compat.example/authx')).status).toBe(400);
      expect((await link('https://evil.example/auth')).status).toBe(400);
      // deny_self_registration: an unknown handle cannot sign up.
      expect((await call('PATCH', '/organizations/config', { deny_self_registration: true }, KEY)).status).toBe(204);
      expect((await call('GET', '/organizations/config', undefined, KEY)).body.result).toMatchObject({ deny_self_registration: true, allow_self_registration: false });
      const stranger = await t.call('POST', '/id/v2', { handle: 'stranger@compat.example', factor: { method: 'otp_via_email' } });
      const { code } = await lastMessage(t.server, 'stranger@compat.example');
      const refused = await t.call('POST', '/attestation/v3', { challenge_id: stranger.body.result.at(-1).id, challenge_type: 'otp', data: { otp: code } });
      expect(refused.body.errors[0]).toEqual({ httpcode: 403, message: 'self-registration not allowed for this organization' });
      // The former names still work; given together with the new name they must agree.
      const both = await call('PATCH', '/organizations/config', { deny_self_registration: true, allow_self_registration: true }, KEY);
      expect(both.status).toBe(400);
      expect(both.body.errors[0].message).toBe('deny_self_registration and allow_self_registration (its former name) disagree: give one of them');
    } finally {
      await call('PATCH', '/organizations/config', { deny_self_registration: false, token_duration: 3600, allowed_factor_methods: [], authn_link_allowed_redirect_uris: [], new_person_handle_patterns: [] }, KEY);
    }
  });

  it('message templates have the document\'s eight names and fields, and the e-mails and SMS sent use them', async () => {
    const call = contractApi(t.server);
    const names = await call('GET', '/organizations/config/templates', undefined, KEY);
    expect(names.body.result).toEqual([
      'email_authn_challenge', 'email_otp_message', 'email_password_change_notify', 'email_password_reset',
      'text_authn_challenge', 'text_otp_message', 'text_password_change_notify', 'text_password_reset',
    ]);
    const builtIn = await call('GET', '/organizations/config/templates/text_otp_message', undefined, KEY);
    expect(builtIn.body.result).toMatchObject({ body: '{{ code }} is your {{ org_name }} sign-in code. It expires in {{ minutes }} min.', customized: false });
    const put = await call('PUT', '/organizations/config/templates/email_otp_message', { subject: 'Code {{ code }}', body: '<p>Use <b>{{ code }}</b></p>', sender_name: 'Acme Security' }, KEY);
    expect(put.status).toBe(204);
    expect(put.body).toBeUndefined();
    const read = await call('GET', '/organizations/config/templates/email_otp_message', undefined, KEY);
    expect(read.body.result).toMatchObject({ subject: 'Code {{ code }}', body: '<p>Use <b>{{ code }}</b></p>', sender_name: 'Acme Security', customized: true });
    // Only the subject changes: the body and sender stay.
    expect((await call('PUT', '/organizations/config/templates/email_otp_message', { subject: 'Your code {{ code }}' }, KEY)).status).toBe(204);
    expect((await call('GET', '/organizations/config/templates/email_otp_message', undefined, KEY)).body.result).toMatchObject({ subject: 'Your code {{ code }}', body: '<p>Use <b>{{ code }}</b></p>', sender_name: 'Acme Security' });
    // The former name reads the same template.
    expect((await call('GET', '/organizations/config/templates/otp_via_email', undefined, KEY)).body.result.name).toBe('email_otp_message');
    await t.call('POST', '/id/v2', { handle: 'tmpl@compat.example', factor: { method: 'otp_via_email' } });
    const mail = await lastMessage(t.server, 'tmpl@compat.example');
    expect(mail.subject).toBe(`Your code ${mail.code}`);
    expect(mail.html).toBe(`<p>Use <b>${mail.code}</b></p>`);

    expect((await call('PUT', '/organizations/config/templates/text_otp_message', { body: 'Acme: {{ code }}' }, KEY)).status).toBe(204);
    await t.call('POST', '/id/v2', { handle: '+447700900123', factor: { method: 'otp_via_sms' } });
    const sms = await lastMessage(t.server, '+447700900123');
    expect(sms.text).toBe(`Acme: ${sms.code}`);

    const noCode = await call('PUT', '/organizations/config/templates/text_otp_message', { body: 'no code' }, KEY);
    expect(noCode.status).toBe(400);
    expect(noCode.body.errors[0].message).toBe('body of the text_otp_message template must contain {{ code }}');
    expect((await call('GET', '/organizations/config/templates/fax_cover', undefined, KEY)).status).toBe(400);
  });

  it('SAML providers take email_claims (read first for the person\'s e-mail), enable_in_slashid_oidc_authz_server, and an optional label', async () => {
    const call = contractApi(t.server);
    const idp = await startSamlIdp('grace@navy.example', { corp_mail: 'Grace.Hopper@Corp.example' });
    try {
      const created = await call('POST', '/organizations/sso/saml/provider-credentials', { idp_metadata_xml: idp.metadataXml, email_claims: ['corp_mail'], enable_in_slashid_oidc_authz_server: true, trust_email_verification: true }, KEY);
      expect(created.status).toBe(201);
      expect(created.body.result).toMatchObject({ label: idp.issuer, email_claims: ['corp_mail'], enable_in_slashid_oidc_authz_server: true, trust_email_verification: true });
      const id = created.body.result.id as string;
      const verifier = randomBytes(32).toString('base64url');
      const start = await call('POST', '/id/v2', {
        factor: { method: 'saml', options: { provider_credentials_id: id, ux_mode: 'redirect', redirect_target: 'http://localhost:3000/login', csrf_token: 'c'.repeat(32), pkce_code_challenge: createHash('sha256').update(verifier).digest('base64url') } },
      }, { headers: { origin: 'http://localhost:3000' } });
      const [ch] = start.body.result;
      const ret = new URL((await submitAutoPost(await (await fetch(ch.options.start_authentication_url)).text())).headers.get('location')!);
      expect((await call('POST', '/sso/resolve', { challenge_id: ch.id, code: ret.searchParams.get('sso_code'), pkce_code_verifier: verifier })).status).toBe(204);
      const done = await call('GET', `/challenge/${ch.id}/v2`);
      expect(decodeClaims(done.body.result).authentications).toEqual([expect.objectContaining({ method: 'saml', handle: 'grace.hopper@corp.example' })]);
      expect((await call('PATCH', `/organizations/sso/saml/provider-credentials/${id}`, { email_claims: [], enable_in_slashid_oidc_authz_server: false }, KEY)).status).toBe(204);
      expect((await call('GET', `/organizations/sso/saml/provider-credentials/${id}`, undefined, KEY)).body.result).toMatchObject({ email_claims: [], enable_in_slashid_oidc_authz_server: false });
    } finally {
      await idp.close();
    }
  });

  it('OIDC providers: azuread is the name of Microsoft Entra ID (azure still accepted), the label is optional', async () => {
    const call = contractApi(t.server);
    const created = await call('POST', '/organizations/sso/oidc/provider-credentials', { client_id: 'entra-client', client_secret: 's3cret', provider: 'azure', issuer: 'https://login.microsoftonline.com/common/v2.0' }, KEY);
    expect(created.status).toBe(201);
    expect(created.body.result).toMatchObject({ client_id: 'entra-client', label: 'entra-client', provider: 'azuread' });
    expect((await call('GET', '/organizations/sso/oidc/provider-credentials?oauth_provider=azuread', undefined, KEY)).body.result.map((p: { client_id: string }) => p.client_id)).toEqual(['entra-client']);
    expect((await call('GET', '/organizations/sso/oidc/provider-credentials?oauth_provider=azure', undefined, KEY)).body.result.map((p: { client_id: string }) => p.client_id)).toEqual(['entra-client']);
    expect((await call('DELETE', '/organizations/sso/oidc/provider-credentials/entra-client', undefined, KEY)).body.result.provider).toBe('azuread');
  });

  it('a suborganization is created from sub_org_name, admins, persons_org_id and inherit_rbac_pools, with 200', async () => {
    const call = contractApi(t.server);
    const sub = await call('POST', '/organizations/suborganizations', {
      sub_org_name: 'Compat Sub', admins: [{ type: 'email_address', value: 'Boss@Compat.example' }], persons_org_id: t.server.orgId, inherit_rbac_pools: true,
    }, KEY);
    expect(sub.status).toBe(200);
    expect(sub.body.result).toMatchObject({ parent_id: t.server.orgId, org_name: 'Compat Sub', tenant_name: 'compat-sub' });
    const subId = sub.body.result.id as string;
    const S = { org: subId, headers: { 'keyway-api-key': sub.body.result.api_key as string } };
    expect((await call('GET', '/organizations', undefined, S)).body.result).toMatchObject({ id: subId, persons_pool_org_ids: [t.server.orgId], group_pool_org_ids: [subId], inherits_rbac_pools: true });
    expect((await call('GET', '/organizations', undefined, KEY)).body.result).toMatchObject({ persons_pool_org_ids: [], inherits_rbac_pools: false });
    // The listing answers the ids.
    expect((await call('GET', '/organizations/suborganizations', undefined, KEY)).body.result).toContain(subId);
    // A person of the parent belongs to both (the suborganization pools the parent's persons); each organization lists
    // the organizations it manages (its suborganizations) as the document's managed_organizations.
    const person = (await call('POST', '/persons', { active: true, handles: [{ type: 'email_address', value: 'pooled@compat.example' }] }, KEY)).body.result.person_id as string;
    const orgs = (await call('GET', `/persons/${person}/organizations`, undefined, KEY)).body.result as Array<{ id: string; managed_organizations: Array<{ id: string; org_name: string; tenant_name: string; parent_id?: string }> }>;
    expect(orgs.map((o) => o.id)).toEqual([t.server.orgId, subId]);
    expect(orgs[0]!.managed_organizations).toEqual([{ id: subId, org_name: 'Compat Sub', tenant_name: 'compat-sub', parent_id: t.server.orgId }]);
    expect(orgs[1]!.managed_organizations).toEqual([]);
    // The admin is an active person of the new organization, in its group `admins`.
    const admins = await call('GET', '/persons?handle=email_address:boss@compat.example', undefined, S);
    expect(admins.body.result).toHaveLength(1);
    expect(admins.body.result[0]).toMatchObject({ active: true, groups: ['admins'] });
    const token = decodeClaims(await signInWithEmail({ url: t.server.url, orgId: subId }, 'boss@compat.example'));
    expect(token).toMatchObject({ oid: subId, groups: ['admins'] });
    // Names that cannot be honoured are refused, naming the field.
    const foreign = await call('POST', '/organizations/suborganizations', { sub_org_name: 'X', admins: [], persons_org_id: 'org_elsewhere' }, KEY);
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors[0].message).toBe('persons_org_id "org_elsewhere" is neither this organization nor an organization of its person pool');
    const groups = await call('POST', '/organizations/suborganizations', { sub_org_name: 'X', admins: [], groups_org_id: t.server.orgId }, KEY);
    expect(groups.status).toBe(400);
    expect(groups.body.errors[0].message).toBe('groups_org_id: this server shares no group pools (each organization has its own groups); leave it out');
    expect((await call('POST', '/organizations/suborganizations', { admins: [] }, KEY)).body.errors[0].message).toBe('name the new organization with sub_org_name');
  });

  it('KYC keeps mobile_redirect_base_url, and domains are added without a body', async () => {
    const call = contractApi(t.server);
    expect((await call('PATCH', '/organizations/config/kyc', { mobile_redirect_base_url: 'https://m.compat.example/kyc' }, KEY)).status).toBe(204);
    expect((await call('GET', '/organizations/config/kyc', undefined, KEY)).body.result.mobile_redirect_base_url).toBe('https://m.compat.example/kyc');
    expect((await call('POST', '/organizations/config/domains', undefined, KEY)).status).toBe(204);
    expect((await call('POST', '/organizations/config/domains?overwrite=true', {}, KEY)).status).toBe(204);
    expect((await call('GET', '/organizations/config/domains', undefined, KEY)).body.result).toEqual([]);
  });

  it('external credentials take extcred_provider, extcred_type, json_blob and extcred_label; the secret is never read back', async () => {
    const call = contractApi(t.server);
    const created = await call('POST', '/organizations/config/external-credentials', { extcred_provider: 'onfido', extcred_type: 'api_key', json_blob: { api_key: 'onfido-live-secret-123', region: 'eu' } }, KEY);
    expect(created.status).toBe(201);
    expect(created.body.result).toHaveLength(1);
    const id = created.body.result[0] as string;
    const read = await call('GET', `/organizations/config/external-credentials/${id}`, undefined, KEY);
    expect(read.body.result).toMatchObject({ external_cred_id: id, organization_id: t.server.orgId, extcred_provider: 'onfido', extcred_type: 'api_key', extcred_label: 'onfido api_key', secret_field_names: ['api_key', 'region'] });
    expect(read.body.result.json_blob).toBeUndefined();
    const row = await t.server.db.selectFrom('external_credentials').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.secret_fields).not.toContain('onfido-live-secret');
    expect((await call('PATCH', `/organizations/config/external-credentials/${id}`, { extcred_label: 'Onfido EU', json_blob: { token: 'rotated-secret' } }, KEY)).status).toBe(204);
    const list = await call('GET', '/organizations/config/external-credentials', undefined, KEY);
    const mine = list.body.result.find((c: { external_cred_id: string }) => c.external_cred_id === id);
    expect(mine).toMatchObject({ extcred_label: 'Onfido EU', secret_field_names: ['token'] });
    expect(JSON.stringify(list.body)).not.toContain('rotated-secret');
    const half = await call('POST', '/organizations/config/external-credentials', { extcred_provider: 'google', json_blob: {} }, KEY);
    expect(half.status).toBe(400);
    expect(half.body.errors[0].message).toBe('give extcred_provider, extcred_type and json_blob together');
    expect((await call('POST', '/organizations/config/external-credentials', { extcred_provider: 'google', extcred_type: 'pigeon', json_blob: {} }, KEY)).status).toBe(400);
  });

  it('a webhook timeout is a duration string ("10s"), the bare number of seconds still accepted', async () => {
    const call = contractApi(t.server);
    const created = await call('POST', '/organizations/webhooks', { name: 'Compat hook', target_url: 'https://hooks.compat.example/in', timeout: '25s' }, KEY);
    expect(created.status).toBe(201);
    expect(created.body.result.timeout).toBe('25s');
    const id = created.body.result.id as string;
    expect((await t.server.db.selectFrom('webhooks').select('timeout').where('id', '=', id).executeTakeFirstOrThrow()).timeout).toBe(25);
    expect((await call('PATCH', `/organizations/webhooks/${id}`, { timeout: 7 }, KEY)).body.result.timeout).toBe('7s');
    expect((await call('GET', '/organizations/webhooks', undefined, KEY)).body.result.find((w: { id: string }) => w.id === id).timeout).toBe('7s');
    for (const bad of ['31s', '0s', '10', '1m', 31]) {
      const refused = await call('PATCH', `/organizations/webhooks/${id}`, { timeout: bad }, KEY);
      expect(refused.status, String(bad)).toBe(400);
      expect(refused.body.errors[0].message).toContain('timeout');
    }
    expect((await call('POST', '/organizations/webhooks', { name: 'Default', target_url: 'https://hooks.compat.example/d' }, KEY)).body.result.timeout).toBe('10s');
  });

  it('attribute buckets, pricing tiers and usage answer the document\'s fields', async () => {
    const call = contractApi(t.server);
    const buckets = (await call('GET', '/organizations/attribute-buckets', undefined, KEY)).body.result;
    expect(buckets.find((b: { name: string }) => b.name === 'person_pool-end_user_read_only')).toMatchObject({ end_user_permissions: 'read_only', sharing_scope: 'person_pool', owner_organization_id: t.server.orgId });
    expect(buckets.find((b: { name: string }) => b.name === 'end_user_no_access')).toMatchObject({ end_user_permissions: 'no_access', sharing_scope: 'organization' });
    expect((await call('GET', '/organizations/quota/current-tier', undefined, KEY)).body.result).toMatchObject({ name: 'free', custom_templates_allowed: true, nhi_external_connections_allowed: false, max_suborganizations: 0 });
    const before = (await call('GET', '/organizations/quota/usage', undefined, KEY)).body.result;
    await call('POST', '/groups', { name: 'usage-counted' }, KEY);
    await call('POST', '/persons', { active: true, handles: [{ type: 'email_address', value: 'usage@compat.example' }] }, KEY);
    await call('POST', '/organizations/suborganizations', { sub_org_name: 'Usage sub', admins: [] }, KEY);
    const after = (await call('GET', '/organizations/quota/usage', undefined, KEY)).body.result;
    expect(after.num_groups).toBe(before.num_groups + 1);
    expect(after.num_persons).toBe(before.num_persons + 1);
    expect(after.num_suborganizations).toBe(before.num_suborganizations + 1);
    expect(after.pricing_tier_details).toMatchObject({ name: 'free' });
  });

  it('test events: an array of event specifications in, the generated events out (201); duplicates deliver each twice', async () => {
    const call = contractApi(t.server);
    const hook = await call('POST', '/organizations/webhooks', { name: 'Dup', target_url: 'https://hooks.compat.example/dup' }, KEY);
    const id = hook.body.result.id as string;
    expect((await call('POST', `/organizations/webhooks/${id}/triggers`, { trigger_type: 'event', trigger_name: 'PersonCreated_v1' }, KEY)).status).toBe(201);
    const events = await call('POST', '/test-events', [{ event_name: 'PersonCreated_v1', duplicates: true }], KEY);
    expect(events.status).toBe(201);
    expect(events.body.result).toEqual([{ event_id: expect.any(String), event_name: 'PersonCreated_v1', organization_id: t.server.orgId, timestamp: expect.any(String) }]);
    const queued = await t.server.db.selectFrom('webhook_deliveries').select('event').where('webhook_id', '=', id).execute();
    // The same id and time as the answer gave.
    expect(queued.map((d) => JSON.parse(d.event) as { id: string; created_at: string })).toEqual([0, 1].map(() => expect.objectContaining({ id: events.body.result[0].event_id, created_at: events.body.result[0].timestamp })));
    // Our earlier object form and an empty list are refused with the field named.
    const old = await call('POST', '/test-events', { events: [{ event_type: 'PersonCreated_v1' }] }, KEY);
    expect(old.status).toBe(400);
    expect(old.body.errors[0].message).toMatch(/array/);
    expect((await call('POST', '/test-events', [], KEY)).status).toBe(400);
    expect((await call('POST', '/test-events', [{ count: 2 }], KEY)).body.errors[0].message).toMatch(/event_name/);
  });
});
