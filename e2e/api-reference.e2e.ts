/* eslint-disable @typescript-eslint/no-explicit-any */
// The REST API reference in Chromium against the production build: try-it sends a management call, SDK calls and OAuth2
// calls to the real local identity server, with nothing in between, and shows its answer or names why there is none;
// the reference's data stays out of normal doc pages' JavaScript.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startDocsServer } from '@keyway/docs-server';
import { hydrated, useSharedContext, openPage } from './browser';
import { ApiSpec } from '../site/plugins/api-reference/spec';
import { freePort } from './net';
import { repoRoot, siteBuild } from './paths';

const docsUrl = inject('docsUrl');
const apiUrl = inject('apiUrl');
const orgId = inject('orgId');
const apiKey = inject('apiKey');

const context = useSharedContext();

/**
 * Opens an operation's try-it panel as a reader would: nothing routed or faked between the page and the servers (the
 * browser only resolves loopback hosts, e2e/offline.ts), so the identity server's CORS preflight and the docs server's
 * CSP decide, exactly as in a reader's browser. Records what a credential must never reach: URLs and the console.
 */
async function openTryIt(page: Page, route: string): Promise<{ urls: string[]; console: string[] }> {
  const seen = { urls: [] as string[], console: [] as string[] };
  page.on('request', (r) => seen.urls.push(r.url()));
  page.on('console', (m) => seen.console.push(m.text()));
  await openPage(page, docsUrl + route);
  await page.getByRole('button', { name: 'Try it', exact: true }).click();
  return seen;
}

const answerOf = (page: Page) => page.getByRole('status', { name: 'Answer' });
const bodyOf = async (page: Page) => JSON.parse((await answerOf(page).getByLabel('Response body').textContent()) ?? '') as Record<string, any>;

async function send(page: Page, status: RegExp): Promise<void> {
  await page.getByRole('button', { name: 'Send request' }).click();
  await expect.poll(() => answerOf(page).textContent()).toMatch(status);
}

