import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { isolatedContext, launchBrowser, openPage } from './browser';

type DataLayerEntry = unknown[];
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** Serves stand-ins for the three third-party scripts (no network) and records which were requested. */
async function interceptTrackers(page: Page) {
  const requested: string[] = [];
  await page.route('https://www.googletagmanager.com/**', (route) => {
    requested.push(route.request().url());
    return route.fulfill({ contentType: 'application/javascript', body: 'window.__gtagLoaded = true;' });
  });
  for (const host of ['intel.keyway-test.invalid', 'replay.keyway-test.invalid']) {
    await page.route(`https://${host}/**`, (route) => {
      requested.push(route.request().url());
      return route.fulfill({ contentType: 'application/javascript', body: '' });
    });
  }
  return requested;
}

const pageViews = (page: Page) =>
  page.evaluate(() =>
    ((window as unknown as { dataLayer?: DataLayerEntry[] }).dataLayer ?? [])
      .map((e) => Array.from(e as ArrayLike<unknown>))
      .filter((e) => e[0] === 'event' && e[1] === 'page_view')
      .map((e) => e[2] as { page_title: string; page_location: string; page_path: string }),
  );

describe('analytics with every tool configured', () => {
  const base = inject('variantUrl');

  it('loads gtag with the configured ID and IP anonymization off, and the two other tools asynchronously', async () => {
    const context = await isolatedContext(browser);
    const page = await context.newPage();
    const requested = await interceptTrackers(page);
    await openPage(page, `${base}/docs/intro`);
    await expect.poll(() => page.evaluate(() => (window as unknown as { __gtagLoaded?: boolean }).__gtagLoaded)).toBe(true);
    expect(requested).toContain('https://www.googletagmanager.com/gtag/js?id=G-KEYWAYTEST1');
    expect(requested).toContain('https://intel.keyway-test.invalid/track.js');
    expect(requested).toContain('https://replay.keyway-test.invalid/record.js');
    const asyncScripts = await page.evaluate(() =>
      Array.from(document.querySelectorAll('script[src^="https://"]')).map((s) => ({ src: (s as HTMLScriptElement).src, async: (s as HTMLScriptElement).async })),
    );
    expect(asyncScripts.every((s) => s.async)).toBe(true);
    const config = await page.evaluate(() =>
      ((window as unknown as { dataLayer: DataLayerEntry[] }).dataLayer.map((e) => Array.from(e as ArrayLike<unknown>)).find((e) => e[0] === 'config')),
    );
    expect(config).toEqual(['config', 'G-KEYWAYTEST1', { anonymize_ip: false }]);
    await context.close();
  });

  it('sends a page_view with title, location and path on each route change that changes path, search or hash', async () => {
    const context = await isolatedContext(browser);
    const page = await context.newPage();
    await interceptTrackers(page);
    await openPage(page, `${base}/docs/intro`);
    expect(await pageViews(page)).toEqual([]); // the first view is sent by gtag('config')
    await page.locator('nav[aria-label="Docs sidebar"] a[href="/docs/access"]').first().click();
    await page.waitForURL(`${base}/docs/access`);
    await expect.poll(() => pageViews(page)).toEqual([
      { page_title: 'Identity Management | Keyway Docs', page_location: `${base}/docs/access`, page_path: '/docs/access' },
    ]);
    // A hash change is a route change too.
    await page.locator('a[href="#the-building-blocks"]').first().click();
    await expect.poll(async () => (await pageViews(page)).length).toBe(2);
    expect((await pageViews(page))[1]).toMatchObject({ page_path: '/docs/access#the-building-blocks' });
    // Clicking a link to the very same location changes nothing and sends nothing.
    await page.locator('a[href="#the-building-blocks"]').first().click();
    await page.waitForTimeout(300);
    expect((await pageViews(page)).length).toBe(2);
    await context.close();
  });
});

describe('analytics without configuration', () => {
  it('loads no third-party script and defines no gtag', async () => {
    const base = inject('docsUrl');
    const context = await isolatedContext(browser);
    const page = await context.newPage();
    const external: string[] = [];
    page.on('request', (r) => {
      if (!new URL(r.url()).hostname.match(/^(127\.0\.0\.1|localhost)$/)) external.push(r.url());
    });
    await openPage(page, `${base}/docs/intro`);
    await page.locator('nav[aria-label="Docs sidebar"] a[href="/docs/access"]').first().click();
    await page.waitForURL(`${base}/docs/access`);
    expect(external).toEqual([]);
    expect(await page.evaluate(() => typeof (window as unknown as { gtag?: unknown }).gtag)).toBe('undefined');
    await context.close();
  });
});
