// @ts-check
// Management operations on the organization: hierarchy, configuration, API keys, quotas, allowed domains,
// e-mail templates, external credentials, KYC, SSO providers, token template and webhooks.
import { ref, str, open, arrayOf, int } from './lib.mjs';
import { crudOperations } from './crud.mjs';
import { ORGANIZATION, ORG_ID, SUBORG_ID, CREATED_AT, PASSWORD_RULES } from './examples.mjs';

const mgmt = { security: /** @type {const} */ ('management') };
const CONFIG = {
  deny_self_registration: false, new_person_handle_patterns: ['@example\\.com$'], token_duration: 3600,
  allowed_factor_methods: ['otp_via_email', 'email_link', 'webauthn', 'password', 'totp'], requires_manual_approval: false,
  authn_link_allowed_redirect_uris: ['https://app.example.com/auth'], authn_redirect_page_ui_config: { title: 'Acme', background_color: '#0b1f3a' },
  sudo_mode_duration: 0, canonical_identity_ai_matching_enabled: false, from_email: 'no-reply@example.com', from_phone_number_sms: '',
  allow_self_registration: true, handle_patterns: ['@example\\.com$'], token_duration_seconds: 3600,
  allowed_factors: ['otp_via_email', 'email_link', 'webauthn', 'password', 'totp'], require_approval_for_new_persons: false,
  password_validation_rules: PASSWORD_RULES, groups_claim_name: 'groups',
};
const TIER = { name: 'growth', monthly_active_persons: 10000, suborganizations: 10, api_calls_per_minute: 6000, price_per_month_usd: 240, max_suborganizations: 10, custom_templates_allowed: true, nhi_external_connections_allowed: false };
const TEMPLATE = { name: 'email_otp_message', subject: 'Your Acme sign-in code', body: '<p>Your code is <b>{{ code }}</b>.</p>', text_body: 'Your code is {{ code }}.', sender_name: 'Acme', customized: true, updated_at: CREATED_AT };
const EXT_CRED = {
  external_cred_id: 'xc_01JD8ZD1', organization_id: ORG_ID, extcred_label: 'Transactional SMTP', extcred_provider: 'generic', extcred_type: 'user_pass',
  id: 'xc_01JD8ZD1', label: 'Transactional SMTP', type: 'smtp', public_fields: { host: 'smtp.example.com', port: 587, from: 'no-reply@example.com' }, secret_field_names: ['password', 'username'], created_at: CREATED_AT,
};
// Metadata of an identity provider as it publishes it (a self-signed P-256 signing certificate): registering from inline
// XML runs as printed, where a metadata URL would have to be fetched.
const IDP_METADATA_XML = [
  '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp.example.com/saml">\n',
  '  <IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">\n',
  '    <KeyDescriptor use="signing">\n',
  '      <ds:KeyInfo><ds:X509Data><ds:X509Certificate>MIIBiTCCAS+gAwIBAgIUL8iNH8LMBNWj4SPHz4Jg/wgJWYgwCgYIKoZIzj0EAwIwGjEYMBYGA1UEAwwPaWRwLmV4YW1wbGUuY29tMB4XDTI2MTEyNTE1NDUwOFoXDTM2MTEyMjE1NDUwOFowGjEYMBYGA1UEAwwPaWRwLmV4YW1wbGUuY29tMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEAyeV7ckxf/QZq5j0IFOVCksI2JS/HEZKciT6zP1Szxzz8rSYfuGtMNydpci5RR38gSf3ujl0m7NfkHpd/okmUaNTMFEwHQYDVR0OBBYEFLvWmG6yMz3yHC+Th/QXYjnb4zCEMB8GA1UdIwQYMBaAFLvWmG6yMz3yHC+Th/QXYjnb4zCEMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIgYcJDyXtrJrlWfBrUTqwNj3OQni3SYspk2ubEP5kfgUICIQC1gmumgPo4BCzePEFxVx2V1kQpLj1rq19zBW4XR6tzHw==</ds:X509Certificate></ds:X509Data></ds:KeyInfo>\n',
  '    </KeyDescriptor>\n',
  '    <SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.com/saml/sso"/>\n',
  '  </IDPSSODescriptor>\n',
  '</EntityDescriptor>\n',
].join('');
const SAML = {
  id: 'spc_01JD8ZE7', label: 'Corporate IdP', idp_entity_id: 'https://idp.example.com/saml',
  sp_entity_id: 'https://api.keyway.dev/sso/saml/metadata', sp_acs_url: 'https://api.keyway.dev/sso/saml/acs', attribute_mapping: { mail: 'email' }, created_at: CREATED_AT,
};
const OIDC = {
  client_id: '1234567890-abc.apps.example.com', label: 'Google', provider: 'google', issuer: 'https://accounts.google.com', scopes: ['openid', 'email'],
  options: { google: { authorize_scopes: ['https://www.googleapis.com/auth/calendar.readonly'] } }, enable_in_slashid_oidc_authz_server: false, created_at: CREATED_AT,
};
const DELIVERY = {
  id: 'a3e1c0d2-5b7f-4e19-9c8a-1d2e3f4a5b6c', webhook_id: 'wh_01JD8ZF2', event_id: '0f3c5c2e-8c1b-4a53-9d7e-2b6f1a9c4e10', event_type: 'AuthenticationSucceeded_v1',
  status: 'failed', attempts: 8, last_status: 503, last_error: 'receiver answered 503', created_at: '2026-11-26T10:00:00.000Z',
};
const WEBHOOK = { id: 'wh_01JD8ZF2', name: 'Audit sink', description: 'Sends sign-in events to the audit service', target_url: 'https://audit.example.com/keyway', custom_headers: { 'X-Team': ['identity'] }, timeout: '10s', created_at: CREATED_AT };
const TRIGGER = { trigger_type: 'event', trigger_name: 'AuthenticationSucceeded_v1' };
const domains = { domains: ['docs.example.com', 'app.example.com'] };
/** The public reference answers a change of these configuration objects with 204 and no body (read back with the GET). */
const patchAnswersNoContent = (/** @type {import('./operation.mjs').OpSpec} */ op) => (op.method === 'patch' ? { ...op, ok: { status: 204, description: 'Changed; the GET of the same path reads it back.' } } : op);

