// @ts-check
// Reusable parameters, error answers and security schemes.
import { ref, str, int } from './lib.mjs';

/** @param {string} name @param {unknown} schema @param {string} description @param {unknown} [example] */
const pathParam = (name, schema, description, example = undefined) => ({ name, in: 'path', required: true, description, schema, ...(example === undefined ? {} : { example }) });

export const parameters = {
  PersonIdPath: pathParam('person_id', ref('PersonId'), 'The person the operation applies to.'),
  BucketNamePath: pathParam('bucket_name', ref('AttributeBucketName'), 'Attribute bucket.'),
  ChallengeIdPath: pathParam('challenge_id', ref('ChallengeId'), 'Challenge returned earlier by an ID request.'),
  ChallengePackIdPath: pathParam('challenge_pack_id', ref('ResourceId'), 'Challenge pack id received in a URL parameter.'),
  GroupNamePath: pathParam('group_name', ref('GroupName'), 'Name of the group.'),
  RoleNamePath: pathParam('role_name', ref('RoleName'), 'Name of the role.'),
  PermissionNamePath: pathParam('permission_name', ref('PermissionName'), 'Name of the permission.'),
  OAuthClientIdPath: pathParam('oauth_client_id', ref('OAuthClientId'), 'OAuth2 client id.'),
  OidcProviderClientIdPath: pathParam('oauth_client_id', str({ minLength: 1, maxLength: 256 }), 'The client id held at the OIDC provider (e.g. Google\'s `….apps.googleusercontent.com`, Apple\'s `com.example.web`).', '1234567890-abc.apps.example.com'),
  CredentialIdPath: pathParam('credential_id', ref('ResourceId'), 'Credential id.'),
  CredIdPath: pathParam('cred_id', ref('ResourceId'), 'External credential id.'),
  HandlePath: pathParam('handle', str({ pattern: '^(email_address|phone_number|username):.{1,320}$' }), 'Handle as `type:value`, URL-encoded, e.g. `email_address:ada%40example.com`.', 'email_address:ada@example.com'),
  TemplateNamePath: pathParam('template_name', ref('EmailTemplatePathName'), 'Template name.', 'email_otp_message'),
  WebhookIdPath: pathParam('webhook_id', ref('ResourceId'), 'Webhook id.'),
  WebhookDeliveryIdPath: pathParam('delivery_id', ref('ResourceId'), 'Delivery id (`id` of a listed delivery, also sent as the `Keyway-Delivery-Id` header).'),
  SamlCredentialsIdPath: pathParam('saml_provider_credentials_id', ref('ResourceId'), 'SAML provider credentials id.'),
  OrgFilter: { name: 'filter', in: 'query', required: false, description: 'SCIM-style filter on `id`, `org_name` and `tenant_name`, e.g. `org_name eq "Acme Docs EU"` or `tenant_name sw "ac"`; operators eq, ne, co, sw, pr, and, or (case-insensitive).', schema: str({ maxLength: 1000 }) },
  PersonFields: {
    name: 'fields', in: 'query', required: false, style: 'form', explode: false,
    description: 'Comma-separated parts of the person to include besides its id, activity, type and region: `handles`, `groups`, `roles`, `attributes` (all when absent).',
    schema: { type: 'array', items: str({ enum: ['handles', 'groups', 'roles', 'attributes'] }), minItems: 1 }, example: ['handles', 'groups'],
  },
  Limit: { name: 'limit', in: 'query', required: false, description: 'Page size (at most 1000).', schema: int({ minimum: 1, maximum: 1000, default: 100 }) },
  Offset: { name: 'offset', in: 'query', required: false, description: 'Number of items to skip.', schema: int({ minimum: 0, default: 0 }) },
  Cursor: { name: 'cursor', in: 'query', required: false, description: 'Where to continue: `meta.cursor_pagination.cursor` of the previous page. An empty cursor is the first page. Not together with `offset`. On `GET /persons` and `GET /events` a cursor is a place in the order: it keeps its place when items are added or removed before it, and a page costs the same at any depth. On the other lists it stands for an offset.', schema: str({ maxLength: 512 }) },
  BucketsQuery: {
    name: 'buckets', in: 'query', required: false, style: 'form', explode: false,
    description: 'Comma-joined list of buckets to read; all readable buckets when absent.',
    schema: { type: 'array', items: ref('AttributeBucketName'), maxItems: 6 },
  },
  AttributesQuery: {
    name: 'attributes', in: 'query', required: false, style: 'form', explode: false,
    description: 'Comma-joined attribute names; all attributes of the bucket when absent.',
    schema: { type: 'array', items: str({ pattern: '^[A-Za-z0-9_.-]{1,128}$' }), maxItems: 100 },
  },
  RequiredConsistency: {
    name: 'Keyway-Required-Consistency', in: 'header', required: false,
    description: 'Wait until the change is visible in the local region or in all regions before answering.',
    schema: str({ enum: ['local_region', 'all_regions'] }),
  },
  RequiredConsistencyTimeout: {
    name: 'Keyway-Required-Consistency-Timeout', in: 'header', required: false,
    description: 'Seconds to wait for the requested consistency; 408 when it is not reached in time.',
    schema: int({ minimum: 1, maximum: 60, default: 30 }),
  },
  IfMatch: {
    name: 'If-Match', in: 'header', required: false,
    description: 'The `ETag` of the object as last read (`*`: any). When the object changed since, nothing is changed and the answer is 412.',
    schema: str({ maxLength: 1000 }),
  },
  OrgIdHeader: {
    name: 'Keyway-OrgID', in: 'header', required: false,
    description: 'Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it).',
    schema: str({ pattern: '^[A-Za-z0-9:._-]{1,128}$' }),
  },
  SdkVersion: {
    name: 'Keyway-SdkVersion', in: 'header', required: false,
    description: 'Version of the calling SDK, e.g. 3.29.3.', schema: str({ pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+' }),
  },
  SdkRetryCount: {
    name: 'Keyway-SdkRetryCount', in: 'header', required: false,
    description: 'Set by the SDK when it retries a call whose network request failed (1–5).', schema: int({ minimum: 1, maximum: 5 }),
  },
};

/** @param {number} httpcode @param {string} message */
const err = (httpcode, message) => ({ value: { errors: [{ httpcode, message }] } });

/**
 * An error answer with named examples: { name: [httpcode, message, summary] }.
 * @param {string} description @param {Record<string, [number, string, string?]>} examples
 */
function errorResponse(description, examples) {
  return {
    description,
    content: {
      'application/json': {
        schema: ref('ErrorResponse'),
        examples: Object.fromEntries(Object.entries(examples).map(([k, [code, msg, summary]]) => [k, { summary, ...err(code, msg) }])),
      },
    },
  };
}

/** Response headers of an object that can be changed under `If-Match`. */
export const ETAG_HEADER = { ETag: { description: 'Version of the object; send it back in `If-Match` to change it only if nobody changed it meanwhile.', schema: str() } };

export const responses = {
  BadRequest: errorResponse('The request is malformed: invalid JSON, a wrong type, an unknown or missing field. The message names the field.', {
    validation: [400, "body/handle/type must be one of email_address, phone_number, username", 'Validation failure'],
    malformed_json: [400, 'body is not valid JSON', 'Malformed JSON'],
  }),
  IdBadRequest: errorResponse('The request or its handle is not acceptable.', {
    validation: [400, "body must have required property 'factor'", 'Validation failure'],
    malformed_email: [400, 'malformed e-mail address', 'The e-mail handle is not a valid address'],
    malformed_phone: [400, 'malformed phone number', 'The phone handle is not an E.164 number'],
    unreachable_phone: [400, 'unreachable phone number', 'The number cannot receive SMS'],
    bad_passkey_scope: [400, 'passkey scope is not a registrable domain suffix of the origin', 'WebAuthn scope does not fit the page origin'],
  }),
  AttestationBadRequest: errorResponse('The answer is malformed, or the new password breaks a validation rule.', {
    validation: [400, "body/challenge_type must be equal to one of the allowed values", 'Validation failure'],
    password_rules: [400, 'password does not satisfy the validation rules: min_length', 'password_set / password_reset rejected'],
  }),
  Unauthorized: errorResponse('Credentials are missing or invalid.', {
    missing: [401, 'missing or invalid credentials', 'No or wrong API key / token'],
    expired: [401, 'authentication has expired', 'The flow or the token expired'],
  }),
  AttestationUnauthorized: errorResponse('The answer is wrong; the client may ask the person again (at most 5 attempts per challenge).', {
    wrong_otp: [401, 'incorrect one-time code', 'Wrong OTP or TOTP code'],
    wrong_password: [401, 'incorrect password', 'Wrong password'],
    expired: [401, 'authentication has expired', 'The challenge expired'],
  }),
  Forbidden: errorResponse('The caller may not perform this operation.', {
    forbidden: [403, 'operation not permitted for this organization', 'Not allowed'],
  }),
  IdForbidden: errorResponse('The person may not authenticate or register with this request.', {
    self_registration: [403, 'self-registration not allowed for this organization', 'Unknown handle and sign-up is closed'],
    cannot_register: [403, 'person cannot be registered', 'The handle does not match the allowed patterns'],
    not_active: [403, 'person is not active', 'Sign-up awaits approval'],
    inactive: [403, 'Person pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7 is inactive', 'Sign-in awaits approval'],
    no_password: [403, 'no password set', 'Password factor for a person without a password'],
    expired: [403, 'authentication has expired', 'The previous authentication expired'],
  }),
  AttestationForbidden: errorResponse('The person may not complete this authentication.', {
    no_password: [403, 'no password set', 'password_verify for a person without a password'],
    not_active: [403, 'person is not active', 'Sign-up awaits approval'],
    inactive: [403, 'Person pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7 is inactive', 'Sign-in awaits approval'],
    expired: [403, 'authentication has expired', 'The flow expired'],
  }),
  MessageNotSent: errorResponse('The e-mail with the code or link could not be handed to the mail server; nothing was sent.', {
    not_sent: [502, 'the e-mail could not be sent: try again later', 'SMTP server unreachable or refusing'],
  }),
  ProviderUnavailable: errorResponse('The identity provider could not be reached or refused the call; nothing was changed, try again later.', {
    provider_failed: [502, 'the identity provider https://accounts.example.com could not revoke the token: it cannot be reached', 'Provider down'],
  }),
  NotFound: errorResponse('The object does not exist in this organization.', {
    not_found: [404, 'not found', 'Unknown id or name'],
  }),
  Conflict: errorResponse('The object already exists or the change conflicts with the current state.', {
    conflict: [409, 'already exists', 'Duplicate'],
  }),
  PreconditionFailed: errorResponse('The object changed since the ETag given in If-Match was read; nothing was changed. Read it again.', {
    stale: [412, 'If-Match "Zm9v" does not match the current ETag "YmFy": the object changed since it was read; read it again', 'Stale ETag'],
  }),
  PersonExists: errorResponse('A person with one of the given handles already exists.', {
    person_exists: [409, 'person exists', 'Duplicate handle'],
  }),
  RequestTimeout: errorResponse('The consistency requested by Keyway-Required-Consistency was not reached in time.', {
    consistency_timeout: [408, 'required consistency not reached within the timeout', 'Replication too slow'],
  }),
  PayloadTooLarge: errorResponse('The body is larger than the server accepts (1 MiB).', {
    too_large: [413, 'request body is too large', 'Body over the limit'],
  }),
  UnsupportedMediaType: errorResponse('The Content-Type is not the one this operation accepts.', {
    wrong_type: [415, 'unsupported content type text/plain', 'Wrong Content-Type'],
  }),
  TooManyRequests: {
    ...errorResponse('Too many requests from this IP address or for this handle; retry later.', {
      rate_limited: [429, 'rate limit exceeded', 'Rate limit'],
    }),
    headers: { 'Retry-After': { description: 'Seconds until a new attempt may succeed.', schema: int({ minimum: 0 }) } },
  },
};

/**
 * RFC 6749 error answers of the OAuth2 protocol endpoints (not enveloped).
 * @param {string} description @param {Record<string, [string, string, string?]>} examples
 */
function oauthError(description, examples) {
  return {
    description,
    content: {
      'application/json': {
        schema: ref('OAuth2Error'),
        examples: Object.fromEntries(Object.entries(examples).map(([k, [error, error_description]]) => [k, { value: { error, error_description } }])),
      },
    },
  };
}

Object.assign(responses, {
  OAuth2BadRequest: oauthError('The token request is invalid (RFC 6749 §5.2).', {
    invalid_grant: ['invalid_grant', 'authorization code is invalid, expired or already used'],
    pkce: ['invalid_grant', 'code_verifier does not match the code challenge'],
    unsupported_grant_type: ['unsupported_grant_type', 'grant_type must be authorization_code, client_credentials or refresh_token'],
  }),
  OAuth2Unauthorized: oauthError('Client authentication failed, or the access token is invalid.', {
    invalid_client: ['invalid_client', 'client authentication failed'],
    invalid_token: ['invalid_token', 'the access token is expired or revoked'],
  }),
});

const OAUTH_SCOPES = {
  openid: 'Sign the person in and receive an id_token.',
  email: 'The person\'s e-mail address in userinfo and the id_token.',
  phone: 'The person\'s phone number in userinfo and the id_token.',
  groups: 'The person\'s groups.',
};

export const securitySchemes = {
  OrgId: { type: 'apiKey', in: 'header', name: 'Keyway-OrgID', description: 'Id of the organization the call acts on.' },
  ApiKey: { type: 'apiKey', in: 'header', name: 'Keyway-API-Key', description: 'Management API key of an organization. Alone it names its organization; with Keyway-OrgID it must be that organization\'s key.' },
  UserToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'User token of the signed-in person, as issued by Keyway.' },
  ClientBasic: { type: 'http', scheme: 'basic', description: 'OAuth2 client id and secret (RFC 6749 client_secret_basic).' },
  OAuth2AccessToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'OAuth2 access token issued by /oauth2/tokens.' },
  KeywayOAuth2: {
    type: 'oauth2',
    description: 'The OAuth 2.0 flows Keyway offers to registered clients; the access token is sent as a bearer token.',
    flows: {
      authorizationCode: {
        authorizationUrl: '/oauth2/authorize',
        tokenUrl: '/oauth2/tokens',
        refreshUrl: '/oauth2/tokens',
        scopes: OAUTH_SCOPES,
      },
      clientCredentials: { tokenUrl: '/oauth2/tokens', scopes: OAUTH_SCOPES },
    },
  },
};

