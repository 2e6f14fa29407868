import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from '@docusaurus/types';

/** The packages a reader installs from the docs server's npm registry (packages/docs-server/src/npm-registry.ts). */
export const READER_PACKAGES = ['sdk', 'react'] as const;

const repoRoot = path.resolve(__dirname, '../..');

/**
 * Packs `@keyway/sdk` and `@keyway/react` with `npm pack` (their built `dist`, as `files` lists) into `npm/-/` of the
 * build, and writes `npm/index.json` (each package's manifest, tarball and integrity) for the docs server's registry:
 * the React quick start installs them from the docs site the reader is on.
 */
export async function writeNpmPackages(outDir: string): Promise<string[]> {
  const dir = path.join(outDir, 'npm', '-');
  fs.mkdirSync(dir, { recursive: true });
  const packages: Record<string, unknown> = {};
  for (const name of READER_PACKAGES) {
    const folder = path.join(repoRoot, 'packages', name);
    if (!fs.existsSync(path.join(folder, 'dist', 'index.js'))) throw new Error(`npm packages: packages/${name}/dist is missing; build the packages first (npm run build)`);
    const packed = spawnSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: folder, encoding: 'utf8' });
    if (packed.status !== 0) throw new Error(`npm pack of packages/${name} failed:\n${packed.stderr}`);
    const [info] = JSON.parse(packed.stdout) as { name: string; version: string; filename: string; integrity: string; shasum: string }[];
    if (!info) throw new Error(`npm pack of packages/${name} said nothing`);
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as Record<string, unknown>;
    const { name: pkg, version, description, type, main, types, exports, sideEffects, dependencies, peerDependencies } = manifest;
    packages[info.name] = {
      latest: info.version,
      versions: {
        [info.version]: {
          manifest: { name: pkg, version, description, type, main, types, exports, sideEffects, dependencies, peerDependencies },
          file: `npm/-/${path.basename(info.filename)}`,
          integrity: info.integrity,
          shasum: info.shasum,
        },
      },
    };
  }
  fs.writeFileSync(path.join(outDir, 'npm', 'index.json'), JSON.stringify({ packages }, null, 2));
  return Object.keys(packages);
}

export default function npmPackagesPlugin(): Plugin {
  return {
    name: 'keyway-npm-packages',
    async postBuild({ outDir }) {
      const names = await writeNpmPackages(outDir);
      console.log(`[keyway] npm registry: ${names.join(', ')} packed into npm/`);
    },
  };
}
