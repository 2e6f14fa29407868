// @ts-check
// RBAC (permissions, roles, checks), OAuth2 client management and SSO provider tokens.
import { ref, arrayOf, open, str } from './lib.mjs';
import { crudOperations } from './crud.mjs';
import { ETAG_HEADER } from './components.mjs';
import { CHALLENGE_ID, CREATED_AT, ORG_ID, PERSON_ID, USER_TOKEN } from './examples.mjs';

const mgmt = { security: /** @type {const} */ ('management') };
const PERMISSION = { name: 'docs:write', description: 'Edit documentation pages', created: CREATED_AT };
const ROLE = { name: 'editor', description: 'Writes the docs', permissions: ['docs:read', 'docs:write'], created: CREATED_AT };

/**
 * The RBAC families as the public reference answers them: the listing gives names, creating and changing answer 204
 * without a body (read the object back with its GET); a change honours `If-Match` with the `ETag` of the GET.
 * @param {import('./operation.mjs').OpSpec[]} ops @param {string} nameSchema @param {string[]} names
 * @returns {import('./operation.mjs').OpSpec[]}
 */
const rbacFamily = (ops, nameSchema, names) => ops.map((op) => {
  if (op.id.startsWith('list')) return { ...op, ok: { schema: arrayOf(ref(nameSchema)), example: names } };
  if (op.method === 'post') return { ...op, ok: { status: 204, description: 'Created.' } };
  if (op.method === 'patch') {
    return {
      ...op, params: [...(op.params ?? []), 'IfMatch'], errors: [...(op.errors ?? []), 'PreconditionFailed'],
      description: `${op.description} With \`If-Match\`, only if it is still as that \`ETag\` (412 otherwise).`,
      ok: { status: 204, description: 'Changed.', headers: ETAG_HEADER },
    };
  }
  if (op.method === 'get' && op.ok.schema) return { ...op, ok: { ...op.ok, headers: ETAG_HEADER } };
  return op;
});
const CLIENT = {
  client_id: 'docs-portal', client_name: 'Docs portal', scopes: ['openid', 'email'], grant_types: ['authorization_code', 'refresh_token'],
  response_types: [['code']], redirect_uris: ['https://docs.example.com/login'], public: true, access_token_duration: 3600,
  refresh_token_duration: 2592000, created_at: CREATED_AT,
};
const UI = { logoUrl: 'https://cdn.example.com/logo.svg', pageTitle: 'Sign in to Acme Docs', pageBackgroundColor: '#f6f8fa', supportURL: 'https://acme.example.com/help', showBadge: false, themeVars: { 'kw-accent': '#1f6feb' }, factors: ['otp_via_email', 'webauthn'] };
const UI_ANSWER = { ...UI, logo_url: UI.logoUrl, title: UI.pageTitle, show_keyway_branding: UI.showBadge };
const SSO_TOKEN = {
  token: 'ya29.a0AfB_example', token_type: 'access', expiry: '2026-03-14T10:26:53Z', provider: 'google', client_id: '1234567890-abc.apps.example.com',
  authentication_id: CHALLENGE_ID, person_id: PERSON_ID, organization_id: ORG_ID, extra_callback_values: { authuser: '0', prompt: 'consent' },
  issuer: 'https://accounts.google.com', subject: '110248495921238986420', scopes: ['openid', 'email', 'https://www.googleapis.com/auth/calendar.readonly'],
  created_at: '2026-03-14T09:26:53Z',
};

