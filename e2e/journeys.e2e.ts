// Reader journeys, by clicks only (issue #41): `npm start` on free ports, Chromium with nothing routed, a reader who
// arrives on the landing page and moves as readers do — the navbar, down each sidebar (a sample of every category,
// every API tag), the pagers, search results of every kind, the assistant's citations, sign-in and back to the page
// they came from — at desktop and phone widths. Every step fails on a not-found page, a console error, a page that
// does not start at its top (or at its anchor), a focus left on nothing, or a main heading that differs from the
// one a direct load of the same address shows (the page the docs server sends for it, asked with the reader's
// cookies; the reader's tab itself loads one address only, the landing page).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { hydrated, isolatedContext, launchBrowser } from './browser';
import { mailboxCode } from './signin';
import { npmStart, type NpmStart } from './npm-start';

let portal: NpmStart;
let browser: Browser;

beforeAll(async () => {
  portal = await npmStart();
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await portal?.stop();
});

/** A reader's tab, its console errors, and the headings direct loads of the addresses it visits show. */
class Reader {
  readonly errors: string[] = [];
  private readonly direct = new Map<string, string>();
  readonly visited: string[] = [];

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    readonly phone: boolean,
  ) {
    page.on('console', (m) => {
      if (m.type() === 'error') this.errors.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => this.errors.push(`${page.url()}: ${e.message}`));
  }

  static async open(phone: boolean): Promise<Reader> {
    const context = await isolatedContext(browser, phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const reader = new Reader(context, page, phone);
    // The one address typed: the landing page, as a reader arrives.
    await page.goto(`${portal.docs}/`);
    await hydrated(page);
    await reader.check('the landing page');
    return reader;
  }

  async close(): Promise<void> {
    await this.context.close();
  }

  /** The main heading of the page the reader sees. */
  private heading(page: Page): Promise<string> {
    return page
      .locator('h1')
      .first()
      .textContent({ timeout: 10_000 })
      .then((t) => (t ?? '').replace(/\u200b/g, '').trim());
  }

  /**
   * The main heading a direct load of `url` shows: the first `<h1>` of the page the docs server sends for it, asked
   * with this reader's cookies (a gated page needs the docs session), which is what a load paints before any script.
   */
  private async directHeading(url: string): Promise<string> {
    const known = this.direct.get(url);
    if (known !== undefined) return known;
    const html = await (await this.context.request.get(url)).text();
    const inner = /<h1\b[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1] ?? '';
    const heading = inner
      .replace(/<[^>]+>/g, '')
      .replace(/&#x27;|&#39;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&')
      .replace(/\u200b/g, '')
      .trim();
    this.direct.set(url, heading);
    return heading;
  }

  /** What every step checks, after the page has settled. */
  async check(step: string): Promise<void> {
    const page = this.page;
    await hydrated(page);
    await page.waitForFunction(() => !document.querySelector('[data-testid="api-spinner"]'));
    await page.waitForFunction(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true)))));
    const url = new URL(page.url());
    this.visited.push(url.pathname + url.hash);
    const heading = await this.heading(page);
    expect(heading, `${step}: not found at ${url.pathname}`).not.toMatch(/^Page Not Found$/);
    expect(heading, `${step}: no main heading at ${url.pathname}`).not.toBe('');
    expect(await page.locator('nav.menu, .navbar').count(), `${step}: no navigation at ${url.pathname}`).toBeGreaterThan(0);
    const address = `${url.origin}${url.pathname}`;
    const direct = await this.directHeading(address);
    // A page still on its way (a busy machine) gets a few seconds more before its heading counts as wrong.
    if (heading !== direct) await expect.poll(() => this.heading(page), { timeout: 10_000, message: `${step}: ${url.pathname} shows another heading than a direct load` }).toBe(direct);
    // Scroll: a new page starts at its top, or with its anchor's target in view.
    const scroll = await page.evaluate((hash) => {
      if (hash) {
        const target = document.getElementById(decodeURIComponent(hash.slice(1)));
        if (!target) return `no element #${hash.slice(1)}`;
        const r = target.getBoundingClientRect();
        return r.top >= -2 && r.top < window.innerHeight ? 'ok' : `#${hash.slice(1)} is at ${Math.round(r.top)} px`;
      }
      return window.scrollY <= 2 ? 'ok' : `scrolled to ${Math.round(window.scrollY)} px`;
    }, url.hash);
    expect(scroll, `${step}: ${url.pathname}${url.hash}`).toBe('ok');
    // Focus: on something that is still in the page (or the page itself), never on a removed element.
    expect(await page.evaluate(() => document.activeElement === null || document.activeElement.isConnected), `${step}: focus on a removed element`).toBe(true);
    expect(this.errors, `${step}: console errors`).toEqual([]);
  }

  /** Clicks, waits for the address to change (when `navigates`), and checks the page. */
  async click(target: Locator, step: string, navigates = true): Promise<void> {
    const before = this.page.url();
    // The page shown until then: a client-side navigation changes the address first and the page once its code is in.
    const oldHeading = await this.page.evaluate(() => {
      const h1 = document.querySelector('h1');
      h1?.setAttribute('data-journey-before', '');
      return h1?.textContent ?? '';
    });
    await target.scrollIntoViewIfNeeded();
    await target.click();
    if (navigates) {
      await this.page.waitForURL((u) => u.href !== before, { timeout: 15_000 });
      // Until the page shown is another one: its heading replaced, or (the same element reused) another text. A page
      // that never comes shows the old heading, which the check below compares with a direct load.
      if (new URL(before).pathname !== new URL(this.page.url()).pathname) {
        await this.page
          .waitForFunction(
            (old) => {
              const h1 = document.querySelector('h1[data-journey-before]');
              return !h1 || h1.textContent !== old;
            },
            oldHeading,
            { timeout: 15_000 },
          )
          .catch(() => undefined);
      }
    }
    await this.check(step);
  }

  /** On a phone, the navbar's and sidebar's links are in the menu: open it first. */
  async openMenu(): Promise<void> {
    if (!this.phone || (await this.page.locator('.navbar-sidebar--show').count())) return;
    await this.page.getByRole('button', { name: 'Toggle navigation bar' }).click();
    await this.page.locator('.navbar-sidebar').waitFor();
  }

  /** The sidebar (desktop) or the menu's docs sidebar (phone). */
  sidebar(): Locator {
    return this.phone ? this.page.locator('.navbar-sidebar__item.menu').last() : this.page.locator('aside nav.menu, nav.menu').first();
  }
}

