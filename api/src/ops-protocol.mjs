// @ts-check
// OAuth 2.0 / OpenID Connect protocol endpoints: hosted login, token endpoint family, userinfo and discovery.
import { ref, str, int } from './lib.mjs';
import { USER_TOKEN, PERSON_ID } from './examples.mjs';

const FORM = 'application/x-www-form-urlencoded';
/** @param {string} name @param {unknown} schema @param {string} description @param {boolean} [required] @param {unknown} [example] */
const q = (name, schema, description, required = true, example = undefined) => ({ name, in: 'query', required, description, schema, ...(example === undefined ? {} : { example }) });
const ISSUER = 'https://api.keyway.dev';
const userInfoExample = { sub: PERSON_ID, iss: 'http://localhost:8787', aud: 'docs-portal', org_id: 'org_keyway_dev', email: 'ada@example.com', email_verified: true, groups: ['editors'] };
const protocolErrors = ['OAuth2BadRequest', 'OAuth2Unauthorized'];

/** Parameters of the authorization request (query of GET, form of POST). */
const AUTHORIZE_PARAMS = [
      q('client_id', ref('OAuthClientId'), 'Registered OAuth2 client.', true, 'keyway-dev-client'),
      q('redirect_uri', str({ format: 'uri', maxLength: 2048 }), 'Must equal one of the client\'s registered redirect URIs (in development, any URI on an allowed browser origin).', true, 'http://localhost:3000/callback'),
      q('response_type', str({ const: 'code' }), 'Only the authorization code flow is offered.'),
      q('scope', str({ pattern: '(^| )openid( |$)', maxLength: 1024 }), 'Space-separated; must contain `openid`.', true, 'openid email'),
      q('state', str({ maxLength: 512 }), 'CSRF token of the client, returned unchanged. Optional (it protects the client, which should send one).', false, 'Zq3v9LkT2xW8'),
      q('code_challenge', str({ pattern: '^[A-Za-z0-9_-]{43,128}$' }), 'PKCE S256 code challenge (base64url of the SHA-256 of the `code_verifier` the token request sends). Required of public clients; a confidential client may leave PKCE out and authenticate with its secret at the token endpoint.', false, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'),
      q('code_challenge_method', str({ const: 'S256' }), 'Only S256, and it must be sent: without it RFC 7636 reads the challenge as `plain`, which Keyway refuses (the browser goes back to `redirect_uri` with `error=invalid_request`).', false, 'S256'),
      q('nonce', str({ maxLength: 512 }), 'Copied into the id_token.', false),
      q('token', str({ maxLength: 16384 }), 'Development servers only (ignored in production, where a bearer token never travels in a URL): a valid user token of the client\'s organization (not anonymous) skips the hosted page, as the session cookie does.', false),
      q('id_token_hint', str({ maxLength: 16384 }), 'An id_token this server issued to the client (it may have expired): with `prompt=none`, a signed-in person other than its subject answers `login_required`.', false),
      q('request', str({ maxLength: 16384 }), 'Not supported (request objects): answered with `error=request_not_supported`.', false),
      q('request_uri', str({ maxLength: 2048 }), 'Not supported: answered with `error=request_uri_not_supported`.', false),
      q('prompt', str({ maxLength: 100 }), 'Space-separated OpenID Connect prompts: `none` (no page: back at once with a code when the browser has a session at this server, else with `error=login_required`), `login` and `select_account` (always the sign-in page, even with a session), `consent` (nothing to ask: clients belong to the organization).', false, 'login'),
      q('login_hint', str({ maxLength: 320 }), 'The e-mail address to prefill (also as `email_address:<address>`).', false, 'ada@example.com'),
      q('max_age', int({ minimum: 0 }), 'Seconds: a session whose sign-in (`auth_time`) is older than this shows the sign-in page (with `prompt=none`: `login_required`).', false, 3600),
      q('response_mode', str({ enum: ['query', 'fragment', 'form_post'] }), 'How the answer reaches `redirect_uri`: query parameters (default), the fragment, or a form posted to it.', false, 'query'),
      q('handle_types', str({ maxLength: 100 }), 'Handle types the page may offer (comma- or space-separated); the hosted page signs in by `email_address`, which must be among them.', false, 'email_address'),
      q('display', str({ maxLength: 20 }), 'Accepted; the page is responsive, so every display gets the same one.', false),
      q('ui_locales', str({ maxLength: 100 }), 'Accepted; the page is in English.', false),
      q('acr_values', str({ maxLength: 200 }), 'Accepted; every sign-in has one assurance level (an e-mail code).', false),
];
/** The authorization request as a form body: the same fields, none required by the schema (the handler answers OAuth errors). */
/** A form field's schema: forms carry strings only, so an integer parameter is a string of digits. */
const formField = (/** @type {{ schema: any, description: string }} */ p) => (p.schema.type === 'integer' ? { type: 'string', pattern: '^[0-9]{1,10}$', description: p.description } : { ...p.schema, description: p.description });
const authorizeForm = () => ({ type: 'object', properties: Object.fromEntries(AUTHORIZE_PARAMS.map((p) => [p.name, formField(p)])) });
const LOGOUT_PARAMS = [
  q('id_token_hint', str({ maxLength: 16384 }), 'An id_token this server issued (it may have expired): names the client and the person, and ends the session without asking.', false),
  q('post_logout_redirect_uri', str({ format: 'uri', maxLength: 2048 }), 'Where to send the browser afterwards; must be one of the client\'s `post_logout_redirect_uris` (in development, also any address on an allowed browser origin).', false),
  q('client_id', ref('OAuthClientId'), 'The client, when no id_token_hint names it.', false, 'keyway-dev-client'),
  q('state', str({ maxLength: 512 }), 'Returned unchanged with the redirect.', false),
  q('logout_hint', str({ maxLength: 320 }), 'Accepted; the session named by the cookie is the one ended.', false),
  q('ui_locales', str({ maxLength: 100 }), 'Accepted; the page is in English.', false),
];
const logoutForm = () => ({ type: 'object', properties: { ...Object.fromEntries(LOGOUT_PARAMS.map((p) => [p.name, formField(p)])), confirm: str({ enum: ['yes'], description: 'Sent by the confirmation page: the person asked to sign out.' }) } });

/** @type {import('./operation.mjs').OpSpec[]} */
export const protocolOperations = [
  ...['get', 'post'].map(/** @returns {import('./operation.mjs').OpSpec} */ (method) => ({
    method, path: '/oauth2/authorize', id: method === 'get' ? 'getOAuth2Authorize' : 'postOAuth2Authorize', tags: ['o-auth-2'], security: 'none',
    // The browser SDK navigates with GET; POST is OpenID Connect's form-encoded twin (Core §3.1.2.1).
    ...(method === 'get'
      ? { sdk: true, params: AUTHORIZE_PARAMS }
      : { body: { contentType: FORM, schema: authorizeForm(), example: { response_type: 'code', client_id: 'keyway-dev-client', redirect_uri: 'http://localhost:3000/callback', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' } } }),
    summary: method === 'get' ? 'Request an authorization code' : 'Request an authorization code (form post)',
    description: `${method === 'post' ? '\nThe form-encoded twin of `GET /oauth2/authorize` (OpenID Connect Core §3.1.2.1), with the same parameters in the body.' : ''}
Entry point of Keyway's hosted login (authorization code flow with PKCE S256; PKCE may be left out by confidential clients only). The browser is redirected here; the
person signs in on the hosted page and is redirected back to \`redirect_uri\` with \`code\` and \`state\`. Errors in
\`client_id\` or \`redirect_uri\` are shown on the page instead of redirecting (to avoid open redirects); other errors
are returned to the redirect URI as \`error\` and \`error_description\`, with \`state\` and \`iss\` (RFC 9207). Signing in sets an
HTTP-only session cookie of this server: another client of the same organization then signs the person in without a page.`,
    ok: {
      status: 302, description: 'Redirect to the hosted login page or, once signed in, back to redirect_uri with code and state.',
      headers: { Location: { description: 'Where the browser goes next.', schema: str({ format: 'uri' }) } },
    },
    moreOk: [{ status: 200, raw: true, contentType: 'text/html', schema: str(), example: '<!doctype html><title>Sign in</title>', description: 'The hosted login page.' }],
  })),
  ...['get', 'post'].map(/** @returns {import('./operation.mjs').OpSpec} */ (method) => ({
    method, path: '/oauth2/logout', id: method === 'get' ? 'getOAuth2Logout' : 'postOAuth2Logout', tags: ['o-auth-2'], security: 'none',
    summary: method === 'get' ? 'End the session (RP-Initiated Logout)' : 'End the session (RP-Initiated Logout, form post)',
    description: `
OpenID Connect RP-Initiated Logout 1.0. Ends the person's session at this server (the session cookie the hosted login set),
so no client of the organization signs them in again without a page. With a valid \`id_token_hint\` (an id_token this
server issued, expired or not) the session ends at once and the browser goes to \`post_logout_redirect_uri\` (which must be
registered in the client's \`post_logout_redirect_uris\`) with \`state\`, or to a "signed out" page. Without one, the page
asks the person to confirm.${method === 'post' ? ' Same as GET, with the parameters form-encoded in the body.' : ''}`,
    ...(method === 'get' ? { params: LOGOUT_PARAMS } : { body: { contentType: FORM, schema: logoutForm(), example: { state: 'x1y2z3' } } }),
    ok: { status: 200, raw: true, contentType: 'text/html', schema: str(), example: '<!doctype html><title>Signed out</title>', description: 'The "signed out" page, or the page that asks to confirm.' },
    moreOk: [{ status: 302, description: 'Signed out: back to post_logout_redirect_uri with state.', headers: { Location: { description: 'post_logout_redirect_uri with state.', schema: str({ format: 'uri' }) } } }],
  })),
  {
    method: 'post', path: '/oauth2/tokens', id: 'postOAuth2Tokens', tags: ['o-auth-2'], sdk: true, security: 'clientOptional',
    summary: 'Obtain an access token',
    description: `
The OAuth2 token endpoint. With \`authorization_code\` it exchanges the code of \`/oauth2/authorize\`; public clients
(the browser SDK) send \`client_id\` and the PKCE \`code_verifier\` in the form instead of client credentials. With
\`client_credentials\` a confidential client authenticates with HTTP Basic and gets a machine-to-machine token. The
answer follows RFC 6749 and includes an OpenID Connect \`id_token\` when \`openid\` was requested. Codes are single-use
and expire after 60 seconds. Clients allowed the \`refresh_token\` grant (with a \`refresh_token_duration\` above 0) also
get a \`refresh_token\` with the code exchange; \`grant_type=refresh_token\` trades it for new tokens (a \`scope\` may
narrow them) and a new refresh token. Each refresh token works once: presenting a used one again is taken as theft and
revokes every token of that grant, the newest refresh and access tokens included (\`invalid_grant\`).`,
    body: {
      contentType: FORM,
      schema: ref('OAuth2TokenRequest'),
      // A confidential client's machine-to-machine exchange (the first security alternative): it runs as printed, where
      // an authorization code is single-use and lasts 60 s (the hosted-login guide runs that flow end to end).
      example: { grant_type: 'client_credentials', scope: 'invoices:read' },
    },
    ok: {
      raw: true, schema: ref('OAuth2TokenResponse'),
      example: { access_token: USER_TOKEN, token_type: 'bearer', expires_in: 3600, scope: 'invoices:read' },
      headers: { 'Cache-Control': { description: 'Always `no-store`.', schema: str({ const: 'no-store' }) } },
    },
    errors: protocolErrors,
  },
  {
    method: 'post', path: '/oauth2/tokens/revoke', id: 'postOAuth2TokensRevoke', tags: ['o-auth-2'], security: 'clientBasic',
    summary: 'Revoke a token',
    description: `
Revokes an access or refresh token issued to the authenticated client (RFC 7009); a refresh token takes the tokens of
its grant with it. Unknown or already revoked tokens also answer 200, so the caller cannot probe which tokens exist.`,
    body: { contentType: FORM, schema: ref('OAuth2TokenRevokeRequest'), example: { token: USER_TOKEN, token_type_hint: 'access_token' } },
    ok: { status: 200, description: 'Revoked (or nothing to revoke).' },
    errors: protocolErrors,
  },
  {
    method: 'post', path: '/oauth2/tokens/revoke-all', id: 'postOAuth2TokensRevokeAll', tags: ['o-auth-2'], security: 'clientBasic',
    summary: 'Revoke tokens',
    description: 'Revokes every access and refresh token the authenticated client (a confidential one) holds for one person, e.g. when a person signs out everywhere; with `until`, only the tokens issued before that time.',
    body: { contentType: FORM, schema: ref('OAuth2RevokeAllRequest'), example: { person_id: PERSON_ID } },
    ok: { status: 200, description: 'Revoked.' },
    errors: protocolErrors,
  },
  {
    method: 'post', path: '/oauth2/tokens/introspect', id: 'postOAuth2TokensIntrospect', tags: ['o-auth-2'], security: 'clientBasic',
    summary: 'Introspect an access token',
    description: 'Tells a resource server whether an access token (or a refresh token of the calling client, `token_type: refresh_token`) is active and what it grants (RFC 7662). Inactive tokens answer `{"active": false}` only.',
    body: { contentType: FORM, schema: ref('OAuth2IntrospectRequest'), example: { token: USER_TOKEN } },
    ok: {
      raw: true, schema: ref('OAuth2IntrospectionResult'),
      example: { active: true, scope: 'openid', client_id: 'docs-portal', sub: PERSON_ID, exp: 1773483613, iat: 1773480013, iss: ISSUER, token_type: 'bearer' },
    },
    errors: protocolErrors,
  },
  ...['get', 'post'].map(/** @returns {import('./operation.mjs').OpSpec} */ (method) => ({
    method, path: '/oauth2/userinfo', id: method === 'get' ? 'getOAuth2Userinfo' : 'postOAuth2Userinfo', tags: ['o-auth-2'], security: 'accessToken',
    summary: method === 'get' ? "Get a person's profile" : "Get a person's profile (POST)",
    description: `Returns the OpenID Connect claims of the person the access token was issued for, limited to the granted scopes.${method === 'post' ? ' Same as GET, for clients that cannot send GET.' : ''}`,
    ok: { raw: true, schema: ref('UserInfo'), example: userInfoExample },
    errors: ['OAuth2Unauthorized'],
  })),
  {
    method: 'get', path: '/.well-known/openid-configuration', id: 'getOpenIdConfiguration', tags: ['oidc-discovery'], security: 'none',
    summary: 'Get OpenID configuration values',
    description: 'OpenID Connect discovery document of the Keyway issuer: endpoints, supported flows, scopes and signing algorithms. Public and cacheable.',
    ok: {
      raw: true, schema: ref('OpenIdConfiguration'),
      example: {
        issuer: ISSUER, authorization_endpoint: `${ISSUER}/oauth2/authorize`, token_endpoint: `${ISSUER}/oauth2/tokens`,
        userinfo_endpoint: `${ISSUER}/oauth2/userinfo`, jwks_uri: `${ISSUER}/.well-known/jwks.json`,
        revocation_endpoint: `${ISSUER}/oauth2/tokens/revoke`, introspection_endpoint: `${ISSUER}/oauth2/tokens/introspect`,
        response_types_supported: ['code'], grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
        end_session_endpoint: `${ISSUER}/oauth2/logout`,
        response_modes_supported: ['query', 'fragment', 'form_post'], subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256', 'ES256'], scopes_supported: ['openid', 'email'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'], code_challenge_methods_supported: ['S256'],
        claims_supported: ['sub', 'auth_time', 'amr', 'email', 'email_verified', 'person_id', 'oid', 'person_type'],
        authorization_response_iss_parameter_supported: true, request_parameter_supported: false, request_uri_parameter_supported: false,
      },
    },
  },
  {
    method: 'get', path: '/.well-known/jwks.json', id: 'getJwks', tags: ['oidc-discovery'], security: 'none',
    summary: 'Get public key JWKS for user tokens',
    description: `
The public keys that verify Keyway user tokens and id_tokens. Keys rotate: the set holds the current key and the
previous ones still valid for unexpired tokens, so cache it briefly and refetch when a token names an unknown \`kid\`.`,
    ok: {
      raw: true, schema: ref('Jwks'),
      example: { keys: [{ kty: 'EC', kid: 'k-2026-03', use: 'sig', alg: 'ES256', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }] },
    },
  },
];
