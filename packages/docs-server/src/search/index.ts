export { extractPage, type Passage, type SearchDoc } from './extract.js';
export { SEARCH_OPTIONS, BROWSER_INDEX_OPTIONS, runSearch, makeSnippet, contentTerms, MiniSearch, type SearchHit } from './engine.js';
export { buildDocsIndex, indexPassages, readDocsPassages, routeOf, isGatedRoute, type DocsIndex } from './site-index.js';
