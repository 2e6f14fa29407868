import { CONTRACT_PATH, loadContract } from '@keyway/api';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// CommonJS modules whose default export sits on `.default` under NodeNext.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;
type Ajv = InstanceType<typeof Ajv2020>;

/** `openapi.yaml` of `@keyway/api` (the single source of truth of the REST contract). */
export const DEFAULT_OPENAPI_PATH = CONTRACT_PATH;
export const SPEC_ID = 'keyway-openapi';
/** Marks a body schema whose operation declares the request body optional. */
export const OPTIONAL_BODY = 'x-keyway-optional-body';

interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  schema?: Record<string, unknown>;
  $ref?: string;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { headers?: Record<string, unknown> }>;
  security?: Array<Record<string, unknown>>;
}

interface SecurityScheme {
  type: string;
  in?: string;
  name?: string;
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components?: { parameters?: Record<string, Parameter>; responses?: Record<string, unknown>; securitySchemes?: Record<string, SecurityScheme> };
}

/** What browsers may send and read cross-origin, as the contract declares it (see `OpenApiContract.cors`). */
export interface CorsDeclaration {
  methods: string[];
  allowedHeaders: string[];
  exposedHeaders: string[];
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Response headers every browser lets a page read without them being exposed (Fetch's CORS-safelisted ones). */
const SAFELISTED_RESPONSE_HEADERS = new Set(['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma']);
/**
 * Set by the server on every answer rather than declared per operation: the request id (the published SDK reads it
 * into its errors' context).
 */
export const CORRELATION_ID_HEADER = 'Keyway-Correlation-ID';

/** Escapes one JSON-pointer segment. */
const seg = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** `/challenge/:challenge_id` → `/challenge/{challenge_id}` */
export const toOpenApiPath = (fastifyPath: string) => fastifyPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The loaded spec plus Ajv instances that know it (JSON Schema 2020-12, as OpenAPI 3.1 uses). */
export class OpenApiContract {
  readonly bodyAjv: Ajv;
  readonly paramAjv: Ajv;

  constructor(readonly doc: OpenApiDoc) {
    this.bodyAjv = newSpecAjv(doc, false);
    this.paramAjv = newSpecAjv(doc, true);
  }

  private readonly routeCache = new Map<string, ReturnType<OpenApiContract['routeSchemas']>>();
  private static readonly loaded = new Map<string, { text: string; contract: OpenApiContract }>();

  /**
   * Loads the contract at `path` with `@keyway/api`'s loader (compiled validators are shared by every server of the
   * process while the document is unchanged).
   * @throws {ContractError} of `@keyway/api` when the document is missing or unreadable: there is no server without it.
   */
  static load(path: string = DEFAULT_OPENAPI_PATH): OpenApiContract {
    const { path: file, text, doc } = loadContract(path);
    const hit = OpenApiContract.loaded.get(file);
    if (hit && hit.text === text) return hit.contract;
    const contract = new OpenApiContract(inlineRefs(doc as unknown as OpenApiDoc));
    OpenApiContract.loaded.set(file, { text, contract });
    return contract;
  }

  operation(method: string, fastifyPath: string): { op: Operation; pointer: string } | undefined {
    const path = toOpenApiPath(fastifyPath);
    const m = method.toLowerCase();
    const op = this.doc.paths[path]?.[m];
    return op ? { op, pointer: `#/paths/${seg(path)}/${m}` } : undefined;
  }

  private param(p: Parameter): Parameter {
    if (!p.$ref) return p;
    const name = p.$ref.split('/').pop()!;
    return this.doc.components?.parameters?.[name] ?? p;
  }

  /**
   * The request methods and headers a browser page may use, and the response headers it may read, derived from the
   * operations: every method used; every header parameter, every `apiKey` scheme sent in a header, `Authorization`
   * when an http or oauth2 scheme is used, `Content-Type` when a body is sent; every response header declared (minus
   * the ones browsers always expose) plus the correlation id the server adds to every answer. Sorted, no duplicates.
   */
  cors(): CorsDeclaration {
    const methods = new Set<string>();
    const allowed = new Map<string, string>();
    const exposed = new Map<string, string>([[CORRELATION_ID_HEADER.toLowerCase(), CORRELATION_ID_HEADER]]);
    const add = (into: Map<string, string>, name: string) => void (into.has(name.toLowerCase()) || into.set(name.toLowerCase(), name));
    const schemes = this.doc.components?.securitySchemes ?? {};
    for (const item of Object.values(this.doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue;
        methods.add(method.toUpperCase());
        for (const p of (op.parameters ?? []).map((q) => this.param(q))) if (p.in === 'header') add(allowed, p.name);
        if (op.requestBody?.content && Object.keys(op.requestBody.content).length) add(allowed, 'Content-Type');
        for (const alternative of op.security ?? []) {
          for (const name of Object.keys(alternative)) {
            const scheme = schemes[name];
            if (scheme?.type === 'apiKey' && scheme.in === 'header' && scheme.name) add(allowed, scheme.name);
            else if (scheme && ['http', 'oauth2', 'openIdConnect'].includes(scheme.type)) add(allowed, 'Authorization');
          }
        }
        for (const response of Object.values(op.responses ?? {})) {
          for (const name of Object.keys(response?.headers ?? {})) if (!SAFELISTED_RESPONSE_HEADERS.has(name.toLowerCase())) add(exposed, name);
        }
      }
    }
    const sorted = (m: Map<string, string>) => [...m.values()].sort((a, b) => a.localeCompare(b));
    return { methods: [...methods].sort(), allowedHeaders: sorted(allowed), exposedHeaders: sorted(exposed) };
  }

  /** Whether the operation can only be called with a management API key (every security alternative names ApiKey). */
  requiresApiKey(method: string, fastifyPath: string): boolean {
    const security = this.operation(method, fastifyPath)?.op.security ?? [];
    return security.length > 0 && security.every((s) => 'ApiKey' in s);
  }

  /**
   * Fastify route schemas from the spec: the JSON (or form) request body, and query/path parameters as objects.
   * List parameters arrive comma-joined (`style: form, explode: false`: one string) or repeated (`a=x&a=y`, as the
   * published client sends consent levels: an array): both are accepted here and split by the handlers.
   */
  routeSchemas(method: string, fastifyPath: string): { body?: unknown; querystring?: unknown; params?: unknown } | undefined {
    // The same schema objects for every server of this process, so Ajv compiles each validator once.
    const key = `${method} ${fastifyPath}`;
    if (!this.routeCache.has(key)) this.routeCache.set(key, this.buildRouteSchemas(method, fastifyPath));
    return this.routeCache.get(key);
  }

  private buildRouteSchemas(method: string, fastifyPath: string): { body?: unknown; querystring?: unknown; params?: unknown } | undefined {
    const found = this.operation(method, fastifyPath);
    if (!found) return undefined;
    const out: { body?: unknown; querystring?: unknown; params?: unknown } = {};
    const content = found.op.requestBody?.content;
    const mediaType = content && (['application/json', 'application/x-www-form-urlencoded'].find((t) => content[t]?.schema) ?? undefined);
    if (mediaType) {
      out.body = {
        $ref: `${SPEC_ID}${found.pointer}/requestBody/content/${seg(mediaType)}/schema`,
        ...(found.op.requestBody?.required ? {} : { [OPTIONAL_BODY]: true }),
      };
    }
    const params = (found.op.parameters ?? []).map((p) => this.param(p));
    // The management API refuses a query parameter it does not declare (400 naming it): ignoring `?handle=` on a
    // listing would answer every person. The sign-in and OAuth endpoints ignore unknown parameters (OAuth 2.0 §3.1).
    const strictQuery = this.requiresApiKey(method, fastifyPath);
    for (const where of ['query', 'path'] as const) {
      const list = params.filter((p) => p.in === where);
      if (!list.length && !(where === 'query' && strictQuery)) continue;
      const properties: Record<string, unknown> = {};
      for (const p of list) {
        const s = p.schema ?? {};
        properties[p.name] = s.type === 'array' ? LIST_PARAM : resolveRefs(s);
      }
      const schema = { type: 'object', properties, required: list.filter((p) => p.required).map((p) => p.name), ...(where === 'query' && strictQuery ? { additionalProperties: false } : {}) };
      if (where === 'query') out.querystring = schema;
      else out.params = schema;
    }
    return out;
  }
}

/** A list query parameter: one comma-joined string, or the parameter repeated. */
const LIST_PARAM = { anyOf: [{ type: 'string', maxLength: 4096 }, { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 4096 } }] };

/**
 * Replaces local `$ref`s by the objects they point to (recursive ones stay references). With every schema inline,
 * Ajv's error paths run through the `oneOf` branches, which lets error messages name the branch the client meant.
 */
export function inlineRefs<T>(doc: T): T {
  const done = new Map<string, unknown>();
  const lookup = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), doc);
  const walk = (node: unknown, stack: string[]): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, stack));
    if (!node || typeof node !== 'object') return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/')) {
      if (stack.includes(ref)) return node;
      if (!done.has(ref)) {
        const target = lookup(ref);
        if (target === undefined) return node;
        done.set(ref, walk(target, [...stack, ref]));
      }
      const { $ref: _drop, ...siblings } = node as Record<string, unknown>;
      const resolved = done.get(ref) as Record<string, unknown>;
      return Object.keys(siblings).length ? { ...resolved, ...(walk(siblings, stack) as object) } : resolved;
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = walk(v, stack);
    return out;
  };
  return walk(doc, []) as T;
}

/** Rewrites local `#/components/...` refs of a fragment to point into the registered spec document. */
function resolveRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(resolveRefs);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${SPEC_ID}${v}` : resolveRefs(v);
  return out;
}

export function newSpecAjv(doc: OpenApiDoc | undefined, coerceTypes: boolean): Ajv {
  const ajv = new Ajv2020({ removeAdditional: false, coerceTypes, useDefaults: false, allErrors: true, strict: false, validateSchema: false });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'example' });
  if (doc) ajv.addSchema({ ...doc, $id: SPEC_ID } as object, SPEC_ID);
  return ajv;
}
