import { badRequest } from '../http/errors.js';

/** Claims the server sets itself; templates and minted tokens cannot override them. */
export const RESERVED_CLAIMS = new Set(['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti', 'person_id', 'oid', 'first_token', 'authenticated_methods', 'authentications', 'person_type', 'groups', 'user_token', 'impersonator', 'client_id', 'scope', 'token_use']);

const EXPR = String.raw`\{\{\s*person\.(?:attributes\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_.-]+)|(roles|permissions))\s*\}\}`;
const PLACEHOLDER = new RegExp(EXPR, 'g');
const WHOLE = new RegExp(`^${EXPR}$`);

/** What a template can read of a person. */
export interface TemplatePerson {
  attributes: Record<string, Record<string, unknown>>;
  roles: string[];
  permissions: string[];
}

/** Checks a token template: a JSON object whose claims are not reserved. Returns the parsed template. */
export function checkTokenTemplate(content: string, groupsClaim = 'groups'): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch (err) {
    throw badRequest(`token template is not valid JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest('token template must be a JSON object');
  for (const claim of Object.keys(parsed)) {
    if (RESERVED_CLAIMS.has(claim) || claim === groupsClaim) throw badRequest(`token template may not set the reserved claim "${claim}"`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * Fills `{{ person.attributes.<bucket>.<name> }}`, `{{ person.roles }}` and `{{ person.permissions }}` placeholders: a
 * string that is only a placeholder becomes the JSON value (null when unset); placeholders inside longer strings are
 * replaced by the value as text (lists comma-joined).
 */
export function renderTokenTemplate(template: Record<string, unknown>, person: TemplatePerson): Record<string, unknown> {
  const lookup = (bucket: string | undefined, name: string | undefined, list: string | undefined): unknown =>
    list === 'roles' ? person.roles : list === 'permissions' ? person.permissions : person.attributes[bucket!]?.[name!];
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const whole = WHOLE.exec(v);
      if (whole) return lookup(whole[1], whole[2], whole[3]) ?? null;
      return v.replace(PLACEHOLDER, (_m, b: string | undefined, n: string | undefined, list: string | undefined) => {
        const val = lookup(b, n, list);
        return val === undefined || val === null ? '' : typeof val === 'string' ? val : Array.isArray(val) ? val.join(',') : JSON.stringify(val);
      });
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(template) as Record<string, unknown>;
}

/** `custom_claims` of a minted token: 400 naming the reserved claims it would set. */
export function checkCustomClaims(custom: Record<string, unknown>, groupsClaim = 'groups'): Record<string, unknown> {
  const reserved = Object.keys(custom).filter((k) => RESERVED_CLAIMS.has(k) || k === groupsClaim);
  if (reserved.length) throw badRequest(`custom_claims may not set reserved claims: ${reserved.join(', ')}`);
  return custom;
}
