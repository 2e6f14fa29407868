import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Browser, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { hydrated, launchBrowser } from './browser';

/**
 * First-load JS budget: the JavaScript a page makes the browser request before `load` (its script tags and the route
 * chunks the runtime fetches to hydrate it), gzipped at level 9 — the figure `bench:site` compares with a plain
 * Docusaurus site. Sizes are stable across machines, so this is a test; times are not, and live in bench/.
 * A deliberate growth updates e2e/js-budget.json in the same commit, with the reason in its message.
 */
interface Budget {
  tolerance: number;
  pages: Record<string, number>;
}
const budget = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'js-budget.json'), 'utf8')) as Budget;

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function firstLoadGzip(url: string): Promise<number> {
  const page = await browser.newPage();
  const scripts: Response[] = [];
  page.on('response', (res) => {
    if (res.request().resourceType() === 'script') scripts.push(res);
  });
  const res = await page.goto(url, { waitUntil: 'load' });
  expect(res?.status(), url).toBe(200);
  // Only scripts requested before the load event (by the page's own clock): code loaded on idle after it is not
  // first-load JS, even when its response arrives before the test sees the load event.
  const early = new Set(await page.evaluate(requestedBeforeLoad));
  const all = await Promise.all(scripts.filter((r) => early.has(r.url())).map((r) => r.body().catch(() => Buffer.alloc(0))));
  await page.close();
  return all.reduce((n, b) => n + zlib.gzipSync(b, { level: 9 }).length, 0);
}

/** Runs in the page: the URLs of the resources it requested before its load event. */
function requestedBeforeLoad(): string[] {
  const load = (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventStart;
  return performance
    .getEntriesByType('resource')
    .filter((e) => e.startTime <= load)
    .map((e) => e.name);
}

describe('first-load JS stays within its budget', () => {
  for (const [route, bytes] of Object.entries(budget.pages)) {
    it(`${route}: at most ${(1 + budget.tolerance) * 100}% of ${(bytes / 1024).toFixed(1)} KiB gzip`, async () => {
      const measured = await firstLoadGzip(inject('docsUrl') + route);
      console.log(`first-load JS ${route}: ${(measured / 1024).toFixed(1)} KiB gzip (budget ${(bytes / 1024).toFixed(1)} KiB)`);
      expect(measured, `${route} loads ${measured} bytes of JS (gzip) before load`).toBeLessThanOrEqual(
        Math.round(bytes * (1 + budget.tolerance)),
      );
    });
  }
});

/**
 * Work a page's first load does not need. `localeCompare`'s first call in a page sets up the browser's collator (16 ms
 * of main thread in Chromium here, four times that on Lighthouse's phone profile); Docusaurus called it to sort the
 * docs plugins' paths and the keys of a memoized object while the page hydrates, where plain code-unit order does the
 * same job (site/plugins/clientBundle). Counted in the browser, at a phone's and a desktop's width, until two seconds
 * after hydration (the idle work that follows it included).
 */
describe('a first load does not set up the collator', () => {
  for (const route of ['/', '/docs/intro', '/docs/access/guides/m2m', '/docs/api/post-persons']) {
    for (const [layout, viewport] of [['phone', { width: 412, height: 823 }], ['desktop', { width: 1280, height: 900 }]] as const) {
      it(`${route} (${layout})`, async () => {
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        await page.addInitScript(() => {
          const w = window as unknown as { localeCompareCalls: string[] };
          w.localeCompareCalls = [];
          const compare = String.prototype.localeCompare;
          String.prototype.localeCompare = function (this: string, ...args: Parameters<typeof compare>) {
            w.localeCompareCalls.push(new Error().stack?.split('\n')[2]?.trim() ?? '');
            return compare.apply(this, args);
          };
        });
        await page.goto(inject('docsUrl') + route);
        await hydrated(page);
        await page.waitForTimeout(2000);
        const calls = await page.evaluate(() => (window as unknown as { localeCompareCalls: string[] }).localeCompareCalls);
        await context.close();
        expect(calls, `localeCompare called from ${calls.slice(0, 3).join(' | ')}`).toEqual([]);
      });
    }
  }
});
