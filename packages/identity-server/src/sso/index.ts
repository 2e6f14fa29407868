import type { FastifyPluginAsync } from 'fastify';
import type { FeatureOptions } from '../context.js';
import { registerOidcCallbackRoute, registerSamlAcsRoute, registerSsoProofRoute, registerSsoResolveRoute } from './flows.js';
import { registerSsoTokenRoutes } from './idp-token-routes.js';
import { registerOidcProviderRoutes, registerSamlProviderRoutes } from './provider-routes.js';

/** Single sign-on with OIDC and SAML providers: the provider's return, `/sso/resolve`; (management) providers and their tokens. */
export const sso: FastifyPluginAsync<FeatureOptions> = async (app, { ctx, management }) => {
  registerOidcCallbackRoute(app, ctx);
  registerSamlAcsRoute(app, ctx);
  registerSsoResolveRoute(app, ctx);
  registerSsoProofRoute(app, ctx);
  if (!management) return;
  registerSamlProviderRoutes(app, ctx);
  registerOidcProviderRoutes(app, ctx);
  registerSsoTokenRoutes(app, ctx);
};
