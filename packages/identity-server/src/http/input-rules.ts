import { ApiError } from './errors.js';

/**
 * A 400 of the input rules, saying where (`part`, the path within it) and what, so that a route answering its own
 * validation errors (the OAuth endpoints redirect them to the client) can take it as one of them.
 */
export class InputRuleError extends ApiError {
  constructor(
    readonly part: 'body' | 'querystring' | 'params',
    readonly path: readonly (string | number)[],
    readonly problem: string,
  ) {
    super(400, `${part}${fieldName(path)} ${problem}`);
  }

  /** The same verdict as one of the validator's issues (see http/validation.ts). */
  get issue() {
    return { keyword: 'inputRule', instancePath: this.path.map((p) => `/${p}`).join(''), params: {}, message: this.problem };
  }
}

/** Deepest nesting of objects and arrays accepted in a JSON body (attribute values, custom claims, metadata…). */
export const MAX_JSON_DEPTH = 32;

const MAX_NAMED_SEGMENTS = 3;

const fieldName = (path: readonly (string | number)[]): string => {
  const shown = path.slice(0, MAX_NAMED_SEGMENTS).map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
  return shown + (path.length > MAX_NAMED_SEGMENTS ? '…' : '');
};

/**
 * Rules every JSON value of a request obeys, whatever the route (one walk, without recursion, before schema
 * validation): nested at most {@link MAX_JSON_DEPTH} levels, and no NUL character in any string or key (PostgreSQL
 * text cannot hold one, and no identifier or value of ours needs it). Throws a 400 naming the field.
 */
export function checkJsonValue(root: unknown, part: 'body' | 'querystring' | 'params'): void {
  const stack: Array<{ value: unknown; path: (string | number)[] }> = [{ value: root, path: [] }];
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) throw new InputRuleError(part, path, 'contains a NUL character (U+0000)');
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= MAX_JSON_DEPTH) throw new InputRuleError(part, path, `is nested deeper than ${MAX_JSON_DEPTH} levels`);
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i] });
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      if (key.includes('\u0000')) throw new InputRuleError(part, path, 'has a key with a NUL character (U+0000)');
      stack.push({ value: (value as Record<string, unknown>)[key], path: [...path, key] });
    }
  }
}

export type QuerySchema = { properties?: Record<string, { type?: string | string[] }> } | undefined;

/**
 * Numeric query parameters (typed `integer` or `number` in the route's schema, and `limit`/`offset` everywhere) must be
 * plain numbers a database can use: `offset=1e999`, `Infinity` or twenty-digit integers answer 400 instead of
 * reaching SQL as a non-finite or out-of-range value.
 */
export function checkNumericQuery(query: unknown, schema: QuerySchema): void {
  if (!query || typeof query !== 'object') return;
  for (const [name, raw] of Object.entries(query as Record<string, unknown>)) {
    const declared = schema?.properties?.[name]?.type;
    const types = Array.isArray(declared) ? declared : declared ? [declared] : name === 'limit' || name === 'offset' ? ['integer'] : [];
    if (typeof raw !== 'string' || types.includes('string')) continue;
    if (types.includes('integer')) {
      if (!/^[+-]?\d+$/.test(raw.trim()) || !Number.isSafeInteger(Number(raw))) throw new InputRuleError('querystring', [name], `must be a whole number no larger than 9007199254740991, got "${raw.slice(0, 40)}"`);
    } else if (types.includes('number') && !Number.isFinite(Number(raw))) {
      throw new InputRuleError('querystring', [name], `must be a finite number, got "${raw.slice(0, 40)}"`);
    }
  }
}
