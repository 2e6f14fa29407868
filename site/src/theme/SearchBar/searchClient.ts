import type MiniSearch from 'minisearch';
import type { SearchDoc, SearchHit } from '@keyway/docs-server/search/engine';

export type { SearchHit };

interface Loaded {
  index: MiniSearch<SearchDoc>;
  run: (query: string, limit: number) => SearchHit[];
}

let loading: Promise<Loaded> | undefined;

/**
 * Loads the search code and the prebuilt index on first use only, so pages carry no search weight until someone
 * searches. Works on any static host: the index is a file of the build.
 */
export function loadSearch(indexUrl: string): Promise<Loaded> {
  loading ??= Promise.all([import('@keyway/docs-server/search/engine'), fetch(indexUrl)]).then(async ([engine, res]) => {
    if (!res.ok) throw new Error(`The search index could not be loaded (HTTP ${res.status}).`);
    const index = engine.MiniSearch.loadJSON<SearchDoc>(await res.text(), engine.SEARCH_OPTIONS);
    return { index, run: (query: string, limit: number) => engine.runSearch(index, query, limit) };
  });
  loading.catch(() => {
    loading = undefined; // let a later attempt retry
  });
  return loading;
}
