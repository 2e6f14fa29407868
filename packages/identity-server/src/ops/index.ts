import type { FastifyInstance } from 'fastify';
import type { Operations } from './operations.js';
import { opsRoutes } from './routes.js';

/** Health, readiness and metrics (src/ops/routes.ts). */
export async function ops(app: FastifyInstance, opts: { operations: Operations }): Promise<void> {
  await app.register(opsRoutes, opts);
}