/** @type {import('./operation.mjs').OpSpec[]} */
export const organizationOperations = [
  // ---------- organizations ----------
  {
    ...mgmt, method: 'get', path: '/organizations', id: 'getOrganization', tags: ['organizations'],
    summary: 'Get information about an organization',
    description: 'Returns the organization of `Keyway-OrgID` with its parent and the suborganizations it manages.',
    ok: { schema: ref('OrganizationWithPools'), example: ORGANIZATION },
  },
  {
    ...mgmt, method: 'delete', path: '/organizations', id: 'deleteOrganization', tags: ['organizations'],
    summary: 'Delete an organization',
    description: `
Deletes the organization of \`Keyway-OrgID\` with its persons, configuration and keys; the API key stops working at
once. This cannot be undone. With suborganizations it answers 409 unless \`delete_suborganizations=true\`, which
deletes the whole subtree. \`confirmation_timestamp\` guards against a stale request: when given, it must be within five
minutes of the server's clock.`,
    params: [
      { name: 'confirmation_timestamp', in: 'query', required: false, description: 'When the deletion was confirmed (RFC 3339); refused when more than five minutes away from now.', schema: { type: 'string', format: 'date-time' } },
      { name: 'delete_suborganizations', in: 'query', required: false, description: 'Also delete every suborganization below this one, deepest first.', schema: { type: 'boolean' } },
    ],
    ok: { status: 204, description: 'Deleted.' },
    errors: ['Conflict'],
  },
  {
    ...mgmt, method: 'get', path: '/organizations/suborganizations', id: 'listSuborganizations', tags: ['organizations'],
    summary: 'List suborganizations',
    description: 'Lists the ids of the organizations directly below this one in the hierarchy (`GET /organizations` lists them with their names). `filter` selects by name: `org_name eq "Acme"`, `tenant_name sw "ac"` (operators eq, ne, co, sw, pr, and, or; case-insensitive).',
    params: ['OrgFilter'],
    ok: { schema: arrayOf(ref('OrganizationId')), example: ORGANIZATION.managed_organizations.map((o) => o.id) },
  },
  {
    ...mgmt, method: 'post', path: '/organizations/suborganizations', id: 'createSuborganization', tags: ['organizations', 'rbac'],
    summary: 'Create a suborganization',
    description: `
Creates an organization below this one, for a tenant of a multi-tenant product. With \`persons_org_id\` (this
organization, or one of its own person pool) it shares that person pool: the same people sign in to both. With
\`inherit_rbac_pools\` the parent's roles and permissions apply. Each handle of \`admins\` becomes an active person of
the new organization in its group \`admins\`. Group pools are not shared: \`groups_org_id\` answers 400. The answer
includes the new organization's API key, shown only once.`,
    body: { schema: ref('SuborganizationCreate'), example: { sub_org_name: 'Acme Docs EU', tenant_name: 'acme', admins: [{ type: 'email_address', value: 'it@acme.example' }], inherit_rbac_pools: true } },
    ok: { status: 200, schema: ref('SuborganizationCreated'), example: { id: SUBORG_ID, parent_id: ORG_ID, org_name: 'Acme Docs EU', tenant_name: 'acme', api_key: 'kw_live_2f9c7a1e5b3d4f60a8e1c2b3d4e5f6a7b8c9d0e1' } },
  },
  {
    ...mgmt, method: 'put', path: '/organizations/api-keys', id: 'rotateApiKey', tags: ['organizations'],
    summary: 'Generate a new API key for the specified organization',
    description: 'Issues a new management API key for the organization; the previous key stops working immediately. The key is shown only in this answer.',
    ok: { schema: ref('ApiKeyResult'), example: { api_key: 'kw_live_8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b', created_at: CREATED_AT } },
  },
  {
    ...mgmt, method: 'get', path: '/organizations/config', id: 'getOrganizationConfig', tags: ['organizations'],
    summary: 'Get organization config',
    description: 'Sign-in settings of the organization: self-registration, handle patterns, allowed factors, token lifetime, password rules, approval of new persons.',
    ok: { schema: ref('OrganizationConfig'), example: CONFIG },
  },
  {
    ...mgmt, method: 'patch', path: '/organizations/config', id: 'patchOrganizationConfig', tags: ['organizations'],
    summary: 'Update organization config',
    description: `
Changes the given settings only. With \`deny_self_registration\` people cannot create their own accounts: only persons
you create can sign in, and ID requests for unknown handles answer 403
'self-registration not allowed for this organization'; handles outside \`new_person_handle_patterns\` answer 403 'person
cannot be registered'; with \`requires_manual_approval\` new persons answer 403 'person is not active' until activated.
\`token_duration\` is the lifetime of user tokens in seconds; \`allowed_factor_methods\` limits the factors \`/id\` accepts
(every factor when empty). A sign-in link may return to a URI of \`authn_link_allowed_redirect_uris\` or below its path,
besides the allowed domains. \`authn_redirect_page_ui_config\` is sent as a \`ui_customization\` challenge before the
challenge of every link or code sign-in. \`sudo_mode_duration\` and \`canonical_identity_ai_matching_enabled\` are stored
and served with no effect yet. The former names (\`allow_self_registration\`, \`handle_patterns\`,
\`token_duration_seconds\`, \`allowed_factors\`, \`require_approval_for_new_persons\`) are still accepted; given with
the new name, they must agree (400 otherwise). Patterns must be valid regular expressions (400 otherwise).`,
    body: { schema: ref('OrganizationConfigPatch'), example: { deny_self_registration: true, token_duration: 7200 } },
    ok: { status: 204, description: 'Changed; `GET /organizations/config` reads the settings back.' },
  },
  {
    ...mgmt, method: 'get', path: '/organizations/quota/current-tier', id: 'getCurrentPricingTier', tags: ['organizations'],
    summary: 'Get current pricing tier details',
    description: 'The pricing tier of the organization (or of the root of its hierarchy) and its limits.',
    ok: { schema: ref('PricingTier'), example: TIER },
  },
  {
    ...mgmt, method: 'get', path: '/organizations/quota/all-tiers', id: 'listPricingTiers', tags: ['organizations'],
    summary: 'Get details on all pricing tiers',
    description: 'Every pricing tier with its limits (active persons, suborganizations, API rate) and price, to compare before upgrading.',
    ok: { schema: arrayOf(ref('PricingTier')), example: [{ name: 'free', monthly_active_persons: 1000, suborganizations: 0, api_calls_per_minute: 600, price_per_month_usd: 0, max_suborganizations: 0, custom_templates_allowed: true, nhi_external_connections_allowed: false }, TIER] },
  },
  {
    ...mgmt, method: 'get', path: '/organizations/quota/usage', id: 'getQuotaUsage', tags: ['organizations'],
    summary: 'Get resource usage for the organization hierarchy',
    description: 'Monthly active persons and person counts of the current billing period, per organization of the hierarchy and in total.',
    ok: {
      schema: ref('QuotaUsage'),
      example: { period_start: '2026-03-01T00:00:00Z', period_end: '2026-04-01T00:00:00Z', organizations: [{ id: ORG_ID, monthly_active_persons: 412, persons: 1290 }, { id: SUBORG_ID, monthly_active_persons: 37, persons: 88 }], total_monthly_active_persons: 449, num_persons: 1378, num_groups: 12, num_suborganizations: 1, pricing_tier_details: TIER },
    },
  },
  // ---------- allowed domains ----------
  {
    ...mgmt, method: 'get', path: '/organizations/config/domains', id: 'listAllowedDomains', tags: ['organization-allowed-domains'],
    summary: 'List the allowed domains',
    description: 'Domains accepted as redirect targets of links and SSO, and as passkey scopes, for this organization.',
    ok: { schema: arrayOf(str()), example: domains.domains },
  },
  {
    ...mgmt, method: 'post', path: '/organizations/config/domains', id: 'addAllowedDomains', tags: ['organization-allowed-domains'],
    summary: 'Add allowed domains',
    description: 'Adds domains (lower-case DNS names, no scheme or path). Subdomains must be listed separately. With `overwrite=true` the given domains replace the list.',
    params: [{ name: 'overwrite', in: 'query', required: false, description: 'Replace the whole list by the given domains instead of adding them.', schema: { type: 'boolean' } }],
    body: { schema: ref('DomainAdd'), required: false, example: { domains: ['app.example.com'] } },
    ok: { status: 204, description: 'Added; `GET /organizations/config/domains` lists them.' },
  },
  {
    ...mgmt, method: 'delete', path: '/organizations/config/domains', id: 'removeAllowedDomains', tags: ['organization-allowed-domains'],
    summary: 'Remove allowed domains',
    description: 'Removes domains: one with `domain`, several in the body, or every one with `deleteAll=true` (one of the three is required). Links and SSO flows already started for them fail on return.',
    params: [
      { name: 'domain', in: 'query', required: false, description: 'A domain to remove.', schema: str({ maxLength: 253 }) },
      { name: 'deleteAll', in: 'query', required: false, description: 'Remove every allowed domain.', schema: { type: 'boolean' } },
    ],
    body: { schema: ref('DomainList'), required: false, example: { domains: ['app.example.com'] } },
    ok: { status: 204, description: 'Removed.' },
  },
  // ---------- e-mail templates ----------
  {
    ...mgmt, method: 'get', path: '/organizations/config/templates', id: 'listEmailTemplates', tags: ['organization-email-templates'],
    summary: 'List available templates',
    description: 'Names of the message templates the organization can replace: e-mails (`email_*`) and SMS (`text_*`) for the sign-in link, the one-time code, the password reset link and the notice of a changed password. Read one with the GET of its name.',
    ok: { schema: arrayOf(ref('EmailTemplateName')), example: ['email_authn_challenge', 'email_otp_message', 'email_password_change_notify', 'email_password_reset', 'text_authn_challenge', 'text_otp_message', 'text_password_change_notify', 'text_password_reset'] },
  },
  {
    ...mgmt, method: 'get', path: '/organizations/config/templates/{template_name}', id: 'getEmailTemplate', tags: ['organization-email-templates'], params: ['TemplateNamePath'],
    summary: 'Get the named template',
    description: 'Returns one template: the organization\'s replacement (`customized`) or the built-in text. Placeholders `{{ code }}`, `{{ link }}`, `{{ org_name }}` and `{{ minutes }}` are filled when the message is sent (HTML-escaped in an e-mail body).',
    ok: { schema: ref('EmailTemplate'), example: TEMPLATE },
  },
  {
    ...mgmt, method: 'put', path: '/organizations/config/templates/{template_name}', id: 'setEmailTemplate', tags: ['organization-email-templates'], params: ['TemplateNamePath'],
    summary: 'Modify the named template',
    description: `
Changes the fields given (\`subject\`, \`body\`, \`text_body\`, \`sender_name\`); the others keep their current value. A new
\`body\` without \`text_body\` drops the former plain-text alternative (it is then derived from the HTML). The code and
link templates must keep their placeholder (\`{{ code }}\` or \`{{ link }}\`), else 400. Sign-in codes and links and
organization-initiated password resets use the replacement, by e-mail and by SMS; account recovery messages keep the
built-in text, and no password-change notice is sent yet.`,
    body: { schema: ref('EmailTemplateUpdate'), required: false, example: { subject: 'Your Acme sign-in code', body: '<p>Your code is <b>{{ code }}</b>.</p>', sender_name: 'Acme' } },
    ok: { status: 204, description: 'Stored; the GET of the same path reads it back.' },
  },
  // ---------- external credentials ----------
  ...crudOperations({
    base: '/organizations/config/external-credentials', param: 'CredIdPath', paramName: 'cred_id', tags: ['organization-external-credentials'],
    id: 'ExternalCredential', noun: 'external credential', schema: 'ExternalCredential', createSchema: 'ExternalCredentialCreate', patchSchema: 'ExternalCredentialPatch',
    example: EXT_CRED,
    createExample: { extcred_provider: 'generic', extcred_type: 'user_pass', extcred_label: 'Transactional SMTP', json_blob: { username: 'mailer', password: 's3cr3t-app-password' } },
    patchExample: { extcred_label: 'Primary SMTP' },
    summaries: { list: 'List available external credentials', create: 'Create new external credentials', get: 'Get the specified credential', patch: 'Modify the selected credential', delete: 'Remove an external credential by id' },
    text: {
      list: 'Lists the credentials of outside services (SMTP server, SMS gateway, identity providers) the organization configured. Secret fields are never returned.',
      create: 'Stores the credential of an outside service: `extcred_provider` and `extcred_type` say what it is, `json_blob` holds the secret (encrypted at rest, never returned: only its top-level names are, in `secret_field_names`). The former form (`label`, `type`, `public_fields`, `secret_fields`) is still accepted. Answers the id of the new credential in a list.',
      get: 'Returns one external credential with its public fields; secret fields are write-only and never returned.',
      patch: 'Changes the label (`extcred_label`) or the secret: `json_blob` replaces it, the former `secret_fields` merge into it.',
      delete: 'Removes an external credential; features using it fall back to Keyway defaults.',
    },
  }).map(patchAnswersNoContent).map((op) => op.method === 'post' ? { ...op, ok: { status: 201, schema: arrayOf(ref('ResourceId')), example: [EXT_CRED.id] } } : op).map((op) => op.method === 'delete'
    ? {
      ...op,
      path: '/organizations/config/external-credentials',
      description: `${op.description} Name it with \`credentialId\`, or remove them all with \`deleteAll=true\`.`,
      params: [
        { name: 'credentialId', in: 'query', required: false, description: 'External credential to remove (required unless `deleteAll=true`).', schema: ref('ResourceId'), example: EXT_CRED.id },
        { name: 'cred_id', in: 'query', required: false, deprecated: true, description: 'Former name of `credentialId`, still accepted.', schema: ref('ResourceId') },
        { name: 'deleteAll', in: 'query', required: false, description: 'Remove every external credential of the organization.', schema: { type: 'boolean' } },
      ],
      errors: ['NotFound'],
    }
    : op),
  // ---------- KYC ----------
  {
    ...mgmt, method: 'get', path: '/organizations/config/kyc', id: 'getKycConfig', tags: ['organization-kyc-config'],
    summary: 'Get organization KYC config',
    description: 'Identity-verification settings: whether KYC is on, the provider, whether registration waits for it and the accepted document countries.',
    ok: { schema: ref('KycConfig'), example: { enabled: true, provider: 'document_check', required_for_registration: false, allowed_document_countries: ['GB', 'DE', 'FR'] } },
  },
  {
    ...mgmt, method: 'patch', path: '/organizations/config/kyc', id: 'patchKycConfig', tags: ['organization-kyc-config'],
    summary: 'Update KYC organization config',
    description: 'Changes the given KYC settings only. Country codes are ISO 3166-1 alpha-2.',
    body: { schema: ref('KycConfigPatch'), example: { required_for_registration: true } },
    ok: { status: 204, description: 'Changed; `GET /organizations/config/kyc` reads the settings back.' },
  },
  // ---------- SSO providers ----------
  ...crudOperations({
    base: '/organizations/sso/saml/provider-credentials', param: 'SamlCredentialsIdPath', paramName: 'saml_provider_credentials_id', tags: ['organization-sso-config'],
    id: 'SamlProviderCredentials', noun: 'SAML provider credentials', schema: 'SamlProviderCredentials', createSchema: 'SamlProviderCredentialsCreate', patchSchema: 'SamlProviderCredentialsPatch',
    example: SAML,
    createExample: { label: 'Corporate IdP', idp_metadata_xml: IDP_METADATA_XML, attribute_mapping: { mail: 'email' } },
    patchExample: { label: 'Corporate IdP (EU)' },
    summaries: { list: 'List SAML credentials', create: 'Create new SAML provider credentials', get: 'Get SAML provider credentials', patch: 'Modify SAML provider credentials', delete: 'Delete SAML provider credentials' },
    text: {
      list: 'Lists the SAML identity providers configured for the organization. Their ids are the `provider_credentials_id` of SAML factors.',
      create: 'Registers a SAML identity provider from its metadata (URL or XML, one of the two). The answer gives the entity id and ACS URL to configure on the provider side.',
      get: 'Returns one SAML provider configuration, including the service-provider entity id and ACS URL to register at the IdP.',
      patch: 'Changes the label, metadata or attribute mapping of a SAML provider; new metadata is fetched and checked before it is stored.',
      delete: 'Removes a SAML provider; SAML sign-ins through it stop at once and persons who only used it must recover another factor.',
    },
  }).map(patchAnswersNoContent),
  ...crudOperations({
    base: '/organizations/sso/oidc/provider-credentials', param: 'OidcProviderClientIdPath', paramName: 'oauth_client_id', tags: ['organization-sso-config'],
    id: 'OidcProviderCredentials', noun: 'OIDC provider credentials', schema: 'OidcProviderCredentials', createSchema: 'OidcProviderCredentialsCreate', patchSchema: 'OidcProviderCredentialsPatch',
    example: OIDC,
    createExample: { client_id: '1234567890-abc.apps.example.com', client_secret: 'GOCSPX-example-secret', label: 'Google', provider: 'google', scopes: ['openid', 'email'], options: { google: { authorize_scopes: ['https://www.googleapis.com/auth/calendar.readonly'] } } },
    patchExample: { label: 'Google Workspace' },
    summaries: { list: 'List OIDC credentials', create: 'Create new OIDC provider credentials', get: 'Get OIDC provider credentials', patch: 'Modify OIDC provider credentials', delete: 'Delete OIDC provider credentials' },
    text: {
      list: 'Lists the OIDC identity providers (social login and enterprise) configured for the organization, without their secrets.',
      create: 'Registers the client the organization holds at an OIDC provider. `client_id` then identifies it in OIDC factors; `issuer` is required for generic and Keycloak providers, and for Entra ID and Okta unless `options` name the tenant or organization URL. With `external_cred_id` the secret is read from that external credential at each sign-in; with `options.apple` Keyway signs Apple\'s client secret itself.',
      get: 'Returns one OIDC provider configuration, identified by the client id held at the provider, without its secret.',
      patch: 'Changes the label, scopes, options, external credential or secret of an OIDC provider configuration; `options` replace the former ones.',
      delete: 'Removes an OIDC provider configuration; sign-ins through it stop at once.',
    },
  }).map((op) => op.method === 'delete'
    ? { ...op, ok: { status: 200, schema: ref('OidcProviderCredentials'), example: OIDC, description: 'Deleted; the configuration as it was.' } }
    : op.method === 'get' && !op.path.includes('{')
    ? { ...op, params: [{ name: 'oauth_provider', in: 'query', required: false, description: 'Only the configurations of this provider (`azure` is a former name of `azuread`).', schema: str({ enum: ['google', 'apple', 'azure', 'azuread', 'facebook', 'github', 'gitlab', 'line', 'bitbucket', 'okta', 'keycloak', 'generic'] }) }] }
    : op),
  // ---------- token template ----------
  {
    ...mgmt, method: 'get', path: '/organizations/config/token-template', id: 'getTokenTemplate', tags: ['organization-token-template'],
    summary: "Get the organization's token template",
    description: 'The template of extra claims added to every user token of the organization.',
    ok: { schema: ref('TokenTemplate'), example: { content: '{"plan": "{{ person.attributes.end_user_read_only.plan }}"}' } },
  },
  {
    ...mgmt, method: 'put', path: '/organizations/config/token-template', id: 'setTokenTemplate', tags: ['organization-token-template', 'rbac'],
    summary: "Modify the organization's token template",
    description: `
Replaces the token template. It must render to a JSON object; it may add the person's roles and permissions as
claims and cannot override reserved claims (person_id, oid, authenticated_methods, exp …): violations answer 400
naming the claim. Applies to tokens issued from then on.`,
    body: { schema: ref('TokenTemplate'), example: { content: '{"roles": "{{ person.roles }}", "plan": "{{ person.attributes.end_user_read_only.plan }}"}' } },
    ok: { status: 204, description: 'Stored.' },
  },
  // ---------- webhooks ----------
  ...crudOperations({
    base: '/organizations/webhooks', param: 'WebhookIdPath', paramName: 'webhook_id', tags: ['organization-webhooks'],
    id: 'Webhook', noun: 'webhook', schema: 'Webhook', createSchema: 'WebhookCreate', patchSchema: 'WebhookPatch',
    example: WEBHOOK,
    createExample: { name: 'Audit sink', description: 'Sends sign-in events to the audit service', target_url: 'https://audit.example.com/keyway', custom_headers: { 'X-Team': ['identity'] }, timeout: '10s' },
    patchExample: { timeout: '20s' },
    summaries: { list: 'List all webhooks', create: 'Create a new webhook', get: 'Get a webhook', patch: 'Update a webhook', delete: 'Delete a webhook' },
    text: {
      list: 'Lists the webhooks of the organization with their targets and timeouts; triggers are listed per webhook.',
      create: 'Registers an HTTPS endpoint Keyway calls with signed JWT payloads. It receives nothing until triggers are attached.',
      get: 'Returns one webhook: its target URL, custom headers and delivery timeout.',
      patch: 'Changes the given fields of a webhook; the target URL must stay https. Deliveries already queued use the new settings.',
      delete: 'Deletes a webhook and its triggers; deliveries in flight are dropped and sync hooks using it are no longer called.',
    },
  }),
  {
    ...mgmt, method: 'get', path: '/organizations/webhooks/{webhook_id}/triggers', id: 'listWebhookTriggers', tags: ['organization-webhooks'], params: ['WebhookIdPath'],
    summary: 'List webhook triggers',
    description: 'Lists the events and synchronous hooks that call this webhook, each as a trigger type and name.',
    ok: { schema: arrayOf(ref('WebhookTrigger')), example: [TRIGGER] },
  },
  {
    ...mgmt, method: 'post', path: '/organizations/webhooks/{webhook_id}/triggers', id: 'createWebhookTrigger', tags: ['organization-webhooks'], params: ['WebhookIdPath'],
    summary: 'Create a webhook trigger',
    description: `
Attaches a trigger: \`event\` triggers deliver asynchronously after the event happened; \`sync_hook\` triggers are
called during the flow and their answer can add claims or deny. The hook point is \`token_minted\` (every user token
Keyway signs: sign-ins, organization switches, minted and OAuth2 access tokens); other names answer 400.

A sync hook call is a \`POST\` whose body is a JWT (\`application/jwt\`) signed with the verification keys, \`iss\` =
Keyway's URL, \`aud\` = the target URL, with \`trigger_name\`, \`person_id\`, \`org_id\` and \`data.token\` (the claims
about to be signed), and the header \`Keyway-Sync-Hook\`. Keyway waits up to the webhook's \`timeout\`. A 200 JSON
answer \`{"claims": {...}}\` adds those claims (reserved ones such as \`person_id\`, \`groups\`, \`exp\` are ignored);
\`{"allow": false, "reason": "..."}\` refuses the token (403 naming the webhook and the reason). An error status, a
timeout or an answer that is not a JSON object is ignored: the token is issued without that hook's claims.`,
    body: { schema: ref('WebhookTrigger'), example: TRIGGER },
    ok: { status: 201, schema: ref('WebhookTrigger'), example: TRIGGER },
    errors: ['Conflict'],
  },
  {
    ...mgmt, method: 'delete', path: '/organizations/webhooks/{webhook_id}/triggers', id: 'deleteWebhookTrigger', tags: ['organization-webhooks'],
    summary: 'Delete a webhook trigger',
    description: 'Detaches a trigger from the webhook, named by `trigger_type` and `trigger_name` in the query (or, as before, in the body); the webhook and its other triggers remain.',
    params: ['WebhookIdPath',
      { name: 'trigger_type', in: 'query', required: false, description: 'Type of the trigger to detach (with `trigger_name`).', schema: str({ enum: ['event', 'sync_hook'] }) },
      { name: 'trigger_name', in: 'query', required: false, description: 'Name of the trigger to detach (with `trigger_type`).', schema: str({ maxLength: 128 }) },
    ],
    body: { schema: ref('WebhookTrigger'), required: false, example: TRIGGER },
    ok: { status: 204, description: 'Deleted.' },
  },
  {
    ...mgmt, method: 'get', path: '/organizations/webhooks/{webhook_id}/deliveries', id: 'listWebhookDeliveries', tags: ['organization-webhooks'],
    summary: 'List webhook deliveries',
    description: `
Lists the deliveries of events to this webhook, newest first, page by page (\`limit\` at most 1000), with the total
in \`meta.pagination\`. \`status=failed\` is the dead-letter list: deliveries whose attempts ran out (retries follow
an exponential backoff with jitter). Each shows its attempts, the last answer or error, and the event's type and id.
Sync hook calls are not listed.`,
    params: ['WebhookIdPath',
      { name: 'status', in: 'query', required: false, description: 'Only deliveries in this state (`failed`: the dead letters); all when absent.', schema: str({ enum: ['pending', 'delivered', 'failed'] }) },
      'Limit', 'Offset', 'Cursor'],
    ok: { schema: arrayOf(ref('WebhookDelivery')), example: [DELIVERY], paginated: true },
  },
  {
    ...mgmt, method: 'post', path: '/organizations/webhooks/{webhook_id}/deliveries/{delivery_id}/replay', id: 'replayWebhookDelivery', tags: ['organization-webhooks'],
    params: ['WebhookIdPath', 'WebhookDeliveryIdPath'],
    summary: 'Replay a failed webhook delivery',
    description: `
Queues a dead letter (a delivery in state \`failed\`) again: it becomes \`pending\` with its attempts reset and is
sent at once, with the same event and event id (the \`Keyway-Idempotency-Key\` header), so a receiver that got it
after all handles it once. A delivery that is pending or delivered answers 409, as does a sync hook call; an unknown
delivery, or one of another webhook, answers 404.`,
    ok: { schema: ref('WebhookDelivery'), example: { ...DELIVERY, status: 'pending', attempts: 0, next_attempt_at: '2026-11-26T10:05:00.000Z' } },
    errors: ['Conflict'],
  },
  {
    ...mgmt, method: 'get', path: '/organizations/webhooks/verification-jwks', id: 'getWebhookVerificationJwks', tags: ['organization-webhooks'],
    summary: 'Get verification JWKS for webhooks',
    description: 'Public keys that verify the signature of webhook payloads and sync-hook calls, as a bare JSON Web Key Set (no `result` envelope), ready for any JWKS library. Cache them and refetch when a payload names an unknown `kid`.',
    ok: { raw: true, schema: ref('Jwks'), example: { keys: [{ kty: 'EC', kid: 'wh-2026-03', use: 'sig', alg: 'ES256', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }] } },
  },
  {
    ...mgmt, method: 'post', path: '/test-events', id: 'generateTestEvents', tags: ['organization-webhooks'],
    summary: 'Generate events for testing',
    description: 'Emits synthetic events of the given types (marked `test: true`) to every webhook with a matching `event` trigger, so that webhook endpoints can be tried without real sign-ins. Answers the generated events, delivered or not; they are also recorded in the event log (source `test`). Sync hooks are not called.',
    body: { schema: ref('TestEventsRequest'), example: [{ event_name: 'AuthenticationSucceeded_v1', count: 2, analytics_correlation_id: 'try-1' }] },
    ok: {
      status: 201, schema: arrayOf(ref('TestEvent')),
      example: [
        { event_id: '0f3c5c2e-8c1b-4a53-9d7e-2b6f1a9c4e10', event_name: 'AuthenticationSucceeded_v1', organization_id: 'b6a8f9e2-3c1d-4e5f-8a7b-9c0d1e2f3a4b', timestamp: '2026-11-26T10:00:00.000Z' },
        { event_id: '5d2a7b91-64e0-4f8c-b3a2-7e9d0c1f2b35', event_name: 'AuthenticationSucceeded_v1', organization_id: 'b6a8f9e2-3c1d-4e5f-8a7b-9c0d1e2f3a4b', timestamp: '2026-11-26T10:00:00.000Z' },
      ],
    },
  },
];

