import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hydrated, isolatedContext, launchBrowser } from './browser';
import { signInOnLoginPage } from './signin';
import { startGatedPortal, type GatedPortal } from './portal';
import { OFFSITE_PAYLOADS } from '@keyway/test-support';

// The open-redirect payload family against the real /login in Chromium: after a real sign-in (e-mailed code from the
// dev mailbox), and on a later visit that resumes the stored token, /login sends the visitor on to redirect_to. No
// payload may take the browser off the docs origin. Nothing is intercepted.

let browser: Browser;
let portal: GatedPortal;
let identity: GatedPortal['identity'];
let base: string;
let context: BrowserContext;

beforeAll(async () => {
  portal = await startGatedPortal();
  ({ base, identity } = portal);
  browser = await launchBrowser();
  context = await isolatedContext(browser, { viewport: { width: 1280, height: 900 } });
});
afterAll(async () => {
  await browser?.close();
  await portal?.close();
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
