import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadContract } from '@keyway/api';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Member, Schema, Wire } from '../src/http/wire.js';

// The request types of the route handlers come from the contract (src/http/wire.ts over `@keyway/api/types`), never
// from shapes written again by hand: a handler of a contract operation names it with `Wire<path, method>`.
// The type assertions below are checked by `npm run typecheck` (part of `npm test`); the scan runs here.

const SRC = path.join(import.meta.dirname, '../src');
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.ts$/.test(name) ? [p] : [];
  });

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
const operations = new Set(
  Object.entries(loadContract().doc.paths ?? {}).flatMap(([p, item]) => METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((m) => `${m} ${p}`)),
);

/** Route registrations with a hand-written generic (`app.post<{ Body: … }>('/path'`), as `method path`. */
function handWritten(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\.(get|post|put|patch|delete)<\{/g)) {
    let depth = 0;
    let end = m.index + m[0].length - 1;
    for (; end < text.length; end++) {
      if (text[end] === '{') depth++;
      else if (text[end] === '}' && --depth === 0) break;
    }
    const url = /^>\(\s*'([^']+)'/.exec(text.slice(end + 1))?.[1];
    if (url) found.push(`${m[1]} ${url.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
  }
  return found;
}

describe('wire types of the identity server', () => {
  it('the scan sees a hand-written generic and maps Fastify paths to the contract', () => {
    expect(handWritten(`app.patch<{ Params: { person_id: string }; Body: { a: { b: 1 } } }>(\n  '/persons/:person_id', h)`)).toEqual(['patch /persons/{person_id}']);
    expect(operations.has('patch /persons/{person_id}')).toBe(true);
  });

  it('no handler of a contract operation writes its request types by hand', () => {
    const files = sources(SRC);
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((file) => handWritten(readFileSync(file, 'utf8')).filter((op) => operations.has(op)).map((op) => `${path.relative(SRC, file)}: ${op}`));
    expect(found).toEqual([]);
  });

  it('types bodies, path parameters and queries as the contract declares them', () => {
    expectTypeOf<Wire<'/persons/{person_id}', 'patch'>['Body']>().toEqualTypeOf<Schema<'PersonPatch'>>();
    expectTypeOf<Wire<'/persons/{person_id}', 'patch'>['Params']>().toEqualTypeOf<{ person_id: string }>();
    expectTypeOf<Wire<'/persons', 'post'>['Body']>().toEqualTypeOf<Schema<'PersonCreate'>>();
    // A form-encoded body (OAuth) and an optional body (impersonation takes none).
    expectTypeOf<Wire<'/oauth2/tokens', 'post'>['Body']>().toEqualTypeOf<Schema<'OAuth2TokenRequest'>>();
    expectTypeOf<undefined>().toMatchTypeOf<Wire<'/persons/{person_id}/impersonate/v2', 'post'>['Body']>();
    expectTypeOf<Wire<'/events', 'get'>['Querystring']>().toHaveProperty('limit');
    expectTypeOf<Member<Schema<'AnalyticsEvent'>, 'organization_id'>>().toHaveProperty('window_location');
    // @ts-expect-error a path the contract does not have
    expectTypeOf<Wire<'/no-such-path', 'get'>>().toBeObject();
    // @ts-expect-error a method the contract does not declare for that path
    expectTypeOf<Wire<'/persons/{person_id}', 'post'>>().toBeObject();
  });
});
