import type { FastifyInstance } from 'fastify';
import { DATABASE_RETRY_AFTER_SECONDS } from '../db/unavailable.js';
import { errorEnvelope } from '../http/errors.js';
import type { Operations } from './operations.js';

/**
 * `/health` (the process is alive: 200 even while draining), `/health/ready` (200, or 503 saying why: draining, or the
 * database) and `/metrics` (Prometheus text; open in development, behind `KEYWAY_METRICS_TOKEN` in production).
 */
export async function opsRoutes(app: FastifyInstance, { operations }: { operations: Operations }): Promise<void> {
  app.get('/health', async () => ({ result: { ok: true } }));
  app.get('/health/ready', async (_req, reply) => {
    const why = await operations.notReadyBecause();
    if (why === undefined) return { result: { ready: true } };
    if (!operations.draining) reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    return reply.code(503).send(errorEnvelope(503, why));
  });
  if (operations.opts.metrics === 'off') return;
  app.get('/metrics', async (req, reply) => {
    if (!operations.mayReadMetrics(req)) {
      reply.header('www-authenticate', 'Bearer realm="keyway-metrics"');
      return reply.code(401).send(errorEnvelope(401, 'metrics need Authorization: Bearer <KEYWAY_METRICS_TOKEN>'));
    }
    const register = operations.metrics();
    return reply.type(register.contentType).send(await register.metrics());
  });
}
