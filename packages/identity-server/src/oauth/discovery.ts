import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.js';
import { SIGNING_ALGS } from '../tokens/token-service.js';

// OpenID Connect Discovery 1.0 (and RFC 8414's fields): what this provider does, nothing it does not. Each list names
// what the code honours; oidc-provider.test.ts checks them against the answers of the endpoints.

/** Claims of the id_tokens (oauth/tokens.ts) and of userinfo (oauth/routes.ts), Keyway's own included. */
export const CLAIMS_SUPPORTED = [
  'sub', 'iss', 'aud', 'exp', 'iat', 'jti', 'auth_time', 'nonce', 'amr', 'sid',
  'email', 'email_verified', 'phone_number', 'phone_number_verified', 'preferred_username', 'username', 'groups',
  'org_id', 'person_id', 'oid', 'person_type', 'token_use',
];

export function registerDiscovery(app: FastifyInstance, ctx: Ctx): void {
  app.get('/.well-known/openid-configuration', async (_req, reply) => {
    // The public URL is known once the server listens (a port chosen by the system).
    const url = ctx.publicUrl;
    reply.header('cache-control', 'public, max-age=300');
    return {
      issuer: url,
      jwks_uri: `${url}/.well-known/jwks.json`,
      authorization_endpoint: `${url}/oauth2/authorize`,
      token_endpoint: `${url}/oauth2/tokens`,
      userinfo_endpoint: `${url}/oauth2/userinfo`,
      revocation_endpoint: `${url}/oauth2/tokens/revoke`,
      introspection_endpoint: `${url}/oauth2/tokens/introspect`,
      end_session_endpoint: `${url}/oauth2/logout`,
      response_types_supported: ['code'],
      response_modes_supported: ['query', 'fragment', 'form_post'],
      grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      introspection_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      subject_types_supported: ['public'],
      // id_tokens in the client's registered algorithm (RS256 unless it registered ES256); userinfo answers plain JSON.
      id_token_signing_alg_values_supported: [...SIGNING_ALGS].reverse(),
      scopes_supported: ['openid', 'email'],
      claims_supported: CLAIMS_SUPPORTED,
      prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
      authorization_response_iss_parameter_supported: true,
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      claims_parameter_supported: false,
    };
  });
}
