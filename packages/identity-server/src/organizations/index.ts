import type { FastifyPluginAsync } from 'fastify';
import type { FeatureOptions } from '../context.js';
import { registerExternalCredentialRoutes, registerQuotaRoutes, registerTemplateAndKycRoutes } from './config-routes.js';
import { registerPermissionRoutes, registerPersonGrantRoutes, registerRoleRoutes } from './rbac-routes.js';
import { registerOrganizationConfigRoutes, registerOrganizationSettingsRoutes, registerOrganizationTreeRoutes } from './routes.js';

/** Organizations (management API only): the tree, settings and configuration, RBAC. Settings storage: settings.ts. */
export const organizations: FastifyPluginAsync<FeatureOptions> = async (app, { ctx, management }) => {
  if (!management) return;
  registerOrganizationTreeRoutes(app, ctx);
  registerOrganizationSettingsRoutes(app, ctx);
  registerOrganizationConfigRoutes(app, ctx);
  registerExternalCredentialRoutes(app, ctx);
  registerQuotaRoutes(app, ctx);
  registerTemplateAndKycRoutes(app, ctx);
  registerPermissionRoutes(app, ctx);
  registerRoleRoutes(app, ctx);
  registerPersonGrantRoutes(app, ctx);
};
