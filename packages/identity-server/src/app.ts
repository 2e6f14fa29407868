import cors from '@fastify/cors';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import { originAllowed, type Ctx } from './context.js';
import { ApiError, errorEnvelope } from './errors.js';
import { CORRELATION_ID_HEADER, OPTIONAL_BODY, OpenApiContract } from './openapi.js';
import { RateLimitError } from './ratelimit.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerDevRoutes } from './routes/dev.js';
import { registerEventRoutes, requireApiKey } from './routes/events.js';
import { registerMeRoutes } from './routes/me.js';
import { registerFactorRoutes } from './routes/factors.js';
import { registerOAuthRoutes } from './routes/oauth.js';
import { registerManagementRoutes } from './routes/management.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { registerBulkImportRoutes } from './routes/bulk-import.js';
import { registerOrgConfigRoutes } from './routes/org-config.js';
import { registerSsoRoutes } from './routes/sso.js';
import { registerSsoTokenRoutes } from './routes/sso-tokens.js';
import './routes/webauthn.js';
import { checkJsonValue, checkNumericQuery, type QuerySchema } from './input-rules.js';
import { registerWellKnownRoutes } from './routes/wellknown.js';

// ajv and ajv-formats are CommonJS modules whose default export sits on `.default`.
const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

/** Ajv with formats, keeping unknown fields (so they can be rejected) and never inventing defaults. */
/** Strict-Transport-Security of production answers (identity server and docs server): a year, subdomains included. */
export const HSTS = 'max-age=31536000; includeSubDomains';

export function newAjv(coerceTypes: boolean) {
  const ajv = new Ajv({ removeAdditional: false, coerceTypes, useDefaults: false, allErrors: true, strict: false });
  addFormats(ajv);
  return ajv;
}

export const BODY_LIMIT_BYTES = 64 * 1024;

export interface AppOptions {
  corsOrigins: string[];
  logger?: boolean;
  /** When given, request schemas of every route the spec describes come from it (in-code schemas are the fallback). */
  contract?: OpenApiContract | undefined;
}

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  message?: string;
  params: Record<string, unknown>;
}

const depth = (p: string) => p.split('/').filter(Boolean).length;

/**
 * Drops the errors of `oneOf` branches that were never meant for this input: a branch whose discriminating property
 * (a `const`/`enum` right below the alternatives) or whose type does not match. What is left are the errors of the
 * branch the client was aiming at.
 */
function pruneOneOf(issues: ValidationIssue[]): ValidationIssue[] {
  let out = issues;
  for (const alt of issues.filter((i) => i.keyword === 'oneOf' || i.keyword === 'anyOf')) {
    const prefix = `${alt.schemaPath}/`;
    const branches = new Map<string, ValidationIssue[]>();
    for (const i of out) {
      if (!i.schemaPath.startsWith(prefix)) continue;
      const b = i.schemaPath.slice(prefix.length).split('/')[0]!;
      branches.set(b, [...(branches.get(b) ?? []), i]);
    }
    const rejected = new Set<string>();
    for (const [b, list] of branches) {
      const mismatch = list.some(
        (i) =>
          ((i.keyword === 'const' || i.keyword === 'enum') && depth(i.instancePath) === depth(alt.instancePath) + 1) ||
          (i.keyword === 'type' && i.instancePath === alt.instancePath),
      );
      if (mismatch) rejected.add(b);
    }
    const kept = [...branches.keys()].filter((b) => !rejected.has(b));
    if (kept.length > 0 && kept.length < branches.size) {
      out = out.filter((i) => i !== alt && !(i.schemaPath.startsWith(prefix) && rejected.has(i.schemaPath.slice(prefix.length).split('/')[0]!)));
    } else if (kept.length === 0 && branches.size > 0) {
      // No alternative fits: explain with the discriminator's allowed values, or the allowed types.
      const all = [...branches.values()].flat();
      const consts = all.filter((i) => i.keyword === 'const' && depth(i.instancePath) === depth(alt.instancePath) + 1);
      const types = all.filter((i) => i.keyword === 'type' && i.instancePath === alt.instancePath);
      let summary: ValidationIssue;
      if (consts.length && new Set(consts.map((c) => c.instancePath)).size === 1) {
        summary = { ...consts[0]!, keyword: 'enum', params: { allowedValues: [...new Set(consts.map((c) => c.params.allowedValue))] } };
      } else if (types.length === all.filter((i) => i.instancePath === alt.instancePath || depth(i.instancePath) > depth(alt.instancePath)).length && types.length) {
        summary = { ...types[0]!, params: { type: [...new Set(types.map((t) => String(t.params.type)))] } };
      } else {
        summary = { ...alt, keyword: 'shape', message: 'does not match any of the allowed shapes' };
      }
      out = [...out.filter((i) => !i.schemaPath.startsWith(prefix) && i !== alt), summary];
    }
  }
  return out;
}

