import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Vitest strips types without checking them, so a test that calls something removed or renamed only fails when it
// runs, and a helper it no longer calls is never noticed. `npm run typecheck` checks every package's sources and
// tests, the site (its pages, plugins and tests) and the browser tests; `npm test` runs it here.
const root = path.resolve(import.meta.dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[]; scripts: Record<string, string> };
const script = pkg.scripts.typecheck ?? '';

describe('npm run typecheck', () => {
  // Every workspace with TypeScript tests, and the browser tests, is in the script (the api workspace's tests are the
  // one exception, listed in the README).
  const withTests = [...pkg.workspaces.filter((w) => w !== 'api' && fs.existsSync(path.join(root, w, 'test'))), 'e2e'];
  it.each(withTests)('covers the tests of %s', (workspace) => {
    const projects = [...script.matchAll(/tsc -p (\S+)/g)].map((m) => m[1]!);
    expect(projects.some((p) => p === workspace || p.startsWith(`${workspace}/tsconfig.test`)), `${workspace} is not type-checked: ${script}`).toBe(true);
  });

  // Asynchronous on purpose: a worker blocked for minutes in spawnSync cannot answer vitest's RPC, and the run then
  // ends with an unhandled "Timeout calling onTaskUpdate" error although every test passed.
  it('passes', async () => {
    const child = spawn('npm', ['run', '--silent', 'typecheck'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(status, output.trim().slice(-4000)).toBe(0);
  }, 1_200_000);
});
