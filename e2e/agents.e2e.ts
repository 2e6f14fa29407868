import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page, Request } from 'playwright-core';
import { startDocsServer, type StartedDocsServer } from '@keyway/docs-server';
import { signInAt, startTestIdentityServer } from '@keyway/identity-server/testing';
import fs from 'node:fs';
import path from 'node:path';
import { hydrated, isolatedContext, launchBrowser } from './browser';
import { siteBuild } from './paths';

// The copy-page menu of doc and API pages in Chromium (clipboard permissions granted, nothing of our servers
// intercepted), and the Markdown twins of the real build behind the docs server with sign-in.
let browser: Browser;
let identity: Awaited<ReturnType<typeof startTestIdentityServer>>;
let docs: StartedDocsServer;

beforeAll(async () => {
  identity = await startTestIdentityServer();
  docs = await startDocsServer({ siteDir: siteBuild, port: 0, gate: { identityUrl: identity.url, orgId: identity.orgId } });
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await docs?.close();
  await identity?.stop();
});

async function openWithClipboard(url: string): Promise<{ page: Page; scripts: Request[]; close: () => Promise<void> }> {
  const context = await isolatedContext(browser, { permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await context.newPage();
  const scripts: Request[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(r);
  });
  await page.goto(url);
  await hydrated(page);
  return { page, scripts, close: () => context.close() };
}

describe('the copy-page menu', () => {
  it('copies the page as Markdown on a doc page; the menu is fetched only when opened', async () => {
    const { page, scripts, close } = await openWithClipboard(`${docs.url}/docs/gate/getting-started`);
    try {
      const trigger = page.getByRole('button', { name: 'Copy page' });
      // Beside the title: on the same line as the h1, to its right.
      const [t, h1] = [await trigger.boundingBox(), await page.locator('article h1').boundingBox()];
      expect(t!.x).toBeGreaterThan(h1!.x + 200);
      expect(Math.abs(t!.y - h1!.y)).toBeLessThan(h1!.height);
      const before = new Set(scripts.map((r) => r.url()));
      const bodies = await Promise.all([...before].map(async (u) => (await fetch(u)).text()));
      expect(bodies.some((b) => b.includes('Copy as Markdown'))).toBe(false);

      await trigger.click();
      await page.getByRole('menuitem', { name: /Copy as Markdown/ }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Copied as Markdown');
      const clipboard = await page.evaluate(() => navigator.clipboard.readText());
      const twin = await (await fetch(`${docs.url}/docs/gate/getting-started.md`)).text();
      expect(clipboard).toBe(twin);
      expect(clipboard).toContain('```yaml title="gate.yaml"');
      expect(scripts.some((r) => !before.has(r.url()))).toBe(true);

      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByRole('menu').count()).toBe(0);
    } finally {
      await close();
    }
  }, 60_000);

  it('offers View as Markdown and Open in assistants, prefilled with the page\'s Markdown URL, on an API page', async () => {
    const { page, close } = await openWithClipboard(`${docs.url}/docs/api/get-me`);
    try {
      await page.getByRole('button', { name: 'Copy page' }).click();
      expect(await page.getByRole('menuitem', { name: /View as Markdown/ }).getAttribute('href')).toBe('/docs/api/get-me.md');
      const mdUrl = `${docs.url}/docs/api/get-me.md`;
      for (const [name, host] of <const>[['ChatGPT', 'https://chatgpt.com/'], ['Claude', 'https://claude.ai/new'], ['Perplexity', 'https://www.perplexity.ai/search']]) {
        const href = await page.getByRole('menuitem', { name: new RegExp(`Open in ${name}`) }).getAttribute('href');
        expect(href!.startsWith(host), name).toBe(true);
        expect(new URL(href!).searchParams.get('q'), name).toContain(mdUrl);
      }
      await page.getByRole('menuitem', { name: /Copy as Markdown/ }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Copied as Markdown');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('\n`GET /me`\n');
    } finally {
      await close();
    }
  }, 60_000);

  it('closes on an Escape pressed the moment the menu appears, and gives the focus back to its button', async () => {
    const { page, close } = await openWithClipboard(`${docs.url}/docs/gate/getting-started`);
    try {
      // The Escape is sent from the DOM change that adds the menu, before the browser paints it.
      await page.evaluate(() => {
        new MutationObserver((_, observer) => {
          if (!document.querySelector('[role="menu"]')) return;
          observer.disconnect();
          document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
          document.body.dataset.escaped = 'yes';
        }).observe(document.body, { childList: true, subtree: true });
      });
      const trigger = page.getByRole('button', { name: 'Copy page' });
      await trigger.click();
      await expect.poll(() => page.evaluate(() => document.body.dataset.escaped)).toBe('yes');
      await page.waitForTimeout(300);
      expect(await page.getByRole('menu').count()).toBe(0);
      expect(await trigger.evaluate((el) => el === document.activeElement)).toBe(true);
    } finally {
      await close();
    }
  }, 60_000);
});

describe('Markdown twins of the build behind the docs server', () => {
  it('answer text/markdown for public pages, and for gated ones only with a docs session', async () => {
    const intro = await fetch(`${docs.url}/docs/intro`, { headers: { accept: 'text/markdown' } });
    expect(intro.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await intro.text()).toMatch(/^---\ntitle: "Introduction"/);
    const gated = '/docs/identity-protection/detections/webhooks.md';
    expect((await fetch(docs.url + gated)).status).toBe(401);
    const token = await signInAt(identity, 'twins.reader@example.com');
    const session = await fetch(`${docs.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    const cookie = String(session.headers.get('set-cookie')).split(';')[0]!;
    const signed = await fetch(docs.url + gated, { headers: { cookie } });
    expect(signed.status).toBe(200);
    expect(await signed.text()).toMatch(/^---\ntitle: "Detection webhooks"/);
    const llms = await (await fetch(`${docs.url}/llms.txt`, { headers: { cookie } })).text();
    expect(llms).toContain(`${docs.url}${gated}`);
    expect(await (await fetch(`${docs.url}/llms.txt`)).text()).not.toContain(gated);
  });
});