describe('try-it in a plain browser against the real identity server', () => {
  it('targets the API server the docs server is configured with, by default', async () => {
    const page = await context().newPage();
    await openTryIt(page, '/docs/api/get-persons');
    await expect.poll(() => page.getByLabel('Base URL').inputValue()).toBe(apiUrl);
    await page.close();
  });

  it('a management call (GET /persons with Keyway-OrgID and Keyway-API-Key) gets its answer; the key stays in the tab', async () => {
    const page = await context().newPage();
    const seen = await openTryIt(page, '/docs/api/get-persons');
    await page.getByLabel('Organization id (Keyway-OrgID)').fill(orgId);
    await page.getByLabel('API key (Keyway-API-Key)').fill(apiKey);
    await send(page, /^200 OK in \d+ ms/);
    const body = await bodyOf(page);
    expect(body.meta.pagination).toMatchObject({ offset: 0 });
    expect(Array.isArray(body.result)).toBe(true);
    // The correlation id the server sets is readable by the page (exposed by CORS) and shown with the other headers.
    expect(await answerOf(page).getByLabel('Response headers').textContent()).toMatch(/keyway-correlation-id: [0-9a-f-]{36}/i);
    // Credentials stay in this tab's session storage: never in local storage, a URL or the console.
    const stored = await page.evaluate(() => ({ session: sessionStorage.getItem('keyway.api-reference.credentials'), local: JSON.stringify(localStorage) }));
    expect(JSON.parse(stored.session ?? '{}')).toEqual({ orgId, apiKey });
    expect(stored.local).not.toContain(apiKey);
    expect(seen.urls.filter((u) => u.includes(apiKey))).toEqual([]);
    expect(seen.console.filter((m) => m.includes(apiKey))).toEqual([]);
    // A reload of the tab keeps them; a wrong key is the server's 401, shown as such.
    await page.reload();
    await hydrated(page);
    await page.getByRole('button', { name: 'Try it', exact: true }).click();
    await expect.poll(() => page.getByLabel('API key (Keyway-API-Key)').inputValue()).toBe(apiKey);
    await page.getByLabel('API key (Keyway-API-Key)').fill('kw_not_the_key');
    await send(page, /^401 Unauthorized/);
    await page.close();
  });

  it('an SDK call (POST /persons/anonymous) answers a token that then works for GET /me', async () => {
    const page = await context().newPage();
    await openTryIt(page, '/docs/api/post-persons-anonymous');
    await page.getByLabel('Organization id (Keyway-OrgID)').fill(orgId);
    await send(page, /^200 OK/);
    const token = (await bodyOf(page)).result as string;
    expect(token.split('.')).toHaveLength(3);

    await openTryIt(page, '/docs/api/get-me');
    await page.getByLabel('User token (Bearer)').fill(token);
    await send(page, /^200 OK/);
    expect((await bodyOf(page)).result.person.person_type).toBe('anonymous');
    await page.close();
  });

  it('an OAuth2 call: a client made with POST /oauth2/clients gets a token from POST /oauth2/tokens (client_secret_basic, form body)', async () => {
    const page = await context().newPage();
    await openTryIt(page, '/docs/api/post-oauth2-clients');
    await page.getByLabel('Organization id (Keyway-OrgID)').fill(orgId);
    await page.getByLabel('API key (Keyway-API-Key)').fill(apiKey);
    await page.getByLabel(/^Request body/).fill(JSON.stringify({ client_name: 'Try-it job', scopes: ['reports:read'], grant_types: ['client_credentials'] }));
    await send(page, /^201 Created/);
    const client = (await bodyOf(page)).result as { client_id: string; client_secret: string };

    await openTryIt(page, '/docs/api/post-oauth2-tokens');
    await page.getByLabel('OAuth2 client id').fill(client.client_id);
    await page.getByLabel('OAuth2 client secret').fill(client.client_secret);
    await page.getByLabel(/^Request body/).fill('grant_type=client_credentials&scope=reports%3Aread');
    await send(page, /^200 OK/);
    expect(await bodyOf(page)).toMatchObject({ token_type: 'bearer', scope: 'reports:read' });
    await page.close();
  });

  it('a file upload (POST /persons/bulk-import, multipart/form-data) sends the CSV of the body field as a file and gets the import report', async () => {
    const page = await context().newPage();
    await openTryIt(page, '/docs/api/post-persons-bulk-import');
    await page.getByLabel('Organization id (Keyway-OrgID)').fill(orgId);
    await page.getByLabel('API key (Keyway-API-Key)').fill(apiKey);
    const file = page.getByLabel(/^File persons\.csv/);
    expect(await file.inputValue()).toMatch(/^handle_type,handle_value/);
    await file.fill('handle_type,handle_value\nemail_address,tryit-upload@example.com\n');
    await send(page, /^20[01] /);
    expect(JSON.stringify(await bodyOf(page))).toMatch(/"successful_imports":1,"failed_imports":0/);
    await page.close();
  });

  it('explains bad input instead of sending it', async () => {
    const page = await context().newPage();
    await openTryIt(page, '/docs/api/get-persons-person-id');
    await page.getByLabel('person_id (path, required)').fill('');
    await page.getByRole('button', { name: 'Send request' }).click();
    await expect.poll(() => answerOf(page).textContent()).toContain('Fill in the path parameter "person_id".');
    await page.close();
  });

  it('names the Content-Security-Policy when the page may not connect to the base URL', async () => {
    const page = await context().newPage();
    await openTryIt(page, '/docs/api/get-persons');
    const elsewhere = `http://127.0.0.1:${await freePort()}`;
    // The panel fills in the configured API URL once the docs server's configuration has arrived: type over it after.
    await expect.poll(() => page.getByLabel('Base URL').inputValue()).toBe(apiUrl);
    await page.getByLabel('Base URL').fill(elsewhere);
    await page.getByLabel('Organization id (Keyway-OrgID)').fill(orgId);
    await page.getByLabel('API key (Keyway-API-Key)').fill(apiKey);
    await page.getByRole('button', { name: 'Send request' }).click();
    await expect.poll(() => answerOf(page).textContent()).toMatch(/Content-Security-Policy/);
    expect(await answerOf(page).textContent()).toContain(`connect-src`);
    expect(await answerOf(page).textContent()).toContain(elsewhere);
    await page.close();
  });
});

