// The dead ends a new reader met by clicking (issue #41), each checked in Chromium against the production build, the
// docs server and a real identity server, as a reader meets them: by clicking, typing and pressing keys.
import { describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, useSharedContext } from './browser';
import { signInWithEmailCode } from './signin';

const base = inject('docsUrl');
const apiUrl = inject('apiUrl');
const context = useSharedContext({ permissions: ['clipboard-read', 'clipboard-write'] });

async function desktop(path: string, width = 1440, height = 900): Promise<Page> {
  const page = await context().newPage();
  await page.setViewportSize({ width, height });
  await openPage(page, base + path);
  return page;
}

const h1 = (page: Page) => page.locator('article h1, main h1').first().textContent();

describe('the API reference opens from the overview', () => {
  it('clicking an operation in the sidebar of /docs/api opens that operation with its sidebar', async () => {
    const page = await desktop('/docs/api');
    const sidebar = page.locator('nav.menu');
    await sidebar.getByRole('button', { name: 'Persons', exact: true }).click();
    await sidebar.getByRole('link', { name: /Create a new person/ }).click();
    await page.waitForURL(`${base}/docs/api/post-persons`);
    await expect.poll(() => h1(page)).toBe('Create a new person');
    expect(await page.getByText('Page Not Found').count()).toBe(0);
    expect(await page.locator('nav.menu').getByRole('link', { name: /Create a new person/ }).count()).toBe(1);
    await page.close();
  });

  it('choosing an API result in the Ctrl+K search from the overview opens the operation', async () => {
    const page = await desktop('/docs/api');
    await page.keyboard.press('Control+k');
    await page.getByRole('combobox').fill('create a new person');
    const result = page.locator('[role="option"][data-kind="page"]', { hasText: 'Create a new person' }).first();
    await result.click();
    await page.waitForURL((url) => url.pathname === '/docs/api/post-persons');
    await expect.poll(() => h1(page)).toBe('Create a new person');
    expect(await page.getByText('Page Not Found').count()).toBe(0);
    await page.close();
  });
});

describe('small things', () => {
  it('React SDK → Tutorials lists the quickstart first, and its "Previous" is not the MFA tutorial', async () => {
    const page = await desktop('/docs/access/react-sdk/tutorials/quickstart');
    const tutorials = page.locator('.menu__list-item', { has: page.locator(':scope > div > a, :scope > div > button', { hasText: /^Tutorials$/ }) }).first();
    const labels = await tutorials.locator('ul .menu__link').allTextContents();
    expect(labels.slice(0, 2)).toEqual(['Quickstart', 'MFA']);
    const previous = await page.locator('.pagination-nav__link--prev .pagination-nav__label').textContent().catch(() => null);
    expect(previous).not.toMatch(/multi-factor|MFA/i);
    expect(await page.locator('.pagination-nav__link--next .pagination-nav__label').textContent()).toMatch(/^(MFA|.*multi-factor.*)$/i);
    await page.close();
  });

  it('once signed in, the navbar no longer offers "Sign up"', async () => {
    const own = await context().browser()!.newContext();
    const page = await own.newPage();
    await page.setViewportSize({ width: 1440, height: 900 });
    await openPage(page, `${base}/docs/intro`);
    expect(await page.getByRole('link', { name: /Sign up/ }).isVisible()).toBe(true);
    await signInWithEmailCode(page, base, `signup-hidden-${Date.now()}@example.com`, '/docs/intro');
    await page.getByTestId('account-menu').waitFor();
    expect(await page.getByRole('link', { name: /Sign up/ }).isVisible()).toBe(false);
    // Already hidden in the first paint of the next page, not after hydration.
    await page.goto(`${base}/docs/gate/getting-started`);
    expect(await page.getByRole('link', { name: /Sign up/ }).isVisible()).toBe(false);
    await own.close();
  });

  it('a gated page keeps the whole Identity Protection sidebar around its section', async () => {
    const own = await context().browser()!.newContext();
    const page = await own.newPage();
    await page.setViewportSize({ width: 1440, height: 900 });
    await signInWithEmailCode(page, base, `gated-sidebar-${Date.now()}@example.com`, '/docs/identity-protection/detections/webhooks');
    const sidebar = page.locator('nav.menu');
    for (const label of ['Onboarding', 'Browser extension', 'Sinks', 'Detections', 'Queries', 'Introduction', 'Gate']) {
      expect(await sidebar.locator('.menu__link', { hasText: new RegExp(`^${label}$`) }).count(), label).toBeGreaterThan(0);
    }
    expect(await sidebar.getByRole('link', { name: /Webhooks/ }).count()).toBeGreaterThan(0);
    expect(await sidebar.getByText('(sign in)').count()).toBe(0);
    await own.close();
  });
});