/** @type {import('./operation.mjs').OpSpec[]} */
export const accessOperations = [
  // ---------- RBAC ----------
  ...rbacFamily(crudOperations({
    base: '/rbac/permissions', param: 'PermissionNamePath', paramName: 'permission_name', tags: ['rbac'],
    id: 'Permission', noun: 'permission', schema: 'Permission', createSchema: 'PermissionCreate', patchSchema: 'PermissionPatch',
    example: PERMISSION, createExample: { name: 'docs:write', description: 'Edit documentation pages' }, patchExample: { description: 'Edit and publish documentation pages' },
    summaries: { list: 'Get a list of permissions', create: 'Create a permission', get: 'Get a permission', patch: 'Update a permission', delete: 'Delete a permission' },
    text: {
      list: 'Lists the names of the permissions defined in the organization (or inherited through the RBAC pool).',
      create: 'Defines a permission; its name is what your application checks (e.g. `docs:write`). Names are unique (409).',
      get: 'Returns one permission with its description; 404 when the organization (and its RBAC pool) has no such permission.',
      patch: 'Changes the description of a permission; the name is its identity and cannot change.',
      delete: 'Deletes a permission and removes it from every role and person holding it.',
    },
  }), 'PermissionName', ['docs:read', 'docs:write']),
  ...rbacFamily(crudOperations({
    base: '/rbac/roles', param: 'RoleNamePath', paramName: 'role_name', tags: ['rbac'],
    id: 'Role', noun: 'role', schema: 'Role', createSchema: 'RoleCreate', patchSchema: 'RolePatch',
    example: ROLE, createExample: { name: 'editor', description: 'Writes the docs', permissions: ['docs:write'] }, createdExample: { ...ROLE, permissions: ['docs:write'] }, patchExample: { permissions: ['docs:read', 'docs:write', 'docs:publish'] },
    summaries: { list: 'Get a list of roles', create: 'Create a role', get: 'Get a role', patch: 'Update a role', delete: 'Delete a role' },
    text: {
      list: 'Lists the names of the roles of the organization, including roles inherited through the RBAC pool; `GET /rbac/roles/{role_name}` gives the permissions of one.',
      create: 'Defines a role as a named set of existing permissions (unknown permissions answer 400): create each permission first with `POST /rbac/permissions`, as its example does for `docs:write`.',
      get: 'Returns one role with the names of the permissions it grants.',
      patch: 'Changes the description or replaces the permission set of a role; persons holding the role are affected at once.',
      delete: 'Deletes a role and unassigns it from every person; their permissions from other roles are unaffected.',
    },
  }), 'RoleName', ['editor', 'reader']),
  {
    ...mgmt, method: 'post', path: '/rbac/check', id: 'checkPermission', tags: ['rbac'],
    summary: 'Check whether a person has a permission',
    description: 'Answers whether the person holds the permission (`granted`) through a role or directly, and what grants it (`granted_by`). Unknown permissions answer `granted: false`; an unknown person answers 404.',
    body: { schema: ref('RbacCheckRequest'), example: { person_id: PERSON_ID, permission_name: 'docs:write' } },
    ok: { schema: ref('RbacCheckResult'), example: { granted: true, granted_by: ['editor'] } },
    errors: ['NotFound'],
    consistency: false,
  },
  // ---------- OAuth2 clients ----------
  ...crudOperations({
    base: '/oauth2/clients', param: 'OAuthClientIdPath', paramName: 'oauth_client_id', tags: ['o-auth-2'],
    id: 'OAuth2Client', noun: 'OAuth2 client', schema: 'OAuth2Client', createSchema: 'OAuth2ClientCreate', patchSchema: 'OAuth2ClientPatch', createdSchema: 'OAuth2ClientWithSecret',
    example: CLIENT,
    createExample: { client_name: 'Docs portal', scopes: ['openid', 'email'], grant_types: ['authorization_code', 'refresh_token'], redirect_uris: ['https://docs.example.com/login'], public: true },
    createdExample: { ...CLIENT, client_secret: 'kwcs_5c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f' },
    patchExample: { redirect_uris: ['https://docs.example.com/login', 'http://localhost:3000/login'] },
    summaries: { list: 'Get a list of OAuth2 clients', create: 'Create a new OAuth2 client', get: 'Get an OAuth2 client', patch: 'Modify an existing OAuth2 client', delete: 'Delete an existing OAuth2 client' },
    text: {
      list: 'Lists the OAuth2 clients registered with the organization, without secrets.',
      create: `
Registers an application that signs persons in through Keyway's hosted login or obtains machine-to-machine tokens.
Public clients (browser apps) hold no secret and must use PKCE; confidential clients get a secret, shown only in
this answer. Redirect URIs must be absolute and match exactly at authorization time.`,
      get: 'Returns one OAuth2 client (grants, scopes, redirect URIs, token durations) without its secret.',
      patch: 'Changes the given fields of an OAuth2 client. Shortened token durations apply to tokens issued from then on.',
      delete: 'Deletes an OAuth2 client and revokes every token issued to it; hosted login for it stops at once.',
    },
  }),
  {
    ...mgmt, method: 'put', path: '/oauth2/clients/{oauth_client_id}/secret', id: 'rotateOAuth2ClientSecret', tags: ['o-auth-2'], params: ['OAuthClientIdPath'],
    summary: 'Generate a new client secret',
    description: 'Replaces the secret of a confidential client; the old secret stops working at once. Public clients answer 409.',
    ok: { schema: ref('OAuth2ClientWithSecret'), example: { ...CLIENT, public: false, client_secret: 'kwcs_9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c' } },
    errors: ['Conflict'],
  },
  {
    ...mgmt, method: 'get', path: '/oauth2/clients/{oauth_client_id}/ui-configuration', id: 'getOAuth2ClientUiConfiguration', tags: ['o-auth-2'], params: ['OAuthClientIdPath'],
    summary: 'Get the configuration for the hosted UI',
    description: 'Look of the hosted login page shown for this client: logo, title, colours, links and the factors offered.',
    ok: { schema: ref('UiConfiguration'), example: UI_ANSWER },
  },
  {
    ...mgmt, method: 'put', path: '/oauth2/clients/{oauth_client_id}/ui-configuration', id: 'setOAuth2ClientUiConfiguration', tags: ['o-auth-2'], params: ['OAuthClientIdPath'],
    summary: 'Modify the configuration for the hosted UI',
    description: 'Replaces the hosted login configuration of the client and answers 201 with it. The logo and favicon must be https URLs; factors must be allowed by the organization config; a field and its older name (`logoUrl`/`logo_url`, `pageTitle`/`title`, `showBadge`/`show_keyway_branding`) must agree.',
    body: { schema: ref('UiConfiguration'), example: UI },
    ok: { status: 201, schema: ref('UiConfiguration'), example: UI_ANSWER },
  },
  {
    ...mgmt, method: 'post', path: '/oauth2/tokens/mint', id: 'mintOAuth2Tokens', tags: ['o-auth-2'],
    summary: 'Mint OAuth 2.0 & OIDC tokens',
    description: 'Issues an access token (and an id_token when `openid` is among the scopes, unless disabled) for a person and a client without a browser flow, e.g. for migrations and tests. Scopes default to the client\'s and must be among them (400); an unknown client or person answers 404.',
    body: { schema: ref('MintOAuthTokensRequest'), example: { client_id: 'docs-portal', person_id: PERSON_ID, scopes: ['openid', 'email'] } },
    ok: { schema: ref('OAuth2TokenResponse'), example: { access_token: USER_TOKEN, token_type: 'bearer', expires_in: 3600, id_token: USER_TOKEN, scope: 'openid email' } },
    errors: ['NotFound'],
  },
  // ---------- SSO provider tokens ----------
  {
    ...mgmt, method: 'get', path: '/sso/oidc/tokens', id: 'listSsoOidcTokens', tags: ['sso'],
    params: [
      { name: 'Keyway-Token', in: 'header', required: false, description: 'A user token of the person, issued by this organization (as the public reference names the person). Expired, revoked or other organizations\' tokens answer 401.', schema: str({ maxLength: 8192 }) },
      { name: 'person_id', in: 'query', required: false, description: 'Whose provider tokens to return, instead of `Keyway-Token` (both: they must name the same person).', schema: ref('PersonId'), example: PERSON_ID },
      'Limit', 'Offset', 'Cursor',
    ],
    summary: 'Get OIDC tokens',
    description: `
Returns the tokens identity providers issued to a person during OIDC sign-ins, one entry per token (access token,
refresh token when the provider gave one, ID token), so your back end can call the provider's APIs on their behalf.
The person is named by their Keyway user token in \`Keyway-Token\` or by \`person_id\`; neither answers 400. Each sign-in
through an OIDC client replaces the tokens of the previous one through that client. Values are stored encrypted and
are returned only here and by the query. An unknown person answers 404.`,
    ok: { schema: arrayOf(ref('SsoOidcToken')), example: [SSO_TOKEN], paginated: true },
    errors: ['NotFound'],
  },
  {
    ...mgmt, method: 'post', path: '/sso/oidc/tokens/query', id: 'querySsoOidcTokens', tags: ['sso'],
    summary: 'Query tokens obtained through SSO with OIDC',
    description: 'Like `GET /sso/oidc/tokens` with the selection in the body: narrowed to some sign-ins (`authentication_ids`), kinds of token (`token_types`), a provider or a client; keeps person ids out of URLs and logs. An unknown person answers 404.',
    body: { schema: ref('SsoOidcTokenQuery'), example: { person_id: PERSON_ID, token_types: ['access', 'refresh'] } },
    ok: { schema: arrayOf(ref('SsoOidcToken')), example: [SSO_TOKEN] },
    errors: ['NotFound'],
    consistency: false,
  },
  {
    ...mgmt, method: 'post', path: '/sso/oidc/tokens/revoke', id: 'revokeSsoOidcTokenLegacy', tags: ['sso'], deprecated: true,
    summary: '(Deprecated) Revoke an OAuth token obtained through SSO with OIDC',
    description: `
Revokes the stored tokens that the given access or refresh token belongs to, at the provider (RFC 7009, when it has a
revocation endpoint) and here. A value that is not a live stored token of that client answers 404. Deprecated: use
\`/sso/oidc/tokens/revoke/v2\`, which revokes by person and sign-in without handling token values.`,
    params: ['SdkVersion'],
    body: { schema: ref('SsoOidcTokenRevokeLegacy'), example: { token: 'ya29.a0AfB_example', client_id: '1234567890-abc.apps.example.com', token_type: 'access_token' } },
    ok: { status: 204, description: 'Revoked.' },
    errors: ['NotFound', 'ProviderUnavailable'],
  },
  {
    ...mgmt, method: 'post', path: '/sso/oidc/tokens/revoke/v2', id: 'revokeSsoOidcTokens', tags: ['sso'],
    summary: 'Revoke an OAuth token obtained through SSO with OIDC',
    description: `
Revokes the tokens one SSO sign-in of a person obtained (\`authentication_id\` of the listed tokens), all of them or the
\`token_types\` given: the refresh token and then the access token are revoked at the provider (RFC 7009) when it
publishes a revocation endpoint, then their values are forgotten here (an ID token is only forgotten). Nothing live is
not an error. When the provider cannot be reached or refuses, nothing changes and the answer is 502. An unknown
person or sign-in answers 404.`,
    body: { schema: ref('SsoOidcTokenRevoke'), example: { person_id: PERSON_ID, authentication_id: SSO_TOKEN.authentication_id, token_types: ['access', 'refresh'] } },
    ok: { status: 204, description: 'Revoked (or nothing was live).' },
    errors: ['NotFound', 'ProviderUnavailable'],
  },
];