/** Turns Ajv errors into one sentence naming the field, e.g. `body.factor has unknown field "x"`. */
export function describeValidation(context: string, raw: ValidationIssue[]): string {
  const issues = pruneOneOf(raw);
  // Prefer unknown fields and missing properties, outermost first (a missing discriminator before what depends on it).
  const ranked = [...issues].sort((a, b) => rank(a) - rank(b) || depth(a.instancePath) - depth(b.instancePath));
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
    case 'const':
      return `${where} must be ${JSON.stringify(issue.params.allowedValue)}`;
    case 'type':
      return `${where} must be of type ${Array.isArray(issue.params.type) ? issue.params.type.join(' or ') : String(issue.params.type)}`;
    default:
      return `${where} ${issue.message ?? 'is invalid'}`;
  }
}

function rank(i: ValidationIssue): number {
  if (i.keyword === 'additionalProperties' || i.keyword === 'required') return 0;
  if (i.keyword === 'oneOf' || i.keyword === 'anyOf' || i.keyword === 'shape') return 3;
  return 1;
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
  const contract = opts.contract;
  const strictAjv = contract?.bodyAjv ?? newAjv(false);
  const coercingAjv = contract?.paramAjv ?? newAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const validate = (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema);
    if (!(schema as Record<string, unknown>)[OPTIONAL_BODY]) return validate;
    // An optional request body may be absent altogether.
    const optional = (data: unknown) => {
      if (data === undefined || data === null) {
        optional.errors = null;
        return true;
      }
      const ok = validate(data);
      optional.errors = validate.errors;
      return ok;
    };
    optional.errors = null as typeof validate.errors;
    return optional;
  });
  if (contract) {
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

  app.addHook('onRequest', async (req, reply) => {
    reply.header(CORRELATION_ID_HEADER, req.id);
    // One region serves everything, so every consistency level is met at once; the headers are still checked.
    const level = req.headers['keyway-required-consistency'];
    if (level !== undefined && level !== 'local_region' && level !== 'all_regions') {
      throw new ApiError(400, 'Keyway-Required-Consistency must be local_region or all_regions');
    }
    const timeout = req.headers['keyway-required-consistency-timeout'];
    if (timeout !== undefined && !/^[1-9]\d{0,3}$/.test(String(timeout))) {
      throw new ApiError(400, 'Keyway-Required-Consistency-Timeout must be a whole number of seconds (1 to 9999)');
    }
  });

  // One set of rules for every JSON value and query of every route, before schema validation (src/input-rules.ts).
  app.addHook('preValidation', async (req) => {
    checkJsonValue(req.body, 'body');
    checkJsonValue(req.query, 'querystring');
    checkJsonValue(req.params, 'params');
    checkNumericQuery(req.query, req.routeOptions.schema?.querystring as QuerySchema);
  });

  // What browsers may send and read comes from the contract (every header and method it declares), so try-it and any
  // client the contract describes work from an allowed origin; without a contract file, only what needs no declaring.
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

  // Pages the server renders (hosted login, SSO returns, dev mailbox) must not be framed by other sites.
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    // Production is served over https only: browsers must never fall back to plain http (#15).
    if (!ctx.devMode) reply.header('strict-transport-security', HSTS);
    if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
      reply.header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'no-referrer');
    }
    return payload;
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
    // The OAuth2 protocol endpoints answer RFC 6749 errors (plus the envelope's `errors`).
    const protocol = /^\/oauth2\/tokens(\/(revoke|revoke-all|introspect))?(\?|$)/.test(req.url);
    if (protocol && status === 400) return reply.code(400).send({ error: 'invalid_request', error_description: message, ...errorEnvelope(status, message) });
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
  registerSsoRoutes(app, ctx);
  // The management API has no schemas of its own: its request validation comes from api/openapi.yaml only.
  if (contract) {
    registerManagementRoutes(app, ctx);
    registerWebhookRoutes(app, ctx);
    registerBulkImportRoutes(app, ctx);
    registerOrgConfigRoutes(app, ctx);
    registerSsoTokenRoutes(app, ctx);
  }
  registerWellKnownRoutes(app, ctx);
  if (ctx.devMode) registerDevRoutes(app, ctx);
  app.get('/health', async () => ({ result: { ok: true } }));
  return app;
}
