import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDocsServer, type StartedDocsServer } from '@keyway/docs-server';
import { repoRoot, siteBuild } from './paths';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The production build served by the docs server. */
    docsUrl: string;
    /** The same site built with analytics configured and another announcement id, served the same way. */
    variantUrl: string;
  }
}

/** A second build with every analytics tool configured (fake IDs and hosts that the tests intercept). */
export const VARIANT_ENV = {
  KEYWAY_GA_TRACKING_ID: 'G-KEYWAYTEST1',
  KEYWAY_INTELLIGENCE_SCRIPT_URL: 'https://intel.keyway-test.invalid/track.js',
  KEYWAY_SESSION_RECORDING_SCRIPT_URL: 'https://replay.keyway-test.invalid/record.js',
  KEYWAY_ANNOUNCEMENT_ID: 'e2e-second-announcement',
  KEYWAY_ANNOUNCEMENT_HTML: 'Second announcement for the e2e tests. <a href="/docs/intro">Read the introduction</a>.',
  KEYWAY_ANNOUNCEMENT_BG: '#14532d',
  KEYWAY_ANNOUNCEMENT_COLOR: '#ffffff',
} as const;

const servers: StartedDocsServer[] = [];

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!fs.existsSync(path.join(siteBuild, 'index.html'))) {
    throw new Error('No site build in site/build: run the browser tests through `npm test`, which builds first.');
  }
  const variantDir = path.join(os.tmpdir(), 'keyway-e2e-variant-build');
  const build = spawnSync('npx', ['docusaurus', 'build', '--out-dir', variantDir], {
    cwd: path.join(repoRoot, 'site'),
    env: { ...process.env, ...VARIANT_ENV },
    encoding: 'utf8',
  });
  if (build.status !== 0) throw new Error(`The analytics variant of the site did not build:\n${build.stdout}\n${build.stderr}`);

  const main = await startDocsServer({ siteDir: siteBuild, port: 0 });
  const variant = await startDocsServer({ siteDir: variantDir, port: 0 });
  servers.push(main, variant);
  project.provide('docsUrl', main.url);
  project.provide('variantUrl', variant.url);
  return async () => {
    await Promise.all(servers.map((s) => s.close()));
  };
}