describe('try-it errors from another docs server', () => {
  // A second docs server on the same build whose CSP lets pages connect to the identity server and to a port where
  // nothing listens; the identity server does not list this docs origin among its CORS origins.
  let other: { url: string; close(): Promise<void> } | undefined;
  let deadUrl = '';
  beforeAll(async () => {
    deadUrl = `http://127.0.0.1:${await freePort()}`;
    other = await startDocsServer({ siteDir: siteBuild, port: 0, connectSrc: [apiUrl, deadUrl], assistant: false });
  });
  afterAll(() => other?.close());

  /** GET /persons from the other docs server's try-it, sent to `baseUrl`. */
  async function sendFromOther(baseUrl: string): Promise<Page> {
    const page = await context().newPage();
    await openPage(page, `${other!.url}/docs/api/get-persons`);
    await page.getByRole('button', { name: 'Try it', exact: true }).click();
    await page.getByLabel('Base URL').fill(baseUrl);
    await page.getByLabel('Organization id (Keyway-OrgID)').fill(orgId);
    await page.getByLabel('API key (Keyway-API-Key)').fill(apiKey);
    await page.getByRole('button', { name: 'Send request' }).click();
    return page;
  }

  it('names CORS when the server answers but does not allow this origin', async () => {
    const page = await sendFromOther(apiUrl);
    await expect.poll(() => answerOf(page).textContent()).toMatch(/CORS/);
    expect(await answerOf(page).textContent()).toContain(new URL(other!.url).origin);
    await page.close();
  });

  it('names the network when nothing answers at the base URL', async () => {
    const page = await sendFromOther(deadUrl);
    await expect.poll(() => answerOf(page).textContent()).toMatch(/network|no answer|not reachable/i);
    expect(await answerOf(page).textContent()).not.toMatch(/CORS|Content-Security-Policy/);
    await page.close();
  });
});

