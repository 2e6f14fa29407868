// Test helpers: load the committed OpenAPI document, parse the operations list of the spec, and compile the
// document's schemas with Ajv (JSON Schema 2020-12, formats on).
import { fileURLToPath } from 'node:url';
import { CONTRACT_PATH, loadContract } from '@keyway/api';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

export const API_DIR = fileURLToPath(new URL('..', import.meta.url));
export const OPENAPI_PATH = CONTRACT_PATH;
/** The repository's copy of the spec (spec/, kept equal to ../shared/spec by site/test/spec-copy.test.ts). */
export const OPERATIONS_MD = process.env.KEYWAY_API_OPERATIONS_MD ?? fileURLToPath(new URL('../../spec/api-operations.md', import.meta.url));

export type Json = Record<string, unknown>;
export interface Operation extends Json {
  tags?: string[];
  operationId?: string;
  summary?: string;
  description?: string;
  security?: Json[];
  parameters?: Json[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, Json>;
}
export interface MediaType { schema?: Json; example?: unknown; examples?: Record<string, { value: unknown }> }
export interface Doc { paths: Record<string, Record<string, Operation>>; components: Record<string, Record<string, Json>> }

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

export function loadDoc(): Doc {
  return loadContract().doc as unknown as Doc;
}

export function operationsOf(doc: Doc): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).filter(([m]) => HTTP_METHODS.includes(m)).map(([method, op]) => ({ method, path, op })));
}

export interface ListedOperation { tag: string; method: string; path: string; auth?: string }

/** Parses api-operations.md: `## tag (N)` headings followed by `- \`METHOD /path\` — summary` bullets. */
export function parseOperationsMd(text: string): { listed: ListedOperation[]; counts: Map<string, number>; umbrella: string[]; sdk: { method: string; path: string }[] } {
  const listed: ListedOperation[] = [];
  const counts = new Map<string, number>();
  let tag: string | undefined;
  for (const line of text.split('\n')) {
    const heading = /^## ([a-z0-9-]+)(?: \((\d+)\))?\s*$/.exec(line);
    if (heading) {
      tag = heading[1];
      if (heading[2] && tag) counts.set(tag, Number(heading[2]));
      continue;
    }
    if (line.startsWith('## ')) tag = undefined;
    const bullet = /^- `(GET|POST|PUT|PATCH|DELETE) (\/[^`]*)`.*?(?:\[auth: ([^\]]+)\])?$/.exec(line);
    if (bullet && tag) listed.push({ tag, method: bullet[1]!.toLowerCase(), path: bullet[2]!, auth: bullet[3] });
  }
  const umbrellaLine = /every operation tagged ([^.]+?) carries it too/s.exec(text.replace(/\n/g, ' '));
  const umbrella = (umbrellaLine?.[1] ?? '').split(/,\s*|\s+or\s+/).map((s) => s.trim()).filter(Boolean);
  const sdkSection = text.split(/^## SDK-facing.*$/m)[1] ?? '';
  const sdk: { method: string; path: string }[] = [];
  let methods: string[] = [];
  let previous = '';
  for (const m of sdkSection.matchAll(/`((?:[A-Z]+\|)*[A-Z]+ )?(\/[^`\s]+)`/g)) {
    let path = m[2]!;
    if (m[1]) methods = m[1].trim().split('|').map((x) => x.toLowerCase());
    else path = continuePath(previous, path);
    previous = path;
    for (const method of methods) sdk.push({ method, path });
  }
  return { listed, counts, umbrella, sdk };
}

/**
 * The SDK list abbreviates versions of the previous path: after `/persons/{person_id}/impersonate`, `/impersonate/v2`
 * means `/persons/{person_id}/impersonate/v2`. Joins at the segment boundary where the previous path's tail starts
 * the abbreviation.
 */
export function continuePath(previous: string, abbreviated: string): string {
  for (let i = 0; i < previous.length; i++) {
    if (previous[i] === '/' && abbreviated.startsWith(previous.slice(i))) return previous.slice(0, i) + abbreviated;
  }
  return abbreviated;
}

/** Ajv 2020 with formats, knowing every component schema under its `#/components/schemas/X` pointer. */
export function schemaValidator(doc: Doc): (schema: Json) => ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
  addFormats(ajv);
  // OpenAPI 3.1 keeps `example` beside JSON Schema's `examples` (the server's validator knows it too).
  ajv.addKeyword({ keyword: 'example' });
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', 'keyway-components#/$defs/') : rewrite(v),
      ]));
    }
    return value;
  };
  ajv.addSchema({ $id: 'keyway-components', $defs: rewrite(doc.components.schemas) as Json });
  const cache = new Map<Json, ValidateFunction>();
  return (schema) => {
    let fn = cache.get(schema);
    if (!fn) {
      fn = ajv.compile(rewrite(schema) as Json);
      cache.set(schema, fn);
    }
    return fn;
  };
}

export function resolve<T>(doc: Doc, value: T | { $ref: string }): T {
  if (value && typeof value === 'object' && '$ref' in value && typeof value.$ref === 'string') {
    const [, section, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(value.$ref) ?? [];
    const target = section && name ? doc.components[section]?.[name] : undefined;
    if (!target) throw new Error(`unresolvable $ref ${value.$ref}`);
    return target as T;
  }
  return value as T;
}

export const PRODUCT_SPEC_MD = process.env.KEYWAY_PRODUCT_SPEC_MD ?? fileURLToPath(new URL('../../spec/product-spec.md', import.meta.url));

export interface SpecCall { method: string; path: string; orgIdHeader: boolean; row: string }

/**
 * Parses the call table of product-spec.md §7. A cell lists methods then a path, and abbreviates further versions:
 * `POST /attestation, /v2, /v3`, `GET /token and /token/v2`, `POST /actions/sdk, POST /events`.
 */
export function parseSpecCalls(text: string): SpecCall[] {
  const section = text.split(/^## 7\. /m)[1]?.split(/^## 8\. /m)[0] ?? '';
  const calls: SpecCall[] = [];
  for (const line of section.split('\n')) {
    const cells = /^\|\s*([^|]+?)\s*\|\s*([^|]*?)\s*\|$/.exec(line);
    if (!cells || !/\//.test(cells[1]!)) continue;
    const row = cells[1]!;
    const orgIdHeader = /org id header/.test(cells[2]!);
    let methods: string[] = [];
    let collecting = false;
    let base = '';
    for (const token of row.replace('{host}', '').matchAll(/\b(GET|POST|PUT|PATCH|DELETE)\b|(\/[^\s,]+)/g)) {
      if (token[1]) {
        if (!collecting) methods = [];
        methods.push(token[1].toLowerCase());
        collecting = true;
        continue;
      }
      const raw = token[2]!;
      let path: string;
      if (collecting) path = base = raw;
      else if (/^\/v\d+$/.test(raw)) path = base + raw;
      else path = continuePath(base, raw);
      collecting = false;
      for (const method of methods) calls.push({ method, path, orgIdHeader, row });
    }
  }
  return calls;
}
