import { describe, expect, it } from 'vitest';
import MiniSearch, { type SearchOptions, type SearchResult } from 'minisearch';
import { loadIndex, processTerm, QUERY_DEFAULTS, runSearch, SEARCH_OPTIONS, tokenize } from '../src/search/engine.js';
import type { SearchDoc } from '../src/search/extract.js';
import { StaticIndex, type QueryOptions } from '../src/search/static-index.js';

// The compiled index must answer exactly as MiniSearch would over the same documents: same documents, same order,
// same scores, same matched words; only faster.
const WORDS = `token tokens tokenize session sessions sign signin signing signed login logout organization organizations
  organisation switch switching switcher webhook webhooks secret secrets client clients credential credentials rotate
  rotation machine machines gateway gate gates plugin plugins validate validation jwt jwks persons person anonymous
  policy policies authorization authorize detection detections mirror mirroring sample ratio header headers upstream
  request requests response kubernetes docker compose passkey passkeys webauthn recovery codes rate limit limits error
  errors retry backoff provider providers react hook hooks middleware cookie cookies scope scopes tenant tenants`
  .split(/\s+/)
  .filter(Boolean);

/** Deterministic pseudo-random documents (a linear congruential generator), with repeated words and sections. */
function corpus(n: number): SearchDoc[] {
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  return Array.from({ length: n }, (_, id) => ({
    id,
    url: `/docs/page-${id % 40}${id % 3 ? `#section-${id}` : ''}`,
    title: pick(1 + Math.floor(rand() * 3)),
    heading: id % 3 ? pick(1 + Math.floor(rand() * 4)) : '',
    text: pick(5 + Math.floor(rand() * 60)),
  }));
}

const docs = corpus(600);
const mini = new MiniSearch<SearchDoc>({ ...SEARCH_OPTIONS, searchOptions: QUERY_DEFAULTS as SearchOptions });
mini.addAll(docs);
const compiled = loadIndex(JSON.parse(JSON.stringify(mini)));

const QUERIES = [
  'token',
  'tokn',
  'sesion tokens',
  'organizaton switching',
  'sign in with a passkey',
  'rotate the client secret',
  'rotate client secret rotate',
  'webhok retries backoff',
  'kubernetes gateway plugin validation',
  'authorizaton policy',
  'ses',
  'x',
  'zzzzzz',
  'headers header headers',
  'anonymous persons recovery codes webauthn passkeys',
];

function expectSame(query: string, options: QueryOptions, miniOptions: SearchOptions = options as SearchOptions) {
  // Documents with equal scores may come in either order: compare in one canonical order (score, then id).
  const canonical = <T extends { id: number; score: number }>(list: T[]) => list.slice().sort((a, b) => b.score - a.score > 1e-9 ? 1 : a.score - b.score > 1e-9 ? -1 : a.id - b.id);
  const actual = compiled.search(query, options);
  for (let i = 1; i < actual.length; i++) expect((actual[i - 1] as { score: number }).score).toBeGreaterThanOrEqual((actual[i] as { score: number }).score);
  const expected = canonical(mini.search(query, miniOptions) as (SearchResult & { id: number })[]);
  const got = canonical(actual);
  expect(got.map((h) => h.id), query).toEqual(expected.map((r) => r.id));
  got.forEach((h, i) => {
    const r = expected[i] as (typeof expected)[number];
    expect(h.score, `${query} #${i}`).toBeCloseTo(r.score, 9);
    expect(new Set(h.terms), `${query} #${i}`).toEqual(new Set(r.terms));
    expect(new Set(h.queryTerms), `${query} #${i}`).toEqual(new Set(r.queryTerms));
  });
}

