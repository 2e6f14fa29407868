import type { Options } from 'minisearch';
import type { SearchDoc } from './extract';

/** Shared by the build (indexing) and the browser (loading and querying): they must agree. */
export const SEARCH_OPTIONS: Options<SearchDoc> = {
  fields: ['title', 'heading', 'text'],
  storeFields: ['url', 'title', 'heading', 'text'],
  searchOptions: { boost: { title: 3, heading: 2 }, prefix: true, fuzzy: 0.2, combineWith: 'AND' },
};
