import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSearchFile, runSearch } from '@keyway/docs-server/search';
import { INDEX_FILE, writeSearchIndex } from '../plugins/search-index';
import questions from './assistant-questions.json';
import gatedPrefixes from '../src/data/gated-prefixes.json';

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title} | Keyway Docs</title></head><body><article><div class="theme-doc-markdown markdown"><header><h1>${title}</h1></header>${body}</div></article></body></html>`;

function fixtureBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-search-index-'));
  const files: Record<string, string> = {
    'docs/access/guides/m2m.html': page('Machine-to-machine access', '<p>Backend services use client credentials.</p><h2 id="scopes">Scopes</h2><p>Grant persons:read.</p>'),
    'docs/identity-protection/detections/mitm-detection.html': page('MITM detection', '<p>Secret zebrafinch heuristics.</p><h2 id="t">Thresholds</h2><p>zebrafinch 80</p>'),
    'docs/identity-protection/queries.html': page('Queries', '<p>Hidden hunting queries.</p>'),
    'index.html': '<html><body><h1>Home</h1></body></html>',
  };
  for (const [rel, html] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), html);
  }
  return dir;
}

describe('the public search index (build plugin)', () => {
  it('holds every public page and section, searchable in the browser, and nothing of the gated pages', async () => {
    const out = fixtureBuild();
    const routes = ['/', '/docs/access/guides/m2m', '/docs/identity-protection/detections/mitm-detection', '/docs/identity-protection/queries'];
    expect(await writeSearchIndex(out, routes)).toBe(2);
    const json = fs.readFileSync(path.join(out, INDEX_FILE), 'utf8');
    expect(json).not.toMatch(/zebrafinch|identity-protection|Hidden hunting/i);
    // As the browser loads it: the JSON compiled into the search engine's index and its whole-page index.
    const { index, voter } = loadSearchFile(JSON.parse(json));
    expect(voter.pages.map((p) => p.url)).toEqual(['/docs/access/guides/m2m']);
    expect(runSearch(index, 'scopes', 5, undefined, voter).map((h) => h.url)).toEqual(['/docs/access/guides/m2m#scopes']);
    expect(runSearch(index, 'credentals', 5, undefined, voter)[0]).toMatchObject({ url: '/docs/access/guides/m2m', title: 'Machine-to-machine access', heading: '', snippet: 'Backend services use client credentials.' });
  });
});

describe('the assistant question set', () => {
  const list = questions.questions;
  it('has at least 150 distinct reader questions, each naming a public docs page, expecting the contact-us answer or marked unanswerable (on topic, not in the docs) with why', () => {
    expect(list.length).toBeGreaterThanOrEqual(150);
    expect(new Set(list.map((q) => q.question.toLowerCase())).size).toBe(list.length);
    for (const { question, page: target, ...rest } of list) {
      expect(question.trim().length, question).toBeGreaterThan(1);
      if (target === null) {
        const { expect: expected, unanswerable, why } = rest as { expect?: string; unanswerable?: boolean; why?: string };
        if (unanswerable) expect(why?.trim().length, question).toBeGreaterThan(10);
        else expect(expected, question).toBe('contact-us');
        continue;
      }
      expect(target, question).toMatch(/^\/docs\/[^#?]+$/);
      expect(gatedPrefixes.some((p) => target === p || target.startsWith(`${p}/`)), target).toBe(false);
    }
    // Every section of the docs is asked about, and off-topic and commercial questions are in the set.
    for (const section of ['/docs/access/', '/docs/gate/', '/docs/identity-protection/', '/docs/api/']) {
      expect(list.filter((q) => q.page?.startsWith(section)).length, section).toBeGreaterThanOrEqual(10);
    }
    expect(list.filter((q) => q.page === null).length).toBeGreaterThanOrEqual(10);
    expect(list.filter((q) => (q as { unanswerable?: boolean }).unanswerable).length).toBeGreaterThanOrEqual(20);
  });

  it('names pages that exist in the build', () => {
    const build = path.join(__dirname, '..', 'build');
    if (!fs.existsSync(path.join(build, 'index.html'))) return; // checked wherever the site is built (npm test builds first)
    const missing = list.flatMap(({ page: p }) => (p ? [p] : [])).filter((p) => !fs.existsSync(path.join(build, `${p.slice(1)}.html`)) && !fs.existsSync(path.join(build, p.slice(1), 'index.html')));
    expect(missing).toEqual([]);
  });
});
