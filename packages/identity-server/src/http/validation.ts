import AjvModule from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { OPTIONAL_BODY, type OpenApiContract } from '../openapi.js';

// Request validation: one Ajv for bodies (no coercion), one for queries and paths (strings coerced), and the
// validation message, one sentence naming the field.

// ajv and ajv-formats are CommonJS modules whose default export sits on `.default`.
const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

/** Ajv with formats, keeping unknown fields (so they can be rejected) and never inventing defaults. */
export function newAjv(coerceTypes: boolean) {
  const ajv = new Ajv({ removeAdditional: false, coerceTypes, useDefaults: false, allErrors: true, strict: false });
  addFormats(ajv);
  return ajv;
}

export interface ValidationIssue {
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


/** Compiles route schemas: bodies strictly, query strings and path parameters with coercion; optional bodies may be absent. */
export function installValidators(app: FastifyInstance, contract: OpenApiContract | undefined): void {
  // Query strings and path parameters are strings: coerce those (limit=10) but never JSON bodies.
  const strictAjv = contract?.bodyAjv ?? newAjv(false);
  const coercingAjv = contract?.paramAjv ?? newAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    // Compiled on the route's first request, not at start: compiling every operation of the contract took half of a
    // process's start (about 2 s of CPU), which a rolling restart waits for on each replica (#38).
    let compiled: ValidateFunction | undefined;
    const optionalBody = (schema as Record<string, unknown>)[OPTIONAL_BODY] === true;
    const validate = (data: unknown) => {
      compiled ??= (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema);
      // An optional request body may be absent altogether.
      if (optionalBody && (data === undefined || data === null)) {
        validate.errors = null;
        return true;
      }
      const ok = compiled(data) as boolean;
      validate.errors = compiled.errors;
      return ok;
    };
    validate.errors = null as ValidateFunction['errors'];
    return validate;
  });
}
