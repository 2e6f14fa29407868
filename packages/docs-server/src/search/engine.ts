import type { AsPlainObject, Options } from 'minisearch';
import type { SearchDoc } from './extract.js';
import { StaticIndex, type Hit, type QueryOptions } from './static-index.js';

const WORD = /[\p{L}\p{N}_]+/gu;

/**
 * Words of a text: split on spaces and punctuation; identifiers in camelCase or snake_case (`RateLimitError`,
 * `person_id`) also give their parts, so "rate limit error" finds them.
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const word of text.match(WORD) ?? []) {
    out.push(word);
    const parts = word.split(/_+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/).filter(Boolean);
    if (parts.length > 1) out.push(...parts);
  }
  return out;
}

/** Lower case and a light English plural stemmer ("policies" → "policy", "errors" → "error", "jwts" → "jwt"). */
export function processTerm(term: string): string {
  const t = term.toLowerCase();
  if (t.length > 4 && t.endsWith('ies')) return `${t.slice(0, -3)}y`;
  if (t.length > 3 && t.endsWith('s') && !/(ss|us|is|os)$/.test(t)) return t.slice(0, -1);
  return t;
}

/** How the search box weighs fields and tolerates typos and unfinished words (the assistant's retrieval has its own). */
export const QUERY_DEFAULTS: QueryOptions = {
  boost: { title: 3, heading: 2 },
  prefix: (term, i, terms) => term.length > 2 && (i === terms.length - 1 || term.length > 4),
  fuzzy: (term) => (term.length > 4 ? 0.2 : 0),
};

/** Shared by the build and the docs server (indexing with MiniSearch); the browser and the server query the result. */
export const SEARCH_OPTIONS: Options<SearchDoc> = {
  tokenize,
  processTerm,
  fields: ['title', 'heading', 'text', 'path'],
  // The site path says which product and section a page belongs to ("react-sdk", "gate/plugins"): indexed, not stored.
  extractField: (doc, field) => (field === 'path' ? doc.url.split('#')[0]?.replace(/^\/docs\//, '').replace(/[/-]+/g, ' ') : (doc as unknown as Record<string, string>)[field]) ?? '',
  storeFields: ['url', 'title', 'heading', 'text'],
};

/** The searchable index of a serialized MiniSearch index (the build's `search-index.json`, or the server's own). */
export function loadIndex(json: AsPlainObject): StaticIndex {
  return StaticIndex.fromJSON(json, { tokenize, processTerm, defaults: QUERY_DEFAULTS });
}

/** Words that carry no meaning in a reader's question; dropped before an OR search so they do not drown the rest. */
const STOP_WORDS = new Set(
  `a an and are as at be by can do does for from has have how i if in into is it its me my of on or our should so that the
  their them then there these this to use used using was we what when where which who why will with you your able want need
  get set make way does did about tell explain please keyway let between without only any all some like other just also
  one there here than too very much many more most possible up`
    .split(/\s+/)
    .filter(Boolean),
);

/** Whether a word (lower case) carries no meaning in a question. */
export const isStopWord = (word: string): boolean => STOP_WORDS.has(word);

/** The meaningful words of a question, processed as the index processes them. */
export const contentTerms = (query: string): string[] => [
  ...new Set(tokenize(query).map((t) => t.toLowerCase()).filter((t) => !STOP_WORDS.has(t)).map(processTerm)),
];

export interface SearchHit {
  /** Site path, `#anchor` included when a heading matched. */
  url: string;
  title: string;
  heading: string;
  /** A plain-text excerpt around the first matched term. */
  snippet: string;
  /** The index terms that matched (for highlighting). */
  terms: string[];
  score: number;
}

/** A plain-text excerpt of about `length` characters around the first occurrence of one of the terms. */
export function makeSnippet(text: string, terms: string[], length = 160): string {
  const lower = text.toLowerCase();
  const at = terms.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? 0;
  let start = Math.max(0, at - 40);
  if (start > 0) {
    const space = text.lastIndexOf(' ', start);
    if (space > at - 70) start = space + 1;
  }
  return (start > 0 ? '…' : '') + text.slice(start, start + length).trim() + (text.length > start + length ? '…' : '');
}

/**
 * The search everyone uses: every term must match (prefix and typo tolerant); when that finds too little, the
 * results of a search where any term matches follow. Whole pages and their sections compete on one scale.
 */
export function runSearch(index: StaticIndex, query: string, limit = 10, filter?: QueryOptions['filter']): SearchHit[] {
  const q = query.trim();
  if (!q) return [];
  const seen = new Set<string>();
  const hits: SearchHit[] = [];
  const add = (results: Hit[]) => {
    for (const r of results) {
      if (hits.length >= limit) return;
      // Stored fields: the full `text` (server), or only its beginning as `excerpt` (the browser's index).
      const { url = '', title = '', heading = '', text, excerpt } = r.stored;
      if (seen.has(url)) continue;
      seen.add(url);
      const terms = r.terms;
      hits.push({ url, title, heading, snippet: makeSnippet(text ?? excerpt ?? '', terms), terms, score: r.score });
    }
  };
  add(index.search(q, { combineWith: 'AND', filter }));
  if (hits.length < limit) {
    const terms = contentTerms(q);
    // Typo tolerance in the fallback only when nothing matched at all (likely a typo): otherwise it costs more than it finds.
    if (terms.length > 1) add(index.search(terms.join(' '), { combineWith: 'OR', filter, ...(hits.length ? { fuzzy: false } : {}) }));
  }
  return hits;
}

/** How much of each passage the browser's index keeps for snippets (the whole text is indexed). */
export const EXCERPT_LENGTH = 600;

/** Options for the browser's index: the same fields and analysis, but only an excerpt of each text stored. */
export const BROWSER_INDEX_OPTIONS: Options<SearchDoc> = {
  ...SEARCH_OPTIONS,
  storeFields: ['url', 'title', 'heading', 'excerpt'],
  extractField: (doc, field) => (field === 'excerpt' ? doc.text.slice(0, EXCERPT_LENGTH) : (SEARCH_OPTIONS.extractField?.(doc, field) ?? '')),
};

export { StaticIndex, type Hit, type QueryOptions } from './static-index.js';
export type { SearchDoc } from './extract.js';
