export { extractPage, type Passage, type SearchDoc } from './extract.js';
export { SEARCH_OPTIONS, BROWSER_INDEX_OPTIONS, QUERY_DEFAULTS, loadIndex, loadSearchFile, type SearchFile, runSearch, voteByPage, type PageVoter, groupByPage, pageKind, namedIdentifier, operationSlug, makeSnippet, contentTerms, type PageKind, StaticIndex, type SearchHit, type Hit, type QueryOptions } from './engine.js';
export { default as MiniSearch } from 'minisearch';
export { buildDocsIndex, indexPassages, pageDocuments, readDocsPassages, routeOf, isGatedRoute, type DocsIndex } from './site-index.js';
export { buildSynonyms, withSynonyms, type SynonymTable } from './synonyms.js';
