import fs from 'node:fs/promises';
import path from 'node:path';
import { BROWSER_INDEX_OPTIONS, extractPage, isGatedRoute, MiniSearch, withSynonyms, type SearchDoc } from '@keyway/docs-server/search';
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
 * first use; whole texts are indexed, only their beginning is stored for snippets. Gated pages are never written
 * into this public file.
 */
export async function writeSearchIndex(outDir: string, routesPaths: string[]): Promise<number> {
  const routes = [...new Set(routesPaths)].filter((r) => r.startsWith('/docs/') && !isGatedRoute(r, gatedPrefixes)).sort();
  const index = new MiniSearch<SearchDoc>(BROWSER_INDEX_OPTIONS);
  const docs: SearchDoc[] = [];
  for (const route of routes) {
    const html = await readPage(outDir, route);
    if (!html) continue;
    for (const { id, url, title, heading, text, keywords } of extractPage(html, route, docs.length)) docs.push({ id, url, title, heading, text, ...(keywords ? { keywords } : {}) });
  }
  // The same synonym layer as the server's index (built from these public pages only).
  index.addAll(withSynonyms(docs));
  const count = docs.length;
  await fs.writeFile(path.join(outDir, INDEX_FILE), JSON.stringify(index));
  return count;
}
