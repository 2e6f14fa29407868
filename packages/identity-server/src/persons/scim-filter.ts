import { badRequest } from '../http/errors.js';
import { REGION_ALIASES } from './regions.js';

export const ATTRIBUTES = ['person_id', 'active', 'person_type', 'region', 'handles.value', 'handles.type', 'groups'] as const;
export type Attribute = (typeof ATTRIBUTES)[number];

/**
 * A parsed filter. `value` is lowercased: every comparison is case-insensitive. A multi-valued attribute (handles,
 * groups) matches when one of its values does; `ne` is "none of the values equals".
 */
export type Comparison<A extends string = Attribute> = { kind: 'pr'; attr: A } | { kind: 'eq' | 'ne' | 'co' | 'sw'; attr: A; value: string };
export type Filter<A extends string = Attribute> = Comparison<A> | { kind: 'and' | 'or'; left: Filter<A>; right: Filter<A> };

/** Whether one value passes a comparison (values and `value` are compared lowercased, like the SQL does). */
export function matches(f: { kind: 'eq' | 'ne' | 'co' | 'sw'; value: string }, v: string): boolean {
  const lower = v.toLowerCase();
  if (f.kind === 'co') return lower.includes(f.value);
  if (f.kind === 'sw') return lower.startsWith(f.value);
  return lower === f.value;
}

/**
 * Parses a SCIM-style filter (`handles.value eq "ada@example.com" and groups co "edit"`): operators eq, ne, co, sw,
 * pr; `and` binds tighter than `or`. Errors name the position of the problem.
 */
export function parseFilter(src: string): Filter;
export function parseFilter<A extends string>(src: string, attributes: readonly A[]): Filter<A>;
export function parseFilter(src: string, attributes: readonly string[] = ATTRIBUTES): Filter<string> {
  const tokens: Array<{ t: string; at: number }> = [];
  const re = /\s*("(?:[^"\\]|\\.)*"|[^\s"]+)/gy;
  let m: RegExpExecArray | null;
  let last = 0;
  while ((m = re.exec(src))) {
    tokens.push({ t: m[1]!, at: m.index + m[0].length - m[1]!.length });
    last = re.lastIndex;
  }
  if (src.slice(last).trim()) throw badRequest(`filter: unexpected input at position ${last + 1}`);
  let i = 0;
  const fail = (what: string): never => {
    const at = tokens[i]?.at;
    throw badRequest(`filter: ${what} ${at === undefined ? 'at the end' : `at position ${at + 1}`}`);
  };
  const comparison = (): Filter<string> => {
    const attr = tokens[i++]?.t ?? fail('expected an attribute');
    if (!attributes.includes(attr)) {
      i--;
      fail(`unknown attribute "${attr}" (use ${attributes.join(', ')})`);
    }
    const op = tokens[i++]?.t.toLowerCase() ?? fail('expected an operator');
    if (op === 'pr') return { kind: 'pr', attr };
    if (!['eq', 'ne', 'co', 'sw'].includes(op)) {
      i--;
      fail(`unknown operator "${op}" (use eq, ne, co, sw, pr)`);
    }
    const raw = tokens[i++]?.t ?? fail('expected a value');
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string;
      } catch {
        i--;
        fail(`the value ${raw} is not a valid quoted string`);
      }
    }
    value = value.toLowerCase();
    // A region's earlier name selects the persons stored under the name it stands for (migration 0014).
    if (attr === 'region' && (op === 'eq' || op === 'ne')) value = REGION_ALIASES[value] ?? value;
    return { kind: op as 'eq' | 'ne' | 'co' | 'sw', attr, value };
  };
  const conjunction = (): Filter<string> => {
    let left = comparison();
    while (tokens[i]?.t.toLowerCase() === 'and') {
      i++;
      left = { kind: 'and', left, right: comparison() };
    }
    return left;
  };
  let filter = conjunction();
  while (tokens[i]?.t.toLowerCase() === 'or') {
    i++;
    filter = { kind: 'or', left: filter, right: conjunction() };
  }
  if (i < tokens.length) fail('expected "and" or "or"');
  return filter;
}

/** Evaluates a parsed filter in memory, over the values `valuesOf` gives for each attribute (for small lists). */
export function evaluate<A extends string>(f: Filter<A>, valuesOf: (attr: A) => string[]): boolean {
  switch (f.kind) {
    case 'and':
      return evaluate(f.left, valuesOf) && evaluate(f.right, valuesOf);
    case 'or':
      return evaluate(f.left, valuesOf) || evaluate(f.right, valuesOf);
    case 'pr':
      return valuesOf(f.attr).some((v) => v !== '');
    case 'ne':
      return !valuesOf(f.attr).some((v) => matches({ kind: 'eq', value: f.value }, v));
    default:
      return valuesOf(f.attr).some((v) => matches(f, v));
  }
}

/** What a filter on organizations (suborganizations, a person's organizations) can name. */
export const ORGANIZATION_ATTRIBUTES = ['id', 'org_name', 'tenant_name'] as const;

/** The organizations a filter on id, org_name and tenant_name keeps (all without a filter); 400 on a bad filter. */
export function filterOrganizations<O extends { id: string; org_name: string; tenant_name: string | null }>(orgs: O[], filter: string | undefined): O[] {
  if (filter === undefined) return orgs;
  const parsed = parseFilter(filter, ORGANIZATION_ATTRIBUTES);
  return orgs.filter((o) => evaluate(parsed, (attr) => [o[attr] ?? '']));
}
