import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.js';
import { SIGNING_ALG } from './token-service.js';

export function registerWellKnownRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/.well-known/jwks.json', async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    // Every replica publishes the keys any of them made (read again at most once a second).
    await ctx.tokens.refreshKeys();
    return ctx.tokens.jwks();
  });
  app.get('/.well-known/openid-configuration', async () => ({
    issuer: ctx.publicUrl,
    jwks_uri: `${ctx.publicUrl}/.well-known/jwks.json`,
    authorization_endpoint: `${ctx.publicUrl}/oauth2/authorize`,
    token_endpoint: `${ctx.publicUrl}/oauth2/tokens`,
    userinfo_endpoint: `${ctx.publicUrl}/oauth2/userinfo`,
    revocation_endpoint: `${ctx.publicUrl}/oauth2/tokens/revoke`,
    introspection_endpoint: `${ctx.publicUrl}/oauth2/tokens/introspect`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    scopes_supported: ['openid'],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'person_id', 'oid', 'authenticated_methods', 'authentications', 'person_type', 'groups'],
  }));
}
