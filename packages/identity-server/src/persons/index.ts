import type { FastifyPluginAsync } from 'fastify';
import type { FeatureOptions } from '../context.js';
import { registerManagedAttributeRoutes, registerOwnAttributeRoutes } from './attribute-routes.js';
import { registerBulkImportRoutes } from './bulk-import.js';
import { registerManagedConsentRoutes, registerOwnConsentRoutes } from './consent-routes.js';
import { registerCredentialRoutes, registerPasswordResetRoutes, registerPersonTokenRoutes } from './credential-routes.js';
import { registerGroupRoutes } from './group-routes.js';
import { registerMeRoutes } from './me.js';
import { registerPersonHandleRoutes, registerPersonRoutes } from './person-routes.js';

/** Persons: `/me` and the person's own attributes and consent; (management) persons, handles, groups, credentials, bulk import. */
export const persons: FastifyPluginAsync<FeatureOptions> = async (app, { ctx, management }) => {
  registerMeRoutes(app, ctx);
  registerOwnAttributeRoutes(app, ctx);
  registerOwnConsentRoutes(app, ctx);
  if (!management) return;
  registerPersonRoutes(app, ctx);
  registerPersonHandleRoutes(app, ctx);
  registerGroupRoutes(app, ctx);
  registerManagedAttributeRoutes(app, ctx);
  registerManagedConsentRoutes(app, ctx);
  registerCredentialRoutes(app, ctx);
  registerPasswordResetRoutes(app, ctx);
  registerPersonTokenRoutes(app, ctx);
  registerBulkImportRoutes(app, ctx);
};
