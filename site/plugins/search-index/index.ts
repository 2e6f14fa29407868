import fs from 'node:fs/promises';
import path from 'node:path';
import { BROWSER_INDEX_OPTIONS, extractPage, isGatedRoute, MiniSearch, pageDocuments, withSynonyms, type SearchDoc, type SearchFile } from '@keyway/docs-server/search';
import gatedPrefixes from '../../src/data/gated-prefixes.json';

export const INDEX_FILE = 'search-index.json';

async function readPage(outDir: string, route: string): Promise<string | undefined> {
  const candidates = route === '/' ? ['index.html'] : [`${route.slice(1)}.html`, `${route.slice(1)}/index.html`];
  for (const file of candidates) {
    try {
      return await fs.readFile(path.join(outDir, file), 'utf8');
    } catch {
      // try the next layout
    }
  }
  return undefined;
}

/**
 * Builds the in-browser search index from the rendered HTML: every public docs page and each of its h2–h4 sections
 * (the same passages the docs server's /api/search and assistant use), as a MiniSearch index the search box loads on
 * first use; whole texts are indexed, only their beginning is stored for snippets. With it, the whole-page index (one
 * document per page: title, headings, keywords) that the search box's page vote uses, as the assistant's does. Gated
 * pages are never written into this public file.
 */
export async function writeSearchIndex(outDir: string, routesPaths: string[]): Promise<number> {
  const routes = [...new Set(routesPaths)].filter((r) => r.startsWith('/docs/') && !isGatedRoute(r, gatedPrefixes)).sort();
  const index = new MiniSearch<SearchDoc>(BROWSER_INDEX_OPTIONS);
  const docs: SearchDoc[] = [];
  for (const route of routes) {
    const html = await readPage(outDir, route);
    if (!html) continue;
    for (const { id, url, title, heading, text, keywords, summary } of extractPage(html, route, docs.length)) docs.push({ id, url, title, heading, text, ...(keywords ? { keywords } : {}), ...(summary ? { summary } : {}) });
  }
  // The same synonym layer as the server's index (built from these public pages only).
  const withOtherNames = withSynonyms(docs);
  index.addAll(withOtherNames);
  // …and the same whole-page index, so the search box lets whole pages vote as the assistant does.
  const pages = pageDocuments(withOtherNames);
  const file: SearchFile = { passages: index.toJSON(), pages: { index: pages.json, urls: pages.pages.map((p) => p.url) } };
  const count = docs.length;
  await fs.writeFile(path.join(outDir, INDEX_FILE), JSON.stringify(file));
  return count;
}
