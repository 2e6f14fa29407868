/** JSON Schemas of request bodies and queries (strict: unknown fields are rejected with a 400 naming them). */

export const AUTH_METHODS = [
  'webauthn',
  'email_link',
  'sms_link',
  'otp_via_sms',
  'otp_via_email',
  'totp',
  'oidc',
  'saml',
  'api',
  'direct_id',
  'password',
  'impersonate',
  'anonymous',
] as const;

export const CHALLENGE_TYPES = [
  'ui_customization',
  'authn_context_update',
  'proxy',
  'webauthn_create',
  'webauthn_get',
  'nonce',
  'otp',
  'oidc',
  'saml',
  'password_set',
  'password_verify',
  'password_reset',
  'totp_register',
  'totp_verify',
] as const;

const handle = {
  oneOf: [
    { type: 'string', minLength: 1, maxLength: 320 },
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'value'],
      properties: { type: { enum: ['email_address', 'phone_number', 'username'] }, value: { type: 'string', minLength: 1, maxLength: 320 } },
    },
  ],
};

export const idRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['factor'],
  properties: {
    handle,
    factor: {
      type: 'object',
      additionalProperties: false,
      required: ['method'],
      properties: { method: { enum: AUTH_METHODS }, options: { type: 'object' } },
    },
    metadata: {
      type: 'object',
      additionalProperties: false,
      properties: { csrf_token: { type: 'string', maxLength: 512 }, pkce_code_challenge: { type: 'string', maxLength: 512 } },
    },
  },
};

/** Body of `POST /token/v2`: the client's CSRF token and PKCE challenge, as in an ID request (optional). */
export const tokenForOrgRequest = {
  type: 'object',
  additionalProperties: false,
  properties: { metadata: idRequest.properties.metadata },
};

export const recoverRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['handle', 'factor'],
  properties: {
    handle,
    factor: { type: 'object', additionalProperties: false, required: ['method'], properties: { method: { enum: AUTH_METHODS }, options: { type: 'object' } } },
  },
};

export const attestation = {
  type: 'object',
  additionalProperties: false,
  required: ['challenge_id', 'challenge_type', 'data'],
  properties: {
    challenge_id: { type: 'string', minLength: 1, maxLength: 128 },
    challenge_type: { enum: CHALLENGE_TYPES },
    data: { type: 'object' },
  },
};

export const tokenBody = {
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 16384 } },
};

export const anonymousRequest = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { region: { type: 'string', minLength: 1, maxLength: 32 } },
};

export const challengeParams = {
  type: 'object',
  required: ['challenge_id'],
  properties: { challenge_id: { type: 'string', minLength: 1, maxLength: 128 } },
};

const attributeValues = { type: 'object', maxProperties: 200, propertyNames: { maxLength: 128 } };

export const bucketsBody = { type: 'object', maxProperties: 20, additionalProperties: attributeValues };
export const bucketBody = attributeValues;

export const commaList = { type: 'string', maxLength: 4096 };
/** A list given comma-joined or by repeating the parameter (`x=a&x=b`). */
export const commaOrRepeatedList = { anyOf: [commaList, { type: 'array', maxItems: 100, items: commaList }] };

export const consentBody = {
  type: 'object',
  additionalProperties: false,
  required: ['consent_levels'],
  properties: { consent_levels: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 64 } } },
};

const analyticsEvent = {
  type: 'object',
  additionalProperties: false,
  // The name is in event_data (spec §3, the published client) or beside it (older clients).
  anyOf: [{ required: ['event_name'] }, { required: ['event_data'], properties: { event_data: { required: ['event_name'] } } }],
  properties: {
    event_name: { type: 'string', minLength: 1, maxLength: 128 },
    organization_id: { type: 'string', maxLength: 128 },
    analytics_correlation_id: { type: 'string', maxLength: 128 },
    window_location: { type: 'string', maxLength: 4096 },
    user_agent: { type: 'string', maxLength: 500 },
    event_data: { type: 'object' },
  },
};

export const eventsBody = { oneOf: [analyticsEvent, { type: 'array', minItems: 1, maxItems: 100, items: analyticsEvent }] };

export const ssoResolve = {
  ...attestation,
  required: ['challenge_id', 'code', 'pkce_code_verifier'],
  properties: {
    challenge_id: attestation.properties.challenge_id,
    code: { type: 'string', minLength: 1, maxLength: 2048 },
    pkce_code_verifier: { type: 'string', pattern: '^[A-Za-z0-9._~-]{43,128}$' },
  },
};
