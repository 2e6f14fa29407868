import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startDocsServer, type StartedDocsServer } from '@keyway/docs-server';
import { startIdentityServer } from '@keyway/identity-server';
import { hydrated, isolatedContext, launchBrowser } from './browser';
import { signInOnLoginPage } from './signin';
import { freePort } from './net';
import { siteBuild } from './paths';
import { OFFSITE_PAYLOADS } from '../packages/sdk/test/redirect-payloads';

// The open-redirect payload family against the real /login in Chromium: after a real sign-in (e-mailed code from the
// dev mailbox), and on a later visit that resumes the stored token, /login sends the visitor on to redirect_to. No
// payload may take the browser off the docs origin. Nothing is intercepted.
const siteDir = process.env.GATE_E2E_SITE_DIR ?? siteBuild;

let browser: Browser;
let identity: Awaited<ReturnType<typeof startIdentityServer>>;
let docs: StartedDocsServer;
let base: string;
let dataDir: string;
let context: BrowserContext;

beforeAll(async () => {
  const docsPort = await freePort();
  base = `http://127.0.0.1:${docsPort}`;
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-redirect-e2e-'));
  identity = await startIdentityServer({ port: 0, dataDir, devMode: true, corsOrigins: [base] });
  docs = await startDocsServer({ siteDir, port: docsPort, gate: { identityUrl: identity.url, orgId: identity.orgId } });
  browser = await launchBrowser();
  context = await isolatedContext(browser, { viewport: { width: 1280, height: 900 } });
});
afterAll(async () => {
  await browser?.close();
  await docs?.close();
  await identity?.close().catch(() => undefined);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Where the browser ends up once /login has sent it on. */
async function landing(page: Page): Promise<URL> {
  await page.waitForURL((u) => !(u.origin === base && u.pathname === '/login'), { timeout: 15_000 });
  return new URL(page.url());
}

const loginWith = (payload: string) => `${base}/login?redirect_to=${encodeURIComponent(payload)}`;

describe('/login redirect_to in Chromium', () => {
  it('after a real sign-in, a dotted payload lands on the site', async () => {
    const page = await context.newPage();
    await page.goto(loginWith('/.//evil.example/docs'));
    await hydrated(page);
    await signInOnLoginPage(page, 'redirects@example.com', identity.url);
    const at = await landing(page);
    expect(at.origin).toBe(base);
    expect(at.pathname).toBe('/evil.example/docs');
    await page.close();
  });

  it.each(OFFSITE_PAYLOADS)('signed in, redirect_to=%j stays on the docs origin', async (payload) => {
    const page = await context.newPage();
    await page.goto(loginWith(payload));
    const at = await landing(page);
    expect(at.origin).toBe(base);
    await page.close();
  });

  it('still returns to a gated page of the site with its search and hash', async () => {
    const page = await context.newPage();
    const target = '/docs/identity-protection/detections/webhooks?tab=curl#event-types';
    await page.goto(loginWith(target));
    const at = await landing(page);
    expect(at.href).toBe(base + target);
    await page.close();
  });
});