// In an order where each item leads somewhere else than the page the reader is on (the landing page's button led to Docs).
const NAVBAR = ['Identity Management', 'Identity Protection', 'Gate', 'API Reference', 'Docs'];

async function navbarSection(reader: Reader, label: string): Promise<void> {
  await reader.openMenu();
  const item = reader.phone
    ? reader.page.locator('.navbar-sidebar .menu__link', { hasText: new RegExp(`^${label}$`) }).first()
    : reader.page.locator('.navbar__items a.navbar__link', { hasText: new RegExp(`^${label}$`) }).first();
  // On a phone the menu opens on the docs sidebar of a doc page: go back to the main menu first.
  if (reader.phone && (await reader.page.locator('.navbar-sidebar__items--show-secondary').count())) await reader.page.getByRole('button', { name: /Back to main menu/ }).click();
  await reader.click(item, `navbar → ${label}`);
}

const exactly = (label: string): RegExp => new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

/** The sidebar category item (`li`) whose own label is `label`. */
const categoryItem = (sidebar: Locator, label: string): Locator =>
  sidebar.locator('.menu__list-item-collapsible > a.menu__link', { hasText: exactly(label) }).first().locator('xpath=ancestor::li[1]');

/** Unfolds a sidebar category item, without leaving the page (its caret, or the label of a category without a page). */
async function unfold(item: Locator): Promise<void> {
  if (!(await item.evaluate((li) => li.classList.contains('menu__list-item--collapsed')))) return;
  const caret = item.locator(':scope > .menu__list-item-collapsible > button.menu__caret');
  await ((await caret.count()) ? caret : item.locator(':scope > .menu__list-item-collapsible > a')).click();
}

/**
 * Unfolds a sidebar category (by its label) and clicks a page in it other than the current one: the first, or the first
 * matching `pick`; a category holding only categories has its first one unfolded, and so on down.
 */
async function sidebarPage(reader: Reader, category: string, pick?: RegExp): Promise<void> {
  await reader.openMenu();
  let item = categoryItem(reader.sidebar(), category);
  for (let depth = 0; ; depth++) {
    await unfold(item);
    const links = item.locator(':scope > ul a.menu__link:not([role="button"]):not(.menu__link--sublist):not(.menu__link--active)').filter({ visible: true });
    const matching = pick ? links.filter({ hasText: pick }) : links;
    // The category unfolds with an animation: its links become visible within it.
    for (let waited = 0; waited < 2_000 && !(await matching.count()); waited += 100) await reader.page.waitForTimeout(100);
    if ((await matching.count()) || depth >= 3) {
      const link = matching.first();
      await reader.click(link, `sidebar → ${category} → ${(await link.textContent())?.trim()}`);
      return;
    }
    item = item.locator(':scope > ul > li.theme-doc-sidebar-item-category').first();
  }
}

async function search(reader: Reader, query: string, url: RegExp): Promise<void> {
  await reader.page.getByRole('button', { name: 'Search the docs' }).click();
  await reader.page.getByRole('combobox').fill(query);
  const options = reader.page.locator('[role="option"][data-url]');
  const urls = () => options.evaluateAll((els) => els.map((e) => e.getAttribute('data-url') ?? ''));
  await expect.poll(async () => (await urls()).some((u) => url.test(u)), { timeout: 10_000 }).toBe(true);
  const found = (await urls()).findIndex((u) => url.test(u));
  await reader.click(options.nth(found), `search "${query}" → result ${found + 1}`);
  expect(await reader.page.getByRole('dialog', { name: 'Search the docs' }).count()).toBe(0);
}

