import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startDocsServer, type StartedDocsServer } from '@keyway/docs-server';
import { chat, fakeLlm } from '../packages/docs-server/test/assistant-fixture';
import { isolatedContext, launchBrowser, openPage } from './browser';
import { siteBuild } from './paths';

// Two docs servers over the site build (KEYWAY_E2E_SITE_DIR to try another build): one without a model (extractive
// answers, feedback written to a file), one with a local fake OpenAI-compatible model.
const siteDir = process.env.KEYWAY_E2E_SITE_DIR ?? siteBuild;
const GATED = /\/docs\/identity-protection\/(detections|queries)/;
const XSS_ANSWER = [
  'Here is the answer [1].',
  '<img src="x" onerror="window.pwned = 1"> <script>window.pwned = 2</script>',
  '[click me](javascript:window.pwned=3) and [docs](/docs/intro) and [site](https://keyway.dev/)',
  '```html\n<script>window.pwned = 4</script>\n```',
].join('\n\n');

let browser: Browser;
let context: BrowserContext;
let extractive: StartedDocsServer;
let withModel: StartedDocsServer;
let llm: Awaited<ReturnType<typeof fakeLlm>>;
let feedbackFile: string;

beforeAll(async () => {
  feedbackFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-e2e-feedback-')), 'feedback.jsonl');
  llm = await fakeLlm(XSS_ANSWER, 200, 15);
  [extractive, withModel] = await Promise.all([
    startDocsServer({ siteDir, port: 0, assistant: { feedbackFile, sentenceDelayMs: 120 } }),
    startDocsServer({ siteDir, port: 0, assistant: { llm: { url: llm.url, model: 'fake' } } }),
  ]);
  // The servers index the build in the background when they start: wait for that before timing any answer.
  await Promise.all([extractive, withModel].map((s) => fetch(`${s.url}/api/search?q=warm`)));
  browser = await launchBrowser();
  context = await isolatedContext(browser, { permissions: ['clipboard-read', 'clipboard-write'] });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([extractive?.close(), withModel?.close(), llm?.close()]);
});

const searchBox = (page: Page) => page.getByRole('combobox');

/** A new tab on the introduction with the search box open (Ctrl+K) and `query` typed into it. */
async function searchFromIntro(query: string): Promise<Page> {
  const page = await context.newPage();
  await openPage(page, `${extractive.url}/docs/intro`);
  await page.keyboard.press('Control+k');
  await searchBox(page).fill(query);
  return page;
}
const panel = (page: Page) => page.getByRole('dialog', { name: 'Keyway assistant' });
const lastAnswer = (page: Page) => panel(page).locator('article').last();

/** A new tab on the introduction (extractive server) with the assistant open and its question box ready. */
async function assistantOnIntro() {
  const page = await context.newPage();
  await openPage(page, `${extractive.url}/docs/intro`);
  await page.getByRole('button', { name: /^Ask AI/ }).click();
  const input = panel(page).getByRole('textbox', { name: 'Your question' });
  await expect.poll(() => input.isVisible()).toBe(true);
  return { page, input };
}

/** Asks one question in a new tab's panel (`assistantOnIntro`) and waits for the whole answer. */
async function askOnIntro(question: string): Promise<Page> {
  const { page, input } = await assistantOnIntro();
  await input.fill(question);
  await page.keyboard.press('Enter');
  await expect.poll(() => lastAnswer(page).getAttribute('data-status')).toBe('done');
  return page;
}