describe('search', () => {
  it('Tab stays inside the search dialog, and the focus goes back to the page after Escape', async () => {
    const page = await desktop('/docs/intro');
    await page.getByRole('button', { name: 'Search the docs' }).click();
    const dialog = page.getByRole('dialog', { name: 'Search the docs' });
    await page.getByRole('combobox').fill('token');
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      expect(await dialog.evaluate((d) => d.contains(document.activeElement)), `after ${i + 1} Tab presses`).toBe(true);
    }
    await page.keyboard.press('Shift+Tab');
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    // focus-trap gives the focus back in the task after the dialog closes.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Search the docs');
    await page.close();
  });

  it('a typo no word of the docs has ("pasky") shows the results for the word the docs use (passkey)', async () => {
    const page = await desktop('/docs/intro');
    await page.keyboard.press('Control+k');
    await page.getByRole('combobox').fill('pasky');
    await expect.poll(() => page.locator('[role="option"][data-kind="page"]').count()).toBeGreaterThan(0);
    expect(await page.locator('[role="option"][data-kind="page"]').first().textContent()).toMatch(/passkey/i);
    expect(await page.getByTestId('search-corrected').textContent()).toContain('“passkey”');
    await page.close();
  });
});

describe('the assistant', () => {
  it('is reached in a few Tab presses from the top of a page, and opens with Ctrl+I', async () => {
    const page = await desktop('/docs/intro');
    let presses = 0;
    for (; presses < 20; presses++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))) === 'Ask AI, the docs assistant') break;
    }
    expect(presses + 1).toBeLessThanOrEqual(15);
    await page.keyboard.press('Escape');
    await page.locator('main').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+i');
    await expect.poll(() => page.getByRole('dialog', { name: 'Keyway assistant' }).isVisible()).toBe(true);
    await page.close();
  });

  it('keeps the focus in its panel, and Escape closes it wherever the focus is', async () => {
    const page = await desktop('/docs/intro');
    await page.getByRole('button', { name: /^Ask AI/ }).click();
    const panel = page.getByRole('dialog', { name: 'Keyway assistant' });
    await panel.getByRole('textbox', { name: 'Your question' }).waitFor();
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      expect(await panel.evaluate((d) => d.contains(document.activeElement)), `after ${i + 1} Tab presses`).toBe(true);
    }
    // A click on the page behind, then Escape.
    await page.locator('article h1').click();
    await page.keyboard.press('Escape');
    await expect.poll(() => panel.count()).toBe(0);
    await page.close();
  });

  it('covers nothing of an API page: the pager\'s "Next" card can be clicked at the bottom of the window', async () => {
    const page = await desktop('/docs/api/post-persons');
    const next = page.locator('.pagination-nav__link--next');
    // The card at the very bottom of the window, where a floating button would sit.
    await next.evaluate((el) => window.scrollBy(0, el.getBoundingClientRect().bottom - window.innerHeight + 4));
    const box = (await next.boundingBox())!;
    // Every point of the card (a grid inset from its border) is the card's, nothing lies over it.
    const covered = await page.evaluate((b) => {
      const out: string[] = [];
      for (let i = 0; i <= 8; i++)
        for (let j = 0; j <= 4; j++) {
          const [x, y] = [b.x + 6 + ((b.width - 12) * i) / 8, b.y + 6 + ((b.height - 12) * j) / 4];
          const hit = document.elementFromPoint(x, y);
          if (!hit?.closest('.pagination-nav__link--next')) out.push(`${Math.round(x)},${Math.round(y)}: ${hit?.closest('button')?.getAttribute('aria-label') ?? hit?.tagName}`);
        }
      return out;
    }, box);
    expect(covered).toEqual([]);
    await page.close();
  });

  it('shows a "Copy code" button on the code of an answer, which copies that code', async () => {
    const page = await desktop('/docs/intro');
    await page.getByRole('button', { name: /^Ask AI/ }).click();
    const panel = page.getByRole('dialog', { name: 'Keyway assistant' });
    const input = panel.getByRole('textbox', { name: 'Your question' });
    await input.fill('which endpoint creates a person');
    await input.press('Enter');
    const answer = panel.locator('article[data-status="done"]').last();
    await answer.waitFor({ timeout: 30_000 });
    const copy = answer.getByRole('button', { name: 'Copy code' }).first();
    // In view without hovering the code.
    expect(await copy.evaluate((b) => Number(getComputedStyle(b).opacity))).toBe(1);
    await copy.click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain('curl -X POST');
    // The answer's sample is for the API this docs server is configured with.
    expect(copied).toContain(`${apiUrl}/persons`);
    await page.close();
  });
});

