import { describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useSharedContext, hydrated } from './browser';
import { routeContract } from './paths';
import { signInWithEmailCode } from './signin';

// Every route of the contract, as a reader opens it: no error in the console. Signed out, every public route. Signed in,
// every gated route, and one public route of each section (what a token changes on a public page is the chrome
// around it: the navbar's account menu, the sidebar's gated entries and their prefetching, the same on every page of a
// section; the page's own content is covered by the signed-out pass). Prefetching runs for the links in view, so the
// page is given time to do it.
const base = inject('docsUrl');
const routes = routeContract();
const signedOut = useSharedContext({ viewport: { width: 1440, height: 900 } });

/** Tabs open at once: each route waits for its network to settle (idle, not work), so a few tabs overlap the waits. */
const TABS = 3;

async function errorsOn(page: Page, paths: string[]): Promise<string[]> {
  const errors: string[] = [];
  let current = '';
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${current}: ${m.text()} ${m.location().url ?? ''}`.trim());
  });
  page.on('pageerror', (e) => errors.push(`${current}: ${e.message}`));
  for (const p of paths) {
    current = p;
    await page.goto(base + p);
    await hydrated(page);
    // The links in view prefetch their routes' code; the last requests settle before the next page.
    await page.waitForLoadState('networkidle');
  }
  return errors;
}

/** The console errors over `paths`, shared among TABS tabs of the context (`first` is one of them). */
async function errorsOver(first: Page, paths: string[]): Promise<string[]> {
  const pages = [first, ...(await Promise.all(Array.from({ length: TABS - 1 }, () => first.context().newPage())))];
  try {
    const shares = pages.map((_, i) => paths.filter((_p, j) => j % TABS === i));
    return (await Promise.all(pages.map((page, i) => errorsOn(page, shares[i]!)))).flat();
  } finally {
    for (const page of pages.slice(1)) await page.close();
  }
}

const extra = ['/search?q=', '/search?q=token', '/docs/no-such-page'];

/** Gated routes, and the first public route of each section (its first three path segments). */
function signedInSample(): string[] {
  const seen = new Set<string>();
  return routes
    .filter((r) => {
      if (r.gated) return true;
      const section = r.route.split('/').slice(0, 4).join('/');
      if (seen.has(section)) return false;
      seen.add(section);
      return true;
    })
    .map((r) => r.route);
}

describe('the console on every route', () => {
  it('stays free of errors for a signed-out reader', { timeout: 1_500_000 }, async () => {
    const page = await signedOut().newPage();
    const paths = [...routes.filter((r) => !r.gated).map((r) => r.route), ...extra];
    // The not-found page answers 404, which Chromium reports once as a failed resource: that is the page itself.
    const errors = (await errorsOver(page, paths)).filter((e) => !e.startsWith('/docs/no-such-page: Failed to load resource: the server responded with a status of 404'));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('stays free of errors for a signed-in reader on every gated route and every section', { timeout: 1_500_000 }, async () => {
    const page = await signedOut().newPage();
    await signInWithEmailCode(page, base, `console-${Date.now()}@example.com`);
    const paths = [...signedInSample(), ...extra];
    expect(paths.length).toBeGreaterThan(routes.filter((r) => r.gated).length + 10);
    const errors = (await errorsOver(page, paths)).filter((e) => !e.startsWith('/docs/no-such-page: Failed to load resource: the server responded with a status of 404'));
    expect(errors).toEqual([]);
    await page.close();
  });
});
