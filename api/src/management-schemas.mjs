// @ts-check
// Schemas of the management API: groups, RBAC, OAuth2 clients, organization configuration, webhooks, SSO.
import { ref, closed, open, arrayOf, str, int, bool, dateTime, nullable } from './lib.mjs';

const NAME = '^[A-Za-z0-9_.:-]{1,128}$';
const description = str({ maxLength: 1000 });
const url = (extra = {}) => str({ format: 'uri', maxLength: 2048, ...extra });
const httpsUrl = str({ format: 'uri', pattern: '^https://', maxLength: 2048 });
const webhookUrl = str({
  format: 'uri', pattern: '^(https://|http://(localhost|127\\.0\\.0\\.1|\\[::1\\])[:/])', maxLength: 2048,
  description: 'https URL; plain http is accepted for localhost receivers of a development server only.',
});
const domain = str({ pattern: '^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$', description: 'Lower-case DNS name.' });
const scopes = arrayOf(str({ pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,128}$' }), { maxItems: 50, uniqueItems: true });

export const managementSchemas = {
  GroupName: str({ pattern: NAME, description: 'Group name, unique in the organization.' }),
  RoleName: str({ pattern: NAME, description: 'Role name, unique in the organization.' }),
  PermissionName: str({ pattern: NAME, description: 'Permission name, e.g. `docs:write`.' }),
  EmailTemplateName: str({
    enum: ['email_authn_challenge', 'email_otp_message', 'email_password_change_notify', 'email_password_reset', 'text_authn_challenge', 'text_otp_message', 'text_password_change_notify', 'text_password_reset'],
    description: 'Template name: `email_*` e-mails, `text_*` SMS; `authn_challenge` the sign-in link, `otp_message` the one-time code, `password_reset` the reset link, `password_change_notify` the notice of a changed password (stored; not sent by this server yet).',
  }),
  EmailTemplatePathName: str({
    enum: ['email_authn_challenge', 'email_otp_message', 'email_password_change_notify', 'email_password_reset', 'text_authn_challenge', 'text_otp_message', 'text_password_change_notify', 'text_password_reset', 'email_link', 'otp_via_email', 'password_reset'],
    description: 'Template name; the former names `email_link`, `otp_via_email` and `password_reset` still name `email_authn_challenge`, `email_otp_message` and `email_password_reset`.',
  }),

  // ---------- persons (management) ----------
  PersonCreate: closed({
    active: { type: 'boolean', default: true },
    region: ref('Region'),
    handles: arrayOf(ref('PersonHandle'), { minItems: 1, maxItems: 20 }),
    groups: arrayOf(ref('GroupName'), { maxItems: 100, uniqueItems: true }),
    roles: arrayOf(ref('RoleName'), { maxItems: 100, uniqueItems: true }),
    attributes: ref('AttributesByBucket'),
  }, ['handles']),
  PersonPatch: closed({ active: bool(), region: ref('Region') }, [], { minProperties: 1 }),
  PersonOrganization: open({
    id: ref('OrganizationId'),
    org_name: str(),
    tenant_name: str(),
    person_id: ref('PersonId'),
  }, ['id', 'org_name', 'person_id']),
  HandleList: closed({ handles: arrayOf(ref('PersonHandle'), { minItems: 1, maxItems: 20 }) }, ['handles']),
  GroupNameList: closed({ groups: arrayOf(ref('GroupName'), { maxItems: 100, uniqueItems: true }) }, ['groups']),
  RoleNameList: closed({ roles: arrayOf(ref('RoleName'), { maxItems: 100, uniqueItems: true }) }, ['roles']),
  PermissionNameList: closed({ permissions: arrayOf(ref('PermissionName'), { maxItems: 500, uniqueItems: true }) }, ['permissions']),
  PersonIdList: closed({ persons: arrayOf(ref('PersonId'), { minItems: 1, maxItems: 1000, uniqueItems: true }) }, ['persons']),
  CredentialCreate: {
    description: 'A credential to store for the person; secrets are hashed before storage and never returned.',
    oneOf: [
      closed({ type: str({ const: 'password' }), label: str({ maxLength: 200 }), password: str({ minLength: 1, maxLength: 256 }) }, ['type', 'password'], { title: 'password' }),
      closed({ type: str({ const: 'totp' }), label: str({ maxLength: 200 }), secret: str({ pattern: '^[A-Z2-7]{16,128}=*$', description: 'Base32 TOTP secret.' }) }, ['type', 'secret'], { title: 'totp' }),
    ],
  },
  PasswordSet: closed({
    password: str({ minLength: 1, maxLength: 256 }),
    skip_validation: { type: 'boolean', default: false, description: 'Store even if the password breaks the organization rules (imports).' },
  }, ['password']),
  PasswordResetRequest: closed({
    handle: ref('PersonHandle'),
    redirect_target: url(),
  }, ['handle']),
  PasswordRotateRequest: closed({
    handle: ref('PersonHandle'),
    reason: str({ maxLength: 500 }),
    redirect_target: url({ description: 'Page of your application that completes the reset (required with `handle`).' }),
  }, []),
  BulkImportResult: open({
    imported: int({ minimum: 0 }),
    failed: int({ minimum: 0 }),
    failures: arrayOf(open({ row: int({ minimum: 1 }), message: str() }, ['row', 'message'])),
  }, ['imported', 'failed', 'failures']),

  // ---------- groups and RBAC ----------
  Group: open({ name: ref('GroupName'), description, created_at: dateTime() }, ['name']),
  GroupCreate: closed({ name: ref('GroupName'), description }, ['name']),
  Permission: open({ name: ref('PermissionName'), description, created_at: dateTime() }, ['name']),
  PermissionCreate: closed({ name: ref('PermissionName'), description }, ['name']),
  PermissionPatch: closed({ description }, ['description']),
  Role: open({ name: ref('RoleName'), description, permissions: arrayOf(ref('PermissionName')), created_at: dateTime() }, ['name', 'permissions']),
  RoleCreate: closed({ name: ref('RoleName'), description, permissions: arrayOf(ref('PermissionName'), { maxItems: 500, uniqueItems: true }) }, ['name']),
  RolePatch: closed({ description, permissions: arrayOf(ref('PermissionName'), { maxItems: 500, uniqueItems: true }) }, [], { minProperties: 1 }),
  PersonPermissions: open({
    permissions: arrayOf(ref('PermissionName')),
    sources: open({}, [], { additionalProperties: arrayOf(str()), description: 'Permission → roles (or `additional`) granting it.' }),
  }, ['permissions']),
  RbacCheckRequest: closed({ person_id: ref('PersonId'), permission: ref('PermissionName') }, ['person_id', 'permission']),
  RbacCheckResult: open({ allowed: bool(), granted_by: arrayOf(str()) }, ['allowed']),

  // ---------- OAuth2 clients ----------
  OAuth2Client: open({
    client_id: ref('OAuthClientId'),
    client_name: str({ maxLength: 200 }),
    scopes,
    grant_types: arrayOf(str({ enum: ['authorization_code', 'client_credentials', 'refresh_token'] })),
    response_types: arrayOf(str({ enum: ['code'] })),
    redirect_uris: arrayOf(url()),
    public: bool('Public clients (browsers, mobile apps) hold no secret and must use PKCE.'),
    access_token_duration: int({ minimum: 60, maximum: 86400, description: 'Seconds.' }),
    refresh_token_duration: int({ minimum: 0, maximum: 31536000, description: 'Seconds; 0 disables refresh tokens.' }),
    client_secret_last4: str({ minLength: 4, maxLength: 4, description: 'Last 4 characters of the secret of a confidential client, to tell secrets apart; the secret itself is shown once, when created or rotated, and never read back.' }),
    created_at: dateTime(),
  }, ['client_id', 'client_name', 'scopes', 'grant_types', 'public']),
  OAuth2ClientWithSecret: {
    allOf: [ref('OAuth2Client'), { type: 'object', required: ['client_secret'], properties: { client_secret: str({ description: 'Shown once; store it now.' }) } }],
  },
  OAuth2ClientCreate: closed({
    client_name: str({ minLength: 1, maxLength: 200 }),
    scopes,
    grant_types: arrayOf(str({ enum: ['authorization_code', 'client_credentials', 'refresh_token'] }), { minItems: 1, uniqueItems: true }),
    redirect_uris: arrayOf(url(), { maxItems: 20 }),
    public: { type: 'boolean', default: false },
    access_token_duration: int({ minimum: 60, maximum: 86400, default: 3600 }),
    refresh_token_duration: int({ minimum: 0, maximum: 31536000, description: 'Seconds a refresh token stays usable (each rotation starts it again); default 2592000 (30 days) when `grant_types` has `refresh_token`, else 0. 0 disables refresh tokens.' }),
  }, ['client_name', 'scopes', 'grant_types']),
  OAuth2ClientPatch: closed({
    client_name: str({ minLength: 1, maxLength: 200 }),
    scopes,
    redirect_uris: arrayOf(url(), { maxItems: 20 }),
    access_token_duration: int({ minimum: 60, maximum: 86400 }),
    refresh_token_duration: int({ minimum: 0, maximum: 31536000 }),
  }, [], { minProperties: 1 }),
  UiConfiguration: closed({
    logo_url: nullable(httpsUrl),
    primary_color: str({ pattern: '^#[0-9a-fA-F]{6}$' }),
    title: str({ maxLength: 200 }),
    factors: arrayOf(ref('AuthenticationMethod'), { maxItems: 13, uniqueItems: true }),
    show_keyway_branding: bool(),
  }),
  MintOAuthTokensRequest: closed({
    client_id: ref('OAuthClientId'),
    person_id: ref('PersonId'),
    scopes,
    include_id_token: { type: 'boolean', default: true },
  }, ['client_id', 'person_id']),

  // ---------- organizations ----------
  SuborganizationCreate: closed({
    sub_org_name: str({ minLength: 1, maxLength: 200, description: 'Name of the new organization (required, or its former name `org_name`).' }),
    admins: arrayOf(ref('PersonHandle'), { maxItems: 20, description: 'Handles of the administrators of the new organization: each becomes an active person of it, in its group `admins` (found in its person pool when that already has the handle).' }),
    persons_org_id: ref('OrganizationId'),
    groups_org_id: ref('OrganizationId'),
    inherit_rbac_pools: { type: 'boolean', default: false, description: 'Roles and permissions of the parent apply.' },
    org_name: str({ minLength: 1, maxLength: 200, description: 'Former name of `sub_org_name`.' }),
    tenant_name: str({ minLength: 1, maxLength: 200 }),
    share_person_pool: { type: 'boolean', default: false, description: 'Persons of the parent can sign in to the new organization (the same as `persons_org_id` = the parent).' },
    share_group_pool: { type: 'boolean', default: false, description: 'Refused when true: this server shares no group pools.' },
    inherits_rbac_pools: { type: 'boolean', default: false, description: 'Former name of `inherit_rbac_pools`.' },
  }),
  SuborganizationCreated: {
    allOf: [ref('Organization'), { type: 'object', required: ['api_key'], properties: { api_key: str({ description: 'Management API key of the new organization; shown once.' }) } }],
  },
  ApiKeyResult: open({ api_key: str({ minLength: 32 }), created_at: dateTime() }, ['api_key']),
  OrganizationConfig: open({
    deny_self_registration: bool('Unknown handles cannot sign up by signing in (403 `self-registration not allowed for this organization`).'),
    new_person_handle_patterns: arrayOf(str({ format: 'regex' }), { description: 'Handles must match one pattern to register.' }),
    token_duration: int({ minimum: 60, maximum: 2592000, description: 'Lifetime of user tokens, in seconds.' }),
    allowed_factor_methods: arrayOf(ref('AuthenticationMethod'), { description: 'Factors `/id` accepts (every factor when empty).' }),
    requires_manual_approval: bool('New persons start inactive (403 `person is not active`) until activated.'),
    authn_link_allowed_redirect_uris: arrayOf(url(), { description: 'Redirect targets of sign-in links accepted besides the allowed domains: same origin, and the path equal to or below the listed path.' }),
    authn_redirect_page_ui_config: ref('RedirectPageUiConfig'),
    sudo_mode_duration: int({ minimum: 0, maximum: 86400, description: 'Seconds (stored and served; this server has no sudo mode yet).' }),
    canonical_identity_ai_matching_enabled: bool('Stored and served; this server does no identity matching.'),
    from_email: str({ description: 'Sender address of e-mails (the SMTP `from`; empty when the server keeps e-mails in its mailbox only).' }),
    from_phone_number_sms: str({ description: 'Sender of SMS (empty: this server has no SMS gateway).' }),
    allow_self_registration: bool('Former name: the opposite of `deny_self_registration`.'),
    handle_patterns: arrayOf(str({ format: 'regex' }), { description: 'Former name of `new_person_handle_patterns`.' }),
    token_duration_seconds: int({ minimum: 60, maximum: 2592000, description: 'Former name of `token_duration`.' }),
    allowed_factors: arrayOf(ref('AuthenticationMethod'), { description: 'Former name of `allowed_factor_methods`.' }),
    require_approval_for_new_persons: bool('Former name of `requires_manual_approval`.'),
    password_validation_rules: arrayOf(ref('PasswordValidationRule')),
    groups_claim_name: str({ maxLength: 64, default: 'groups' }),
  }, ['deny_self_registration', 'new_person_handle_patterns', 'token_duration', 'allowed_factor_methods', 'requires_manual_approval', 'authn_link_allowed_redirect_uris', 'sudo_mode_duration', 'from_email', 'from_phone_number_sms', 'groups_claim_name']),
  OrganizationConfigPatch: closed({
    deny_self_registration: bool(),
    new_person_handle_patterns: arrayOf(str({ format: 'regex', maxLength: 500 }), { maxItems: 50 }),
    token_duration: int({ minimum: 60, maximum: 2592000, description: 'Seconds.' }),
    allowed_factor_methods: arrayOf(ref('AuthenticationMethod'), { uniqueItems: true }),
    requires_manual_approval: bool(),
    authn_link_allowed_redirect_uris: arrayOf(url({ pattern: '^https?://' }), { maxItems: 50, uniqueItems: true }),
    authn_redirect_page_ui_config: ref('RedirectPageUiConfig'),
    sudo_mode_duration: int({ minimum: 0, maximum: 86400, description: 'Seconds.' }),
    canonical_identity_ai_matching_enabled: bool(),
    allow_self_registration: bool('Former name: the opposite of `deny_self_registration`.'),
    handle_patterns: arrayOf(str({ format: 'regex', maxLength: 500 }), { maxItems: 50, description: 'Former name of `new_person_handle_patterns`.' }),
    token_duration_seconds: int({ minimum: 60, maximum: 2592000, description: 'Former name of `token_duration`.' }),
    allowed_factors: arrayOf(ref('AuthenticationMethod'), { uniqueItems: true, description: 'Former name of `allowed_factor_methods`.' }),
    require_approval_for_new_persons: bool('Former name of `requires_manual_approval`.'),
    password_validation_rules: arrayOf(ref('PasswordValidationRule'), { maxItems: 20 }),
    groups_claim_name: str({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' }),
  }, [], { minProperties: 1 }),
  RedirectPageUiConfig: closed({
    logo_url: httpsUrl,
    title: str({ maxLength: 200 }),
    background_color: str({ pattern: '^#[0-9a-fA-F]{6}$' }),
    text_color: str({ pattern: '^#[0-9a-fA-F]{6}$' }),
  }, [], { description: 'Branding of the page a sign-in link opens.' }),
  PricingTier: open({
    name: str(),
    monthly_active_persons: int({ minimum: 0 }),
    suborganizations: int({ minimum: 0 }),
    api_calls_per_minute: int({ minimum: 0 }),
    price_per_month_usd: { type: 'number', minimum: 0 },
  }, ['name', 'monthly_active_persons']),
  QuotaUsage: open({
    period_start: dateTime(),
    period_end: dateTime(),
    organizations: arrayOf(open({ id: ref('OrganizationId'), monthly_active_persons: int({ minimum: 0 }), persons: int({ minimum: 0 }) }, ['id'])),
    total_monthly_active_persons: int({ minimum: 0 }),
  }, ['period_start', 'period_end', 'organizations']),
  AttributeBucket: open({
    name: ref('AttributeBucketName'),
    end_user_access: str({ enum: ['read_write', 'read_only', 'no_access'] }),
    shared_with_person_pool: bool(),
  }, ['name', 'end_user_access', 'shared_with_person_pool']),
  DomainList: closed({ domains: arrayOf(domain, { minItems: 1, maxItems: 100, uniqueItems: true }) }, ['domains']),
  DomainAdd: closed({ domains: arrayOf(domain, { maxItems: 100, uniqueItems: true, description: 'Domains to add (with `overwrite=true`: the whole list; none clears it).' }) }),
  EmailTemplate: open({
    name: ref('EmailTemplateName'),
    subject: str({ maxLength: 200, description: 'E-mail subject (absent for SMS).' }),
    body: str({ maxLength: 100000, description: 'HTML of an e-mail; the text of an SMS.' }),
    text_body: str({ maxLength: 100000, description: 'Plain-text alternative of an e-mail (derived from `body` when absent).' }),
    sender_name: str({ maxLength: 200, description: 'Display name of the e-mail sender (the `From` name when SMTP is configured).' }),
    customized: bool('Whether the organization replaced the built-in template.'),
    updated_at: dateTime(),
  }, ['name', 'body']),
  EmailTemplateUpdate: closed({
    subject: str({ minLength: 1, maxLength: 200 }),
    body: str({ minLength: 1, maxLength: 100000, description: 'HTML of an e-mail; the text of an SMS.' }),
    html_body: str({ minLength: 1, maxLength: 100000, description: 'Former name of `body`, still accepted.', deprecated: true }),
    text_body: str({ maxLength: 100000 }),
    sender_name: str({ minLength: 1, maxLength: 200, pattern: '^[^\\r\\n<>"]+$' }),
  }),
  ExternalCredentialType: str({ enum: ['smtp', 'sms_gateway', 'oidc_client', 'apple_signin'] }),
  ExternalCredential: open({
    id: ref('ResourceId'),
    label: str({ maxLength: 200 }),
    type: ref('ExternalCredentialType'),
    public_fields: open({}, [], { additionalProperties: { type: ['string', 'number', 'boolean'] }, description: 'Non-secret settings (host, port, sender, client id …).' }),
    created_at: dateTime(),
  }, ['id', 'label', 'type']),
  ExternalCredentialCreate: closed({
    label: str({ minLength: 1, maxLength: 200 }),
    type: ref('ExternalCredentialType'),
    public_fields: open({}, [], { additionalProperties: { type: ['string', 'number', 'boolean'] }, maxProperties: 30 }),
    secret_fields: open({}, [], { additionalProperties: str({ maxLength: 4096 }), maxProperties: 30, description: 'Encrypted at rest, never returned.' }),
  }, ['label', 'type']),
  ExternalCredentialPatch: closed({
    label: str({ minLength: 1, maxLength: 200 }),
    public_fields: open({}, [], { additionalProperties: { type: ['string', 'number', 'boolean'] }, maxProperties: 30 }),
    secret_fields: open({}, [], { additionalProperties: str({ maxLength: 4096 }), maxProperties: 30 }),
  }, [], { minProperties: 1 }),
  KycConfig: open({
    mobile_redirect_base_url: url({ description: 'Where a mobile verification flow returns to (stored and served; this server calls no KYC provider).' }),
    enabled: bool(),
    provider: str({ enum: ['none', 'document_check', 'bank_id'] }),
    required_for_registration: bool(),
    allowed_document_countries: arrayOf(str({ pattern: '^[A-Z]{2}$' })),
  }, ['enabled']),
  KycConfigPatch: closed({
    mobile_redirect_base_url: url({ pattern: '^https?://' }),
    enabled: bool(),
    provider: str({ enum: ['none', 'document_check', 'bank_id'] }),
    required_for_registration: bool(),
    allowed_document_countries: arrayOf(str({ pattern: '^[A-Z]{2}$' }), { maxItems: 250, uniqueItems: true }),
  }, [], { minProperties: 1 }),
  TokenTemplate: closed({
    content: str({ maxLength: 20000, description: 'JSON object template; `{{ person.attributes.<bucket>.<name> }}` placeholders are filled per token.' }),
  }, ['content']),

  // ---------- SSO providers ----------
  SamlProviderCredentials: open({
    id: ref('ResourceId'),
    label: str({ maxLength: 200 }),
    idp_metadata_url: url(),
    idp_entity_id: str({ maxLength: 1024 }),
    sp_entity_id: str({ maxLength: 1024 }),
    sp_acs_url: url(),
    attribute_mapping: open({}, [], { additionalProperties: str(), description: 'SAML attribute → person attribute name.' }),
    created_at: dateTime(),
  }, ['id', 'label', 'idp_entity_id', 'sp_acs_url']),
  SamlProviderCredentialsCreate: closed({
    label: str({ minLength: 1, maxLength: 200 }),
    idp_metadata_url: url(),
    idp_metadata_xml: str({ maxLength: 200000 }),
    attribute_mapping: open({}, [], { additionalProperties: str({ maxLength: 128 }), maxProperties: 50 }),
  }, ['label']),
  SamlProviderCredentialsPatch: closed({
    label: str({ minLength: 1, maxLength: 200 }),
    idp_metadata_url: url(),
    idp_metadata_xml: str({ maxLength: 200000 }),
    attribute_mapping: open({}, [], { additionalProperties: str({ maxLength: 128 }), maxProperties: 50 }),
  }, [], { minProperties: 1 }),
  OidcProviderCredentials: open({
    client_id: str({ maxLength: 256 }),
    label: str({ maxLength: 200 }),
    provider: str({ enum: ['google', 'apple', 'azure', 'facebook', 'github', 'gitlab', 'line', 'bitbucket', 'okta', 'keycloak', 'generic'] }),
    issuer: url(),
    scopes,
    created_at: dateTime(),
  }, ['client_id', 'label', 'provider']),
  OidcProviderCredentialsCreate: closed({
    client_id: str({ minLength: 1, maxLength: 256 }),
    client_secret: str({ minLength: 1, maxLength: 1024 }),
    label: str({ minLength: 1, maxLength: 200 }),
    provider: str({ enum: ['google', 'apple', 'azure', 'facebook', 'github', 'gitlab', 'line', 'bitbucket', 'okta', 'keycloak', 'generic'] }),
    issuer: url({ description: 'Required for okta, keycloak and generic providers.' }),
    scopes,
  }, ['client_id', 'client_secret', 'label', 'provider']),
  OidcProviderCredentialsPatch: closed({
    client_secret: str({ minLength: 1, maxLength: 1024 }),
    label: str({ minLength: 1, maxLength: 200 }),
    scopes,
  }, [], { minProperties: 1 }),
  SsoOidcToken: open({
    id: ref('ResourceId'),
    person_id: ref('PersonId'),
    client_id: str({ description: 'The OIDC client (provider credentials) the tokens were obtained with.' }),
    provider: str(),
    issuer: url({ description: 'Issuer of the identity provider.' }),
    subject: str({ description: '`sub` of the person at the identity provider.' }),
    scopes: arrayOf(str(), { description: 'Scopes the provider granted.' }),
    token_type: str({ description: 'As the provider said, usually `Bearer`.' }),
    access_token: str({ description: 'Absent once revoked.' }),
    refresh_token: str({ description: 'When the provider issued one (e.g. with `offline_access`); absent once revoked.' }),
    id_token: str({ description: 'The ID token of the sign-in; absent once revoked.' }),
    expires_at: nullable(dateTime('When the access token expires, if the provider said.')),
    created_at: dateTime('First stored.'),
    updated_at: dateTime('Last replaced by a sign-in (or revoked).'),
    revoked_at: nullable(dateTime('When the tokens were revoked; their values are forgotten then.')),
  }, ['id', 'person_id', 'client_id', 'provider', 'issuer', 'subject', 'scopes', 'token_type', 'expires_at', 'created_at', 'updated_at', 'revoked_at'], {
    description: 'Tokens an OIDC identity provider issued to a person at a sign-in; the latest sign-in per client replaces them. Stored encrypted.',
  }),
  SsoOidcTokenQuery: closed({
    person_id: ref('PersonId'),
    client_id: str({ maxLength: 256 }),
    provider: str({ maxLength: 64 }),
    include_revoked: { type: 'boolean', default: false, description: 'Also list revoked entries (without token values).' },
  }, ['person_id']),
  SsoOidcTokenRevoke: closed({
    person_id: ref('PersonId'),
    client_id: str({ minLength: 1, maxLength: 256 }),
  }, ['person_id', 'client_id']),
  SsoOidcTokenRevokeLegacy: closed({
    token: str({ minLength: 1, maxLength: 8192 }),
    client_id: str({ minLength: 1, maxLength: 256 }),
  }, ['token', 'client_id']),

  // ---------- webhooks ----------
  Webhook: open({
    id: ref('ResourceId'),
    name: str({ maxLength: 200 }),
    description,
    target_url: webhookUrl,
    custom_headers: open({}, [], { additionalProperties: arrayOf(str()) }),
    timeout: int({ minimum: 1, maximum: 30, description: 'Seconds.' }),
    created_at: dateTime(),
  }, ['id', 'name', 'target_url']),
  WebhookCreate: closed({
    name: str({ minLength: 1, maxLength: 200 }),
    description,
    target_url: webhookUrl,
    custom_headers: open({}, [], { additionalProperties: arrayOf(str({ maxLength: 1024 }), { maxItems: 10 }), maxProperties: 20 }),
    timeout: int({ minimum: 1, maximum: 30, default: 10 }),
  }, ['name', 'target_url']),
  WebhookPatch: closed({
    name: str({ minLength: 1, maxLength: 200 }),
    description,
    target_url: webhookUrl,
    custom_headers: open({}, [], { additionalProperties: arrayOf(str({ maxLength: 1024 }), { maxItems: 10 }), maxProperties: 20 }),
    timeout: int({ minimum: 1, maximum: 30 }),
  }, [], { minProperties: 1 }),
  WebhookTrigger: closed({
    trigger_type: str({ enum: ['event', 'sync_hook'] }),
    trigger_name: str({ pattern: '^[A-Za-z0-9_]{1,128}$', description: 'Event name (e.g. PersonCreated_v1) or sync hook point (`token_minted`).' }),
  }, ['trigger_type', 'trigger_name']),
  TestEventsRequest: closed({
    events: arrayOf(closed({ event_type: str({ pattern: '^[A-Za-z0-9_]{1,128}$' }), count: int({ minimum: 1, maximum: 10, default: 1 }) }, ['event_type']), { minItems: 1, maxItems: 20 }),
  }, ['events']),
};
