import cors from '@fastify/cors';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { Ctx } from './context.js';
import { ApiError, errorEnvelope } from './errors.js';
import { RateLimitError } from './ratelimit.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerDevRoutes } from './routes/dev.js';
import { registerEventRoutes } from './routes/events.js';
import { registerMeRoutes } from './routes/me.js';
import { registerFactorRoutes } from './routes/factors.js';
import { registerOAuthRoutes } from './routes/oauth.js';
import { registerWellKnownRoutes } from './routes/wellknown.js';

// ajv and ajv-formats are CommonJS modules whose default export sits on `.default`.
const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

/** Ajv with formats, keeping unknown fields (so they can be rejected) and never inventing defaults. */
export function newAjv(coerceTypes: boolean) {
  const ajv = new Ajv({ removeAdditional: false, coerceTypes, useDefaults: false, allErrors: true, strict: false });
  addFormats(ajv);
  return ajv;
}

export const BODY_LIMIT_BYTES = 64 * 1024;

export interface AppOptions {
  corsOrigins: string[];
  logger?: boolean;
}

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Turns an Ajv error into one sentence naming the field, e.g. `body.factor has unknown field "x"`. */
export function describeValidation(context: string, issues: ValidationIssue[]): string {
  // Prefer the most specific issue: unknown fields and missing properties over oneOf summaries.
  const ranked = [...issues].sort((a, b) => rank(a) - rank(b));
  const issue = ranked[0];
  if (!issue) return `${context} is invalid`;
  const where = [context, ...issue.instancePath.split('/').filter(Boolean)].join('.');
  switch (issue.keyword) {
    case 'additionalProperties':
      return `${where} has unknown field "${String(issue.params.additionalProperty)}"`;
    case 'required':
      return `${where} is missing required field "${String(issue.params.missingProperty)}"`;
    case 'enum':
      return `${where} must be one of ${(issue.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'type':
      return `${where} must be of type ${Array.isArray(issue.params.type) ? issue.params.type.join(' or ') : String(issue.params.type)}`;
    default:
      return `${where} ${issue.message ?? 'is invalid'}`;
  }
}

function rank(i: ValidationIssue): number {
  if (i.keyword === 'additionalProperties' || i.keyword === 'required') return 0;
  if (i.keyword === 'oneOf' || i.keyword === 'anyOf') return 3;
  return 1 + (i.instancePath === '' ? 1 : 0);
}

export async function buildApp(ctx: Ctx, opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true } },
    genReqId: () => crypto.randomUUID(),
  });

  // Query strings and path parameters are strings: coerce those (limit=10) but never JSON bodies.
  const strictAjv = newAjv(false);
  const coercingAjv = newAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema));

  app.addHook('onRequest', async (req, reply) => {
    reply.header('keyway-correlation-id', req.id);
  });

  await app.register(cors, {
    origin: opts.corsOrigins,
    credentials: false,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Keyway-OrgID',
      'Keyway-SdkVersion',
      'Keyway-SdkRetryCount',
      'Keyway-Required-Consistency',
      'Keyway-Required-Consistency-Timeout',
    ],
    exposedHeaders: ['Keyway-Correlation-Id', 'Retry-After'],
    maxAge: 600,
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    let status: number;
    let message: string;
    if (err instanceof ApiError) {
      status = err.status;
      message = err.message;
      if (err instanceof RateLimitError) reply.header('retry-after', String(err.retryAfterSeconds));
    } else if (err.validation) {
      status = 400;
      const context = err.validationContext ?? 'request';
      message =
        context === 'body' && req.body === undefined
          ? 'request body is missing: send a JSON object with Content-Type: application/json'
          : describeValidation(context, err.validation as unknown as ValidationIssue[]);
    } else if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      status = 415;
      message = `unsupported Content-Type "${req.headers['content-type'] ?? ''}": send application/json`;
    } else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      status = 413;
      message = `request body is larger than ${BODY_LIMIT_BYTES} bytes`;
    } else if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      status = 400;
      message = 'request body is empty but Content-Type is application/json: send a JSON object';
    } else if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) {
      status = 400;
      message = `malformed JSON body: ${err.message}`;
    } else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      status = err.statusCode;
      message = err.message;
    } else {
      req.log.error({ err }, 'unhandled error');
      status = 500;
      message = `internal error (correlation id ${req.id})`;
    }
    reply.code(status).send(errorEnvelope(status, message));
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorEnvelope(404, `no route for ${req.method} ${req.url.split('?')[0]}`));
  });

  registerAuthRoutes(app, ctx);
  registerMeRoutes(app, ctx);
  registerEventRoutes(app, ctx);
  registerFactorRoutes(app, ctx);
  registerOAuthRoutes(app, ctx);
  registerWellKnownRoutes(app, ctx);
  if (ctx.devMode) registerDevRoutes(app, ctx);
  app.get('/health', async () => ({ result: { ok: true } }));
  return app;
}
