import type { FastifyPluginAsync } from 'fastify';
import type { FeatureOptions } from '../context.js';
import { registerWellKnownRoutes } from './wellknown-routes.js';

/** Token signing keys published for verifiers (JWKS, OpenID configuration). Signing and checking: token-service.ts. */
export const tokens: FastifyPluginAsync<FeatureOptions> = async (app, { ctx }) => {
  registerWellKnownRoutes(app, ctx);
};
