import type { FastifyPluginAsync } from 'fastify';
import type { FeatureOptions } from '../context.js';
import { factorRegistry } from './factors/index.js';
import { registerDirectIdRoutes, registerRecoveryRoutes } from './recovery-routes.js';
import { passwordResetPageRoutes } from './password-reset-page.js';
import { registerChallengeRoutes, registerIdRoutes, registerTokenRoutes } from './routes.js';

/** Sign-in: `/id`, `/attestation`, challenges, recovery, Direct-ID and impersonation, token checks (factors: factors/index.ts). */
export const signin: FastifyPluginAsync<FeatureOptions> = async (app, { ctx }) => {
  registerIdRoutes(app, ctx, factorRegistry());
  registerChallengeRoutes(app, ctx);
  registerTokenRoutes(app, ctx);
  registerRecoveryRoutes(app, ctx);
  registerDirectIdRoutes(app, ctx);
  await app.register(passwordResetPageRoutes, { ctx });
};
