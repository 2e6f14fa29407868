// `npm start` on non-default ports (PORT, KEYWAY_API_PORT): the docs pages' CSP lets them call the identity server on
// its port, the identity server's CORS allows the docs origin, and try-it in Chromium targets it by default and gets
// its answer, with nothing in between.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useSharedContext, openPage } from './browser';
import { freePort } from './net';
import { repoRoot } from './paths';

const context = useSharedContext();
let child: ChildProcess | undefined;
let docsPort = 0;
let apiPort = 0;
let dataDir = '';
let output = '';

beforeAll(async () => {
  [docsPort, apiPort] = await Promise.all([freePort(), freePort()]);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-e2e-start-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(docsPort), KEYWAY_API_PORT: String(apiPort), DATA_DIR: dataDir };
  for (const name of ['KEYWAY_API_URL', 'KEYWAY_CORS_ORIGINS', 'KEYWAY_PUBLIC_URL', 'NODE_ENV', 'DATABASE_URL', 'KEYWAY_CSP_CONNECT_SRC']) delete env[name];
  child = spawn(process.execPath, [path.join(repoRoot, 'scripts/start.mjs')], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start was not ready in time:\n${output}`)), 110_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Press Ctrl+C to stop.')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child!.stdout!.on('data', onData);
    child!.stderr!.on('data', onData);
    child!.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
  });
});
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start on other ports', () => {
  it('prints both URLs; the pages may connect to the API port, whose CORS allows the docs origin and the API key header', async () => {
    const api = `http://localhost:${apiPort}`;
    expect(output).toContain(`Docs          http://localhost:${docsPort}`);
    expect(output).toContain(`Keyway API    ${api}`);
    const page = await fetch(`http://localhost:${docsPort}/docs/api/get-persons`);
    const connect = /connect-src ([^;]+)/.exec(page.headers.get('content-security-policy') ?? '')?.[1]?.split(' ') ?? [];
    expect(connect).toContain(api);
    expect(connect).not.toContain('http://localhost:8787');
    expect(await (await fetch(`http://localhost:${docsPort}/api/config`)).json()).toMatchObject({ identityUrl: api });
    const pre = await fetch(`${api}/persons`, {
      method: 'OPTIONS',
      headers: { origin: `http://localhost:${docsPort}`, 'access-control-request-method': 'GET', 'access-control-request-headers': 'keyway-api-key,keyway-orgid' },
    });
    expect(pre.headers.get('access-control-allow-origin')).toBe(`http://localhost:${docsPort}`);
  });

  it('try-it sends GET /persons to that API server by default and shows its answer', async () => {
    const page = await context().newPage();
    await openPage(page, `http://localhost:${docsPort}/docs/api/get-persons`);
    await page.getByRole('button', { name: 'Try it', exact: true }).click();
    await expect.poll(() => page.getByLabel('Base URL').inputValue()).toBe(`http://localhost:${apiPort}`);
    await page.getByLabel('Organization id (Keyway-OrgID)').fill('org_keyway_dev');
    await page.getByLabel('API key (Keyway-API-Key)').fill('kw_dev_api_key_not_secret');
    await page.getByRole('button', { name: 'Send request' }).click();
    await expect.poll(() => page.getByRole('status', { name: 'Answer' }).textContent()).toMatch(/^200 OK/);
    await page.close();
  });
});
