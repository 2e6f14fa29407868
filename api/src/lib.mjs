// @ts-check
// Small builders that keep the Keyway OpenAPI source short and consistent.
// Everything here produces plain JSON-compatible objects; build.mjs serialises them to openapi.yaml.

/** @typedef {Record<string, unknown>} Json a JSON object of the document (schema, parameter, answer…) */

/** @param {string} name component schema name */
export const ref = (name) => ({ $ref: `#/components/schemas/${name}` });
/** @param {string} name component parameter name */
export const paramRef = (name) => ({ $ref: `#/components/parameters/${name}` });
/** @param {string} name component response name */
export const responseRef = (name) => ({ $ref: `#/components/responses/${name}` });

/**
 * Closed object: every listed property, `required` names, unknown fields rejected.
 * @param {Record<string, unknown>} properties @param {string[]} [required] @param {Json} [extra]
 */
export function closed(properties, required = [], extra = {}) {
  return { type: 'object', additionalProperties: false, ...(required.length ? { required } : {}), properties, ...extra };
}

/**
 * Open object (responses: the server may add fields later without breaking clients).
 * @param {Record<string, unknown>} properties @param {string[]} [required] @param {Json} [extra]
 */
export function open(properties, required = [], extra = {}) {
  return { type: 'object', ...(required.length ? { required } : {}), properties, ...extra };
}

/** @param {unknown} items @param {Json} [extra] */
export const arrayOf = (items, extra = {}) => ({ type: 'array', items, ...extra });
/** @param {Json} [extra] */
export const str = (extra = {}) => ({ type: 'string', ...extra });
/** @param {Json} [extra] */
export const int = (extra = {}) => ({ type: 'integer', ...extra });
/** @param {string} [description] */
export const bool = (description) => ({ type: 'boolean', ...(description ? { description } : {}) });
/** @param {string} [description] */
export const dateTime = (description) => ({ type: 'string', format: 'date-time', ...(description ? { description } : {}) });
/** @param {unknown} schema */
export const nullable = (schema) => ({ oneOf: [schema, { type: 'null' }] });
