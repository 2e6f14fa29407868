// @ts-check
// Component schemas: the entities of product-spec.md §3 and the shapes of the management API.
import { ref, closed, open, arrayOf, str, int, bool, dateTime, nullable } from './lib.mjs';

const ID_PATTERN = '^[A-Za-z0-9:._-]{1,128}$';

export const AUTHN_METHODS = [
  'webauthn', 'email_link', 'sms_link', 'otp_via_sms', 'otp_via_email', 'totp', 'oidc', 'saml', 'api', 'direct_id',
  'password', 'impersonate', 'anonymous',
];
export const BUCKETS = [
  'end_user_read_write', 'end_user_read_only', 'end_user_no_access',
  'person_pool-end_user_read_write', 'person_pool-end_user_read_only', 'person_pool-end_user_no_access',
];
export const CONSENT_LEVELS = ['none', 'necessary', 'analytics', 'marketing', 'retargeting', 'tracking'];

const uxMode = str({ enum: ['popup', 'redirect'], default: 'popup', description: 'How the SDK shows the provider: a popup window or a full-page redirect.' });
/** The sign-up intent of the password and passkey factors (#36). */
const signUp = bool('Sign up rather than in: the answer is a sign-in link sent to the handle (a `proxy` challenge to poll), then the challenge that sets the password or passkey once the link is confirmed on its page, whether or not the handle has an account (someone who has one is signed in by the link and sets a new password or adds a passkey). A username has nothing to prove: with a password a free one is taken at once (a taken one is a 409 `person_exists`). Without it, `/id` signs in: the same challenge for every handle, known or not.');
const redirectTarget = str({ format: 'uri', maxLength: 2048, description: 'http(s) URL the person returns to after the flow (redirect mode and links).' });
const pkceChallenge = str({ pattern: '^[A-Za-z0-9_-]{43,128}$', description: 'PKCE S256 code challenge (base64url of the SHA-256 of the verifier).' });
const csrfToken = str({ minLength: 16, maxLength: 256, description: 'Random value the client stores and expects back unchanged.' });
const publicKeyCredentialDescriptor = closed({
  id: str({ description: 'base64url credential id', maxLength: 1024 }),
  type: str({ const: 'public-key' }),
  transports: arrayOf(str({ enum: ['usb', 'nfc', 'ble', 'internal', 'hybrid', 'smart-card', 'cable'] })),
}, ['id', 'type']);

/**
 * One variant of a union keyed by a constant property (challenge type, factor method, attestation type, grant type).
 * @param {string} key @param {string} value @param {Record<string, unknown>} properties @param {string[]} [required] @param {boolean} [isClosed]
 */
function variant(key, value, properties, required = [], isClosed = true) {
  const make = isClosed ? closed : open;
  return make({ [key]: str({ const: value }), ...properties }, [key, ...required], { title: value });
}

/** @param {string} type @param {string[]} methods @param {unknown} optionsSchema */
function challengeVariant(type, methods, optionsSchema) {
  return variant('type', type, {
    id: ref('ChallengeId'),
    authentication_method: methods.length === 1 ? str({ const: methods[0] }) : str({ enum: methods }),
    options: optionsSchema,
  }, ['id', 'authentication_method', 'options'], false);
}

const emptyOptions = open({}, [], { description: 'This challenge type carries no options.' });

/** Set on a code or link the mail server did not take at once: it is kept and retried, so it arrives late rather than never. */
const deliveryDelayed = {
  delivery_delayed: { ...bool('Present (true) when the e-mail with the code or link could not be handed to the mail server yet: the server keeps it and retries, and it arrives as soon as the mail server answers (until the code or link expires). Tell the person it is delayed rather than failed.'), const: true },
};

/**
 * Factor options may repeat the factor's method (`{method, options: {method, …}}`, as the published client sends
 * them); the copy must name the same method.
 * @param {string} method @param {import('./lib.mjs').Json & { properties?: Record<string, unknown> }} options
 */