describe('search', () => {
  it('opens with Ctrl+K, finds pages and sections, and opens a result with the keyboard', async () => {
    const page = await context.newPage();
    await openPage(page, `${extractive.url}/docs/intro`);
    await page.keyboard.press('Control+k');
    await expect.poll(() => searchBox(page).isVisible()).toBe(true);
    expect(await searchBox(page).getAttribute('placeholder')).toBe('Search');
    await searchBox(page).fill('machine to machine');
    const first = page.getByRole('option').first();
    await expect.poll(() => first.textContent()).toContain('Machine-to-machine access');
    // The matched words are highlighted in the snippet.
    expect(await page.getByRole('option').locator('mark').count()).toBeGreaterThan(0);
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.getByRole('option').nth(1).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/docs\/access\/guides\/m2m/);
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('Machine-to-machine access');
    // Typos are tolerated; a heading match shows the heading and links to its anchor.
    await page.keyboard.press('Control+k');
    await searchBox(page).fill('anonymus persns');
    await expect.poll(() => page.getByRole('option').first().textContent()).toContain('nonymous');
    await page.close();
  });

  it('groups results by page: the best section under each page, the others folded, unfolded and opened by keyboard', async () => {
    const page = await searchFromIntro('validate jwt');
    const options = page.getByRole('option');
    // The first search of a tab loads and compiles the index (several seconds on a busy machine).
    await expect.poll(() => options.first().getAttribute('data-kind'), { timeout: 30_000 }).toBe('page');
    const kinds = await options.evaluateAll((os) => os.map((o) => o.getAttribute('data-kind')));
    // One option per page, each page's other sections folded into one "more" option right under it.
    const titles = await page.locator('[role="option"][data-kind="page"]').evaluateAll((os) => os.map((o) => o.textContent?.split(' › ')[0]));
    expect(new Set(titles).size).toBe(titles.length);
    const more = kinds.indexOf('more');
    expect(more).toBeGreaterThan(0);
    expect(kinds[more - 1]).toBe('page');
    expect(kinds).not.toContain('section');
    // Down to the fold, Enter unfolds it: the page's other sections appear in its place, the first one selected.
    for (let i = 0; i < more; i++) await page.keyboard.press('ArrowDown');
    await expect.poll(() => options.nth(more).getAttribute('aria-selected')).toBe('true');
    expect(await options.nth(more).textContent()).toMatch(/\d+ more sections? in /);
    await page.keyboard.press('Enter');
    await expect.poll(() => options.nth(more).getAttribute('data-kind')).toBe('section');
    expect(await options.nth(more).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#.+/);
    await page.close();
  });

  it('has a full results page, reached from the search box', async () => {
    const page = await searchFromIntro('validate jwt');
    const all = page.getByRole('option', { name: /See all results/ });
    await expect.poll(() => all.isVisible()).toBe(true);
    await all.click();
    await page.waitForURL(/\/search\?q=validate%20jwt/);
    const results = page.getByRole('list', { name: 'Search results' }).getByRole('link');
    await expect.poll(() => results.count()).toBeGreaterThan(3);
    expect(await results.first().getAttribute('href')).toMatch(/^\/docs\/gate\/plugins\/validate-jwt/);
    await page.close();
  });
});

