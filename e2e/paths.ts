import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const siteBuild = path.join(repoRoot, 'site', 'build');

/** The route contract: shared/spec/routes.txt beside the repository when present (CI), else our copy of it. */
export function routeContract(): { route: string; gated: boolean }[] {
  const shared = path.join(repoRoot, '..', 'shared', 'spec', 'routes.txt');
  const file = fs.existsSync(shared) ? shared : path.join(repoRoot, 'e2e', 'routes.txt');
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => ({ route: l.trim().split(/\s+/)[0]!, gated: /\sgated\s*$/.test(l) }));
}
