import { badRequest } from '../http/errors.js';

/** A person as the SCIM-style filter sees it. */
export interface FilterSubject {
  person_id: string;
  active: boolean;
  person_type: string;
  region: string;
  handles: Array<{ type: string; value: string }>;
  groups: string[];
}

type Test = (p: FilterSubject) => boolean;
const ATTRIBUTES = ['person_id', 'active', 'person_type', 'region', 'handles.value', 'handles.type', 'groups'] as const;

function values(p: FilterSubject, attr: string): string[] {
  switch (attr) {
    case 'handles.value':
      return p.handles.map((h) => h.value);
    case 'handles.type':
      return p.handles.map((h) => h.type);
    case 'groups':
      return p.groups;
    case 'active':
      return [String(p.active)];
    default:
      return [String(p[attr as 'person_id' | 'person_type' | 'region'])];
  }
}

/**
 * Compiles a SCIM-style filter (`handles.value eq "ada@example.com" and groups co "edit"`): operators eq, ne, co, sw,
 * pr; `and` binds tighter than `or`. Errors name the position of the problem.
 */
export function compileFilter(src: string): Test {
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
  const comparison = (): Test => {
    const attr = tokens[i++]?.t ?? fail('expected an attribute');
    if (!(ATTRIBUTES as readonly string[]).includes(attr)) {
      i--;
      fail(`unknown attribute "${attr}" (use ${ATTRIBUTES.join(', ')})`);
    }
    const op = tokens[i++]?.t.toLowerCase() ?? fail('expected an operator');
    if (op === 'pr') return (p) => values(p, attr).some((v) => v !== '');
    if (!['eq', 'ne', 'co', 'sw'].includes(op)) {
      i--;
      fail(`unknown operator "${op}" (use eq, ne, co, sw, pr)`);
    }
    const raw = tokens[i++]?.t ?? fail('expected a value');
    const value = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
    const lower = value.toLowerCase();
    switch (op) {
      case 'eq':
        return (p) => values(p, attr).some((v) => v.toLowerCase() === lower);
      case 'ne':
        return (p) => !values(p, attr).some((v) => v.toLowerCase() === lower);
      case 'co':
        return (p) => values(p, attr).some((v) => v.toLowerCase().includes(lower));
      default:
        return (p) => values(p, attr).some((v) => v.toLowerCase().startsWith(lower));
    }
  };
  const conjunction = (): Test => {
    let left = comparison();
    while (tokens[i]?.t.toLowerCase() === 'and') {
      i++;
      const l = left;
      const r = comparison();
      left = (p) => l(p) && r(p);
    }
    return left;
  };
  let test = conjunction();
  while (tokens[i]?.t.toLowerCase() === 'or') {
    i++;
    const l = test;
    const r = conjunction();
    test = (p) => l(p) || r(p);
  }
  if (i < tokens.length) fail('expected "and" or "or"');
  return test;
}
