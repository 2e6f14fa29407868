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

/**
 * Names whose final "s" is a word of their own, not a plural (HTTP Secure, JSON Web Key Set, Public-Key Cryptography
 * Standards, Cross-Origin Resource Sharing, …): folding them would make them the other name ("https" → "http",
 * "jwks" → "jwk"), and a reader asking to redirect HTTP to HTTPS could no longer be told apart from one asking for HTTP.
 * Protocol and standard names only: the plural acronyms of the docs ("JWTs", "SDKs", "IdPs", "URLs") stay folded.
 */
const NOT_PLURALS = new Set(['https', 'jwks', 'pkcs', 'cors', 'xmlns', 'saas', 'paas', 'iaas', 'mtls', 'postgres', 'kubernetes']);

/**
 * Lower case and a light English plural stemmer ("policies" → "policy", "errors" → "error", "jwts" → "jwt"). Names
 * whose "s" is not a plural (`NOT_PLURALS`) and words with digits (units and versions: "500ms", "3600s", "es256") are
 * kept as they are.
 */
export function processTerm(term: string): string {
  const t = term.toLowerCase();
  if (NOT_PLURALS.has(t) || /\d/.test(t)) return t;
  if (t.length > 4 && t.endsWith('ies')) return `${t.slice(0, -3)}y`;
  if (t.length > 3 && t.endsWith('s') && !/(ss|us|is|os)$/.test(t)) return t.slice(0, -1);
  return t;
}

/** How the search box weighs fields and tolerates typos and unfinished words (the assistant's retrieval has its own). */
export const QUERY_DEFAULTS: QueryOptions = {
  boost: { title: 3, heading: 2, keywords: 1.5 },
  prefix: (term, i, terms) => term.length > 2 && (i === terms.length - 1 || term.length > 4),
  fuzzy: (term) => (term.length > 4 ? 0.2 : 0),
};

