import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// `npm ci` links a workspace's `bin` entries into node_modules/.bin only when the file exists at install time. On a
// fresh clone nothing is built yet, so a bin that points into dist/ is silently left out and `npx keyway-docs-mcp`
// (printed in the docs) fails. Every bin must therefore be a committed, executable file.
const root = path.resolve(import.meta.dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
/** path → git mode of every committed file. */
const committed = new Map(
  execFileSync('git', ['ls-files', '-s'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [meta, file] = line.split('\t') as [string, string];
      return [file, meta.split(' ')[0]!] as const;
    }),
);
const bins = pkg.workspaces.flatMap((workspace) => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, workspace, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
  return Object.entries(manifest.bin ?? {}).map(([name, file]) => ({ name, file: path.posix.join(workspace, file) }));
});

describe('workspace bins', () => {
  it('exist', () => expect(bins.map((b) => b.name)).toContain('keyway-docs-mcp'));
  it.each(bins)('$name ($file) is committed and executable, so a fresh `npm ci` links it', ({ file }) => {
    expect(committed.get(file), `${file} is not in git (a build output?)`).toBeDefined();
    expect(committed.get(file)).toBe('100755');
    expect(fs.readFileSync(path.join(root, file), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  });
});
