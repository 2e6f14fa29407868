import type { FastifyPluginAsync } from 'fastify';
import type { FeatureOptions } from '../context.js';
import { registerWebhookDeliveryRoutes, registerWebhookRoutes, registerWebhookTriggerRoutes } from './routes.js';

/** Webhooks (management API): endpoints, their triggers and deliveries. Delivery and sync hooks: service.ts. */
export const webhooks: FastifyPluginAsync<FeatureOptions> = async (app, { ctx, management }) => {
  if (!management) return;
  registerWebhookRoutes(app, ctx);
  registerWebhookTriggerRoutes(app, ctx);
  registerWebhookDeliveryRoutes(app, ctx);
};
