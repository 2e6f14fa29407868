// Reading api/openapi.yaml for the reference: the operations in document order, their slugs and tags, and $ref lookup.
import { CONTRACT_PATH, loadContract } from '@keyway/api';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;
/** The umbrella tag: its category lists every management operation, the sidebar files operations under their own tag. */
export const UMBRELLA_TAG = 'identity-management';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  title?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  enum?: Json[];
  const?: Json;
  default?: Json;
  example?: Json;
  examples?: Json[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  contentMediaType?: string;
  deprecated?: boolean;
  readOnly?: boolean;
  writeOnly?: boolean;
}

export interface Parameter {
  $ref?: string;
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: Schema;
  example?: Json;
  deprecated?: boolean;
  /** Query arrays: form-exploded (the name repeated) unless `explode: false` (one comma-joined value). */
  explode?: boolean;
}

export interface MediaType {
  schema?: Schema;
  example?: Json;
  examples?: Record<string, { summary?: string; value?: Json; $ref?: string }>;
  /** multipart/form-data: the content type of each part (OpenAPI's Encoding Object). */
  encoding?: Record<string, { contentType?: string }>;
  /** Samples only: top-level body fields the reader supplies, by field name, as the variable that holds them. */
  'x-sample-variables'?: Record<string, string>;
  /** Samples only: the file name a multipart sample gives each file part, by field name. */
  'x-sample-filenames'?: Record<string, string>;
}

export interface Response {
  $ref?: string;
  description?: string;
  content?: Record<string, MediaType>;
  headers?: Record<string, { description?: string; schema?: Schema; $ref?: string }>;
}

export interface RequestBody {
  $ref?: string;
  required?: boolean;
  description?: string;
  content?: Record<string, MediaType>;
}

export interface RawOperation {
  tags?: string[];
  operationId?: string;
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: RequestBody;
  responses?: Record<string, Response>;
  deprecated?: boolean;
}

export interface SecurityScheme {
  type: string;
  in?: string;
  name?: string;
  scheme?: string;
  description?: string;
}

export interface OpenApiDocument {
  info?: { title?: string; version?: string };
  servers?: { url: string; description?: string }[];
  tags?: { name: string; description?: string }[];
  security?: Record<string, string[]>[];
  paths?: Record<string, Record<string, unknown>>;
  components?: {
    schemas?: Record<string, Schema>;
    parameters?: Record<string, Parameter>;
    responses?: Record<string, Response>;
    requestBodies?: Record<string, RequestBody>;
    securitySchemes?: Record<string, SecurityScheme>;
    examples?: Record<string, { value?: Json }>;
  };
}

export interface Operation {
  method: (typeof HTTP_METHODS)[number];
  path: string;
  /** `/docs/api/<slug>`: the method and the path in words. */
  slug: string;
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  /** The tag whose sidebar group holds the page: the first tag other than the umbrella. */
  primaryTag: string;
  raw: RawOperation;
  /** Path-level and operation-level parameters, $refs resolved, operation-level winning. */
  parameters: Parameter[];
  /** The security alternatives (each a set of schemes sent together); empty when the call needs none. */
  security: Record<string, string[]>[];
}

/** GET /persons/{person_id}/attributes -> get-persons-person-id-attributes */
export function operationSlug(method: string, apiPath: string): string {
  const words = `${method} ${apiPath}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return words;
}

export class ApiSpec {
  constructor(readonly doc: OpenApiDocument) {}

  /** The contract at `file` (default: `@keyway/api`'s `openapi.yaml`), read with `@keyway/api`'s loader. */
  static load(file: string = CONTRACT_PATH): ApiSpec {
    try {
      return new ApiSpec(loadContract(file).doc as unknown as OpenApiDocument);
    } catch (e) {
      throw new Error(`API reference: ${(e as Error).message}`);
    }
  }

  /** Follows a local `#/components/...` reference. */
  lookup<T>(ref: string): T {
    if (!ref.startsWith('#/')) throw new Error(`API reference: only local $refs are supported, got ${ref}`);
    let node: unknown = this.doc;
    for (const part of ref.slice(2).split('/')) {
      const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
      node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
      if (node === undefined) throw new Error(`API reference: the $ref ${ref} points to nothing`);
    }
    return node as T;
  }

  /** Resolves a chain of $refs at the top of an object (not inside it). */
  deref<T extends { $ref?: string }>(node: T): T {
    let cur = node;
    for (let hops = 0; cur.$ref; hops++) {
      if (hops > 20) throw new Error(`API reference: $ref loop at ${node.$ref}`);
      cur = this.lookup<T>(cur.$ref);
    }
    return cur;
  }

  operations(): Operation[] {
    const ops: Operation[] = [];
    const slugs = new Map<string, string>();
    for (const [apiPath, item] of Object.entries(this.doc.paths ?? {})) {
      const shared = ((item.parameters as Parameter[] | undefined) ?? []).map((p) => this.deref(p));
      for (const method of HTTP_METHODS) {
        const raw = item[method] as RawOperation | undefined;
        if (!raw) continue;
        const where = `${method.toUpperCase()} ${apiPath}`;
        const slug = operationSlug(method, apiPath);
        const clash = slugs.get(slug);
        if (clash) throw new Error(`API reference: ${where} and ${clash} would share the page /docs/api/${slug}`);
        slugs.set(slug, where);
        const tags = raw.tags ?? [];
        const primaryTag = tags.find((t) => t !== UMBRELLA_TAG) ?? tags[0];
        if (!primaryTag) throw new Error(`API reference: ${where} has no tag, so it belongs to no category`);
        const own = (raw.parameters ?? []).map((p) => this.deref(p));
        const parameters = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own];
        ops.push({
          method,
          path: apiPath,
          slug,
          operationId: raw.operationId ?? slug,
          summary: raw.summary ?? where,
          description: raw.description ?? '',
          tags,
          primaryTag,
          raw,
          parameters,
          security: raw.security ?? this.doc.security ?? [],
        });
      }
    }
    return ops;
  }
}
