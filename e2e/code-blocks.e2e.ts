import { describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { hydrated, useSharedContext } from './browser';

// Code blocks in Chromium. A server-rendered block is hydrated as it is, never re-highlighted: the page loads no
// Prism at all; the copy and word-wrap buttons come in a small chunk after the page's load event. Prism is loaded
// only for a block rendered in the browser (a page opened by a link).
const base = inject('docsUrl');
// The docs server is configured with this identity server: the samples' written http://localhost:8787 shows as it.
const apiUrl = inject('apiUrl');
const GUIDE = '/docs/access/guides/m2m';
const context = useSharedContext({ viewport: { width: 1440, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });

/**
 * Marks, once the HTML is parsed and before any script runs (deferred scripts run after `readystatechange` to
 * `interactive`), every code block the server rendered; records layout shifts inside the article and console errors.
 */
async function watchedPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await context().newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(() => {
    const w = window as unknown as { shifts: number[] };
    w.shifts = [];
    document.addEventListener('readystatechange', () => {
      if (document.readyState !== 'interactive') return;
      for (const el of document.querySelectorAll('.theme-code-block, .theme-code-block pre')) (el as HTMLElement).dataset.fromServer = '';
    });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as unknown as { value: number; sources?: { node?: Node }[] }[]) {
        if (e.sources?.some((s) => s.node instanceof Element && s.node.closest('article'))) w.shifts.push(e.value);
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
  return { page, errors };
}

const serverCode = async (page: Page) =>
  page.locator('article .theme-code-block pre').evaluateAll((pres) => pres.map((p) => p.outerHTML));

describe('code blocks', () => {
  it('keep the server-rendered highlighted DOM through hydration, load no Prism, and gain their buttons after load', async () => {
    // The server's markup, as a reader without JavaScript gets it.
    const plain = await context().browser()!.newContext({ javaScriptEnabled: false });
    const noJs = await plain.newPage();
    await noJs.goto(base + GUIDE);
    const fromServer = await serverCode(noJs);
    const titles = await noJs.locator('article .theme-code-block [class*="codeBlockTitle"]').allTextContents();
    await plain.close();
    expect(fromServer.length).toBeGreaterThan(3);
    expect(fromServer[0]).toContain('token-line');
    expect(titles).toContain('Register the billing job as a client');

    const { page, errors } = await watchedPage();
    // Every script the page fetched, with its body read when the test asks (reading it is asynchronous: a list filled
    // by the handler itself could still be empty when the copy buttons are already there).
    const scripts: Promise<{ url: string; text: string }>[] = [];
    page.on('response', (res) => {
      if (res.request().resourceType() === 'script') scripts.push(res.text().then((text) => ({ url: res.url(), text }), () => ({ url: res.url(), text: '' })));
    });
    await page.goto(base + GUIDE);
    await hydrated(page);
    const blocks = page.locator('article .theme-code-block');
    // The buttons come in a chunk of their own, one group per block.
    await expect.poll(() => page.locator('article .theme-code-block button[aria-label="Copy code to clipboard"]').count()).toBe(fromServer.length);
    const fetched = await Promise.all(scripts);
    expect(fetched.filter((s) => s.text.includes('prism-code')).map((s) => s.url)).toEqual([]);
    const buttons = fetched.filter((s) => s.text.includes('copyButtonIcons'));
    expect(buttons).toHaveLength(1);
    // The browser's own clock: the buttons' request started after the load event had finished.
    const timing = await page.evaluate((url) => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const chunk = performance.getEntriesByName(url, 'resource')[0];
      return { loadEnd: nav.loadEventEnd, requested: chunk?.startTime ?? -1 };
    }, buttons[0]!.url);
    expect(timing.loadEnd).toBeGreaterThan(0);
    expect(timing.requested).toBeGreaterThanOrEqual(timing.loadEnd);

    // The very elements the server rendered (hydrated, not re-created: the theme's block re-mounts after hydration),
    // in the same order, with the same highlighted markup (the API URL in it now the configured one, rewritten in
    // place) and titles; nothing in the article shifted.
    expect(await blocks.evaluateAll((els) => els.map((e) => 'fromServer' in (e as HTMLElement).dataset && 'fromServer' in e.querySelector('pre')!.dataset))).toEqual(
      fromServer.map(() => true),
    );
    await expect.poll(async () => (await serverCode(page)).join('\n')).toContain(apiUrl);
    expect((await serverCode(page)).map((html) => html.replace(' data-from-server=""', ''))).toEqual(fromServer.map((html) => html.split('http://localhost:8787').join(apiUrl)));
    expect(await blocks.locator('[class*="codeBlockTitle"]').allTextContents()).toEqual(titles);
    expect(await page.evaluate(() => (window as unknown as { shifts: number[] }).shifts)).toEqual([]);

    // The copy button copies the block's code.
    const first = blocks.first();
    await first.hover();
    await first.getByRole('button', { name: 'Copy code to clipboard' }).click();
    const code = (await first.locator('.token-line').allTextContents()).join('\n');
    expect((await page.evaluate(() => navigator.clipboard.readText())).trim()).toBe(code.trim());
    expect(errors).toEqual([]);
    await page.close();
  });

  it('wrap their long lines with the word-wrap button on a narrow screen', async () => {
    const { page, errors } = await watchedPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(base + GUIDE);
    await hydrated(page);
    // A block wider than the screen gets the theme's word-wrap button; pressing it wraps the code in its box.
    const wide = page.locator('article .theme-code-block').filter({ has: page.getByRole('button', { name: 'Toggle word wrap' }) }).first();
    await expect.poll(() => wide.count(), { timeout: 15_000 }).toBe(1);
    const pre = wide.locator('pre');
    const overflow = () => pre.evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(await overflow()).toBeGreaterThan(0);
    await wide.hover();
    await wide.getByRole('button', { name: 'Toggle word wrap' }).click();
    await expect.poll(overflow).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('are highlighted on a page opened by a link, with no console error', async () => {
    const { page, errors } = await watchedPage();
    await page.goto(`${base}/docs/access`);
    await hydrated(page);
    // A link in the page's text (the router's Link): the guide is rendered in the browser, not hydrated.
    await page.locator(`article a[href="${GUIDE}"]`).first().click();
    await page.waitForURL(base + GUIDE);
    await expect.poll(() => page.locator('article .theme-code-block .token-line').count()).toBeGreaterThan(10);
    await expect.poll(() => page.locator('article .theme-code-block button[aria-label="Copy code to clipboard"]').count()).toBeGreaterThan(3);
    expect(errors).toEqual([]);
    await page.close();
  });
});
