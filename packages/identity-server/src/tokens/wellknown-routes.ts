import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.js';

export function registerWellKnownRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/.well-known/jwks.json', async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    // Every replica publishes the keys any of them made (read again at most once a second).
    await ctx.tokens.refreshKeys();
    return ctx.tokens.jwks();
  });
}