function withMethod(method, options) {
  // Referenced option schemas declare the copy themselves (see methodCopy).
  if (options.$ref) return options;
  return { ...options, properties: { method: methodCopy(method), ...options.properties } };
}

/** @param {string} method */
const methodCopy = (method) => str({ const: method, description: 'Copy of the factor\'s method (optional).' });

export const schemas = {
  // ---------- envelope and errors ----------
  Envelope: open({
    result: { description: 'The answer of the operation; its type is given by each operation.' },
    errors: ref('ErrorList'),
    meta: ref('Meta'),
  }, [], { description: 'Every Keyway JSON answer (except the OAuth2/OIDC protocol endpoints) is wrapped in this envelope.' }),
  Error: open({
    httpcode: int({ minimum: 100, maximum: 599, description: 'HTTP status this error stands for (202 while a proxy challenge is pending).' }),
    message: str({ description: 'Human-readable reason; clients match the documented messages exactly.' }),
  }, ['httpcode', 'message']),
  ErrorList: arrayOf(ref('Error'), { minItems: 1 }),
  ErrorResponse: {
    allOf: [ref('Envelope'), { type: 'object', required: ['errors'], properties: { errors: ref('ErrorList') } }],
    description: 'An envelope carrying at least one error; `result` is absent.',
  },
  Meta: open({ pagination: ref('Pagination'), cursor_pagination: ref('CursorPagination') }, [], {
    description: 'On lists: `pagination` when the page was asked by `offset` (or from the start), `cursor_pagination` always.',
  }),
  CursorPagination: open({
    cursor: str({ maxLength: 512, description: 'Pass as `cursor` to read the next page; empty on the last page.' }),
    limit: int({ minimum: 0, maximum: 1000 }),
    total_count: int({ minimum: 0 }),
  }, ['cursor', 'limit', 'total_count']),
  Pagination: open({
    limit: int({ minimum: 0, maximum: 1000 }),
    offset: int({ minimum: 0 }),
    total_count: int({ minimum: 0 }),
  }, ['limit', 'offset', 'total_count']),

  // ---------- identifiers ----------
  PersonId: str({ pattern: '^pid:[A-Za-z0-9_-]{1,64}$', description: 'Person identifier, `pid:` followed by an opaque id.', example: 'pid:3a7c9e10-2b4d-4f6a-8c1e-5d7f9a0b2c4e' }),
  OrganizationId: str({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Organization identifier.' }),
  ChallengeId: str({ pattern: ID_PATTERN, description: 'Challenge identifier.' }),
  ResourceId: str({ pattern: ID_PATTERN, description: 'Opaque identifier of a stored object.' }),
  UserToken: str({ pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*$', maxLength: 16384, description: 'A signed JWT (user token).' }),
  Region: str({ enum: ['us-iowa', 'europe-belgium', 'europe-england', 'asia-japan', 'australia-sydney'], description: 'Data residency region of a person.' }),
  RegionInput: str({
    enum: ['us-iowa', 'europe-belgium', 'europe-england', 'asia-japan', 'australia-sydney', 'us-central', 'eu-west', 'eu-north', 'ap-northeast', 'ap-southeast'],
    description: 'Data residency region of a person. Earlier names are accepted and stored as today\'s: `us-central` → `us-iowa`, `eu-west` and `eu-north` → `europe-belgium`, `ap-northeast` → `asia-japan`, `ap-southeast` → `australia-sydney`.',
  }),

  // ---------- persons ----------
  PersonHandleType: str({ enum: ['email_address', 'phone_number', 'username'] }),
  PersonHandle: closed({
    type: ref('PersonHandleType'),
    value: str({ minLength: 1, maxLength: 320, description: 'E-mail address, E.164 phone number or username.' }),
    verified: bool('In answers: whether the handle was proved (a code or link sent to it answered, an identity provider the organization trusts for it, or the management API saying so); `email_verified` and `phone_number_verified` in tokens tell the same. In management requests that create persons or add handles: `true` when the system the person comes from verified the handle. Ignored in sign-in requests: only a proof makes a handle verified.'),
  }, ['type', 'value']),
  PersonType: str({ enum: ['regular', 'anonymous'] }),
  AttributeBucketName: str({ enum: BUCKETS, description: 'Attribute bucket; the name states what the end person may do with it (default end_user_read_write).' }),
  Attributes: {
    type: 'object',
    maxProperties: 100,
    propertyNames: { pattern: '^[A-Za-z0-9_.-]{1,128}$' },
    additionalProperties: true,
    description: 'Attribute name → any JSON value.',
  },
  AttributesByBucket: {
    type: 'object',
    propertyNames: ref('AttributeBucketName'),
    additionalProperties: ref('Attributes'),
    description: 'Bucket name → attributes stored in that bucket.',
  },
  Person: open({
    person_id: ref('PersonId'),
    active: bool('Inactive persons cannot sign in.'),
    person_type: ref('PersonType'),
    region: ref('Region'),
    handles: arrayOf(ref('PersonHandle')),
    groups: arrayOf(ref('GroupName')),
    roles: arrayOf(ref('RoleName'), { description: 'RBAC roles assigned to the person.' }),
    attributes: ref('AttributesByBucket'),
  }, ['person_id', 'active', 'person_type', 'region']),
  MeResponse: open({
    person: ref('Person'),
    organizations: arrayOf(ref('Organization')),
    handles: arrayOf(ref('PersonHandle')),
    credentials: arrayOf(ref('Credential')),
  }, ['person', 'organizations', 'handles', 'credentials']),

  // ---------- organizations ----------
  Organization: open({
    id: ref('OrganizationId'),
    parent_id: nullable(ref('OrganizationId')),
    org_name: str({ maxLength: 200 }),
    tenant_name: str({ maxLength: 200 }),
    persons_pool_org_ids: arrayOf(ref('OrganizationId'), { description: 'Organizations whose persons can sign in to this one (the person pool it shares).' }),
    group_pool_org_ids: arrayOf(ref('OrganizationId'), { description: 'Organizations whose groups this one uses: only itself (this server shares no group pools).' }),
    inherits_rbac_pools: bool('Roles and permissions of the parent apply.'),
    managed_organizations: arrayOf(ref('Organization')),
  }, ['id', 'org_name', 'tenant_name']),
  OrganizationWithPools: {
    allOf: [ref('Organization'), {
      type: 'object', required: ['persons_pool_org_ids', 'group_pool_org_ids', 'inherits_rbac_pools'],
      properties: { persons_pool_org_ids: arrayOf(ref('OrganizationId')), group_pool_org_ids: arrayOf(ref('OrganizationId')), inherits_rbac_pools: bool() },
    }],
  },
  OrgHierarchyEntry: open({
    id: ref('OrganizationId'),
    parent_id: nullable(ref('OrganizationId')),
    name: str(),
    tenant_name: str(),
    children_ids: arrayOf(ref('OrganizationId')),
    person_pool_orgs_ids: arrayOf(ref('OrganizationId')),
    group_pool_orgs_ids: arrayOf(ref('OrganizationId')),
    manager_org_id: nullable(ref('OrganizationId')),
    person_in_manager_org: bool(),
    inherits_rbac_pools: bool(),
  }, ['id', 'parent_id', 'name', 'tenant_name', 'children_ids']),
  MeOrgsResponse: open({ org_hierarchy: arrayOf(ref('OrgHierarchyEntry')) }, ['org_hierarchy']),

  // ---------- credentials ----------
  Credential: open({
    id: ref('ResourceId'),
    type: str({ enum: ['password', 'public-key', 'totp'] }),
    label: str({ maxLength: 200 }),
    last_used: nullable(dateTime()),
    params: { oneOf: [ref('PasswordCredentialParams'), ref('PublicKeyCredentialParams'), ref('TotpCredentialParams')] },
  }, ['id', 'type', 'params']),
  PasswordCredentialParams: open(
    { hash_algorithm: str({ enum: ['scrypt', 'argon2id', 'argon2i', 'argon2d', 'bcrypt', 'pbkdf2'], description: 'How the password is stored. The hash itself is never returned: a stolen token or key must not yield offline-crackable material.' }) },
    ['hash_algorithm'],
    { title: 'password' },
  ),
  PublicKeyCredentialParams: open({
    webauthn_credential_id: str(),
    public_key: str({ description: 'COSE public key, base64url.' }),
    attestation_type: str(),
    authenticator: open({ aaguid: str(), sign_count: int({ minimum: 0 }), clone_warning: bool() }, ['aaguid']),
  }, ['webauthn_credential_id', 'public_key'], { title: 'public-key' }),
  TotpCredentialParams: open({
    recovery_codes_total: int({ minimum: 0 }),
    recovery_codes_unused: int({ minimum: 0 }),
  }, ['recovery_codes_total', 'recovery_codes_unused'], { title: 'totp' }),

  // ---------- factors and ID requests ----------
  AuthenticationMethod: str({ enum: AUTHN_METHODS }),
  Factor: {
    description: 'The authentication method chosen for an ID request, with its options.',
    oneOf: [
      variant('method', 'email_link', { options: withMethod('email_link', closed({ redirect_target: redirectTarget })) }),
      variant('method', 'sms_link', { options: withMethod('sms_link', closed({ redirect_target: redirectTarget })) }),
      variant('method', 'otp_via_email', { options: withMethod('otp_via_email', closed({})) }),
      variant('method', 'otp_via_sms', { options: withMethod('otp_via_sms', closed({})) }),
      variant('method', 'password', { options: withMethod('password', closed({ sign_up: signUp })) }),
      variant('method', 'totp', { options: withMethod('totp', closed({})) }),
      variant('method', 'webauthn', { options: withMethod('webauthn', ref('WebAuthnFactorOptions')) }),
      variant('method', 'oidc', { options: withMethod('oidc', ref('OidcFactorOptions')) }, ['options']),
      variant('method', 'saml', { options: withMethod('saml', ref('SamlFactorOptions')) }, ['options']),
    ],
  },
  WebAuthnFactorOptions: closed({
    method: methodCopy('webauthn'),
    sign_up: signUp,
    scope: str({ maxLength: 253, description: 'Relying party id; defaults to the current hostname.' }),
    available_credential_ids: arrayOf(str({ maxLength: 1024 }), { maxItems: 50 }),
    attachment: str({ enum: ['any', 'platform'], default: 'any' }),
    user_verification: str({ enum: ['required', 'preferred', 'discouraged'], default: 'preferred' }),
    resident_key: str({ enum: ['required', 'preferred', 'discouraged'], default: 'preferred' }),
    attestation: str({ enum: ['none'], default: 'none' }),
  }),
  OidcFactorOptions: closed({
    method: methodCopy('oidc'),
    client_id: str({ minLength: 1, maxLength: 256, description: 'Client id of the OIDC provider credentials; defaults to the one configured for the provider.' }),
    provider: str({ enum: ['google', 'apple', 'azuread', 'azure', 'facebook', 'github', 'gitlab', 'line', 'bitbucket', 'okta', 'keycloak', 'generic'] }),
    ux_mode: uxMode,
    redirect_target: redirectTarget,
    requires_groups: bool('Ask the provider for the person\'s groups as well.'),
    pkce_code_challenge: pkceChallenge,
    csrf_token: csrfToken,
  }, ['provider']),
  SamlFactorOptions: closed({
    method: methodCopy('saml'),
    provider_credentials_id: ref('ResourceId'),
    ux_mode: uxMode,
    redirect_target: redirectTarget,
    pkce_code_challenge: pkceChallenge,
    csrf_token: csrfToken,
  }, ['provider_credentials_id']),
  HandleInput: {
    description: 'A handle as `{type, value}`, or as a plain string whose type is inferred: e-mail address when it contains `@`, phone number when it is `+` and digits (E.164), username otherwise.',
    oneOf: [ref('PersonHandle'), str({ minLength: 1, maxLength: 320, title: 'plain handle' })],
  },
  IdRequestMetadata: closed({ csrf_token: csrfToken, pkce_code_challenge: pkceChallenge }),
  IdRequest: closed({ handle: ref('HandleInput'), factor: ref('Factor') }, ['factor']),
  IdRequestV2: closed({ handle: ref('HandleInput'), factor: ref('Factor'), metadata: ref('IdRequestMetadata') }, ['factor']),
  TokenForOrganizationRequest: closed({ metadata: ref('IdRequestMetadata') }),
  RecoverRequest: closed({
    handle: {
      description: 'E-mail address or phone number, as `{type, value}` or as a plain string.',
      oneOf: [
        closed({ type: str({ enum: ['email_address', 'phone_number'] }), value: str({ minLength: 1, maxLength: 320 }) }, ['type', 'value']),
        str({ minLength: 1, maxLength: 320 }),
      ],
    },
    factor: closed({
      method: str({
        enum: ['password', 'email_link', 'sms_link', 'otp_via_email', 'otp_via_sms'],
        description: '`password` (what the published client sends) recovers the password with a code sent to the handle: an `otp` challenge, then `password_reset`.',
      }),
      options: open({}),
    }, ['method']),
  }, ['handle', 'factor']),
  SsoResolveRequest: closed({
    challenge_id: ref('ChallengeId'),
    code: str({ minLength: 1, maxLength: 2048 }),
    pkce_code_verifier: str({ pattern: '^[A-Za-z0-9._~-]{43,128}$' }),
  }, ['challenge_id', 'code', 'pkce_code_verifier']),

  // ---------- challenges ----------
  Challenge: {
    description: 'A step the client must complete; `type` decides the shape of `options`.',
    oneOf: [
      challengeVariant('ui_customization', ['email_link', 'sms_link', 'otp_via_email', 'otp_via_sms', 'oidc', 'saml', 'webauthn', 'password', 'totp'], open({ authn_redirect_page_ui_config: open({ logo_url: str({ format: 'uri' }), title: str(), background_color: str(), text_color: str() }) }, ['authn_redirect_page_ui_config'])),
      challengeVariant('authn_context_update', ['oidc', 'saml'], open({ target_org_id: ref('OrganizationId'), factor: ref('Factor') }, ['target_org_id', 'factor'])),
      challengeVariant('proxy', ['email_link', 'sms_link', 'oidc', 'saml'], open({ challenge_id: ref('ChallengeId'), ...deliveryDelayed }, ['challenge_id'])),
      challengeVariant('webauthn_create', ['webauthn'], ref('WebAuthnCreateOptions')),
      challengeVariant('webauthn_get', ['webauthn'], ref('WebAuthnGetOptions')),
      challengeVariant('nonce', ['email_link', 'sms_link', 'direct_id', 'impersonate', 'api'], open({ challenge: str({ minLength: 1 }) }, ['challenge'])),
      challengeVariant('otp', ['otp_via_email', 'otp_via_sms'], open(deliveryDelayed, [], { description: 'No options, except `delivery_delayed` when the code has not reached the mail server yet.' })),
      challengeVariant('oidc', ['oidc'], open({ auth_code_url: str({ format: 'uri' }) }, ['auth_code_url'])),
      challengeVariant('saml', ['saml'], open({ start_authentication_url: str({ format: 'uri' }) }, ['start_authentication_url'])),
      challengeVariant('password_set', ['password'], open({ validation_rules: ref('PasswordRules') }, ['validation_rules'])),
      challengeVariant('password_verify', ['password'], emptyOptions),
      challengeVariant('password_reset', ['password'], open({ validation_rules: ref('PasswordRules') }, ['validation_rules'])),
      challengeVariant('totp_register', ['totp'], open({
        key_uri: str({ pattern: '^otpauth://totp/' }),
        qr_code_data_b64: str({ contentEncoding: 'base64', contentMediaType: 'image/png' }),
        recovery_codes: arrayOf(str({ pattern: '^[a-z0-9-]{6,32}$' })),
      }, ['key_uri', 'qr_code_data_b64', 'recovery_codes'])),
      challengeVariant('totp_verify', ['totp'], emptyOptions),
    ],
  },
  ChallengeList: arrayOf(ref('Challenge'), { description: 'Challenges to complete, in order.' }),
  PasswordRules: open({
    regular_expressions: arrayOf(ref('PasswordRuleExpression')),
  }, ['regular_expressions'], { description: 'The rules a new password must meet, in the shape clients check before sending one: every `must_match` expression matches and no `must_not_match` one does.' }),
  PasswordRuleExpression: open({
    name: str({ description: 'Reported back to the person when the rule fails, e.g. min_length.' }),
    pattern: str({ format: 'regex' }),
    match_type: str({ enum: ['must_match', 'must_not_match'] }),
    pattern_qualifiers: arrayOf(str({ enum: ['case_insensitive'] })),
  }, ['name', 'pattern', 'match_type']),
  PasswordValidationRule: open({
    name: str({ description: 'Reported back to the person when the rule fails, e.g. min_length.' }),
    pattern: str({ format: 'regex' }),
    match_type: str({ enum: ['must_match', 'must_not_match'] }),
    qualifiers: arrayOf(str({ enum: ['case_insensitive'] })),
  }, ['name', 'pattern', 'match_type']),
  WebAuthnCreateOptions: open({
    challenge: str({ description: 'base64url' }),
    rp: open({ id: str(), name: str() }, ['id']),
    user: open({ id: str(), name: str(), displayName: str() }, ['id', 'name', 'displayName']),
    pubKeyCredParams: arrayOf(open({ type: str({ const: 'public-key' }), alg: int() }, ['type', 'alg'])),
    authenticatorSelection: open({
      authenticatorAttachment: str({ enum: ['platform', 'cross-platform'] }),
      residentKey: str({ enum: ['required', 'preferred', 'discouraged'] }),
      userVerification: str({ enum: ['required', 'preferred', 'discouraged'] }),
    }),
    timeout: int({ minimum: 0 }),
    extensions: { type: 'object', additionalProperties: true, description: 'WebAuthn extension inputs, passed to the browser as they are (e.g. `credProps`).' },
    attestation: str({ enum: ['none', 'indirect', 'direct', 'enterprise'] }),
    excludeCredentials: arrayOf(publicKeyCredentialDescriptor),
  }, ['challenge', 'rp', 'user', 'pubKeyCredParams']),
  WebAuthnGetOptions: open({
    challenge: str({ description: 'base64url' }),
    rpId: str(),
    timeout: int({ minimum: 0 }),
    userVerification: str({ enum: ['required', 'preferred', 'discouraged'] }),
    allowCredentials: arrayOf(publicKeyCredentialDescriptor),
    extensions: { type: 'object', additionalProperties: true, description: 'WebAuthn extension inputs, passed to the browser as they are (e.g. `credProps`).' },
  }, ['challenge', 'rpId']),

  // ---------- attestations and tokens ----------
  Attestation: {
    description: 'The answer to one challenge. `data` depends on `challenge_type`.',
    oneOf: [
      variant('challenge_type', 'nonce', { challenge_id: ref('ChallengeId'), data: closed({ challenge: str({ minLength: 1, maxLength: 512 }) }, ['challenge']) }, ['challenge_id', 'data']),
      variant('challenge_type', 'otp', { challenge_id: ref('ChallengeId'), data: closed({ otp: ref('EnteredCode') }, ['otp']) }, ['challenge_id', 'data']),
      variant('challenge_type', 'totp_verify', { challenge_id: ref('ChallengeId'), data: closed({ otp: { ...ref('EnteredCode'), description: 'Current TOTP code or an unused recovery code.' } }, ['otp']) }, ['challenge_id', 'data']),
      variant('challenge_type', 'totp_register', { challenge_id: ref('ChallengeId'), data: closed({ otp: ref('EnteredCode') }, ['otp']) }, ['challenge_id', 'data']),
      variant('challenge_type', 'password_set', { challenge_id: ref('ChallengeId'), data: closed({ password: str({ minLength: 1, maxLength: 256 }) }, ['password']) }, ['challenge_id', 'data']),
      variant('challenge_type', 'password_verify', { challenge_id: ref('ChallengeId'), data: closed({ password: str({ minLength: 1, maxLength: 256 }) }, ['password']) }, ['challenge_id', 'data']),
      variant('challenge_type', 'password_reset', { challenge_id: ref('ChallengeId'), data: closed({ password: str({ minLength: 1, maxLength: 256 }) }, ['password']) }, ['challenge_id', 'data']),
      variant('challenge_type', 'webauthn_create', { challenge_id: ref('ChallengeId'), data: ref('WebAuthnCredentialData') }, ['challenge_id', 'data']),
      variant('challenge_type', 'webauthn_get', { challenge_id: ref('ChallengeId'), data: ref('WebAuthnCredentialData') }, ['challenge_id', 'data']),
    ],
  },
  WebAuthnCredentialData: open({
    id: str({ maxLength: 1024 }),
    rawId: str({ maxLength: 1024 }),
    type: str({ const: 'public-key' }),
    response: open({
      clientDataJSON: str(),
      attestationObject: str(),
      authenticatorData: str(),
      signature: str(),
      userHandle: nullable(str()),
      transports: arrayOf(str()),
    }, ['clientDataJSON']),
    authenticatorAttachment: nullable(str({ enum: ['platform', 'cross-platform'] })),
    clientExtensionResults: open({}),
  }, ['id', 'rawId', 'type', 'response'], { description: 'The PublicKeyCredential produced by the browser, binary fields base64url-encoded.' }),
  EnteredCode: str({
    minLength: 1, maxLength: 64,
    description: 'The code as the person typed it. Any non-empty value is accepted here so that a wrong code is answered 401 (ask again), not 400.',
  }),
  TokenResult: open({ token: ref('UserToken') }, ['token']),
  ChallengeListResult: open({ type: str({ const: 'challenge_list' }), challenges: ref('ChallengeList') }, ['type', 'challenges'], { title: 'challenge_list' }),
  TokenOrChallengeList: {
    oneOf: [
      open({ type: str({ const: 'token' }), token: ref('UserToken') }, ['type', 'token'], { title: 'token' }),
      ref('ChallengeListResult'),
    ],
  },
  TokenRequest: closed({ token: str({ minLength: 1, maxLength: 16384, description: 'The token as held by the client. Anything that is not a valid Keyway token is answered as invalid, not rejected.' }) }, ['token']),
  TokenValidationResult: open({
    valid: bool(),
    invalidity_reason: str({ description: 'Why the token is not valid (absent when valid).' }),
    expires_in_seconds: int({ minimum: 0 }),
    expires_at: dateTime(),
    claims: ref('TokenClaims'),
  }, ['valid']),
  TokenClaims: open({
    person_id: ref('PersonId'),
    oid: ref('OrganizationId'),
    first_token: bool(),
    authenticated_methods: arrayOf(ref('AuthenticationMethod')),
    authentications: arrayOf(open({ method: ref('AuthenticationMethod'), handle: ref('PersonHandle'), timestamp: dateTime() }, ['method'])),
    person_type: ref('PersonType'),
    groups: arrayOf(str()),
  }, ['person_id', 'oid'], { description: 'Claims of a user token (the groups claim name may be overridden by the token template).' }),
  MintTokenRequest: closed({
    authenticated_methods: arrayOf(ref('AuthenticationMethod'), { minItems: 1 }),
    custom_claims: open({}, [], { additionalProperties: true, maxProperties: 50, description: 'Extra claims; reserved claim names are rejected.' }),
    expiry_seconds: int({ minimum: 60, maximum: 2592000 }),
  }),
  ImpersonateRequest: closed({ target_url: str({ format: 'uri', pattern: '^https?://', maxLength: 2048, description: 'Page of your application to open as the person.' }) }),
  ImpersonateResult: open({
    token: ref('UserToken'),
    url: str({ format: 'uri', description: '`target_url` with a `challenge_pack_id` parameter that signs the person in there (only when target_url was given).' }),
  }, ['token']),
  AnonymousPersonRequest: closed({ region: ref('RegionInput') }),

  // ---------- consents ----------
  ConsentLevel: str({ enum: CONSENT_LEVELS }),
  GdprConsent: open({ consent_level: ref('ConsentLevel'), created_at: dateTime() }, ['consent_level', 'created_at']),
  GdprConsentRequest: closed({ consent_levels: arrayOf(ref('ConsentLevel'), { minItems: 1, uniqueItems: true }) }, ['consent_levels']),
  GdprConsentList: open({ consents: arrayOf(ref('GdprConsent')) }, ['consents']),

  // ---------- analytics ----------
  AnalyticsEventName: {
    description: 'The events of the spec; the SDK-loaded event carries the name of the SDK that sent it (`KeywaySDKLoaded_v1` from ours).',
    anyOf: [
      str({ enum: ['AuthenticationSucceeded_v1', 'AuthenticationFailed_v1', 'PersonIdentified_v1', 'PersonLoggedOut_v1', 'KeywaySDKLoaded_v1', 'VirtualPageLoaded_v1'] }),
      str({ pattern: '^[A-Za-z0-9]{1,64}SDKLoaded_v1$' }),
    ],
  },
  AnalyticsEvent: closed({
    event_name: ref('AnalyticsEventName'),
    organization_id: ref('OrganizationId'),
    analytics_correlation_id: str({ maxLength: 128 }),
    window_location: str({ maxLength: 4096 }),
    user_agent: str({ maxLength: 500 }),
    timestamp: dateTime(),
    event_data: open({
      event_name: ref('AnalyticsEventName'),
      person_id: str({ maxLength: 128 }),
      success_authn_method: str({ maxLength: 64 }),
      authenticated_methods: arrayOf(str({ maxLength: 64 })),
      handle: { oneOf: [ref('PersonHandle'), str({ maxLength: 320 })] },
      failed_authn_method: str({ maxLength: 64 }),
      failure_reason: str({ maxLength: 200 }),
      failure_detail: str({ maxLength: 2000 }),
      challenge_id: str({ maxLength: 128 }),
    }, [], { maxProperties: 50, description: 'Data of the event (with its name, as the published client sends it); the fields listed are those of the authentication events.' }),
  }, [], {
    description: 'An analytics event. The organization is `organization_id`, or the Keyway-OrgID header when absent. The event\'s name is `event_data.event_name` (spec §3: the event is organization_id, analytics_correlation_id, window_location, user_agent and event_data) or, as older clients send it, `event_name`.',
    anyOf: [
      { required: ['event_name'], properties: { event_name: ref('AnalyticsEventName') } },
      { required: ['event_data'], properties: { event_data: { type: 'object', required: ['event_name'], properties: { event_name: ref('AnalyticsEventName') } } } },
    ],
  }),
  AnalyticsEventBatch: {
    description: 'One event, or up to 100 events at once.',
    oneOf: [ref('AnalyticsEvent'), arrayOf(ref('AnalyticsEvent'), { minItems: 1, maxItems: 100 })],
  },
  StoredEvent: open({
    id: { type: ['integer', 'string'] },
    source: str({ enum: ['sdk', 'events'], description: 'Received on /actions/sdk or on /events.' }),
    event_name: str(),
    person_id: nullable(str()),
    created_at: dateTime(),
    event: ref('AnalyticsEvent'),
  }, ['id', 'source', 'event_name', 'created_at', 'event']),
};
