// Small builders that keep the Keyway OpenAPI source short and consistent.
// Everything here produces plain JSON-compatible objects; build.mjs serialises them to openapi.yaml.

/** @param {string} name component schema name */
export const ref = (name) => ({ $ref: `#/components/schemas/${name}` });
export const paramRef = (name) => ({ $ref: `#/components/parameters/${name}` });
export const responseRef = (name) => ({ $ref: `#/components/responses/${name}` });

/** Closed object: every listed property, `required` names, unknown fields rejected. */
export function closed(properties, required = [], extra = {}) {
  return { type: 'object', additionalProperties: false, ...(required.length ? { required } : {}), properties, ...extra };
}

/** Open object (responses: the server may add fields later without breaking clients). */
export function open(properties, required = [], extra = {}) {
  return { type: 'object', ...(required.length ? { required } : {}), properties, ...extra };
}

export const arrayOf = (items, extra = {}) => ({ type: 'array', items, ...extra });
export const str = (extra = {}) => ({ type: 'string', ...extra });
export const int = (extra = {}) => ({ type: 'integer', ...extra });
export const bool = (description) => ({ type: 'boolean', ...(description ? { description } : {}) });
export const dateTime = (description) => ({ type: 'string', format: 'date-time', ...(description ? { description } : {}) });
export const nullable = (schema) => ({ oneOf: [schema, { type: 'null' }] });