describe('the compiled search index', () => {
  it('ranks, scores and explains AND and OR searches exactly as MiniSearch does (prefix and typo tolerance included)', () => {
    for (const query of QUERIES) {
      expectSame(query, { combineWith: 'AND' });
      expectSame(query, { combineWith: 'OR' });
      expectSame(query, { combineWith: 'OR', fuzzy: false });
    }
  });

  it('honours field boosts, per-word boosts, prefix and fuzzy weights and filters as the assistant sets them', () => {
    const boostTerm = (term: string) => (term.startsWith('s') ? 0.3 : 1);
    const prefix = (term: string) => term.length > 2 && !compiled.has(term);
    for (const query of QUERIES) {
      const options = { combineWith: 'OR' as const, boost: { title: 4, heading: 2, path: 1.5 }, boostTerm, prefix, weights: { prefix: 0.15, fuzzy: 0.3 } };
      expectSame(query, options);
      expectSame(query, { ...options, filter: (id) => id % 2 === 0 }, { ...options, filter: (r) => (r.id as number) % 2 === 0 });
    }
  });

  it('finds every word within the typo distance, as a full scan of the vocabulary does', () => {
    const words = ['tokne', 'orgnization', 'webhoks', 'credentails', 'kubernets', 'midleware', 'pasky', 'switchr'];
    for (const word of words) {
      const term = processTerm(word);
      const max = Math.min(6, Math.round(term.length * 0.2));
      const found = compiled.search(word, { fuzzy: 0.2, prefix: false }).flatMap((h) => h.terms);
      const brute = compiled.vocabulary.filter((v) => levenshtein(v, term) <= max);
      expect(new Set(found), word).toEqual(new Set(brute));
    }
  });

  it('runs the search box query on it: every word first, then any word, one result per URL', () => {
    const hits = runSearch(compiled, 'rotate client secret', 5);
    expect(hits.length).toBe(5);
    expect(new Set(hits.map((h) => h.url)).size).toBe(5);
    for (const hit of hits.slice(0, 2)) expect(hit.snippet.toLowerCase()).toMatch(/rotat|client|secret/);
    expect(runSearch(compiled, '   ', 5)).toEqual([]);
  });

  it('compiles the index of a build from its JSON without MiniSearch at query time', () => {
    const index = StaticIndex.fromJSON(mini.toJSON(), { tokenize, processTerm });
    expect(index.documentCount).toBe(600);
    expect(index.has('token')).toBe(true);
    expect(index.has('tokens')).toBe(false); // plurals are folded when indexing
  });
});

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length] as number;
}

describe('plural folding', () => {
  // Two pages that differ only by the protocol: a reader asking for one must not get the other first.
  const pages: SearchDoc[] = [
    { id: 0, url: '/docs/plain', title: 'Serve over HTTP', heading: '', text: 'Listen on port 80 with HTTP for local development.' },
    { id: 1, url: '/docs/tls', title: 'Redirect to HTTPS', heading: '', text: 'Terminate TLS and redirect every request to HTTPS.' },
    { id: 2, url: '/docs/key', title: 'One JWK', heading: '', text: 'A JWK is one signing key.' },
    { id: 3, url: '/docs/set', title: 'The JWKS endpoint', heading: '', text: 'The JWKS lists every signing key.' },
    { id: 4, url: '/docs/tokens', title: 'JWTs', heading: '', text: 'Tokens are JWTs signed with ES256.' },
  ];
  const small = new MiniSearch<SearchDoc>(SEARCH_OPTIONS);
  small.addAll(pages);
  const index = loadIndex(JSON.parse(JSON.stringify(small)));
  const top = (q: string) => runSearch(index, q, 5).map((h) => h.url.split('#')[0]);

  // Typo tolerance and unfinished words may still list the other page, but after the one asked for.
  it('keeps names whose final s is not a plural apart from their stem', () => {
    expect(top('https')[0]).toBe('/docs/tls');
    expect(top('http')[0]).toBe('/docs/plain');
    expect(top('redirect http to https')[0]).toBe('/docs/tls');
    expect(top('jwks')[0]).toBe('/docs/set');
    expect(top('jwk')[0]).toBe('/docs/key');
  });

  it('still folds plural acronyms and leaves words with digits alone', () => {
    expect(top('jwt')).toEqual(['/docs/tokens']);
    expect(processTerm('SDKs')).toBe('sdk');
    expect(processTerm('500ms')).toBe('500ms');
    expect(processTerm('3600s')).toBe('3600s');
  });
});
