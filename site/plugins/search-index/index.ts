import fs from 'node:fs/promises';
import path from 'node:path';
import MiniSearch from 'minisearch';
import gatedPrefixes from '../../src/data/gated-prefixes.json';
import { extractPage, type SearchDoc } from './extract';
import { SEARCH_OPTIONS } from './options';

export const INDEX_FILE = 'search-index.json';

const isGated = (route: string) => gatedPrefixes.some((p) => route === p || route.startsWith(`${p}/`));

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
 * Builds the site search index from the rendered HTML: every docs page and each of its h2–h4 sections, as a
 * MiniSearch index the search box loads on first use. Gated pages are never indexed here.
 */
export async function writeSearchIndex(outDir: string, routesPaths: string[]): Promise<number> {
  const routes = [...new Set(routesPaths)].filter((r) => r.startsWith('/docs/') && !isGated(r)).sort();
  const docs: SearchDoc[] = [];
  for (const route of routes) {
    const html = await readPage(outDir, route);
    if (html) docs.push(...extractPage(html, route, docs.length));
  }
  const index = new MiniSearch<SearchDoc>(SEARCH_OPTIONS);
  index.addAll(docs.map((d) => ({ ...d, text: d.text.slice(0, 2000) })));
  await fs.writeFile(path.join(outDir, INDEX_FILE), JSON.stringify(index));
  return docs.length;
}
