import { describe, expect, inject, it } from 'vitest';
import { useSharedContext, openPage } from './browser';
import { routeContract } from './paths';

const base = inject('docsUrl');
const routes = routeContract();
const context = useSharedContext();

const h1Of = (html: string) => html.match(/<h1[^>]*>([\s\S]*?)<\/h1>/)?.[1]?.replace(/<[^>]+>/g, '').trim() ?? '';

describe('the route contract', () => {
  it('every route answers 200 with its page and its H1 in the HTML', async () => {
    const problems: string[] = [];
    await Promise.all(
      routes
        // Gated routes answer 401 without a session: e2e/gate.e2e.ts checks them with and without one.
        .filter(({ route, gated }) => route !== '/docs' && !gated)
        .map(async ({ route }) => {
          const res = await fetch(base + route, { redirect: 'manual' });
          const html = await res.text();
          if (res.status !== 200) problems.push(`${route}: HTTP ${res.status}`);
          else if (!h1Of(html)) problems.push(`${route}: no H1`);
        }),
    );
    expect(problems).toEqual([]);
  });

  it('every docs route is in a sidebar, marked as the current page', async () => {
    const problems: string[] = [];
    const docs = routes.filter(({ route, gated }) => route.startsWith('/docs/') && !gated);
    await Promise.all(
      docs.map(async ({ route }) => {
        const html = await (await fetch(base + route)).text();
        // The HTML is minified: attribute quotes are optional.
        const sidebar = html.match(/<nav[^>]*aria-label="?Docs sidebar"?[\s\S]*?<\/nav>/)?.[0] ?? '';
        const link = `href="?${route}"?[\\s>]`;
        if (!new RegExp(`aria-current="?page"?[^>]*${link}|${link}[^>]*aria-current="?page`).test(sidebar)) problems.push(route);
      }),
    );
    expect(problems).toEqual([]);
  });

  it('/docs lands on the introduction', async () => {
    const page = await context().newPage();
    const res = await page.goto(`${base}/docs`);
    expect(res?.status()).toBe(200);
    await page.waitForURL(`${base}/docs/intro`);
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('Introduction');
    await page.close();
  });

  it('renders the H1 of a page of each section in the browser, with the documented title format', async () => {
    const page = await context().newPage();
    const samples = ['/', '/login', '/docs/intro', '/docs/access', '/docs/gate/getting-started', '/docs/identity-protection/onboarding', '/docs/api', '/docs/category/api/persons'];
    for (const route of samples) {
      const res = await page.goto(base + route);
      expect(res?.status(), route).toBe(200);
      const h1 = (await page.locator('h1').first().textContent())?.trim();
      expect(h1, route).toBeTruthy();
      if (route !== '/') await expect.poll(() => page.title(), { message: route }).toMatch(/^.+ \| Keyway Docs$/);
    }
    await page.close();
  });
});

describe('not found and redirects', () => {
  it('shows the not-found page with status 404 for an unknown path', async () => {
    const page = await context().newPage();
    const res = await page.goto(`${base}/docs/no-such-page`);
    expect(res?.status()).toBe(404);
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('Page Not Found');
    await page.close();
  });

  it('redirects .html, /index.html and trailing slashes to the clean route', async () => {
    const cases: [string, string][] = [
      ['/docs/intro.html', '/docs/intro'],
      ['/docs/access/index.html', '/docs/access'],
      ['/docs/gate/faq/', '/docs/gate/faq'],
      ['/index.html', '/'],
      ['/login.html?redirect_to=%2Fdocs%2Fintro', '/login?redirect_to=%2Fdocs%2Fintro'],
    ];
    for (const [from, to] of cases) {
      const res = await fetch(base + from, { redirect: 'manual' });
      expect(res.status, from).toBe(301);
      expect(res.headers.get('location'), from).toBe(to);
    }
    const page = await context().newPage();
    await openPage(page, `${base}/docs/intro.html`);
    expect(new URL(page.url()).pathname).toBe('/docs/intro');
    await page.close();
  });
});
