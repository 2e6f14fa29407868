import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..');

/** Every package.json of the workspace, read from the root manifest's `workspaces`. */
function manifests(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  return ['package.json', ...pkg.workspaces.map((w) => path.join(w, 'package.json'))];
}

describe('the committed lockfile', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-lockfile-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is the one npm would write for these manifests, so a fresh install leaves the tree clean', () => {
    for (const file of [...manifests(), 'package-lock.json']) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.copyFileSync(path.join(root, file), path.join(dir, file));
    }
    // Resolve the dependency tree as `npm install` does, writing only the lockfile (no download, no scripts).
    execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: dir,
      stdio: 'pipe',
    });
    const committed = fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8');
    const rewritten = fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
    const added = rewritten.split('\n').filter((line) => !committed.includes(line)).slice(0, 10);
    expect(added, 'npm install would rewrite package-lock.json: run `npm install` and commit the lockfile').toEqual([]);
    expect(rewritten).toBe(committed);
  });
});
