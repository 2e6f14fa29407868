// The React quick start, run as printed (issue #41): `npm start` as step 1 says (on free ports), the page's own code
// blocks as Chromium shows them on that portal (so they carry its API URL and its npm registry), step 2's commands
// run as they are in a temporary folder (the Keyway packages come from the portal's registry, the rest from the npm
// registry), the files of steps 3 and 4 written, `npm run dev`, then a sign-in by e-mail code in Chromium against
// the portal's identity server, a reload that keeps it, and a sign-out.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { hydrated, isolatedContext, launchBrowser } from './browser';
import { freePort } from './net';
import { npmStart, type NpmStart } from './npm-start';
import { siteBuild } from './paths';
import { mailboxCode } from './signin';

const PAGE = '/docs/access/react-sdk/tutorials/quickstart';

let portal: NpmStart;
let browser: Browser;
let appPort = 0;
let workDir = '';
let dev: ChildProcess | undefined;
let devOutput = '';

/** Step 1's command as the built page prints it: `KEYWAY_CORS_ORIGINS=<origins> npm start`. */
function stepOneOrigins(): string {
  const html = fs.readFileSync(path.join(siteBuild, `${PAGE.slice(1)}.html`), 'utf8').replace(/<[^>]+>/g, '');
  const origins = /KEYWAY_CORS_ORIGINS=(\S+) npm start/.exec(html)?.[1];
  if (!origins) throw new Error('the quick start no longer prints `KEYWAY_CORS_ORIGINS=… npm start` in step 1');
  return origins;
}

beforeAll(async () => {
  appPort = await freePort();
  // Step 1 as printed, on this machine's free ports: the docs port for 3000, the app's port for Vite's 5173.
  const origins = stepOneOrigins();
  expect(origins).toBe('http://localhost:3000,http://localhost:5173');
  portal = await npmStart(({ docsPort }) => ({
    KEYWAY_CORS_ORIGINS: origins.replace(':3000', `:${docsPort}`).replace(':5173', `:${appPort}`),
  }));
  browser = await launchBrowser();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-quickstart-'));
}, 180_000);
afterAll(async () => {
  if (dev && dev.exitCode === null) {
    const exited = new Promise((r) => dev!.once('exit', r));
    process.kill(-dev.pid!, 'SIGTERM');
    await exited;
  }
  await browser?.close();
  await portal?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** The page's code blocks as the reader sees them: their title (a file name) and text. */
async function codeBlocks(page: Page): Promise<{ title: string; language: string; code: string }[]> {
  return page.locator('article .theme-code-block').evaluateAll((blocks) =>
    blocks.map((b) => ({
      title: b.querySelector('[class*="codeBlockTitle"]')?.textContent?.trim() ?? '',
      language: /language-(\S+)/.exec(b.className)?.[1] ?? '',
      code: [...b.querySelectorAll('.token-line')].map((l) => l.textContent ?? '').join('\n'),
    })),
  );
}

describe('the React quick start, as printed', () => {
  it('builds an app from the page, installs the packages from the portal, and signs in with it', async () => {
    const context = await isolatedContext(browser, { viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(portal.docs + PAGE);
    await hydrated(page);
    // The blocks follow this portal: its registry and its API.
    await expect.poll(async () => (await codeBlocks(page)).map((b) => b.code).join('\n')).toContain(`${portal.docs}/npm/`);
    const blocks = await codeBlocks(page);
    const install = blocks.find((b) => b.code.includes('npm install @keyway/react @keyway/sdk'));
    expect(install?.code).toContain(`npm config set @keyway:registry ${portal.docs}/npm/ --location project`);
    const files = blocks.filter((b) => /^src\//.test(b.title));
    expect(files.map((f) => f.title)).toEqual(['src/main.tsx', 'src/App.tsx']);
    expect(files[0]!.code).toContain(`baseURL="${portal.api}"`);

    // Step 2, every line as printed (npm's one question, whether to install create-vite, answered yes).
    const run = spawnSync('bash', ['-e', '-c', install!.code], {
      cwd: workDir,
      env: { ...process.env, npm_config_yes: 'true', npm_config_update_notifier: 'false' },
      encoding: 'utf8',
      timeout: 420_000,
    });
    expect(run.status, `step 2 failed:\n${run.stdout}\n${run.stderr}`).toBe(0);
    const app = path.join(workDir, 'keyway-quickstart');
    // The Keyway packages are the portal's tarballs (the lockfile records their integrity).
    const lock = JSON.parse(fs.readFileSync(path.join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; integrity?: string }> };
    for (const name of ['@keyway/react', '@keyway/sdk']) {
      const doc = (await (await fetch(`${portal.docs}/npm/${encodeURIComponent(name)}`)).json()) as { 'dist-tags': { latest: string }; versions: Record<string, { dist: { integrity: string } }> };
      const latest = doc['dist-tags'].latest;
      expect(lock.packages[`node_modules/${name}`], name).toMatchObject({ version: latest, integrity: doc.versions[latest]!.dist.integrity });
    }

    // Steps 3 and 4: the files, as printed.
    for (const f of files) fs.writeFileSync(path.join(app, f.title), `${f.code}\n`);

    // Step 5: `npm run dev` (on the free port this test has instead of 5173).
    dev = spawn('npm', ['run', 'dev', '--', '--port', String(appPort), '--strictPort'], { cwd: app, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    dev.stdout!.on('data', (c: Buffer) => (devOutput += c.toString()));
    dev.stderr!.on('data', (c: Buffer) => (devOutput += c.toString()));
    const appUrl = `http://localhost:${appPort}`;
    await expect.poll(() => fetch(appUrl).then((r) => r.ok, () => false), { timeout: 60_000, interval: 500 }).toBe(true);

    const errors: string[] = [];
    const tab = await context.newPage();
    tab.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    tab.on('pageerror', (e) => errors.push(e.message));
    await tab.goto(appUrl);
    await tab.getByRole('heading', { name: 'Keyway quickstart' }).waitFor({ timeout: 30_000 });
    const email = `quickstart-${Date.now()}@example.com`;
    await tab.getByLabel('Email address').fill(email);
    await tab.getByRole('button', { name: 'Continue' }).click();
    const code = tab.getByRole('textbox', { name: 'Code', exact: true });
    await code.waitFor({ timeout: 15_000 });
    await code.fill(await mailboxCode(email, portal.api));
    await tab.getByRole('button', { name: 'Verify' }).click();
    await tab.getByText('You are signed in.').waitFor({ timeout: 15_000 });
    // Step 5.5 and 5.6: a reload keeps the sign-in; Sign out brings the form back.
    await tab.reload();
    await tab.getByText('You are signed in.').waitFor({ timeout: 15_000 });
    await tab.getByRole('button', { name: 'Sign out' }).click();
    await tab.getByLabel('Email address').waitFor({ timeout: 15_000 });
    expect(errors, devOutput).toEqual([]);
    await context.close();
  }, 600_000);
});