describe('assistant', () => {
  it('answers a quick question with a streamed, cited answer from the docs, and keeps the conversation', async () => {
    const page = await context.newPage();
    await openPage(page, `${extractive.url}/docs/intro`);
    await page.getByRole('button', { name: /^Ask AI/ }).click();
    const quick = panel(page).getByRole('list', { name: 'Quick questions' }).getByRole('button');
    // The panel's code loads on first use.
    await expect.poll(() => quick.count()).toBe(3);
    expect(await panel(page).getByRole('link', { name: 'Contact us' }).getAttribute('href')).toMatch(/^https:\/\//);
    const question = (await quick.first().textContent()) ?? '';
    await quick.first().click();
    await expect.poll(() => lastAnswer(page).getAttribute('data-status')).toBe('done');
    expect(await panel(page).getByText(question, { exact: true }).isVisible()).toBe(true);
    const sources = lastAnswer(page).getByRole('list', { name: 'Sources' }).getByRole('link');
    expect(await sources.count()).toBeGreaterThan(0);
    const hrefs = await sources.evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    for (const href of hrefs) expect(href).toMatch(/^\/docs\//);
    expect(await lastAnswer(page).locator('sup a[data-citation]').count()).toBeGreaterThan(0);
    // Copy answer.
    await lastAnswer(page).getByRole('button', { name: 'Copy answer' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain('[1]');
    // A follow-up keeps the conversation.
    await panel(page).getByRole('textbox', { name: 'Your question' }).fill('What about the provider?');
    await page.keyboard.press('Enter');
    await expect.poll(() => panel(page).locator('article').count()).toBe(2);
    await expect.poll(() => lastAnswer(page).getAttribute('data-status')).toBe('done');
    // A citation opens the page it names, and the conversation survives the navigation.
    const target = (await sources.first().getAttribute('href')) ?? '';
    await sources.first().click();
    await page.waitForURL((u) => target.startsWith(u.pathname));
    await page.getByRole('button', { name: /^Ask AI/ }).click();
    await expect.poll(() => panel(page).locator('article').count()).toBe(2);
    await panel(page).getByRole('button', { name: 'Clear conversation' }).click();
    expect(await panel(page).locator('article').count()).toBe(0);
    expect(await panel(page).getByRole('list', { name: 'Quick questions' }).isVisible()).toBe(true);
    await page.close();
  });

  it('streams an extractive answer visibly, sentence by sentence, with a stop button', async () => {
    const { page, input } = await assistantOnIntro();
    // Record every length the answer shows while it is still streaming (nothing is intercepted: the real server).
    await page.evaluate(() => {
      const seen: number[] = [];
      (window as unknown as { seenLengths: number[] }).seenLengths = seen;
      const tick = () => {
        const busy = document.querySelector('article[aria-busy="true"]');
        const length = busy?.textContent?.length ?? 0;
        if (busy && length && seen.at(-1) !== length) seen.push(length);
        requestAnimationFrame(tick);
      };
      tick();
    });
    await input.fill('How do I configure mutual TLS in Gate?');
    await page.keyboard.press('Enter');
    // While the answer streams, Stop replaces Ask.
    await expect.poll(() => panel(page).getByRole('button', { name: 'Stop' }).isVisible()).toBe(true);
    await expect.poll(() => lastAnswer(page).getAttribute('data-status')).toBe('done');
    const seen = await page.evaluate(() => (window as unknown as { seenLengths: number[] }).seenLengths);
    const final = (await lastAnswer(page).textContent())?.length ?? 0;
    // Several partial renders, each longer than the last, before the whole answer.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.every((n, i) => i === 0 || n > (seen[i - 1] ?? 0))).toBe(true);
    expect(seen[0]).toBeLessThan(final / 2);
    expect(await panel(page).getByRole('button', { name: 'Ask' }).isVisible()).toBe(true);

    // Stop: the answer keeps what arrived and says it stopped.
    await input.fill('How do I deploy Gate as an AWS Lambda authorizer?');
    await page.keyboard.press('Enter');
    await expect.poll(() => lastAnswer(page).getAttribute('data-status')).toBe('streaming');
    await expect.poll(async () => ((await lastAnswer(page).textContent()) ?? '').length).toBeGreaterThan(20);
    await panel(page).getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => lastAnswer(page).getAttribute('data-status')).toBe('stopped');
    expect(await lastAnswer(page).textContent()).toContain('Stopped.');
    await page.close();
  });

  it('ends a pricing question in the contact-us call to action, with no sources', async () => {
    const page = await askOnIntro('How much does Keyway cost for 20,000 monthly active users?');
    expect(await lastAnswer(page).textContent()).toMatch(/contact us/i);
    const cta = lastAnswer(page).getByRole('link', { name: 'Contact us', exact: true });
    expect(await cta.getAttribute('href')).toBe('https://keyway.dev/contact');
    expect(await lastAnswer(page).getByRole('list', { name: 'Sources' }).count()).toBe(0);
    expect(await lastAnswer(page).textContent()).not.toMatch(/monthly_active_persons|integer/);
    await page.close();
  });

  it('answers which-endpoint with the reference page’s own curl sample, the same command the page shows', async () => {
    // The built reference page keeps its authentication inside its introduction: the answer's curl line had no
    // Keyway-OrgID or Keyway-API-Key header (a 401 as printed).
    const page = await askOnIntro('Which API endpoint lists the groups of an organization?');
    const answered = ((await lastAnswer(page).locator('pre').first().textContent()) ?? '').trim();
    expect(answered).toContain("-H 'Keyway-API-Key: kw_dev_api_key_not_secret'");
    const reference = await context.newPage();
    await openPage(reference, `${extractive.url}/docs/api/get-groups`);
    const samples = (await reference.locator('pre').allTextContents()).map((t) => t.trim());
    expect(samples).toContain(answered);
    await Promise.all([page.close(), reference.close()]);
  });

  it('answers a one-word question from the guide about it, not from a reference entry whose name contains the word', async () => {
    // Issue #21 named "passkey": the assistant answered it from the SDK's PasskeyPromptError class.
    const page = await askOnIntro('passkeys');
    const sources = lastAnswer(page).getByRole('list', { name: 'Sources' }).getByRole('link');
    expect(await sources.first().getAttribute('href')).toBe('/docs/access/react-sdk/guides/logging-in-and-out#passkeys');
    const text = (await lastAnswer(page).textContent()) ?? '';
    expect(text).toContain('Logging in and out › Passkeys');
    // The class may be among the other pages cited after the answer ("Also in the docs"), never what it quotes.
    expect(text.split('Also in the docs')[0]).not.toContain('PasskeyPromptError');
    await page.close();
  });

  it('answers from the section that matches most of the question, not from pages named after one phrase of it', async () => {
    // "signed out" is the name of the LoggedOut component and of the logging-out guide; the rest of the question
    // ("a different gate replica") is only in the authentication proxy's troubleshooting. The assistant found nothing.
    const page = await askOnIntro('users get signed out whenever their request lands on a different gate replica');
    const sources = lastAnswer(page).getByRole('list', { name: 'Sources' }).getByRole('link');
    expect(await sources.first().getAttribute('href')).toBe('/docs/gate/plugins/authentication-proxy#troubleshooting');
    expect(await lastAnswer(page).textContent()).toContain('cookie_secret');
    await page.close();
  });

  it('ends a question about how to pay in the contact-us call to action', async () => {
    // Ranking pages by how much of the question they cover brought a banking-law passage ("bank", "transfer") close
    // enough to answer it: the question is commercial, and says so before retrieval counts.
    const page = await askOnIntro('can we pay by bank transfer instead of card');
    expect(await lastAnswer(page).getByRole('link', { name: 'Contact us', exact: true }).count()).toBe(1);
    expect(await lastAnswer(page).getByRole('list', { name: 'Sources' }).count()).toBe(0);
    await page.close();
  });

  it('ends a general programming question in the contact-us answer, not in a Gate passage', async () => {
    // "reverse" (of "reverse proxy"), "list" and "python" are all words of Gate's pages, and one passage had half of
    // them: the docs never say two of the question's words together, and the question is not theirs.
    const page = await askOnIntro('how do i reverse a linked list in python');
    expect(await lastAnswer(page).getByRole('link', { name: 'Contact us', exact: true }).count()).toBe(1);
    expect(await lastAnswer(page).getByRole('list', { name: 'Sources' }).count()).toBe(0);
    await page.close();
  });

  it('says plainly when the docs do not cover what a question names: the closest pages as sources, and the contact action', async () => {
    // Retrieval by meaning loads in the background when the server starts.
    await expect.poll(async () => (await chat(extractive.url, { question: 'warm up the encoder' })).meta?.meaning, { timeout: 60_000 }).toBe(true);
    const page = await askOnIntro('How do I set up a BigQuery sink for Identity Protection?');
    const text = (await lastAnswer(page).textContent()) ?? '';
    expect(text).toMatch(/The Keyway docs do not cover this: “BigQuery” appears nowhere in them/);
    expect(text).toMatch(/The closest the docs come/);
    expect(await lastAnswer(page).getByRole('link', { name: 'Contact us', exact: true }).count()).toBe(1);
    const sources = lastAnswer(page).getByRole('list', { name: 'Sources' }).getByRole('link');
    expect(await sources.count()).toBeGreaterThan(0);
    // A source is a page of the docs the reader can open.
    const href = (await sources.first().getAttribute('href')) ?? '';
    expect(href).toMatch(/^\/docs\//);
    await sources.first().click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(href.split('#')[0]);
    await page.close();
  });

  it('answers a question about the reader’s own billing system from the docs, not with the pricing answer', async () => {
    // "billing" declined the question as commercial although retrieval found the custom-claims guide.
    const page = await askOnIntro("put the plan and seat count from our billing system into the JWT at the moment it's issued");
    expect(await lastAnswer(page).textContent()).not.toMatch(/Pricing, plans/);
    const sources = lastAnswer(page).getByRole('list', { name: 'Sources' }).getByRole('link');
    expect(await sources.first().getAttribute('href')).toMatch(/^\/docs\/access\/guides\/webhooks\/custom-claims/);
    await page.close();
  });

  it('stores thumbs up/down feedback on the server', async () => {
    const page = await searchFromIntro('How do I run Keyway Gate locally with Docker?');
    await page.getByRole('option', { name: /Ask the assistant/ }).click();
    await expect.poll(() => lastAnswer(page).getAttribute('data-status')).toBe('done');
    await lastAnswer(page).getByRole('button', { name: 'Not helpful' }).click();
    await expect.poll(() => lastAnswer(page).getByRole('status').textContent()).toContain('Thanks for the feedback');
    await expect.poll(() => (fs.existsSync(feedbackFile) ? fs.readFileSync(feedbackFile, 'utf8') : '')).toContain('"rating":"down"');
    const record = JSON.parse(fs.readFileSync(feedbackFile, 'utf8').trim().split('\n').at(-1) ?? '{}');
    expect(record).toMatchObject({ rating: 'down', question: 'How do I run Keyway Gate locally with Docker?', mode: 'extractive' });
    expect(record.citations.some((u: string) => u.startsWith('/docs/gate/deploying/locally'))).toBe(true);
    await page.close();
  });

  it('renders an XSS attempt in a question or in a model answer as inert text', async () => {
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await openPage(page, `${withModel.url}/docs/intro`);
    await page.getByRole('button', { name: /^Ask AI/ }).click();
    const input = panel(page).getByRole('textbox', { name: 'Your question' });
    const evil = '<img src=x onerror="window.pwned=5"><script>window.pwned=6</script>';
    await input.fill(evil);
    await page.keyboard.press('Enter');
    await expect.poll(() => lastAnswer(page).getAttribute('data-status')).toBe('done');
    expect(await panel(page).getByText(evil, { exact: true }).isVisible()).toBe(true);
    // A real question: the fake model answers with HTML, a script, a javascript: link and code.
    await input.fill('How do I validate a JWT with Gate?');
    await page.keyboard.press('Enter');
    // The answer streams in: a first part of it while still busy…
    await expect.poll(() => panel(page).locator('article[aria-busy="true"]').textContent()).toContain('Here is the answer');
    // …then complete.
    await expect.poll(() => lastAnswer(page).getAttribute('data-status')).toBe('done');
    expect(await lastAnswer(page).textContent()).toContain('<img src="x" onerror="window.pwned = 1">');
    expect(await panel(page).locator('img, script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    // Links: javascript: is dropped (text kept), site paths and https stay.
    const hrefs = await lastAnswer(page).locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs.some((h) => h?.startsWith('javascript'))).toBe(false);
    expect(await lastAnswer(page).getByText('click me').count()).toBe(1);
    expect(hrefs).toContain('/docs/intro');
    expect(hrefs).toContain('https://keyway.dev/');
    // Code stays code.
    expect(await lastAnswer(page).locator('pre').textContent()).toContain('<script>window.pwned = 4</script>');
    // The citation [1] points to a retrieved page, never to a URL the model wrote.
    const cite = await lastAnswer(page).locator('sup a[data-citation="1"]').getAttribute('href');
    expect(cite).toMatch(/^\/docs\//);
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it('never shows gated content to anonymous visitors: search index, search box, /api/search, answers', async () => {
    // The public index lists no gated page (public pages may mention their paths, never hold their text).
    const index = (await (await fetch(`${extractive.url}/search-index.json`)).json()) as { passages: { storedFields: Record<string, { url: string }> }; pages: { urls: string[] } };
    const urls = [...Object.values(index.passages.storedFields).map((f) => f.url), ...index.pages.urls];
    expect(urls.length).toBeGreaterThan(1000);
    expect(urls.filter((u) => GATED.test(u))).toEqual([]);
    const gatedTitle = fs.readFileSync(path.join(siteDir, 'docs/identity-protection/detections/mitm-detection.html'), 'utf8').match(/<title[^>]*>([^|<]+)/)?.[1]?.trim() ?? '';
    expect(gatedTitle.length).toBeGreaterThan(5);

    const api = (await (await fetch(`${extractive.url}/api/search?q=${encodeURIComponent(gatedTitle)}&limit=50`)).json()) as { results: { url: string }[] };
    expect(api.results.map((r) => r.url).filter((u) => GATED.test(u))).toEqual([]);

    const page = await searchFromIntro(gatedTitle);
    await expect.poll(() => page.getByRole('option').count()).toBeGreaterThan(0);
    const optionText = await page.getByRole('listbox').textContent();
    expect(optionText).not.toContain(`${gatedTitle} ›`);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: /^Ask AI/ }).click();
    await panel(page).getByRole('textbox', { name: 'Your question' }).fill(`How does ${gatedTitle.toLowerCase()} work?`);
    await page.keyboard.press('Enter');
    await expect.poll(() => lastAnswer(page).getAttribute('data-status')).toBe('done');
    const links = await lastAnswer(page).locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    expect(links.filter((u) => GATED.test(u))).toEqual([]);
    await page.close();
  });
});
