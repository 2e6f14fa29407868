import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The layout rules of the identity server (README "Layout"): features are plugins registered by app.ts, so nothing
// registers itself by being imported, and a route file uses other features' rules and storage, never their routes.

const SRC = path.join(import.meta.dirname, '../src');
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [p] : [];
  });
const files = sources(SRC).map((file) => ({ file, text: readFileSync(file, 'utf8') }));
const ROUTE = /\b(app|scope)\.(get|post|put|patch|delete)\b/;
const routeFiles = new Set(files.filter((f) => ROUTE.test(f.text)).map((f) => f.file));

/** The files of src/ a file imports (relative imports only). */
const importsOf = (f: { file: string; text: string }) =>
  [...f.text.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)].map((m) => path.resolve(path.dirname(f.file), `${m[1]}.ts`));

describe('identity-server layout', () => {
  it('finds the route files (the check has something to check)', () => {
    expect(routeFiles.size).toBeGreaterThan(20);
  });

  it('no route file imports another route file', () => {
    const found = files.filter((f) => routeFiles.has(f.file)).flatMap((f) => importsOf(f).filter((i) => routeFiles.has(i)).map((i) => `${path.relative(SRC, f.file)} → ${path.relative(SRC, i)}`));
    expect(found).toEqual([]);
  });

  it('no module is imported for its side effects only', () => {
    const found = files.flatMap((f) => [...f.text.matchAll(/^import '([^']+)';/gm)].map((m) => `${path.relative(SRC, f.file)}: ${m[1]}`));
    expect(found).toEqual([]);
  });
});
