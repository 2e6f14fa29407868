import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDocsServer } from '@keyway/docs-server';
import { DEFAULT_DEV_API_KEY } from '@keyway/identity-server';
import { startTestIdentityServer } from '@keyway/identity-server/testing';
import { freePort } from './net';
import { repoRoot, siteBuild } from './paths';
import { siteFingerprint } from '../scripts/lib.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The production build served by the docs server. */
    docsUrl: string;
    /** The same site built with analytics configured and another announcement id, served the same way. */
    variantUrl: string;
    /** A real identity server (fresh SQLite database) whose CORS allows the docs server's origin. */
    apiUrl: string;
    /** Its seeded development organization and management API key. */
    orgId: string;
    apiKey: string;
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

const servers: { close(): Promise<void> }[] = [];


export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!fs.existsSync(path.join(siteBuild, 'index.html'))) {
    throw new Error('No site build in site/build: run the browser tests through `npm test`, which builds first.');
  }
  // The variant is rebuilt only when its inputs changed (same fingerprint as the main build, with its settings).
  const variantDir = path.join(repoRoot, 'site', '.variant-build');
  const variantStamp = path.join(variantDir, '.keyway-build-stamp');
  const fingerprint = siteFingerprint({ ...process.env, ...VARIANT_ENV });
  if (!fs.existsSync(variantStamp) || fs.readFileSync(variantStamp, 'utf8') !== fingerprint) {
    fs.rmSync(variantDir, { recursive: true, force: true });
    // One site build at a time on this machine (the generated-files folder is per build here, the CPU is not).
    const build = spawnSync(
      'flock',
      ['/tmp/keyway-site-build.lock', 'npx', 'docusaurus', 'build', '--out-dir', variantDir],
      {
        cwd: path.join(repoRoot, 'site'),
        env: { ...process.env, ...VARIANT_ENV, DOCUSAURUS_GENERATED_FILES_DIR_NAME: '.docusaurus-e2e-variant' },
        encoding: 'utf8',
      },
    );
    if (build.status !== 0) throw new Error(`The analytics variant of the site did not build:\n${build.stdout}\n${build.stderr}`);
    fs.writeFileSync(variantStamp, fingerprint);
  }

  const [docsPort, apiPort] = await Promise.all([freePort(), freePort()]);
  const docsOrigin = `http://127.0.0.1:${docsPort}`;
  const identity = await startTestIdentityServer({
    port: apiPort,
    apiKey: DEFAULT_DEV_API_KEY,
    corsOrigins: [docsOrigin, `http://localhost:${docsPort}`],
  });
  const main = await startDocsServer({
    siteDir: siteBuild,
    port: docsPort,
    connectSrc: [identity.url],
    gate: { identityUrl: identity.url, orgId: identity.orgId },
  });
  const variant = await startDocsServer({ siteDir: variantDir, port: 0 });
  servers.push(main, variant, { close: () => identity.stop() });
  project.provide('docsUrl', main.url);
  project.provide('variantUrl', variant.url);
  project.provide('apiUrl', identity.url);
  project.provide('orgId', identity.orgId);
  project.provide('apiKey', DEFAULT_DEV_API_KEY);
  return async () => {
    await Promise.all(servers.map((s) => s.close()));
  };
}