/** Shared by the build and the docs server (indexing with MiniSearch); the browser and the server query the result. */
export const SEARCH_OPTIONS: Options<SearchDoc> = {
  tokenize,
  processTerm,
  fields: ['title', 'heading', 'text', 'path', 'keywords'],
  // The site path says which product and section a page belongs to ("react-sdk", "gate/plugins"): indexed, not stored.
  // The `keywords` field also holds the page's summary (indexed as its keywords are, but not a list of synonyms).
  extractField: (doc, field) =>
    (field === 'path'
      ? doc.url.split('#')[0]?.replace(/^\/docs\//, '').replace(/[/-]+/g, ' ')
      : field === 'keywords'
        ? [doc.keywords, doc.summary].filter(Boolean).join(', ')
        : (doc as unknown as Record<string, string | undefined>)[field]) ?? '',
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
  one there here than too very much many more most possible up someone somebody something anyone anybody anything everyone
  everybody everything via they those he she his her been being were would could might must`
    .split(/\s+/)
    .filter(Boolean),
);

/** Whether a word (lower case) carries no meaning in a question. */
export const isStopWord = (word: string): boolean => STOP_WORDS.has(word);

/**
 * A question with its contractions and possessives read as the words they stand for ("it's" → "it", "doesn't" →
 * "does", "can't" → "can", "a customer's plan" → "a customer plan"): the word splitter would otherwise leave a lone
 * "s" or "t" that no passage says, and that counts against every passage's share of the question.
 */
export function withoutContractions(text: string): string {
  return text
    .replace(/\b(can|won)['’]t\b/gi, (_, w: string) => (w.toLowerCase() === 'won' ? 'will' : w))
    .replace(/n['’]t\b/gi, '')
    .replace(/(?<=\p{L})['’](?:s|ll|re|ve|d|m)?(?!\p{L})/giu, '');
}

/**
 * The meaningful words of a question, processed as the index processes them. A word is left out when it is a stop
 * word as written or once processed ("needs" is "need", "uses" is "use").
 */
export const contentTerms = (query: string): string[] => [
  ...new Set(
    tokenize(withoutContractions(query))
      .map((t) => t.toLowerCase())
      .filter((t) => !STOP_WORDS.has(t))
      .map(processTerm)
      .filter((t) => !STOP_WORDS.has(t)),
  ),
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
  /** The page the passage belongs to (its site path): `runSearch` returns results grouped by page, best page first. */
  page?: string;
  /** What kind of page it is (guides and concepts rank before reference fragments). */
  kind?: PageKind;
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
 * What a page is, from its site path: written guides, tutorials and concepts answer questions; written references
 * (React components and hooks) describe one thing each; generated reference entries (the SDK's TypeDoc pages, the
 * REST operations, the data-model tables) are looked up by name; category pages only list other pages. Overviews (Gate's
 * use cases) are guides that walk through a scenario and hand each step to the page about it (a plugin's).
 */
export type PageKind = 'guide' | 'overview' | 'reference' | 'generated' | 'api' | 'listing';

/** The site paths of generated reference entries (a section's address starts as its page's does). */
const GENERATED = /^\/docs\/access\/sdk\/|^\/docs\/identity-protection\/queries\/explorer\//;

export function pageKind(url: string): PageKind {
  const path = url.split('#')[0] ?? '';
  if (path.startsWith('/docs/category/') || path === '/docs/api') return 'listing';
  if (path.startsWith('/docs/api/')) return 'api';
  if (GENERATED.test(path)) return 'generated';
  if (path.startsWith('/docs/access/react-sdk/reference/')) return 'reference';
  if (path.startsWith('/docs/gate/use-cases/')) return 'overview';
  return 'guide';
}

/**
 * How much a page kind weighs in ranking, when the query does not name an identifier. An overview weighs a little less
 * than a guide: it says the words of every step it hands on, and a question about one step ("copy traffic to a staging
 * service") is answered by the page it hands that step to (measured on bench:assistant: 0.7 to 0.8 best).
 */
export const KIND_WEIGHT: Record<PageKind, number> = { guide: 1, overview: 0.7, reference: 0.9, generated: 0.5, api: 0.6, listing: 0.4 };

const HTTP_OPERATION = /\b(GET|POST|PUT|PATCH|DELETE)\s+(\/[\w/{}.:-]*)/i;
/** Words that say the reader wants the REST API itself: its operations then rank as guides do. */
const WANTS_API = /\b(endpoints?|api calls?|rest|http (call|request)|curl|(via|through|with|from) the api|(via|through) api|api endpoint)\b/i;

/**
 * The products and SDKs the docs are organised by, with the names readers give them: a question that names one ("at the
 * gateway", "in my React app") is about that part of the docs.
 */
export const PRODUCT_SECTIONS: readonly { prefix: string; names: RegExp }[] = [
  { prefix: '/docs/gate/', names: /\b(gate|gateway)\b/i },
  { prefix: '/docs/identity-protection/', names: /\bidentity[ -]protection\b/i },
  { prefix: '/docs/access/react-sdk/', names: /\breact\b/i },
  { prefix: '/docs/access/remix-sdk/', names: /\bremix\b/i },
];

/** How much more a page of the product a question names weighs (measured: 1.5 to 3 give the same hit rates). */
export const NAMED_SECTION_WEIGHT = 1.5;

/** The docs sections (path prefixes) of the products a question names. */
export function namedSections(question: string): string[] {
  return PRODUCT_SECTIONS.filter((s) => s.names.test(question)).map((s) => s.prefix);
}

/** The factor a page's score is multiplied by for a question: `NAMED_SECTION_WEIGHT` in a product it names, else 1. */
export function namedSectionWeight(question: string): (page: string) => number {
  const sections = namedSections(question);
  return (page) => (sections.some((prefix) => page.startsWith(prefix)) ? NAMED_SECTION_WEIGHT : 1);
}

/**
 * What a query names, if anything: an identifier (a camelCase or PascalCase name such as `tokenForOrganization` or
 * `PersonExistsError`, a snake_case name or an error slug such as `person_id`), an operation (`POST /persons`), or
 * the REST API in general ("which endpoint…"). Identifiers and operations go straight to their reference entry;
 * page kinds are not weighted then, and REST operations are not weighted down when the API is asked for.
 */
export function namedIdentifier(query: string): { word?: string; operation?: string; api?: boolean; method?: string } | undefined {
  const op = HTTP_OPERATION.exec(query);
  if (op) return { operation: operationSlug(op[1] as string, op[2] as string) };
  for (const word of query.match(/[\p{L}\p{N}_.-]+/gu) ?? []) {
    const w = word.replace(/^[.-]+|[.-]+$/g, '').replace(/\(\)$/, '');
    if (/[a-z][A-Z]/.test(w) || /^[A-Z][a-z]+[A-Z]/.test(w) || /^[a-z0-9]+(?:_[a-z0-9]+)+$/.test(w) || /^[a-z]+(?:-[a-z]+){2,}$/.test(w)) return { word: w };
  }
  const method = methodOf(query);
  if (WANTS_API.test(query)) return { api: true, method };
  return method ? { method } : undefined;
}

/** Action verbs and the HTTP method of the REST operations that do what they say. */
const VERB_METHOD = new Map<string, string>([
  ...['delete', 'remove', 'revoke', 'erase'].map((v) => [v, 'delete'] as const),
  ...['update', 'change', 'edit', 'modify', 'rename', 'replace'].map((v) => [v, 'patch|put'] as const),
  ...['create', 'add', 'register', 'send', 'generate', 'mint', 'invite', 'issue'].map((v) => [v, 'post'] as const),
  ...['list', 'fetch', 'read', 'retrieve', 'lookup'].map((v) => [v, 'get'] as const),
]);

/**
 * The HTTP method the first action verb of a query asks for ("delete a user" → `delete`, "lists the groups" → `get`,
 * "change the email" → `patch|put`), in any of its forms ("creates", "created", "creating"), if it has one.
 */
export function methodOf(query: string): string | undefined {
  for (const word of query.toLowerCase().match(/[a-z]+/g) ?? []) {
    const stem = word.replace(/(ing|ed|es|s|d)$/, '');
    const method = VERB_METHOD.get(word) ?? VERB_METHOD.get(stem) ?? VERB_METHOD.get(`${stem}e`) ?? VERB_METHOD.get(stem.replace(/([b-df-hj-np-tv-z])\1$/, '$1'));
    if (method) return method;
  }
  return undefined;
}

/** REST operations whose method is the one the query's verb asks for weigh more, the others less. */
const METHOD_MATCH = 1.5;
const METHOD_MISMATCH = 0.7;

/** The site path of a REST operation's reference page (`POST /persons/{person_id}` → `/docs/api/post-persons-person-id`). */
export function operationSlug(method: string, path: string): string {
  return `/docs/api/${method.toLowerCase()}-${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '').toLowerCase()}`;
}

/** The weight of a result: its page kind (unless the query names an identifier), and a bonus for the named entry. */
export function resultWeight(url: string, title: string, heading: string, named: ReturnType<typeof namedIdentifier>): number {
  const kind = pageKind(url);
  const page = url.split('#')[0] ?? '';
  const method = kind === 'api' && named?.method ? (named.method.split('|').some((m) => page.startsWith(`/docs/api/${m}-`)) ? METHOD_MATCH : METHOD_MISMATCH) : 1;
  // Without the API asked for, a matching verb does not lift an operation towards the guides (only a mismatch weighs).
  if (!named || !(named.api || named.word || named.operation)) return KIND_WEIGHT[kind] * Math.min(1, method);
  if (named.api) return (kind === 'api' ? 1.2 : KIND_WEIGHT[kind]) * method;
  if (named.operation) return page === named.operation ? 4 : 1;
  const w = named.word?.toLowerCase() ?? '';
  const heads = [title.replace(/^[A-Za-z]+: /, ''), heading.replace(/\(\)$/, '')].map((t) => t.toLowerCase());
  return heads.includes(w) ? 4 : heads.some((t) => t.includes(w)) ? 2 : 1;
}

/** How much a generated reference entry counts when the question says only a small part of its name (see `namePartWeight`). */
const NAME_PART_WEIGHT = 0.5;

/**
 * A question word that is only a small part of a generated reference entry's name ("passkey" in `PasskeyPromptError`)
 * says less about the entry than a word of its title would: the entry is about its class or interface, and its title,
 * carried by every one of its sections and boosted as titles are, would put it before the guide section about the
 * word itself. A question that says half of the name or more ("what error is thrown when the configuration is
 * invalid" → `InvalidKeywayConfigurationError`) is asking for the entry, and so is one that says a whole word of its title.
 */
export function namePartWeight(entry: Readonly<Record<string, string>>, asked: ReadonlySet<string>): number {
  const { url = '', title = '', heading = '' } = entry;
  if (!GENERATED.test(url)) return 1;
  let names = NAMES.get(entry);
  if (!names) {
    names = (`${title} ${heading}`.match(WORD) ?? []).map((name) => ({
      whole: processTerm(name),
      parts: [...new Set(tokenize(name).slice(1).map((w) => processTerm(w)))],
    }));
    NAMES.set(entry, names);
  }
  let partOnly = false;
  for (const { whole, parts } of names) {
    if (asked.has(whole)) return 1;
    const said = parts.filter((w) => asked.has(w)).length;
    if (said * 2 >= parts.length && said > 0) return 1;
    if (said > 0) partOnly = true;
  }
  return partOnly ? NAME_PART_WEIGHT : 1;
}

/** The names (words) of a generated entry's title and heading with their parts, worked out once per stored entry. */
const NAMES = new WeakMap<object, { whole: string; parts: string[] }[]>();

/** One document per page (title, all headings, keywords and summary) and the site path of each, by id. */
export interface PageVoter {
  index: StaticIndex;
  pages: readonly { url: string; gated?: boolean }[];
}

/** How much the page-level ranking (title, headings, keywords of the whole page) weighs against the passages'. */
export const WHOLE_PAGE_WEIGHT = 0.5;

/** How the whole-page index is queried (the page's title, headings and keywords; typos and prefixes count for less). */
export const PAGE_VOTE_OPTIONS: QueryOptions = {
  combineWith: 'OR',
  weights: { prefix: 0.15, fuzzy: 0.3 },
  boost: { title: 3, heading: 1, path: 1.5, keywords: 1.5 },
};

/**
 * How sharply the share of a question a page covers weighs on its score, in the search box and the assistant: a page's
 * score is multiplied by that share to this power (measured on bench:assistant, exponents 1 to 3: 1.5 is best).
 */
export const COVERAGE_EXPONENT = 1.5;

/**
 * Each page's share of a question: the weight of the question words its passages match between them, over the weight of
 * all of them, each word weighted by its rarity among the passages that match any (inverse document frequency:
 * "replica" says more than "user"). `matches`: each such passage's page and the bit mask of the `words` it matches (bit
 * i for `words[i]`, 31 words at most).
 */
export function pageShares(words: readonly string[], matches: Iterable<readonly [page: string, mask: number]>, passageCount: number): Map<string, number> {
  const pageMask = new Map<string, number>();
  const found = words.map(() => 0);
  for (const [page, mask] of matches) {
    if (!mask) continue;
    pageMask.set(page, (pageMask.get(page) ?? 0) | mask);
    for (let bit = 0; bit < words.length; bit++) if (mask & (1 << bit)) found[bit] = (found[bit] as number) + 1;
  }
  const weights = found.map((n) => Math.log(1 + passageCount / (1 + n)));
  const total = weights.reduce((sum, w) => sum + w, 0);
  const share = (mask: number) => weights.reduce((sum, w, bit) => (mask & (1 << bit) ? sum + w : sum), 0) / (total || 1);
  return new Map([...pageMask].map(([page, mask]) => [page, share(mask)]));
}

/**
 * The whole-page vote, shared by the search box and the assistant: each page's passage score (relative to the best
 * page's) plus `WHOLE_PAGE_WEIGHT` times its whole-page score (relative to the best whole page, weighted by page
 * kind), since BM25 scores have no fixed scale. `scores` is changed in place; pages the vote does not find keep
 * their passage share.
 */
export function voteByPage(scores: Map<string, number>, voter: PageVoter, query: string, named: ReturnType<typeof namedIdentifier>, options: QueryOptions = {}): void {
  const bestPassagePage = Math.max(0, ...scores.values());
  if (bestPassagePage <= 0) return;
  const whole = voter.index.search(query, { ...PAGE_VOTE_OPTIONS, ...options });
  const bestWholePage = whole[0]?.score ?? 0;
  if (bestWholePage <= 0) return;
  const share = new Map(whole.map((h) => [voter.pages[h.id as number]?.url ?? '', h.score / bestWholePage]));
  for (const [page, score] of scores) scores.set(page, score / bestPassagePage + WHOLE_PAGE_WEIGHT * (share.get(page) ?? 0) * resultWeight(page, '', '', named));
}

/**
 * The browser's search file (`search-index.json`): the passage index and the whole-page index with each page's site
 * path by id, both as MiniSearch serializes them.
 */
export interface SearchFile {
  passages: AsPlainObject;
  pages: { index: AsPlainObject; urls: string[] };
}

/** The search box's index and page vote, compiled from the build's search file. */
export function loadSearchFile(file: SearchFile): { index: StaticIndex; voter: PageVoter } {
  return { index: loadIndex(file.passages), voter: { index: loadIndex(file.pages.index), pages: file.pages.urls.map((url) => ({ url })) } };
}

/** At most this many sections of one page are listed under it (the search box folds all but the best). */
export const SECTIONS_PER_PAGE = 3;

/**
 * The search everyone uses (the search box in the browser, `/api/search`, tools): every term must match (prefix and
 * typo tolerant); when that finds too little, a search where any meaningful term matches adds its results, and the
 * page vote ranks them all together (without a voter, every-word results come first). Passages are
 * weighted by page kind (guides, tutorials and concepts before reference fragments, unless the query names an
 * identifier, which goes to its entry first) and grouped by page: each page's best sections follow each other, the
 * best first, pages in the order of their best section; `limit` counts passages.
 */
export function runSearch(index: StaticIndex, query: string, limit = 10, filter?: QueryOptions['filter'], voter?: PageVoter): SearchHit[] {
  const q = query.trim();
  if (!q) return [];
  const named = namedIdentifier(q);
  const asked = new Set(index.queryTerms(q));
  // Pages, each with its sections by weighted score and the search that found it first (0: every word, 1: some).
  const pages = new Map<string, { best: number; tier: number; hits: { r: Hit; score: number }[] }>();
  const seen = new Set<string>();
  const add = (results: Hit[], tier: number) => {
    for (const r of results) {
      const { url = '', title = '', heading = '' } = r.stored;
      if (seen.has(url)) continue;
      seen.add(url);
      const page = url.split('#')[0] ?? url;
      const score = r.score * resultWeight(url, title, heading, named) * (named ? 1 : namePartWeight(r.stored, asked));
      let group = pages.get(page);
      if (!group) pages.set(page, (group = { best: score, tier, hits: [] }));
      group.best = Math.max(group.best, score);
      group.hits.push({ r, score });
    }
  };
  add(index.search(q, { combineWith: 'AND', filter }), 0);
  const someHaveEveryWord = pages.size > 0;
  const terms = contentTerms(q);
  let fallback: Hit[] = [];
  if (pages.size < limit) {
    // Typo tolerance in the fallback only when nothing matched at all (likely a typo): otherwise it costs more than it finds.
    if (terms.length > 1) add((fallback = index.search(terms.join(' '), { combineWith: 'OR', filter, ...(pages.size ? { fuzzy: false } : {}) })), 1);
  }
  // The page as a whole votes too (as in the assistant's retrieval), over the pages of both searches at once: a page
  // that says every word of a question ("how do I…" included) is not thereby better than one that is about its subject.
  if (voter) {
    const scores = new Map([...pages].map(([page, g]) => [page, g.best]));
    const pageFilter = filter ? (id: number) => voter.pages[id]?.gated !== true : undefined;
    // A short query (three words or fewer) that some passage answers with every word is voted on with every word too:
    // "social login" is not about a page titled "Login middleware" that never says "social". (A longer question's
    // whole pages, titles and headings only, seldom have all of its words.)
    const everyWord = terms.length <= 3 && someHaveEveryWord;
    voteByPage(scores, voter, terms.join(' ') || q, named, { ...(pageFilter ? { filter: pageFilter } : {}), ...(everyWord ? { combineWith: 'AND' as const } : {}) });
    for (const [page, score] of scores) (pages.get(page) as { best: number }).best = score;
  }
  // A page ranks by the share of the query its sections match between them, each word weighted by its rarity: the
  // pages the some-words search found for one word of a question follow those that have most of it (a page with a
  // section that has every word has it all). A hit's mask has a bit per distinct query word, as `distinct` lists them.
  const distinct = fallback.length ? [...new Set(index.queryTerms(terms.join(' ')))] : [];
  if (distinct.length && distinct.length <= 31) {
    const shares = pageShares(distinct, fallback.map((r) => [r.stored.url?.split('#')[0] ?? '', r.mask] as const), index.documentCount);
    for (const [page, group] of pages) if (group.tier !== 0) group.best *= (shares.get(page) ?? 0) ** COVERAGE_EXPONENT;
  }
  // A query that names a product ("gateway") is about that product's pages.
  const weight = namedSectionWeight(q);
  for (const [page, group] of pages) group.best *= weight(page);
  // Without the vote (a caller with no whole-page index), every-word results rank before the some-words fallback's.
  const ordered = [...pages.entries()].sort(([, a], [, b]) => (voter ? 0 : a.tier - b.tier) || b.best - a.best);
  const hits: SearchHit[] = [];
  for (const [page, group] of ordered) {
    group.hits.sort((a, b) => b.score - a.score);
    for (const { r, score } of group.hits.slice(0, SECTIONS_PER_PAGE)) {
      if (hits.length >= limit) return hits;
      // Stored fields: the full `text` (server), or only its beginning as `excerpt` (the browser's index).
      const { url = '', title = '', heading = '', text, excerpt } = r.stored;
      const terms = r.terms;
      hits.push({ url, title, heading, snippet: makeSnippet(text ?? excerpt ?? '', terms), terms, score, page, kind: pageKind(url) });
    }
  }
  return hits;
}

/** Results by page, as the search box shows them: pages in order of their first result, each with its results. */
export function groupByPage<T extends { url: string; page?: string }>(hits: readonly T[]): { page: string; hits: T[] }[] {
  const groups = new Map<string, T[]>();
  for (const hit of hits) {
    const page = hit.page ?? hit.url.split('#')[0] ?? hit.url;
    const list = groups.get(page);
    if (list) list.push(hit);
    else groups.set(page, [hit]);
  }
  return [...groups].map(([page, list]) => ({ page, hits: list }));
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
