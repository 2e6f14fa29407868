// @ts-check
// The operation builder: one call per REST operation, with the envelope, shared parameters,
// security and error answers filled in the same way everywhere.
import { ref, paramRef, responseRef } from './lib.mjs';
import { SECURITY } from './components.mjs';

/** Tags whose operations also carry the umbrella tag `identity-management` (api-operations.md). */
export const UMBRELLA_TAGS = new Set([
  'groups', 'persons', 'person-attributes', 'person-consents', 'person-credentials', 'person-handles', 'organizations',
  'organization-allowed-domains', 'organization-attributes', 'organization-email-templates',
  'organization-external-credentials', 'organization-kyc-config', 'organization-sso-config',
  'organization-token-template', 'organization-webhooks', 'rbac', 'tokens', 'o-auth-2', 'sso', 'persons-bulk-import',
]);

const ERROR_STATUS = {
  BadRequest: 400, IdBadRequest: 400, AttestationBadRequest: 400, OAuth2BadRequest: 400,
  Unauthorized: 401, AttestationUnauthorized: 401, OAuth2Unauthorized: 401,
  Forbidden: 403, IdForbidden: 403, AttestationForbidden: 403,
  NotFound: 404, RequestTimeout: 408, Conflict: 409, PersonExists: 409, PreconditionFailed: 412,
  PayloadTooLarge: 413, UnsupportedMediaType: 415, TooManyRequests: 429, MessageNotSent: 502, ProviderUnavailable: 502,
};

const MUTATING = new Set(['post', 'put', 'patch', 'delete']);

/**
 * @typedef {object} OkSpec
 * @property {number} [status] a 2xx status (default 200, or 204 when there is no schema)
 * @property {object} [schema] schema of `result` (or of the whole body when raw)
 * @property {unknown} [example] example of `result` (or of the whole body when raw)
 * @property {string} [description]
 * @property {boolean} [paginated] envelope carries meta.pagination
 * @property {boolean} [raw] body is not wrapped in the envelope (protocol endpoints)
 * @property {string} [contentType]
 * @property {object} [headers]
 *
 * @typedef {object} OpSpec
 * @property {string} method
 * @property {string} path
 * @property {string} id operationId
 * @property {string[]} tags
 * @property {string} summary
 * @property {string} description
 * @property {keyof typeof SECURITY} security
 * @property {boolean} [sdk] called by the browser SDK (SDK headers documented)
 * @property {(string|object)[]} [params] component parameter names or inline parameter objects
 * @property {{schema: object, example: unknown, contentType?: string, required?: boolean, description?: string, sample?: object}} [body]
 *   `sample`: extensions for the reference's request samples, merged into the media type (`x-sample-variables`: body fields
 *   the reader supplies as a variable; `x-sample-filenames`: the file name of each multipart file part)
 * @property {OkSpec} ok
 * @property {OkSpec[]} [moreOk] further success answers (e.g. 202)
 * @property {string[]} [errors] extra error answers (component names); replace the default of the same status
 * @property {boolean} [consistency] accepts the consistency headers (default: mutating management calls)
 * @property {boolean} [deprecated]
 */

/** @param {OkSpec} ok @returns {[string, import('./lib.mjs').Json]} */
function successResponse(ok) {
  const status = String(ok.status ?? (ok.schema ? 200 : 204));
  if (!ok.schema) return [status, { description: ok.description ?? 'Done; no content.', ...(ok.headers ? { headers: ok.headers } : {}) }];
  const schema = ok.raw
    ? ok.schema
    : { allOf: [ref('Envelope'), { type: 'object', required: ['result'], properties: { result: ok.schema } }] };
  const example = ok.raw
    ? ok.example
    : { result: ok.example, ...(ok.paginated ? { meta: { pagination: paginationOf(ok.example), cursor_pagination: cursorPaginationOf(ok.example) } } : {}) };
  return [status, {
    description: ok.description ?? ({ 201: 'Created.', 202: 'Accepted.' }[status] ?? 'Success.'),
    ...(ok.headers ? { headers: ok.headers } : {}),
    content: { [ok.contentType ?? 'application/json']: { schema, example } },
  }];
}

/** @param {unknown} example */
function paginationOf(example) {
  const count = Array.isArray(example) ? example.length : 1;
  return { limit: 100, offset: 0, total_count: count };
}

/** @param {unknown} example */
function cursorPaginationOf(example) {
  const count = Array.isArray(example) ? example.length : 1;
  return { cursor: '', limit: 100, total_count: count };
}

/** @param {OpSpec} spec */
export function operation(spec) {
  const tags = [...spec.tags];
  if (tags.some((t) => UMBRELLA_TAGS.has(t)) && !tags.includes('identity-management')) tags.push('identity-management');

  const params = (spec.params ?? []).map((p) => (typeof p === 'string' ? paramRef(p) : p));
  // The SDK's request headers: the organization (where the operation takes one), its version, its retry count.
  if (spec.sdk && SECURITY[spec.security].some((s) => 'OrgId' in s)) params.push(paramRef('OrgIdHeader'));
  if (spec.sdk) params.push(paramRef('SdkVersion'), paramRef('SdkRetryCount'));
  const consistency = spec.consistency ?? (spec.security === 'management' && MUTATING.has(spec.method));
  if (consistency) params.push(paramRef('RequiredConsistency'), paramRef('RequiredConsistencyTimeout'));

  /** @type {Record<number, string>} */
  const errors = {};
  if (spec.body) Object.assign(errors, { 400: 'BadRequest', 413: 'PayloadTooLarge', 415: 'UnsupportedMediaType' });
  else if (params.length) errors[400] = 'BadRequest';
  if (spec.security !== 'none') errors[401] = 'Unauthorized';
  if (spec.security === 'management') errors[403] = 'Forbidden';
  if ((spec.params ?? []).some((p) => typeof p === 'string' && p.endsWith('Path'))) errors[404] = 'NotFound';
  if (consistency) errors[408] = 'RequestTimeout';
  errors[429] = 'TooManyRequests';
  for (const name of spec.errors ?? []) {
    const status = ERROR_STATUS[/** @type {keyof typeof ERROR_STATUS} */ (name)];
    if (!status) throw new Error(`${spec.id}: unknown error response ${name}`);
    errors[status] = name;
  }

  const responses = Object.fromEntries([spec.ok, ...(spec.moreOk ?? [])].map(successResponse));
  for (const status of Object.keys(errors).sort()) responses[status] = responseRef(errors[Number(status)] ?? '');

  return {
    tags,
    operationId: spec.id,
    summary: spec.summary,
    description: spec.description.trim(),
    ...(spec.deprecated ? { deprecated: true } : {}),
    security: SECURITY[spec.security],
    ...(params.length ? { parameters: params } : {}),
    ...(spec.body ? {
      requestBody: {
        required: spec.body.required ?? true,
        ...(spec.body.description ? { description: spec.body.description } : {}),
        content: { [spec.body.contentType ?? 'application/json']: { schema: spec.body.schema, example: spec.body.example, ...(spec.body.sample ?? {}) } },
      },
    } : {}),
    responses,
  };
}

/** Collects operations into an OpenAPI `paths` object, refusing duplicates. */
export class PathRegistry {
  /** @type {Record<string, Record<string, object>>} */
  paths = {};

  /** @param {OpSpec[]} specs */
  add(...specs) {
    for (const spec of specs) {
      const item = (this.paths[spec.path] ??= {});
      if (item[spec.method]) throw new Error(`duplicate operation ${spec.method.toUpperCase()} ${spec.path}`);
      item[spec.method] = operation(spec);
    }
  }
}