for (const phone of [false, true]) {
  describe(phone ? 'a reader on a phone (390 px)' : 'a reader on a desktop (1440 px)', () => {
    it('walks the navbar, the sidebars and the pagers from the landing page', async () => {
      const reader = await Reader.open(phone);
      // From the landing page's own call to action.
      await reader.click(reader.page.getByRole('link', { name: 'Read the docs' }), 'landing → Read the docs');
      for (const label of NAVBAR) await navbarSection(reader, label);
      // Docs: a page of every category of Identity Management, then of the other sections.
      await navbarSection(reader, 'Identity Management');
      for (const category of phone ? ['Concepts', 'React SDK'] : ['Concepts', 'Guides', 'Integrations', 'React SDK', 'Remix SDK', 'SDK reference']) await sidebarPage(reader, category);
      await navbarSection(reader, 'Gate');
      await sidebarPage(reader, 'Gate');
      await navbarSection(reader, 'Identity Protection');
      await sidebarPage(reader, 'Sinks');
      // The pagers: two steps forward, one back.
      for (const [side, n] of [['next', 2], ['prev', 1]] as const) {
        for (let i = 0; i < n; i++) await reader.click(reader.page.locator(`.pagination-nav__link--${side}`), `pager → ${side}`);
      }
      await reader.close();
    }, 300_000);

    it('opens the API reference from its overview: every tag, then the pagers between operations', async () => {
      const reader = await Reader.open(phone);
      await navbarSection(reader, 'API Reference');
      await reader.openMenu();
      const tags = await reader.sidebar().locator(':scope > ul > li.theme-doc-sidebar-item-category > .menu__list-item-collapsible > a').allTextContents();
      expect(tags.length).toBeGreaterThan(15);
      // Desktop: every tag, each time from the page the last one left; phone: three of them, the first from the overview.
      for (const tag of phone ? [tags[0]!, tags[Math.floor(tags.length / 2)]!, tags.at(-1)!] : tags) {
        await sidebarPage(reader, tag.trim(), /^(?!All )/);
      }
      await reader.click(reader.page.locator('.pagination-nav__link--next'), 'API pager → next');
      await reader.click(reader.page.locator('.pagination-nav__link--prev'), 'API pager → previous');
      // A category page from an operation's "Categories" line.
      await reader.click(reader.page.locator('article a[href^="/docs/category/api/"]').first(), 'operation → its category');
      await reader.click(reader.page.locator('article table a').first(), 'category → an operation');
      await reader.close();
    }, 600_000);

    it('follows search results of every kind and the assistant’s citations', async () => {
      const reader = await Reader.open(phone);
      // A guide, an API operation, an API category, the generated SDK reference, a section of a page (anchor).
      await search(reader, 'machine to machine tokens', /^\/docs\/access\/guides\/m2m/);
      await search(reader, 'create a new person', /^\/docs\/api\/post-persons$/);
      await search(reader, 'OIDC discovery', /^\/docs\/category\/api\//);
      await search(reader, 'KeywayClient', /^\/docs\/access\/sdk\//);
      await search(reader, 'webhook signature', /#/);
      // The assistant: a question, then its first citation.
      await reader.page.getByRole('button', { name: /^Ask AI/ }).click();
      const panel = reader.page.getByRole('dialog', { name: 'Keyway assistant' });
      const input = panel.getByRole('textbox', { name: 'Your question' });
      await input.fill('How do I validate a token on my backend?');
      await input.press('Enter');
      await panel.locator('article[data-status="done"]').last().waitFor({ timeout: 30_000 });
      await reader.click(panel.getByRole('list', { name: 'Sources' }).getByRole('link').first(), 'assistant → citation');
      expect(await panel.count()).toBe(0);
      await reader.close();
    }, 300_000);

    it('signs in from a gated link and comes back to the page it led to', async () => {
      const reader = await Reader.open(phone);
      await navbarSection(reader, 'Identity Protection');
      await reader.openMenu();
      const sidebar = reader.sidebar();
      await reader.click(sidebar.getByRole('link', { name: 'Detections (sign in)' }), 'sidebar → Detections (sign in)');
      expect(new URL(reader.page.url()).pathname).toBe('/login');
      const email = `journey-${phone ? 'phone' : 'desktop'}-${Date.now()}@example.com`;
      await reader.page.getByLabel('Work e-mail address').fill(email);
      await reader.page.getByRole('button', { name: 'Continue' }).click();
      const code = reader.page.getByLabel('Code from the e-mail');
      await code.waitFor();
      await code.fill(await mailboxCode(email, portal.api));
      await reader.page.getByRole('button', { name: 'Sign in' }).click();
      await reader.page.waitForURL((u) => u.pathname === '/docs/identity-protection/detections', { timeout: 15_000 });
      await reader.check('signed in → back to Detections');
      // Signed in: the gated page keeps the rest of Identity Protection in its sidebar, and its links work.
      await sidebarPage(reader, 'Sinks');
      await reader.close();
    }, 300_000);
  });
}
