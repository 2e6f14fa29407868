import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { LOOPBACK_ONLY_ARGS } from './offline';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Debian's Chromium, headless, with the flags this closed network needs; it resolves only the loopback hosts, so no
 * page can reach the network (see offline.ts), and nothing is intercepted.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...LOOPBACK_ONLY_ARGS,
    ],
  });
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
