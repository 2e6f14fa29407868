import fs from 'node:fs/promises';
import path from 'node:path';
import MiniSearch, { type AsPlainObject } from 'minisearch';
import { extractPage, type Passage, type SearchDoc } from './extract.js';
import { loadIndex, processTerm, SEARCH_OPTIONS, tokenize } from './engine.js';
import type { QueryOptions, StaticIndex } from './static-index.js';
import { buildSynonyms, withSynonyms, type SynonymTable } from './synonyms.js';
import { inPrefixes, readGateManifest } from '../gate/manifest.js';

/** Whether a route is in a gated section (only visitors with a docs session may read and find it). */
export const isGatedRoute = inPrefixes;

/** Every passage of the built docs and one index over them; gated passages are in it and filtered per request. */
export interface DocsIndex {
  passages: Passage[];
  index: StaticIndex;
  /** Every processed word of the passages (to tell whole words from fragments). */
  vocabulary: Set<string>;
  /** A search filter that keeps gated passages out unless `signedIn`. */
  visible(signedIn: boolean): QueryOptions['filter'];
  /** The passages of one page (site path without anchor), in page order. */
  pagePassages(page: string): Passage[];
  /**
   * One document per page (its title, all its headings, its keywords and summary, its path): a question about what a
   * page is about as a whole finds it here even when no single section says all of it. Ids index `pages`.
   */
  pageIndex: StaticIndex;
  /** The pages of `pageIndex`, by id: site path and whether the page is gated. */
  pages: { url: string; gated: boolean }[];
  /** The docs' synonym table (abbreviations, front-matter keywords, the glossary's other names): questions expand with it. */
  synonyms: SynonymTable;
}

/** `docs/a/b.html` → `/docs/a/b`; `docs/a/index.html` → `/docs/a`. */
export function routeOf(rel: string): string {
  const route = `/${rel.replace(/\\/g, '/').replace(/(\/index)?\.html$/, '')}`;
  return route === '/' ? '/' : route.replace(/\/$/, '');
}

export function indexPassages(read: Passage[]): DocsIndex {
  // Synonyms from the whole build (gated pages included: they only add words to passages, never text).
  const synonyms = buildSynonyms(read);
  const passages = withSynonyms(read, synonyms);
  const mini = new MiniSearch<SearchDoc>(SEARCH_OPTIONS);
  mini.addAll(passages.map(({ id, url, title, heading, text, keywords, summary }) => ({ id, url, title, heading, text, keywords, summary })));
  // MiniSearch builds the index; queries run on its compiled, read-only form.
  const index = loadIndex(mini.toJSON());
  const publicOnly: QueryOptions['filter'] = (id) => passages[id]?.gated === false;
  const vocabulary = new Set<string>();
  for (const p of passages) for (const w of tokenize(`${p.title} ${p.heading} ${p.text}`)) vocabulary.add(processTerm(w));
  const byPage = new Map<string, Passage[]>();
  for (const p of passages) {
    const page = p.url.split('#')[0] ?? p.url;
    byPage.set(page, [...(byPage.get(page) ?? []), p]);
  }
  const { json, pages } = pageDocuments(passages);
  const pageIndex = loadIndex(json);
  return { passages, index, vocabulary, visible: (signedIn) => (signedIn ? undefined : publicOnly), pagePassages: (page) => byPage.get(page) ?? [], pageIndex, pages, synonyms };
}

/**
 * The whole-page index of some passages (one document per page: its title, all its headings, its introduction's
 * keywords, its path), serialized, and each page's site path and gate status by id. The docs server and the site's
 * browser index build it the same way.
 */
export function pageDocuments(passages: readonly (SearchDoc & { gated?: boolean })[]): { json: AsPlainObject; pages: { url: string; gated: boolean }[] } {
  const byPage = new Map<string, (SearchDoc & { gated?: boolean })[]>();
  for (const p of passages) {
    const page = p.url.split('#')[0] ?? p.url;
    const list = byPage.get(page);
    if (list) list.push(p);
    else byPage.set(page, [p]);
  }
  const pageMini = new MiniSearch<SearchDoc>(SEARCH_OPTIONS);
  pageMini.addAll(
    [...byPage].map(([url, list], id) => {
      const first = list[0] as SearchDoc;
      const intro = list.find((p) => !p.heading);
      return { id, url, title: first.title, heading: list.map((p) => p.heading).filter(Boolean).join(' · '), text: '', keywords: intro?.keywords ?? '', summary: intro?.summary ?? '' };
    }),
  );
  return { json: pageMini.toJSON(), pages: [...byPage].map(([url, list]) => ({ url, gated: list[0]?.gated === true })) };
}

/**
 * Reads every docs page of a build (`<siteDir>/docs/**.html`) into passages, marking the gated ones (the sections of
 * the build's gate manifest, the same the gate protects, unless `gatedPrefixes` says otherwise).
 */
export async function readDocsPassages(siteDir: string, gatedPrefixes: readonly string[] = readGateManifest(siteDir).prefixes): Promise<Passage[]> {
  const docsDir = path.join(siteDir, 'docs');
  let entries: string[];
  try {
    entries = (await fs.readdir(docsDir, { recursive: true })).filter((f) => f.endsWith('.html')).sort();
  } catch {
    return [];
  }
  const passages: Passage[] = [];
  for (const rel of entries) {
    const route = routeOf(`docs/${rel}`);
    const html = await fs.readFile(path.join(docsDir, rel), 'utf8');
    passages.push(...extractPage(html, route, passages.length, isGatedRoute(route, gatedPrefixes)));
  }
  return passages;
}

export async function buildDocsIndex(siteDir: string, gatedPrefixes?: readonly string[]): Promise<DocsIndex> {
  return indexPassages(await readDocsPassages(siteDir, gatedPrefixes));
}
