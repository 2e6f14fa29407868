import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hydrated, isolatedContext, launchBrowser, openPage } from './browser';
import { siteBuild } from './paths';
import { serveSiteCopy, type SiteCopy } from './site-copy';

const base = inject('docsUrl');
let browser: Browser;
let context: BrowserContext;
let page: Page;
// Slow and failing loads happen for real: a docs server serving a copy of the build in which files are really
// missing or broken (nothing between the browser and the server is intercepted).
let copy: SiteCopy;

beforeAll(async () => {
  browser = await launchBrowser();
  copy = await serveSiteCopy();
});
afterAll(async () => {
  await browser?.close();
  await copy?.close();
});
beforeEach(async () => {
  context = await isolatedContext(browser, { viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
});
afterEach(async () => {
  await context.close();
  copy.restore();
});

/** Navigates client-side, the way the router does for a link: a history entry plus the event it listens to. */
async function clientNavigate(p: Page, href: string) {
  await p.evaluate((h) => {
    window.history.pushState({}, '', h);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, href);
}

/** The hashed JS file (path in the build) that contains a distinctive string of a page's content. */
function chunkContaining(text: string): string {
  const dir = path.join(siteBuild, 'assets', 'js');
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.js') && fs.readFileSync(path.join(dir, f), 'utf8').includes(text));
  if (!file) throw new Error(`no chunk contains ${JSON.stringify(text)}`);
  return `assets/js/${file}`;
}

describe('navigation', () => {
  it('shows the progress bar only when a route takes longer than 200 ms, without a spinner', async () => {
    // The Identity Management overview's code is missing while the page opens (so no prefetch can fetch it early),
    // then back, served over a network that answers 1.5 s late (Chromium's network emulation).
    const chunk = chunkContaining('The building blocks');
    copy.hide(chunk);
    // The prefetch of the linked page's code (made when the browser is idle after load) fails while it is missing.
    const prefetched = page.waitForResponse((r) => r.url().endsWith(chunk), { timeout: 15_000 });
    await openPage(page, `${copy.url}/docs/intro`);
    expect((await prefetched).status()).toBe(404);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 1500, downloadThroughput: -1, uploadThroughput: -1 });
    copy.restore();
    // A slow route change: the bar appears after the 200 ms delay, as a bar only.
    const started = Date.now();
    await clientNavigate(page, '/docs/access');
    await page.locator('#nprogress .bar').waitFor({ state: 'attached' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(await page.locator('#nprogress .spinner').count()).toBe(0);
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('Identity Management');
    await page.locator('#nprogress').waitFor({ state: 'detached' });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    // A fast one (the introduction's code is already loaded): no bar at all.
    await page.evaluate(() => {
      (window as unknown as { barSeen: boolean }).barSeen = false;
      new MutationObserver(() => {
        if (document.getElementById('nprogress')) (window as unknown as { barSeen: boolean }).barSeen = true;
      }).observe(document.body, { childList: true, subtree: true });
    });
    await clientNavigate(page, '/docs/intro');
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('Introduction');
    await page.waitForTimeout(400);
    expect(await page.evaluate(() => (window as unknown as { barSeen: boolean }).barSeen)).toBe(false);
  });

  it('hides the navbar on downward scroll and shows it again near the top', async () => {
    await openPage(page, `${base}/docs/intro`);
    const navbar = page.locator('nav.navbar');
    for (const y of [100, 300, 500, 700]) {
      await page.evaluate((top) => window.scrollTo(0, top), y);
      await page.waitForTimeout(50);
    }
    await expect.poll(async () => (await navbar.boundingBox())!.y, { timeout: 3000 }).toBeLessThan(-10);
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect.poll(async () => (await navbar.boundingBox())!.y, { timeout: 3000 }).toBeGreaterThanOrEqual(0);
  });

  it('keeps the navbar while the page is scrolled down less than its height (the height is measured after hydration)', async () => {
    await openPage(page, `${base}/docs/intro`);
    const navbar = page.locator('nav.navbar');
    const height = (await navbar.boundingBox())!.height;
    await page.waitForTimeout(100);
    for (const y of [Math.round(height / 3), Math.round((2 * height) / 3)]) {
      await page.evaluate((top) => window.scrollTo(0, top), y);
      await page.waitForTimeout(100);
    }
    expect((await navbar.boundingBox())!.y).toBeGreaterThanOrEqual(0);
    // Further down, the same downward scroll hides it.
    for (const y of [300, 500]) {
      await page.evaluate((top) => window.scrollTo(0, top), y);
      await page.waitForTimeout(100);
    }
    await expect.poll(async () => (await navbar.boundingBox())!.y, { timeout: 3000 }).toBeLessThan(-10);
  });

  it('scrolls to the hash target after navigation, and to the top otherwise', async () => {
    await openPage(page, `${base}/docs/access`);
    await page.evaluate(() => window.scrollTo(0, 400));
    await clientNavigate(page, '/docs/intro#conventions-in-these-docs');
    const heading = page.locator('#conventions-in-these-docs');
    await expect.poll(async () => Math.round((await heading.boundingBox())?.y ?? -1), { timeout: 5000 }).toBeLessThan(120);
    await page.locator('nav[aria-label="Docs sidebar"] a[href="/docs/access"]').first().click();
    await page.waitForURL(`${base}/docs/access`);
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
  });

  it('still prefetches the code of the pages linked in view, after the page has loaded', async () => {
    const target = chunkContaining(`JSON.parse('{"id":"access/index"`);
    const prefetches: string[] = [];
    page.on('request', (r) => {
      if (/prefetch/i.test(r.headers()['sec-purpose'] ?? '')) prefetches.push(new URL(r.url()).pathname);
    });
    await page.goto(`${base}/docs/intro`);
    await hydrated(page);
    // The sidebar's link to the Access overview is in view: its page's code is prefetched (a prefetch request).
    await expect.poll(() => prefetches.includes(`/${target}`), { timeout: 15_000 }).toBe(true);
    // On the browser's clock, after the load event had finished. The resource entry is only written once the
    // response has come in, which can be after Playwright reports the request: wait for it.
    const readTiming = () =>
      page.evaluate((url) => {
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        return { loadEnd: nav.loadEventEnd, requested: performance.getEntriesByName(url, 'resource')[0]?.startTime ?? -1 };
      }, `${base}/${target}`);
    await expect.poll(async () => (await readTiming()).requested, { timeout: 15_000 }).toBeGreaterThan(0);
    const timing = await readTiming();
    expect(timing.loadEnd).toBeGreaterThan(0);
    expect(timing.requested).toBeGreaterThanOrEqual(timing.loadEnd);
    // Opening the page then works as a client-side navigation.
    await page.locator('.theme-doc-sidebar-menu a[href="/docs/access"]').first().click();
    await page.waitForURL(`${base}/docs/access`);
    await page.locator('article h1', { hasText: 'Identity Management' }).waitFor();
  });

  it('offers a skip-to-content link as the first focus stop, which moves keyboard focus into the main content', async () => {
    await openPage(page, `${base}/docs/intro`);
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Skip to main content');
    await page.keyboard.press('Enter');
    // The focus is on the main content itself (not left on <body>), and the next Tab goes on inside it.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('MAIN');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('main') !== null)).toBe(true);
  });
});

describe('hydration', () => {
  it('hydrates the content, sidebar, table of contents, version item and back-to-top button as the server rendered them, once each, and a click right after hydration works', async () => {
    // Every element of the server's HTML is marked once it is parsed, before any script runs.
    await page.addInitScript(() => {
      document.addEventListener('readystatechange', () => {
        if (document.readyState !== 'interactive') return;
        for (const el of document.querySelectorAll('body *')) (el as HTMLElement).dataset.fromServer = '';
      });
    });
    await page.goto(`${base}/docs/intro`);
    await hydrated(page);
    // A click on a sidebar caret as soon as the page reports hydration: the sidebar's handlers are there.
    const caret = page.getByRole('button', { name: "Collapse sidebar category 'Identity Management'" });
    await caret.click();
    await page.getByRole('button', { name: "Expand sidebar category 'Identity Management'" }).waitFor();
    const regions = await page.evaluate(() =>
      ['footer', '.theme-doc-markdown', '.theme-doc-sidebar-menu', '.table-of-contents', 'article h1', '.navbar__items--right > a[href="/docs/intro"]', '.theme-back-to-top-button'].map((sel) => {
        const all = [...document.querySelectorAll<HTMLElement>(sel)];
        return [sel, all.length, all.every((el) => 'fromServer' in el.dataset)];
      }),
    );
    expect(regions).toEqual([
      ['footer', 1, true],
      ['.theme-doc-markdown', 1, true],
      ['.theme-doc-sidebar-menu', 1, true],
      ['.table-of-contents', 1, true],
      ['article h1', 1, true],
      // The version item (one version: a link to its first doc, "Next").
      ['.navbar__items--right > a[href="/docs/intro"]', 1, true],
      ['.theme-back-to-top-button', 1, true],
    ]);
  });

  it('shows the back-to-top button once the reader has scrolled down, and it takes them back to the top', async () => {
    await openPage(page, `${base}/docs/access/guides/m2m`);
    // Hidden at first, so out of the accessibility tree: found by its class.
    const button = page.locator('.theme-back-to-top-button');
    expect(await button.evaluate((el) => getComputedStyle(el).visibility)).toBe('hidden');
    for (const y of [400, 800, 1200]) {
      await page.evaluate((top) => window.scrollTo(0, top), y);
      await page.waitForTimeout(50);
    }
    // Scrolling up a little is what reveals it (the theme's rule), far enough from the top.
    await page.evaluate(() => window.scrollTo(0, 1000));
    await expect.poll(() => button.evaluate((el) => getComputedStyle(el).visibility)).toBe('visible');
    expect(await button.getAttribute('aria-label')).toBe('Scroll back to top');
    await button.click();
    await expect.poll(() => page.evaluate(() => window.scrollY), { timeout: 5000 }).toBe(0);
  });
});

describe('mobile layout', () => {
  it('collapses to the mobile sidebar at 996 px, which closes on navigation', async () => {
    await page.setViewportSize({ width: 996, height: 800 });
    await openPage(page, `${base}/docs/intro`);
    const toggle = page.getByRole('button', { name: 'Toggle navigation bar' });
    await expect.poll(() => toggle.isVisible()).toBe(true);
    await toggle.click();
    const sidebar = page.locator('.navbar-sidebar');
    await expect.poll(() => sidebar.isVisible()).toBe(true);
    await sidebar.locator('a.menu__link--sublist[href="/docs/access"]').click();
    await page.waitForURL(`${base}/docs/access`);
    await expect.poll(() => page.evaluate(() => document.querySelector('.navbar')?.classList.contains('navbar-sidebar--show'))).toBe(false);
  });

  it('keeps the desktop navbar at 997 px', async () => {
    await page.setViewportSize({ width: 997, height: 800 });
    await openPage(page, `${base}/docs/intro`);
    expect(await page.getByRole('button', { name: 'Toggle navigation bar' }).isVisible()).toBe(false);
    expect(await page.locator('nav[aria-label="Docs sidebar"]').isVisible()).toBe(true);
  });
});

describe('failures', () => {
  it('shows the crash fallback with the error message and Try again', async () => {
    const chunk = chunkContaining('Conventions in these docs');
    const original = fs.readFileSync(path.join(siteBuild, chunk), 'utf8');
    copy.replace(chunk, original.replace('children:"Conventions in these docs"', 'children:(()=>{throw new Error("Injected render failure")})()'));
    await page.goto(`${copy.url}/docs/intro`);
    await expect.poll(() => page.getByText('This page crashed.').isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await page.getByText('Injected render failure').first().isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Try again' }).isVisible()).toBe(true);
  });

  it('shows the base URL banner on the home page when the site’s scripts cannot load', async () => {
    copy.hide('assets');
    await page.goto(`${copy.url}/`);
    const banner = page.locator('#__docusaurus-base-url-issue-banner');
    await expect.poll(() => banner.isVisible()).toBe(true);
    expect(await banner.textContent()).toContain('did not load properly');
    expect(await banner.textContent()).toContain('baseUrl');
  });

  it('reloads the page fully when the next page’s code cannot be fetched during client navigation', async () => {
    copy.hide(chunkContaining('Conventions in these docs'));
    await openPage(page, `${copy.url}/docs/access`);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await clientNavigate(page, '/docs/intro');
    await page.waitForURL(`${copy.url}/docs/intro`);
    // A full reload: the page's state is gone, and the server-rendered page is there (its code still missing).
    await expect.poll(() => page.evaluate(() => (window as unknown as { marker?: number }).marker), { timeout: 10_000 }).toBeUndefined();
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('Introduction');
  });

  it('shows the load error and Retry when the page’s own code cannot be fetched, and Retry loads it', async () => {
    copy.hide(chunkContaining('Conventions in these docs'));
    await page.goto(`${copy.url}/docs/intro`);
    const alert = page.getByRole('alert').filter({ hasText: 'did not load completely' });
    await expect.poll(() => alert.isVisible()).toBe(true);
    expect(await alert.textContent()).toContain(`Loading chunk`);
    // The code is back on the server: Retry loads it.
    copy.restore();
    await alert.getByRole('button', { name: 'Retry' }).click();
    await page.waitForLoadState('load');
    await hydrated(page);
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'did not load completely' }).count()).toBe(0);
    // Hydrated this time: the search box works.
    await page.keyboard.press('Control+k');
    await expect.poll(() => page.getByRole('combobox').isVisible()).toBe(true);
  });
});

describe('stored choices', () => {
  it('persists the tab choice under docusaurus.tab.<groupId>', async () => {
    await openPage(page, `${base}/docs/access/react-sdk/guides/setup`);
    await page.getByRole('tab', { name: 'pnpm' }).click();
    expect(await page.evaluate(() => localStorage.getItem('docusaurus.tab.package-manager'))).toBe('pnpm');
    await page.reload();
    await expect.poll(() => page.getByRole('tab', { name: 'pnpm' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByText('pnpm add @keyway/react @keyway/sdk').isVisible()).toBe(true);
  });

  it('closes the announcement bar, remembers it, and shows it again for a new announcement id', async () => {
    await openPage(page, `${base}/docs/intro`);
    const bar = page.getByRole('banner').filter({ hasText: 'Keyway SDK 3.29' });
    await expect.poll(() => bar.isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => bar.isVisible()).toBe(false);
    expect(await page.evaluate(() => localStorage.getItem('docusaurus.announcement.dismiss'))).toBe('true');
    expect(await page.evaluate(() => localStorage.getItem('docusaurus.announcement.id'))).toBe('sdk-3-29');
    await page.reload();
    expect(await page.getByText('Keyway SDK 3.29').isVisible()).toBe(false);
    // The same visitor meets the site with another announcement id: the dismissal is reset.
    const variant = inject('variantUrl');
    const other = await context.newPage();
    await other.addInitScript(() => {
      if (!sessionStorage.getItem('seeded')) {
        localStorage.setItem('docusaurus.announcement.dismiss', 'true');
        localStorage.setItem('docusaurus.announcement.id', 'sdk-3-29');
        sessionStorage.setItem('seeded', '1');
      }
    });
    await openPage(other, `${variant}/docs/intro`);
    await expect.poll(() => other.getByText('Second announcement for the e2e tests.').isVisible()).toBe(true);
    expect(await other.evaluate(() => localStorage.getItem('docusaurus.announcement.id'))).toBe('e2e-second-announcement');
    expect(await other.evaluate(() => localStorage.getItem('docusaurus.announcement.dismiss'))).toBe('false');
  });

  it('has no colour mode switch and stays light even when the system prefers dark', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await openPage(page, `${base}/docs/intro`);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    expect(await page.getByRole('button', { name: /dark mode|light mode|color mode/i }).count()).toBe(0);
  });
});