describe('samples follow the reader', () => {
  it('an API page, a guide and the landing page show the API URL this docs server is configured with', async () => {
    expect(apiUrl).not.toBe('http://localhost:8787');
    const page = await desktop('/docs/api/post-persons');
    const curl = page.locator('[role="tabpanel"]:not([hidden]) pre').first();
    await expect.poll(() => curl.textContent()).toContain(`curl -X POST '${apiUrl}/persons'`);
    // The copy button copies what is shown.
    await curl.hover();
    await page.locator('[role="tabpanel"]:not([hidden]) button[aria-label*="Copy code"]').first().click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`${apiUrl}/persons`);
    await openPage(page, `${base}/docs/access/guides/m2m`);
    await expect.poll(() => page.locator('article pre').allTextContents().then((t) => t.join('\n'))).toContain(apiUrl);
    expect((await page.locator('article pre').allTextContents()).join('\n')).not.toContain('http://localhost:8787');
    await openPage(page, `${base}/`);
    await expect.poll(() => page.locator('header pre').textContent()).toContain(`${apiUrl}/persons/anonymous`);
    await page.close();
  });

  it('the React quick start prints the registry of the docs site the reader is on', async () => {
    const page = await desktop('/docs/access/react-sdk/tutorials/quickstart');
    await expect.poll(() => page.locator('article pre').allTextContents().then((t) => t.join('\n'))).toContain(`npm config set @keyway:registry ${base}/npm/`);
    await page.close();
  });

  it('the request samples of an API page follow the values typed into try-it, which sits beside them', async () => {
    const page = await desktop('/docs/api/post-persons');
    const aside = page.getByTestId('api-aside');
    // Try it is in the right-hand column, above the samples.
    await aside.getByRole('button', { name: 'Try it', exact: true }).click();
    await aside.getByLabel('Organization id (Keyway-OrgID)').fill('org_typed_in_try_it');
    await aside.getByLabel('API key (Keyway-API-Key)').fill('kw_typed_key');
    const body = aside.getByLabel(/Request body/);
    await body.fill('{"handles":[{"type":"email_address","value":"typed@example.com"}]}');
    const curl = aside.locator('[role="tabpanel"]:not([hidden]) pre').first();
    await expect.poll(() => curl.textContent()).toContain("Keyway-OrgID: org_typed_in_try_it");
    expect(await curl.textContent()).toContain('kw_typed_key');
    expect(await curl.textContent()).toContain('typed@example.com');
    expect(await curl.textContent()).not.toContain('ada@example.com');
    await aside.getByRole('tab', { name: 'Python' }).click();
    await expect.poll(() => aside.locator('[role="tabpanel"]:not([hidden]) pre').first().textContent()).toContain('org_typed_in_try_it');
    await page.close();
  });

  it('try-it shows the response headers and copies the request it sent as curl', async () => {
    const page = await desktop('/docs/api/get-persons');
    const aside = page.getByTestId('api-aside');
    await aside.getByRole('button', { name: 'Try it', exact: true }).click();
    await expect.poll(() => aside.getByLabel('Base URL').inputValue()).toBe(apiUrl);
    await aside.getByLabel('Organization id (Keyway-OrgID)').fill('org_keyway_dev');
    await aside.getByLabel('API key (Keyway-API-Key)').fill('kw_dev_api_key_not_secret');
    await aside.getByRole('button', { name: 'Send request' }).click();
    const answer = aside.getByRole('status', { name: 'Answer' });
    await expect.poll(() => answer.textContent()).toMatch(/^200 OK/);
    await answer.getByText(/Response headers \(\d+\)/).click();
    expect(await answer.getByLabel('Response headers').textContent()).toMatch(/content-type: application\/json/i);
    await answer.getByRole('button', { name: 'Copy as curl' }).click();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain(`curl -X GET '${apiUrl}/persons'`);
    expect(curl.toLowerCase()).toContain("-h 'keyway-orgid: org_keyway_dev'");
    // The command sends what the page sent: run it.
    const headers = Object.fromEntries([...curl.matchAll(/-H '([^:]+): ([^']*)'/g)].map((m) => [m[1]!, m[2]!]));
    expect((await fetch(`${apiUrl}/persons`, { headers })).status).toBe(200);
    await page.close();
  });
});