describe('pages', () => {
  it('the build has a page for every operation of the contract, and every category page links exactly its operations', () => {
    const operations = ApiSpec.load().operations();
    const missing = operations.filter((o) => !fs.existsSync(path.join(siteBuild, 'docs', 'api', `${o.slug}.html`))).map((o) => o.slug);
    expect(missing).toEqual([]);
    const tags = [...new Set(operations.flatMap((o) => o.tags))];
    expect(tags).toHaveLength(22);
    for (const tag of tags) {
      const html = fs.readFileSync(path.join(siteBuild, 'docs', 'category', 'api', `${tag}.html`), 'utf8');
      const article = html.slice(html.indexOf('<article'), html.indexOf('</article>'));
      const linked = new Set([...article.matchAll(/href="?\/docs\/api\/([a-z0-9-]+)/g)].map((m) => m[1]));
      expect(linked, tag).toEqual(new Set(operations.filter((o) => o.tags.includes(tag)).map((o) => o.slug)));
    }
  });

  it('an operation page has its field lists, samples and the api sidebar grouped by tag', async () => {
    const page = await context().newPage();
    await openPage(page, `${docsUrl}/docs/api/post-persons`);
    expect(await page.locator('h1').textContent()).toBe('Create a new person');
    // Parameters, request body and response fields are lists; the errors a table.
    expect(await page.locator('article [data-list]').count()).toBeGreaterThanOrEqual(3);
    expect(await page.locator('article table').count()).toBeGreaterThanOrEqual(1);
    await page.getByRole('tab', { name: 'Python' }).first().click();
    await expect.poll(() => page.getByRole('tabpanel').first().textContent()).toContain('requests.request(');
    const sidebar = page.locator('nav[aria-label="Docs sidebar"]');
    const persons = sidebar.locator('.menu__list-item-collapsible', { hasText: /^Persons$/ });
    expect(await persons.count()).toBe(1);
    expect(await sidebar.locator('a[href="/docs/api/post-persons"]').count()).toBe(1);
    await page.close();
  });

  it('the overview and a category page link to the operations', async () => {
    const page = await context().newPage();
    await openPage(page, `${docsUrl}/docs/category/api/person-consents`);
    const links = await page.locator('article table a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(links).toContain('/docs/api/get-persons-person-id-consent-gdpr');
    await page.locator('article table a').first().click();
    await hydrated(page);
    expect(new URL(page.url()).pathname).toBe(links[0]);
    await page.close();
  });

  it('moves between reference pages without reloading, fetching only the next page\'s data, and hydrates cleanly', async () => {
    const page = await context().newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    const fetched: string[] = [];
    page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
    await openPage(page, `${docsUrl}/docs/api/get-me`);
    expect(problems, 'hydration of a server-rendered reference page').toEqual([]);
    await page.evaluate(() => Object.assign(window, { keywaySamePage: true }));

    // Paginator: the next page in sidebar order.
    const next = page.locator('.pagination-nav__link--next');
    const nextTitle = (await next.locator('.pagination-nav__label').textContent())!;
    await next.click();
    await expect.poll(() => page.locator('h1').textContent()).toBe(nextTitle);
    expect(new URL(page.url()).pathname).toBe('/docs/api/post-persons-anonymous');
    expect(fetched).toContain('/api-reference/docs/api/post-persons-anonymous.json');
    expect(await page.locator('article table').count()).toBeGreaterThan(0);
    // Operation pages give their width to the second column (samples, example response) instead of a table of contents.
    expect(await page.getByTestId('api-aside').getByRole('tab').count()).toBeGreaterThan(3);

    // A link inside the build-time HTML (the categories line) is followed by the client router too.
    await page.locator('article p a[href="/docs/category/api/persons"]').click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Persons');
    await page.getByRole('link', { name: 'Create a new person', exact: true }).first().click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Create a new person');
    await page.getByRole('tab', { name: 'Go' }).first().click();
    await expect.poll(() => page.getByRole('tabpanel').first().textContent()).toContain('http.NewRequest');
    expect(await page.evaluate(() => (window as { keywaySamePage?: boolean }).keywaySamePage)).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('an unknown operation address is a real 404 with the not-found page', async () => {
    const response = await fetch(`${docsUrl}/docs/api/get-nothing-here`);
    expect(response.status).toBe(404);
    const page = await context().newPage();
    await openPage(page, `${docsUrl}/docs/api/get-nothing-here`);
    expect(await page.locator('h1').textContent()).toBe('Page Not Found');
    await page.close();
  });
});

describe('weight', () => {
  /** Every script a page runs before it is interactive (prefetches of linked pages excluded), with their bodies. */
  async function firstLoad(route: string): Promise<{ bytes: number; gzip: number; text: string; shared: string }> {
    const page = await context().newPage();
    const files = new Set<string>();
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname.endsWith('.js') && !/prefetch/i.test(r.headers()['sec-purpose'] ?? '')) files.add(u.pathname);
    });
    await openPage(page, docsUrl + route);
    await page.close();
    let bytes = 0;
    let gzip = 0;
    let text = '';
    let shared = '';
    for (const f of files) {
      const buf = fs.readFileSync(path.join(siteBuild, f));
      bytes += buf.length;
      gzip += zlib.gzipSync(buf).length;
      text += buf.toString('utf8');
      // main.js (route table, chunk names, registry) and runtime~main.js (chunk map) run on every page.
      if (/\/(main|runtime~main)\.[0-9a-f]+\.js$/.test(f)) shared += buf.toString('utf8');
    }
    return { bytes, gzip, text, shared };
  }

  it('doc pages load nothing of the reference; an API page loads at most 1.5 times a doc page', async () => {
    const doc = await firstLoad('/docs/intro');
    // Operation titles and the api sidebar live in chunks only API pages load.
    for (const marker of ['Create a new person', 'Get a list of persons', 'api-sidebar-get', 'Send request', 'keywayApiPage']) expect(doc.text).not.toContain(marker);
    // The route table and chunk map every page loads hold no reference page: only /docs/api/:slug and
    // /docs/category/api/:tag (and the overview).
    const routeTable = doc.shared;
    expect(routeTable.length).toBeGreaterThan(10_000);
    expect(routeTable.match(/(?<![\w.])\/docs\/(category\/)?api\/[a-z0-9-]+/g) ?? []).toEqual([]);
    expect(routeTable).toContain('/docs/api/:slug');
    for (const route of ['/docs/api', '/docs/api/post-persons', '/docs/category/api/persons']) {
      const api = await firstLoad(route);
      expect(api.bytes, route).toBeLessThanOrEqual(doc.bytes * 1.5);
      expect(api.gzip, route).toBeLessThanOrEqual(doc.gzip * 1.5);
    }
    // The try-it panel is a lazy chunk, loaded on demand.
    expect((await firstLoad('/docs/api/post-persons')).text).not.toContain('Forget credentials');
  });
});
