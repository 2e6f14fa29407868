import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Browser, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser } from './browser';

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
