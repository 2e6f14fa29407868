import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import { startDocsServer, type StartedDocsServer } from '@keyway/docs-server';
import { hydrated, isolatedContext, launchBrowser } from './browser';
import { siteBuild } from './paths';

// /login and the way to it on a docs server where sign-in is not configured (no identity server): the gated pages
// still send visitors to sign in, and /login says plainly that sign-in is off. The signed-in flows are in gate.e2e.ts.
const siteDir = process.env.GATE_E2E_SITE_DIR ?? siteBuild;
let docs: StartedDocsServer;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  docs = await startDocsServer({ siteDir, port: 0 });
  browser = await launchBrowser();
  context = await isolatedContext(browser);
});
afterAll(async () => {
  await browser?.close();
  await docs?.close();
});

describe('/login without sign-in configured', () => {
  it('sends a gated page to /login with its path, search and hash, answering 401 with none of the page', async () => {
    const page = await context.newPage();
    const target = '/docs/identity-protection/queries/guide?tab=ipql#a-first-query';
    const first = page.waitForResponse((r) => r.url().startsWith(`${docs.url}/docs/identity-protection/queries/guide`));
    await page.goto(docs.url + target);
    const res = await first;
    expect(res.status()).toBe(401);
    const direct = await fetch(docs.url + target);
    expect(direct.status).toBe(401);
    expect(await direct.text()).not.toContain('IPQL query guide');
    await page.waitForURL(`${docs.url}/login?redirect_to=${encodeURIComponent(target)}`);
    await hydrated(page);
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Sign-in is not enabled on this server/);
    await page.getByRole('link', { name: 'public documentation' }).click();
    await page.waitForURL(`${docs.url}/docs/intro`);
    await page.close();
  });

  it('works without JavaScript too: the 401 page links to sign-in', async () => {
    const noJs = await isolatedContext(browser, { javaScriptEnabled: false });
    const page = await noJs.newPage();
    await page.goto(`${docs.url}/docs/identity-protection/detections`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Sign in required');
    expect(await page.getByRole('link', { name: 'Sign in to continue' }).getAttribute('href')).toBe(
      '/login?redirect_to=%2Fdocs%2Fidentity-protection%2Fdetections',
    );
    await noJs.close();
  });
});
