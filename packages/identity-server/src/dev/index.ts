import type { FastifyPluginAsync } from 'fastify';
import type { FeatureOptions } from '../context.js';
import { registerDevRoutes } from './mailbox-routes.js';

/** The development mailbox (registered in dev mode only). */
export const devMailbox: FastifyPluginAsync<FeatureOptions> = async (app, { ctx }) => {
  registerDevRoutes(app, ctx);
};
