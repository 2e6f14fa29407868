import type { SearchFile, SearchHit } from '@keyway/docs-server/search/engine';
import { correctQuery } from './spelling';

export type { SearchHit };

export interface LocalSearch {
  run: (query: string, limit: number) => SearchHit[];
  /** The query with its unknown words spelled as the docs spell them, when that changes it (see correctQuery). */
  correct: (query: string) => string | undefined;
}

let loading: Promise<LocalSearch> | undefined;

/**
 * Loads the search code and the prebuilt public index on first use only, so pages carry no search weight until
 * someone searches. Works on any static host: the index is a file of the build. The index is compiled once into the
 * engine's typed arrays (no MiniSearch in the browser), with the whole-page index the page vote uses.
 */
export function loadSearch(indexUrl: string): Promise<LocalSearch> {
  loading ??= Promise.all([import('@keyway/docs-server/search/engine'), fetch(indexUrl)]).then(async ([engine, res]) => {
    if (!res.ok) throw new Error(`The search index could not be loaded (HTTP ${res.status}).`);
    const { index, voter } = engine.loadSearchFile((await res.json()) as SearchFile);
    return {
      run: (query: string, limit: number) => engine.runSearch(index, query, limit, undefined, voter),
      correct: (query: string) => correctQuery(query, index, (word) => index.search(word, { prefix: false, fuzzy: false }).length),
    };
  });
  loading.catch(() => {
    loading = undefined; // let a later attempt retry
  });
  return loading;
}
