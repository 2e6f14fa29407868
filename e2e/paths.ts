import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const siteBuild = path.join(repoRoot, 'site', 'build');

/** The route contract: the repository's copy (spec/routes.txt, kept equal to the shared one by site/test/spec-copy.test.ts). */
export function routeContract(): { route: string; gated: boolean }[] {
  const file = path.join(repoRoot, 'spec', 'routes.txt');
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => ({ route: l.trim().split(/\s+/)[0]!, gated: /\sgated\s*$/.test(l) }));
}
