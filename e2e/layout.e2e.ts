import { describe, expect, inject, it } from 'vitest';
import { useSharedContext, openPage } from './browser';

const base = inject('docsUrl');
const context = useSharedContext({ viewport: { width: 1280, height: 900 } });

describe('navbar and footer', () => {
  it('has the navbar of the spec, in order, with the console sign-up link external', async () => {
    const page = await context().newPage();
    await openPage(page, `${base}/docs/intro`);
    const links = await page.locator('.theme-layout-navbar-left a.navbar__link').evaluateAll((as) =>
      as.map((a) => [a.textContent?.trim(), a.getAttribute('href')]),
    );
    expect(links).toEqual([
      ['Docs', '/docs/intro'],
      ['Identity Management', '/docs/access'],
      ['Identity Protection', '/docs/identity-protection/onboarding'],
      ['Gate', '/docs/gate/getting-started'],
      ['API Reference', '/docs/api'],
    ]);
    const signup = page.locator('a.navbar__signup');
    expect(await signup.getAttribute('href')).toMatch(/^https:\/\//);
    expect(await signup.getAttribute('target')).toBe('_blank');
    expect(await signup.getAttribute('rel')).toContain('noopener');
    expect(await page.locator('.navbar__items--right').getByRole('button', { name: 'Search the docs' }).isVisible()).toBe(true);
    await page.close();
  });

  it('shows the locale dropdown everywhere and the version dropdown (Next) on doc pages only', async () => {
    const page = await context().newPage();
    await openPage(page, `${base}/docs/intro`);
    const right = page.locator('.navbar__items--right');
    expect(await right.locator('.dropdown > .navbar__link').first().textContent()).toBe('English');
    expect(await right.getByText('Next', { exact: true }).isVisible()).toBe(true);
    await openPage(page, `${base}/docs/api/post-persons`);
    expect(await right.getByText('Next', { exact: true }).isVisible()).toBe(true);
    await openPage(page, `${base}/`);
    expect(await page.locator('.navbar__items--right .dropdown > .navbar__link').first().textContent()).toBe('English');
    expect(await page.locator('.navbar__items--right').getByText('Next', { exact: true }).count()).toBe(0);
    // Not-found pages under /docs are not doc pages: no dropdown, and the browser renders them as the build did.
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && errors.push(m.text()));
    for (const missing of ['/docs/no-such-page', '/docs/api/get-no-such-operation']) {
      await openPage(page, base + missing);
      expect(await page.locator('h1').textContent(), missing).toBe('Page Not Found');
      expect(await page.locator('.navbar__items--right').getByText('Next', { exact: true }).count(), missing).toBe(0);
    }
    expect(errors, 'hydration of not-found pages').toEqual([]);
    await page.close();
  });

  it('has the footer of the spec', async () => {
    const page = await context().newPage();
    await openPage(page, `${base}/`);
    const footer = page.locator('footer');
    expect(await footer.getByText('Copyright © 2025 Keyway').isVisible()).toBe(true);
    expect(await footer.locator('img[alt="Keyway"]').count()).toBe(1);
    const hrefs = await footer.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    for (const internal of ['/docs/intro', '/docs/api', '/docs/access', '/docs/gate/getting-started']) expect(hrefs).toContain(internal);
    for (const external of ['blog', 'keyway.dev', 'terms', 'privacy']) expect(hrefs.some((h) => h?.startsWith('https://') && h.includes(external))).toBe(true);
    await page.close();
  });

  it('uses the docs sidebar on docs pages and the api sidebar on API pages, neither hideable, no breadcrumbs', async () => {
    const page = await context().newPage();
    await openPage(page, `${base}/docs/intro`);
    const sidebar = page.locator('nav[aria-label="Docs sidebar"]');
    expect(await sidebar.getByRole('link', { name: 'Introduction' }).first().getAttribute('href')).toBe('/docs/intro');
    expect(await page.getByRole('button', { name: 'Collapse sidebar', exact: true }).count()).toBe(0);
    expect(await page.locator('nav[aria-label="Breadcrumbs"]').count()).toBe(0);
    await openPage(page, `${base}/docs/category/api/persons`);
    const apiLinks = await page.locator('nav[aria-label="Docs sidebar"] a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(apiLinks[0]).toBe('/docs/api');
    // Grouped by tag; the group of the page is open, with its category page and operations.
    expect(apiLinks).toContain('/docs/category/api/identity-management');
    expect(apiLinks).toContain('/docs/category/api/persons');
    expect(apiLinks).toContain('/docs/api/post-persons');
    expect(apiLinks).not.toContain('/docs/api/post-groups');
    expect(apiLinks).not.toContain('/docs/intro');
    await page.close();
  });

  it('lists h2 to h4 in the table of contents', async () => {
    const page = await context().newPage();
    await openPage(page, `${base}/docs/intro`);
    const toc = await page.locator('.table-of-contents a').allTextContents();
    expect(toc).toEqual(['The three products', 'Where to go next', 'Conventions in these docs']);
    await page.close();
  });
});
