import type { FastifyPluginAsync } from 'fastify';
import type { FeatureOptions } from '../context.js';
import { registerEventRoutes } from './routes.js';

/** Analytics events the SDK sends, and their reading through the management API. */
export const events: FastifyPluginAsync<FeatureOptions> = async (app, { ctx }) => {
  registerEventRoutes(app, ctx);
};
