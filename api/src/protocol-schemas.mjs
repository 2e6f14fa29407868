// @ts-check
// Schemas of the standard protocol endpoints (OAuth 2.0, OpenID Connect discovery, JWKS). These answers follow
// the RFCs and are not wrapped in the Keyway envelope.
import { ref, closed, open, arrayOf, str, int, bool, dateTime } from './lib.mjs';

const clientFields = {
  client_id: str({ minLength: 1, maxLength: 128 }),
  client_secret: str({ minLength: 1, maxLength: 256 }),
};

export const protocolSchemas = {
  OAuthClientId: str({ pattern: '^[A-Za-z0-9_-]{1,128}$', description: 'OAuth2 client id.' }),
  OAuth2TokenRequest: {
    description: 'Form fields of a token request; the fields allowed depend on grant_type.',
    oneOf: [
      closed({
        grant_type: str({ const: 'authorization_code' }),
        code: str({ minLength: 1, maxLength: 512 }),
        redirect_uri: str({ format: 'uri', maxLength: 2048 }),
        code_verifier: str({ pattern: '^[A-Za-z0-9._~-]{43,128}$' }),
        ...clientFields,
      }, ['grant_type', 'code', 'redirect_uri'], { title: 'authorization_code' }),
      closed({
        grant_type: str({ const: 'client_credentials' }),
        scope: str({ maxLength: 1024, description: 'Space-separated scopes.' }),
        ...clientFields,
      }, ['grant_type'], { title: 'client_credentials' }),
      closed({
        grant_type: str({ const: 'refresh_token' }),
        refresh_token: str({ minLength: 1, maxLength: 4096 }),
        scope: str({ maxLength: 1024 }),
        ...clientFields,
      }, ['grant_type', 'refresh_token'], { title: 'refresh_token' }),
    ],
  },
  OAuth2TokenResponse: open({
    access_token: str(),
    token_type: str({ const: 'bearer', description: 'Always `bearer` (RFC 6749 §7.1: compare it case-insensitively).' }),
    expires_in: int({ minimum: 0 }),
    refresh_token: str(),
    id_token: ref('UserToken'),
    scope: str(),
  }, ['access_token', 'token_type', 'expires_in']),
  OAuth2Error: open({
    error: str({ enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'invalid_token'] }),
    error_description: str(),
  }, ['error'], { description: 'RFC 6749 error answer of the protocol endpoints.' }),
  OAuth2TokenRevokeRequest: closed({
    token: str({ minLength: 1, maxLength: 4096 }),
    token_type_hint: ref('OAuth2TokenTypeHint'),
    ...clientFields,
  }, ['token'], { description: 'Confidential clients authenticate with HTTP Basic or `client_id` + `client_secret`; public clients send their `client_id`.' }),
  OAuth2TokenTypeHint: str({ enum: ['access_token', 'refresh_token', 'authorize_code', 'id_token'], description: 'A hint only (RFC 7009 §2.1): every kind of token is looked up whatever it says.' }),
  OAuth2IntrospectRequest: closed({
    token: str({ minLength: 1, maxLength: 4096 }),
    token_type_hint: ref('OAuth2TokenTypeHint'),
    scope: str({ maxLength: 1024, description: 'Space-separated scopes the token must carry: if one is missing, the answer is `active: false`.' }),
    ...clientFields,
  }, ['token'], { description: 'Confidential clients authenticate with HTTP Basic or `client_id` + `client_secret`; public clients send their `client_id`.' }),
  OAuth2RevokeAllRequest: closed({
    person_id: str({ minLength: 1, maxLength: 256, description: 'Revoke every token issued to this person (or, for client credentials tokens, to this client id).' }),
    subject: str({ minLength: 1, maxLength: 256, description: 'Older name of `person_id`; give one of the two.' }),
    until: dateTime('Revoke only the tokens issued before this time (RFC 3339, not in the future). Default: now, every token issued so far.'),
    ...clientFields,
  }, [], { description: 'Give `person_id` (or its older name `subject`).' }),
  OAuth2IntrospectionResult: open({
    active: bool(),
    scope: str(),
    client_id: str(),
    sub: str(),
    exp: int(),
    iat: int(),
    iss: str({ format: 'uri' }),
    token_type: str(),
  }, ['active']),
  UserInfo: open({
    sub: str(),
    iss: str({ format: 'uri', description: 'This server\'s public URL.' }),
    aud: str({ description: 'The client the access token was issued to (the organization id for a plain user token).' }),
    org_id: str({ description: 'The person\'s organization.' }),
    username: str({ description: 'The person\'s username handle, when it has one (also as `preferred_username`).' }),
    email: str({ format: 'email' }),
    email_verified: bool(),
    phone_number: str(),
    phone_number_verified: bool(),
    preferred_username: str(),
    groups: arrayOf(str()),
  }, ['sub', 'iss', 'aud', 'org_id']),
  OpenIdConfiguration: open({
    issuer: str({ format: 'uri' }),
    authorization_endpoint: str({ format: 'uri' }),
    token_endpoint: str({ format: 'uri' }),
    userinfo_endpoint: str({ format: 'uri' }),
    jwks_uri: str({ format: 'uri' }),
    revocation_endpoint: str({ format: 'uri' }),
    introspection_endpoint: str({ format: 'uri' }),
    response_types_supported: arrayOf(str()),
    grant_types_supported: arrayOf(str()),
    subject_types_supported: arrayOf(str()),
    id_token_signing_alg_values_supported: arrayOf(str()),
    scopes_supported: arrayOf(str()),
    token_endpoint_auth_methods_supported: arrayOf(str()),
    code_challenge_methods_supported: arrayOf(str()),
    claims_supported: arrayOf(str()),
  }, ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri', 'response_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported']),
  Jwk: open({
    kty: str({ enum: ['EC', 'RSA', 'OKP'] }),
    kid: str(),
    use: str({ enum: ['sig'] }),
    alg: str(),
    crv: str(),
    x: str(),
    y: str(),
    n: str(),
    e: str(),
  }, ['kty', 'kid']),
  Jwks: open({ keys: arrayOf(ref('Jwk')) }, ['keys']),
};