describe('API operation pages read well', () => {
  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ] as const) {
    it(`at ${width} px no field list or table is wider than its column, and nested fields fold under their parent`, async () => {
      const page = await desktop('/docs/api/post-persons', width, height);
      const overflowing = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLElement>('article table, article [data-list]')]
          .filter((el) => el.scrollWidth > el.clientWidth + 1 || el.getBoundingClientRect().width > (el.parentElement?.clientWidth ?? 0) + 1)
          .map((el) => `${el.tagName} ${el.scrollWidth}>${el.clientWidth}`),
      );
      expect(overflowing).toEqual([]);
      // `handles` of the request body: its `type`, `value` and `verified` are folded under it.
      const handles = page.locator('[data-list="fields"] li', { has: page.locator(':scope > div > code', { hasText: /^handles$/ }) }).first();
      const fold = handles.locator(':scope > details');
      expect(await fold.locator('summary').textContent()).toMatch(/Show 3 child attributes/);
      expect(await fold.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      await fold.locator('summary').click();
      expect(await fold.locator('code', { hasText: /^type$/ }).isVisible()).toBe(true);
      await page.close();
    });
  }

  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ] as const) {
    it(`says "either … or" for the ways to authenticate, and header names stay whole at ${width} px`, async () => {
      const page = await desktop('/docs/api/post-persons', width, height);
      const auth = page.locator('h2#authentication + div');
      expect(await auth.textContent()).toMatch(/either.*\bor\b/is);
      const name = page.locator('[data-list="parameters"] code', { hasText: /^Keyway-Required-Consistency-Timeout$/ });
      const lineHeight = await name.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 20);
      expect((await name.boundingBox())!.height).toBeLessThan(lineHeight * 1.6);
      await page.close();
    });
  }

  it('try-it sits beside the samples at 1440 px, in view without scrolling past the responses', async () => {
    const page = await desktop('/docs/api/post-persons');
    const tryIt = page.getByTestId('api-aside').getByRole('button', { name: 'Try it', exact: true });
    const box = (await tryIt.boundingBox())!;
    expect(box.y).toBeLessThan(900);
    const params = (await page.locator('h2#parameters').boundingBox())!;
    expect(box.x).toBeGreaterThan(params.x + params.width / 2);
    await page.close();
  });
});
