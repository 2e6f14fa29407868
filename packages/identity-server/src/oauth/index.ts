import type { FastifyPluginAsync } from 'fastify';
import type { FeatureOptions } from '../context.js';
import { registerOAuthClientExtraRoutes, registerOAuthClientRoutes } from './client-routes.js';
import { registerDiscovery } from './discovery.js';
import { loginFormRoutes } from './hosted-login.js';
import { logoutRoutes } from './logout.js';
import { registerOrgTokenRoutes, registerUserinfoRoutes } from './routes.js';
import { tokenEndpointRoutes } from './token-endpoint.js';

/** OAuth2 / OpenID Connect: hosted login, token endpoint, userinfo, tokens for other organizations, and (management) clients. */
export const oauth: FastifyPluginAsync<FeatureOptions> = async (app, { ctx, management }) => {
  registerOrgTokenRoutes(app, ctx);
  registerUserinfoRoutes(app, ctx);
  registerDiscovery(app, ctx);
  await app.register(loginFormRoutes, { ctx });
  await app.register(logoutRoutes, { ctx });
  await app.register(tokenEndpointRoutes, { ctx });
  if (management) {
    registerOAuthClientRoutes(app, ctx);
    registerOAuthClientExtraRoutes(app, ctx);
  }
};
