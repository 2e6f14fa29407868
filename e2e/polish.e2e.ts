import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { useSharedContext, openPage } from './browser';
import { repoRoot } from './paths';
import { loadContract } from '@keyway/api';

// Ways forward for a lost reader, and the mobile layout around the assistant's button.
const base = inject('docsUrl');
const context = useSharedContext({ viewport: { width: 1280, height: 900 } });

describe('not found', () => {
  it('offers a search box and the sections, and keeps its tab title under /docs after hydration', async () => {
    const page = await context().newPage();
    for (const missing of ['/no-such-page', '/docs/no-such-page', '/docs/gate/no-such-page']) {
      const res = await page.goto(base + missing);
      expect(res?.status(), missing).toBe(404);
      await page.locator('html[data-has-hydrated="true"]').waitFor({ state: 'attached' });
      expect(await page.locator('h1').textContent(), missing).toBe('Page Not Found');
      await expect.poll(() => page.title(), { message: missing }).toBe('Page Not Found | Keyway Docs');
      const links = await page.locator('main a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      for (const section of ['/docs/intro', '/docs/access', '/docs/identity-protection/onboarding', '/docs/gate/getting-started', '/docs/api']) {
        expect(links, missing).toContain(section);
      }
    }
    // The search box leads to the full results page.
    await page.locator('main').getByRole('searchbox', { name: 'Search the docs' }).fill('passkey');
    await page.locator('main').getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(`${base}/search?q=passkey`);
    await expect.poll(() => page.locator('ol[aria-label="Search results"] li').count()).toBeGreaterThan(0);
    // The guide's section on passkeys comes first, before the generated reference of the SDK's passkey errors.
    expect(await page.locator('ol[aria-label="Search results"] li a').first().textContent()).toBe('Logging in and out › Passkeys');
    await page.close();
  });

  it('sends the section roots a reader types to the section entry pages', async () => {
    const page = await context().newPage();
    const roots: [string, string][] = [
      ['/docs/gate', '/docs/gate/getting-started'],
      ['/docs/identity-protection', '/docs/identity-protection/onboarding'],
      ['/docs/access/sdk', '/docs/access/sdk/modules'],
      ['/docs/category/api', '/docs/api'],
    ];
    for (const [from, to] of roots) {
      const res = await page.goto(base + from);
      expect(res?.status(), from).toBe(200);
      await page.waitForURL(base + to);
      expect(await page.locator('h1').first().textContent(), from).toBeTruthy();
    }
    await page.close();
  });
});

describe('mobile', () => {
  it('the Ask AI button never covers the open mobile menu', async () => {
    const page = await context().newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await openPage(page, `${base}/docs/intro`);
    const fab = page.getByRole('button', { name: /Ask AI/ });
    expect(await fab.isVisible()).toBe(true);
    const box = (await fab.boundingBox())!;
    await page.getByRole('button', { name: 'Toggle navigation bar' }).click();
    const menu = page.locator('.navbar-sidebar');
    await expect.poll(() => menu.isVisible()).toBe(true);
    // The point the button sat on belongs to the open menu now (its panel or its backdrop), and the button is out of the way.
    const onTop = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.closest('.navbar-sidebar, .navbar-sidebar__backdrop, button')?.className ?? '', {
      x: box.x + box.width / 2,
      y: box.y + box.height / 2,
    });
    expect(onTop).toContain('navbar-sidebar');
    await expect.poll(() => fab.count()).toBe(0);
    // Closed again, the button is back.
    await page.getByRole('button', { name: 'Close navigation bar' }).click();
    await expect.poll(() => fab.isVisible()).toBe(true);
    await page.close();
  });
  // Item 8 of issue #18: on a phone the floating button covered the bottom-right controls (on /login, the passkey
  // button). Every control of the page, scrolled to the top and to the bottom, stays clear of the "Ask AI" button.
  for (const [path, ready] of [
    ['/login', 'Sign in with a passkey'],
    ['/docs/intro', 'Toggle navigation bar'],
  ] as const) {
    it(`the Ask AI button covers none of the controls of ${path} at 390 px`, async () => {
      const page = await context().newPage();
      await page.setViewportSize({ width: 390, height: 844 });
      await openPage(page, base + path);
      await page.getByRole('button', { name: ready }).waitFor();
      const fab = page.getByRole('button', { name: /Ask AI/ });
      expect(await fab.count()).toBe(1);
      for (const scroll of ['top', 'bottom'] as const) {
        await page.evaluate((to) => window.scrollTo(0, to === 'top' ? 0 : document.documentElement.scrollHeight), scroll);
        await page.waitForFunction(() => new Promise((done) => requestAnimationFrame(() => done(true))));
        const button = (await fab.boundingBox())!;
        expect(button.width, `${path} (${scroll})`).toBeGreaterThan(0);
        const covered = await fab.evaluate((ask, b) => {
          const controls = document.querySelectorAll('a[href], button, input, select, textarea, summary, [role="button"], [role="radio"], [tabindex]:not([tabindex="-1"])');
          return [...controls]
            .filter((c) => c !== ask && !c.contains(ask) && !ask.contains(c))
            .map((c) => ({ c, r: c.getBoundingClientRect() }))
            .filter(({ c, r }) => r.width > 0 && r.height > 0 && getComputedStyle(c).visibility !== 'hidden')
            .filter(({ r }) => r.left < b.x + b.width && r.right > b.x && r.top < b.y + b.height && r.bottom > b.y)
            .filter(({ c, r }) => {
              // Covered only where the control would be seen without the button (not, say, under the sticky navbar).
              const x = (Math.max(r.left, b.x) + Math.min(r.right, b.x + b.width)) / 2;
              const y = (Math.max(r.top, b.y) + Math.min(r.bottom, b.y + b.height)) / 2;
              (ask as HTMLElement).style.visibility = 'hidden';
              const seen = document.elementFromPoint(x, y);
              (ask as HTMLElement).style.visibility = '';
              return !!seen && (c === seen || c.contains(seen));
            })
            .map(({ c }) => `${c.tagName.toLowerCase()} "${(c.getAttribute('aria-label') ?? c.textContent ?? '').trim().slice(0, 40)}"`);
        }, button);
        expect(covered, `${path} (${scroll})`).toEqual([]);
      }
      await page.close();
    });
  }
});

