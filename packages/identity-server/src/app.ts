import cors from '@fastify/cors';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Ctx, FeatureOptions } from './context.js';
import { devMailbox } from './dev/index.js';
import { events } from './events/index.js';
import { ApiError } from './http/errors.js';
import { BODY_LIMIT_BYTES, errorHandler, notFoundHandler } from './http/error-handler.js';
import { requireApiKey } from './http/guards.js';
import { InputRuleError, checkJsonValue, checkNumericQuery, type QuerySchema } from './http/input-rules.js';
import { originAllowed } from './http/origins.js';
import { installValidators } from './http/validation.js';
import { CORRELATION_ID_HEADER, OpenApiContract } from './openapi.js';
import { oauth } from './oauth/index.js';
import { ops } from './ops/index.js';
import type { Operations } from './ops/operations.js';
import { organizations } from './organizations/index.js';
import { persons } from './persons/index.js';
import { signin } from './signin/index.js';
import { sso } from './sso/index.js';
import { tokens } from './tokens/index.js';
import { webhooks } from './webhooks/index.js';

/** Strict-Transport-Security of production answers (identity server and docs server): a year, subdomains included. */
export const HSTS = 'max-age=31536000; includeSubDomains';

/** Addresses or CIDR ranges (and the names `loopback`, `linklocal`, `uniquelocal`) of trusted proxies. */
export type TrustProxy = string[];

export interface AppOptions {
  corsOrigins: string[];
  logger?: boolean;
  /** Proxies whose X-Forwarded-For is believed (Fastify `trustProxy`); default none. See IdentityServerOptions.trustProxy. */
  trustProxy?: TrustProxy | undefined;
  /** When given, request schemas of every route the spec describes come from it (in-code schemas are the fallback). */
  contract?: OpenApiContract | undefined;
  /** Health, readiness, metrics and draining (src/ops). */
  operations: Operations;
}

/** Routes the contract describes take its request schemas; management operations check the API key before anything else. */
function applyContract(app: FastifyInstance, ctx: Ctx, contract: OpenApiContract): void {
  app.addHook('onRoute', (route) => {
    if (typeof route.method !== 'string' || route.method === 'HEAD') return;
    const fromSpec = contract.routeSchemas(route.method, route.url);
    if (fromSpec) route.schema = { ...route.schema, ...fromSpec };
    // Management operations check the API key before anything else (body parsing, validation): without a valid key
    // for the organization the answer is 401/403 whatever the request holds.
    if (contract.requiresApiKey(route.method, route.url)) {
      const existing = route.onRequest ? (Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]) : [];
      route.onRequest = [...existing, async (req: FastifyRequest) => void (await requireApiKey(ctx, req))];
    }
  });
}

/** Correlation id on every answer; the consistency headers are checked (one region serves everything, so every level is met). */
async function checkRequestHeaders(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header(CORRELATION_ID_HEADER, req.id);
  const level = req.headers['keyway-required-consistency'];
  if (level !== undefined && level !== 'local_region' && level !== 'all_regions') {
    throw new ApiError(400, 'Keyway-Required-Consistency must be local_region or all_regions');
  }
  const timeout = req.headers['keyway-required-consistency-timeout'];
  if (timeout !== undefined && !/^[1-9]\d{0,3}$/.test(String(timeout))) {
    throw new ApiError(400, 'Keyway-Required-Consistency-Timeout must be a whole number of seconds (1 to 9999)');
  }
}

/** CORS from the contract (every header and method it declares), so try-it and any client it describes work from an allowed origin. */
async function registerCors(app: FastifyInstance, ctx: Ctx, contract: OpenApiContract | undefined): Promise<void> {
  // Without a contract file, only what needs no declaring.
  const declared = contract?.cors() ?? {
    methods: ['DELETE', 'GET', 'PATCH', 'POST', 'PUT'],
    allowedHeaders: ['Authorization', 'Content-Type'],
    exposedHeaders: [CORRELATION_ID_HEADER],
  };
  await app.register(cors, {
    // Configured origins, plus https origins on any organization's allowed domains.
    origin: (origin, cb) => cb(null, origin ? originAllowed(ctx, origin) : false),
    credentials: false,
    methods: declared.methods,
    allowedHeaders: declared.allowedHeaders,
    exposedHeaders: declared.exposedHeaders,
    maxAge: 600,
  });
}

/** The server: what every request goes through (validation, input rules, CORS, security headers, errors), then the features. */
export async function buildApp(ctx: Ctx, opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: opts.trustProxy ?? false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true } },
    genReqId: () => crypto.randomUUID(),
    // A request that reaches a closing server on a connection it already had is served, not refused: closing waits for
    // it (and a draining replica asked its clients to close their connections: src/ops).
    return503OnClosing: false,
  });
  const contract = opts.contract;
  installValidators(app, contract);
  if (contract) applyContract(app, ctx, contract);
  app.addHook('onRequest', checkRequestHeaders);
  // One set of rules for every JSON value and query of every route, before schema validation (src/http/input-rules.ts).
  // A route that answers its own validation errors (`attachValidation`: the OAuth endpoints, which redirect them to the
  // client) gets these verdicts the same way, as a validation error naming the field.
  app.addHook('preValidation', async (req) => {
    try {
      checkJsonValue(req.body, 'body');
      checkJsonValue(req.query, 'querystring');
      checkJsonValue(req.params, 'params');
      checkNumericQuery(req.query, req.routeOptions.schema?.querystring as QuerySchema);
    } catch (err) {
      if (!req.routeOptions.attachValidation || !(err instanceof InputRuleError)) throw err;
      req.validationError = Object.assign(new Error(err.message), { validation: [err.issue], validationContext: err.part });
    }
  });
  await registerCors(app, ctx, contract);
  // Pages the server renders (hosted login, SSO returns, dev mailbox) must not be framed by other sites.
  app.addHook('onSend', (_req, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    // Production is served over https only: browsers must never fall back to plain http (#15).
    if (!ctx.devMode) reply.header('strict-transport-security', HSTS);
    if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
      reply.header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'no-referrer');
    }
    done(null, payload);
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);

  // The features, each an encapsulated plugin. The management API has no schemas of its own: its request validation
  // comes from api/openapi.yaml only, so its routes are registered only with a contract.
  const features: FeatureOptions = { ctx, management: contract !== undefined };
  await app.register(signin, features);
  await app.register(persons, features);
  await app.register(events, features);
  await app.register(oauth, features);
  await app.register(sso, features);
  await app.register(organizations, features);
  await app.register(webhooks, features);
  await app.register(tokens, features);
  if (ctx.devMode) await app.register(devMailbox, features);
  const operations = opts.operations;
  // One hook, callback style (no promise per request: validations are the hot path). A draining replica closes every
  // connection after its answer, so a balancer's kept-alive connection is not reused for a request that would
  // arrive as the replica stops; the answer is counted in the metrics once they are scraped.
  app.addHook('onSend', (req, reply, payload, done) => {
    if (operations.draining) reply.header('connection', 'close');
    operations.observe(req, reply);
    done(null, payload);
  });
  await app.register(ops, { operations });
  return app;
}
