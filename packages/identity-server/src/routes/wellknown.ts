import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.js';
import { SIGNING_ALG } from '../tokens.js';

export function registerWellKnownRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/.well-known/jwks.json', async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return ctx.tokens.jwks();
  });
  app.get('/.well-known/openid-configuration', async () => ({
    issuer: ctx.publicUrl,
    jwks_uri: `${ctx.publicUrl}/.well-known/jwks.json`,
    revocation_endpoint: `${ctx.publicUrl}/token/revoke`,
    response_types_supported: ['code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    scopes_supported: ['openid'],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'person_id', 'oid', 'authenticated_methods', 'authentications', 'person_type', 'groups'],
  }));
}
