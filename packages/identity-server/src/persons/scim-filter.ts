import { badRequest } from '../http/errors.js';

export const ATTRIBUTES = ['person_id', 'active', 'person_type', 'region', 'handles.value', 'handles.type', 'groups'] as const;
export type Attribute = (typeof ATTRIBUTES)[number];

/**
 * A parsed filter. `value` is lowercased: every comparison is case-insensitive. A multi-valued attribute (handles,
 * groups) matches when one of its values does; `ne` is "none of the values equals".
 */
export type Comparison = { kind: 'pr'; attr: Attribute } | { kind: 'eq' | 'ne' | 'co' | 'sw'; attr: Attribute; value: string };
export type Filter = Comparison | { kind: 'and' | 'or'; left: Filter; right: Filter };

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
export function parseFilter(src: string): Filter {
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
  const comparison = (): Filter => {
    const attr = (tokens[i++]?.t ?? fail('expected an attribute')) as Attribute;
    if (!(ATTRIBUTES as readonly string[]).includes(attr)) {
      i--;
      fail(`unknown attribute "${attr}" (use ${ATTRIBUTES.join(', ')})`);
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
    return { kind: op as 'eq' | 'ne' | 'co' | 'sw', attr, value: value.toLowerCase() };
  };
  const conjunction = (): Filter => {
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