describe('API reference layout', () => {
  it('shows an operation in two columns at 1440 px, with the samples and the example response beside the parameters, sticky', async () => {
    const page = await context().newPage();
    await page.setViewportSize({ width: 1440, height: 900 });
    await openPage(page, `${base}/docs/api/post-persons`);
    const aside = page.getByTestId('api-aside');
    const params = page.locator('h2#parameters');
    const [a, p] = [(await aside.boundingBox())!, (await params.boundingBox())!];
    expect(a.x).toBeGreaterThan(p.x + p.width / 2);
    expect(Math.abs(a.y - p.y)).toBeLessThan(600);
    expect(await aside.getByRole('tab', { name: 'curl' }).isVisible()).toBe(true);
    expect(await aside.getByText(/^Example response 201/).isVisible()).toBe(true);
    // Scrolled down to the responses, the samples are still in view.
    await page.locator('h2#responses').evaluate((h) => window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 100));
    await expect.poll(async () => {
      const box = (await aside.boundingBox())!;
      return box.y >= 0 && box.y < 200;
    }).toBe(true);
    await page.close();
  });

  it('keeps the parameter descriptions in view at 390 px', async () => {
    const page = await context().newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await openPage(page, `${base}/docs/api/get-persons`);
    const cell = page.locator('article [data-list="parameters"] li').first().locator('div').last();
    const box = (await cell.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect((await cell.textContent())?.trim().length).toBeGreaterThan(0);
    await page.close();
  });

  it('badges deprecated operations on their page, in the sidebar and in category tables', async () => {
    const page = await context().newPage();
    await openPage(page, `${base}/docs/api/post-sso-oidc-tokens-revoke`);
    expect(await page.locator('article').getByText('Deprecated', { exact: true }).first().isVisible()).toBe(true);
    expect(await page.locator('nav[aria-label="Docs sidebar"] li.api-sidebar-deprecated a[href="/docs/api/post-sso-oidc-tokens-revoke"]').count()).toBe(1);
    await openPage(page, `${base}/docs/category/api/sso`);
    const row = page.locator('article tr', { has: page.locator('a[href="/docs/api/post-sso-oidc-tokens-revoke"]') });
    expect(await row.getByText('Deprecated', { exact: true }).isVisible()).toBe(true);
    await page.close();
  });

  it('offers the contract for download on the overview, the same document as the pages', async () => {
    const page = await context().newPage();
    await openPage(page, `${base}/docs/api`);
    for (const name of ['openapi.yaml', 'openapi.json']) {
      const link = page.locator(`article a[href="/${name}"]`);
      expect(await link.getAttribute('download'), name).toBeTruthy();
    }
    const yamlText = await (await fetch(`${base}/openapi.yaml`)).text();
    expect(yamlText).toBe(loadContract().text);
    const json = (await (await fetch(`${base}/openapi.json`)).json()) as unknown;
    expect(json).toEqual(parse(yamlText));
    await page.close();
  });

  it('groups the umbrella category by sub-category', async () => {
    const page = await context().newPage();
    await openPage(page, `${base}/docs/category/api/identity-management`);
    const groups = await page.locator('article h3').allTextContents();
    expect(groups.some((g) => /^Persons \(\d+\)/.test(g))).toBe(true);
    expect(groups.some((g) => /^Groups \(\d+\)/.test(g))).toBe(true);
    await page.close();
  });

  it('shows the spinner while the next API page loads, and reloads fully when it cannot be fetched', async () => {
    const page = await context().newPage();
    await openPage(page, `${base}/docs/api/get-me`);
    // Record every spinner the page shows, without slowing or intercepting any request.
    await page.evaluate(() => {
      const w = window as { spinnerSeen?: number };
      w.spinnerSeen = 0;
      new MutationObserver((records) => {
        for (const r of records)
          for (const n of r.addedNodes) if (n instanceof Element && (n.matches('[data-testid="api-spinner"]') || n.querySelector('[data-testid="api-spinner"]'))) w.spinnerSeen! += 1;
      }).observe(document.body, { childList: true, subtree: true });
    });
    await page.locator('.pagination-nav__link--next').click();
    await page.waitForURL(`${base}/docs/api/post-persons-anonymous`);
    await expect.poll(() => page.locator('h1').textContent()).not.toBe('Get the signed-in person');
    expect(await page.evaluate(() => (window as { spinnerSeen?: number }).spinnerSeen)).toBeGreaterThan(0);
    expect(await page.getByText('Loading…', { exact: true }).count()).toBe(0);

    // Offline (network emulation, nothing routed): the page data cannot be fetched and the browser loads the address.
    const navigations: string[] = [];
    page.on('request', (r) => r.isNavigationRequest() && navigations.push(new URL(r.url()).pathname));
    await page.context().setOffline(true);
    await page.locator('.pagination-nav__link--next').click();
    await expect.poll(() => navigations.length).toBeGreaterThan(0);
    await page.context().setOffline(false);
    expect(navigations[0]).toMatch(/^\/docs\/(api|category\/api)\//);
    await page.close();
  });
});
