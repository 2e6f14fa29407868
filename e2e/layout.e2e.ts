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

  it('lists h2 to h4 in the table of contents and highlights the section being read', async () => {
    const page = await context().newPage();
    // An SDK class page: h2 (Constructors, Methods), h3 (each method), h4 (Parameters, Returns) and h5 (each parameter).
    await openPage(page, `${base}/docs/access/sdk/classes/KeywayClient`);
    const toc = page.locator('.theme-doc-toc-desktop');
    const depthOf = (text: string) =>
      toc.locator('a', { hasText: new RegExp(`^${text}$`) }).first().evaluate((a) => {
        let depth = 0;
        for (let el: Element | null = a; el && !el.classList.contains('table-of-contents'); el = el.parentElement) if (el.tagName === 'UL') depth += 1;
        return depth;
      });
    expect(await depthOf('Methods')).toBe(0);
    expect(await depthOf('call\\(\\)')).toBe(1);
    expect(await depthOf('Parameters')).toBe(2);
    // h5 headings (each parameter's name) stay out.
    expect(await toc.locator('a', { hasText: /^method$/ }).count()).toBe(0);

    const active = () => toc.locator('a.table-of-contents__link--active').allTextContents();
    const colour = (sel: string) => toc.locator(sel).first().evaluate((a) => getComputedStyle(a).color);
    // A heading just below the navbar is the current section.
    const readAt = (id: string) => page.locator(`h2#${id}`).evaluate((h) => window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 90));
    await readAt('methods');
    await expect.poll(active).toEqual(['Methods']);
    // The current section is told apart by its colour, not only by a class name.
    expect(await colour('a.table-of-contents__link--active')).not.toBe(await colour('a.table-of-contents__link:not(.table-of-contents__link--active)'));
    await readAt('properties');
    await expect.poll(active).toEqual(['Properties']);
    await page.close();
  });

  it('keeps the navbar on one line, brand in full, from 997 px up, and switches to the mobile menu at 996 px', async () => {
    const page = await context().newPage();
    for (const width of [997, 1100, 1250, 1280, 1399, 1440]) {
      await page.setViewportSize({ width, height: 800 });
      await openPage(page, `${base}/docs/intro`);
      const layout = await page.evaluate(() => {
        const inner = document.querySelector('.navbar__inner')!;
        const title = document.querySelector<HTMLElement>('.navbar__title')!;
        const items = [...document.querySelectorAll<HTMLElement>('.navbar__inner .navbar__item, .navbar__brand')].filter((e) => e.offsetParent);
        return {
          overflow: inner.scrollWidth - inner.clientWidth,
          brand: `${title.textContent} ${title.scrollWidth <= title.clientWidth ? 'whole' : 'cut'}`,
          tallest: Math.max(...items.map((e) => e.getBoundingClientRect().height)),
          spread: (() => {
            const centres = items.map((e) => e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2);
            return Math.max(...centres) - Math.min(...centres);
          })(),
          mobileToggle: getComputedStyle(document.querySelector('.navbar__toggle')!).display,
          // Items drawn over each other (a label too long for the row pushes into its neighbour, without overflow).
          overlapping: items.flatMap((a, i) =>
            items.slice(i + 1).flatMap((b) => {
              const [ra, rb] = [a.getBoundingClientRect(), b.getBoundingClientRect()];
              const apart = ra.right <= rb.left + 1 || rb.right <= ra.left + 1 || a.contains(b) || b.contains(a);
              return apart ? [] : [`${a.textContent?.trim() || a.className} / ${b.textContent?.trim() || b.className}`];
            }),
          ),
        };
      });
      expect(layout.overflow, `${width}px`).toBeLessThanOrEqual(0);
      expect(layout.brand, `${width}px`).toBe('Keyway whole');
      // One line of text per item (a wrapped label doubles its height) and all items centred on one row.
      expect(layout.tallest, `${width}px`).toBeLessThan(44);
      expect(layout.spread, `${width}px`).toBeLessThan(8);
      expect(layout.mobileToggle, `${width}px`).toBe('none');
      expect(layout.overlapping, `${width}px`).toEqual([]);
    }
    await page.setViewportSize({ width: 996, height: 800 });
    await openPage(page, `${base}/docs/intro`);
    expect(await page.locator('.navbar__toggle').isVisible()).toBe(true);
    await page.close();
  });
});