/** Named security requirement sets used by the operations. */
export const SECURITY = {
  // The key alone names its organization; Keyway-OrgID may come with it (then the key must be that organization's).
  // Both together come first: the reference's try-it panel and samples use the first alternative.
  management: [{ OrgId: [], ApiKey: [] }, { ApiKey: [] }],
  user: [{ UserToken: [] }],
  userWithOrg: [{ OrgId: [], UserToken: [] }],
  org: [{ OrgId: [] }],
  orgOptionalUser: [{ OrgId: [] }, { OrgId: [], UserToken: [] }],
  // The challenge id itself is the capability; the org id header and a token are accepted but not needed.
  challenge: [{}, { OrgId: [] }, { UserToken: [] }, { OrgId: [], UserToken: [] }],
  optionalUser: [{}, { UserToken: [] }],
  userOrManagement: [{ UserToken: [] }, { OrgId: [], ApiKey: [] }, { ApiKey: [] }],
  // Token validation: the organization by its id (the SDK, the docs gate) or by its API key (a backend).
  orgOrManagement: [{ OrgId: [] }, { ApiKey: [] }, { OrgId: [], ApiKey: [] }],
  userWithOrgOrManagement: [{ OrgId: [], UserToken: [] }, { OrgId: [], ApiKey: [] }, { ApiKey: [] }],
  clientBasic: [{ ClientBasic: [] }],
  clientOptional: [{ ClientBasic: [] }, {}],
  accessToken: [{ OAuth2AccessToken: [] }, { KeywayOAuth2: ['openid'] }],
  none: [],
};
