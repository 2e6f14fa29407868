import { afterAll, beforeAll } from 'vitest';
import { type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { launchChromium } from '@keyway/test-support';

/**
 * Debian's Chromium, headless, resolving only the loopback hosts, so no page can reach the network, and nothing is
 * intercepted (`launchChromium` of `@keyway/test-support`, shared with every package's browser tests).
 */
export function launchBrowser(): Promise<Browser> {
  return launchChromium();
}

/**
 * A fresh context (no cookies, storage or cache shared with other tests). Requests to hosts other than the local
 * servers fail in the browser's resolver (launchBrowser); nothing is routed, so our servers' traffic, CORS preflights
 * included, is exactly a reader's. Tests that need third-party scripts fake them with page.route in their own context.
 */
export async function isolatedContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return browser.newContext(options);
}

/** Opens a page and waits until React has hydrated it, so that clicks and shortcuts reach their handlers. */
export async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await hydrated(page);
}

export async function hydrated(page: Page): Promise<void> {
  await page.locator('html[data-has-hydrated="true"]').waitFor({ state: 'attached', timeout: 15_000 });
}

/**
 * One browser and one isolated context shared by the tests of a file, opened before them and closed after them.
 * Returns the context's getter (it exists once the file's tests run).
 */
export function useSharedContext(options: BrowserContextOptions = {}): () => BrowserContext {
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
    context = await isolatedContext(browser, options);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
  });
  return () => {
    if (!context) throw new Error('the shared browser context is opened in beforeAll: use it inside tests');
    return context;
  };
}
