import type { Passage } from '../search/extract.js';
import { COVERAGE_EXPONENT, contentTerms, isStopWord, pageShares, withoutContractions, namedIdentifier, namedSectionWeight, namePartWeight, pageKind, processTerm, resultWeight, tokenize, voteByPage } from '../search/engine.js';
import type { DocsIndex } from '../search/site-index.js';
import { questionSynonyms } from '../search/synonyms.js';
import type { Hit } from '../search/static-index.js';
import { fuseWithMeaning } from './hybrid.js';
import type { Retrieval, Retrieved, RetrieveOptions } from './retrieval-types.js';
import { editDistance, otherForms, phrasalVerbs, splitWord, transposed } from './forms.js';
import type { Meaning } from './meaning.js';

export { editDistance, otherForms, phrasalVerbs, splitWord, transposed } from './forms.js';

const STOP = { has: isStopWord };
/** How much a page's second and third best passages add to its score. */
const PAGE_SUPPORT = [0.3, 0.15] as const;

export type { Retrieval, Retrieved, RetrieveOptions } from './retrieval-types.js';

/**
 * Acronyms the docs use for a phrase of the question: "Open Policy Agent" → "opa", when the index knows that word.
 * Runs of two to four consecutive meaningful words are tried.
 */
export function acronymsOf(question: string, vocabulary: Set<string>): string[] {
  const words = tokenize(question).filter((w) => !/[a-z][A-Z]|_/.test(w)).map((w) => w.toLowerCase());
  const found = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    for (let n = 2; n <= 4 && i + n <= words.length; n++) {
      const run = words.slice(i, i + n);
      if (run.some((w) => STOP.has(w))) break;
      const acronym = run.map((w) => w[0]).join('');
      if (acronym.length >= 3 && vocabulary.has(acronym)) found.add(acronym);
    }
  }
  return [...found];
}

/**
 * Forms of the question's words that the docs use instead: other inflections, two adjacent words written as one
 * ("rate limit" → "ratelimit"), and a word the docs do not know split into two they do ("reactsdk" → "react", "sdk").
 * Only words of the docs' vocabulary are returned.
 */
export function variantsOf(question: string, own: readonly string[], vocabulary: Set<string>): string[] {
  const found = new Set<string>();
  for (const t of own) {
    for (const v of otherForms(t, vocabulary)) found.add(v);
    for (const part of splitWord(t, vocabulary)) found.add(part);
  }
  const words = tokenize(question).map((w) => w.toLowerCase());
  for (let i = 0; i + 1 < words.length; i++) {
    // Two or three adjacent words written as one: "rate limit" → "ratelimit", "rate limit errors" → "ratelimiterror".
    for (let n = 2; n <= 3 && i + n <= words.length; n++) {
      const run = words.slice(i, i + n);
      if (run.some((w) => STOP.has(w))) break;
      const joined = processTerm(run.join(''));
      if (vocabulary.has(joined)) found.add(joined);
    }
  }
  for (const t of own) found.delete(t);
  return [...found];
}

const NAMES = new WeakMap<readonly Passage[], Map<string, string>>();
/** The identifiers that reference entries are named after (`RateLimitError`), by their words run together ("ratelimiterror"). */
function entryNames(passages: readonly Passage[]): Map<string, string> {
  let names = NAMES.get(passages);
  if (!names) {
    NAMES.set(passages, (names = new Map()));
    for (const p of passages) {
      const kind = pageKind(p.url);
      const name = p.title.replace(/^[A-Za-z]+: /, '');
      if ((kind === 'generated' || kind === 'reference') && /^[A-Za-z][A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*$/.test(name)) names.set(processTerm(name), name);
    }
  }
  return names;
}

/**
 * The identifier a question names in plain words, when they are the words of a reference entry's name run together
 * ("rate limit errors" → `RateLimitError`, "invalid phone number format error" → `InvalidPhoneNumberFormatError`):
 * runs of three to five meaningful words are tried, longest first (two words, "analytics events", are a phrase of the
 * guides more often than the name of `AnalyticsEvent`: the name itself still goes to its entry).
 */
export function spelledIdentifier(question: string, passages: readonly Passage[]): string | undefined {
  const names = entryNames(passages);
  const words = tokenize(question).map((w) => w.toLowerCase());
  for (let n = 5; n >= 3; n--) {
    for (let i = 0; i + n <= words.length; i++) {
      const run = words.slice(i, i + n);
      if (run.some((w) => STOP.has(w))) continue;
      const name = names.get(processTerm(run.join('')));
      if (name) return name;
    }
  }
  return undefined;
}

/** A text's meaningful words in order, processed as the index processes them (stop words left out). */
function meaningfulWords(text: string): string[] {
  return tokenize(text)
    .map((w) => w.toLowerCase())
    .filter((w) => !STOP.has(w))
    .map(processTerm)
    .filter((w) => !STOP.has(w));
}

const PAIRS = new WeakMap<Passage, Set<string>>();
/**
 * The pairs of meaningful words a passage says one after the other ("client certificate", "active user"), in its title,
 * heading, prose, keywords and summary (each on its own: a pair does not span two of them), worked out once per passage.
 */
function wordPairs(p: Passage): Set<string> {
  let pairs = PAIRS.get(p);
  if (!pairs) {
    PAIRS.set(p, (pairs = new Set()));
    for (const field of [p.title, p.heading, p.prose, p.keywords ?? '', p.summary ?? '']) {
      const words = meaningfulWords(field);
      for (let i = 0; i + 1 < words.length; i++) pairs.add(`${words[i]} ${words[i + 1]}`);
    }
  }
  return pairs;
}

/**
 * The pairs of meaningful words a question says one after the other, each as the ways the docs may say it: the
 * question's own words, the docs' words they stand for (`standIns`: "user account" is also "person account"), or
 * the two run together as one word of the docs (`vocabulary`: "rate limit" is also "ratelimit").
 */
export function questionPairs(question: string, standIns: ReadonlyMap<string, readonly string[]>, vocabulary: ReadonlySet<string>): string[][] {
  const words = meaningfulWords(question);
  const forms = (w: string) => [w, ...(standIns.get(w) ?? [])];
  const out = new Map<string, string[]>();
  for (let i = 0; i + 1 < words.length; i++) {
    const [a, b] = [words[i] as string, words[i + 1] as string];
    if (a === b) continue;
    const joined = processTerm(a + b);
    out.set(`${a} ${b}`, [...forms(a).flatMap((x) => forms(b).map((y) => `${x} ${y}`)), ...(vocabulary.has(joined) ? [joined] : [])]);
  }
  return [...out.values()];
}

/** Whether a passage says one of the question's pairs of words (`questionPairs`) one after the other. */
function saysAPair(p: Passage | undefined, pairs: readonly (readonly string[])[]): boolean {
  if (!p) return false;
  const together = wordPairs(p);
  const words = saidWords(p);
  return pairs.some((forms) => forms.some((f) => together.has(f) || words.has(f)));
}

/** How much more a page weighs when its passages say all of the question's pairs of words as the question does. */
export const PHRASE_WEIGHT = 2;

const SAID = new WeakMap<Passage, Set<string>>();
/** The processed words a passage says (title, heading, prose, keywords: not its code), computed once per passage. */
function saidWords(p: Passage): Set<string> {
  let words = SAID.get(p);
  if (!words) SAID.set(p, (words = new Set(tokenize(`${p.title} ${p.heading} ${p.prose} ${p.keywords ?? ''} ${p.summary ?? ''}`).map((w) => processTerm(w)))));
  return words;
}

/**
 * Whether an index word `t` is a match of the question word `q`: it starts with it, is within the typo tolerance of
 * it (words of six letters or more: short fuzzy matches, "cake" → "case", say nothing about relevance), or is one of
 * the docs' words the question's word stands for.
 */
function isMatchOf(q: string, t: string, standIns: ReadonlyMap<string, readonly string[]>): boolean {
  return t.startsWith(q) || (q.length >= 6 && editDistance(q, t, 2) <= 2) || (standIns.get(q)?.includes(t) ?? false);
}

/**
 * BM25 retrieval over heading-sized passages (MiniSearch, typo and prefix tolerant), at most two passages per page.
 * A question is only answered when the best passage matches at least half of its meaningful words: otherwise it
 * is about something the docs do not cover.
 */
export function retrieve(docs: DocsIndex, text: string, options: RetrieveOptions): Retrieval {
  // "it's" is "it", "doesn't" is "does" for every reading below (phrasal verbs, acronyms, joined words).
  const question = withoutContractions(text);
  const own = [...new Set([...contentTerms(question), ...acronymsOf(question, docs.vocabulary)])];
  let terms = own;
  const previous = options.previousQuestions?.at(-1);
  // A short follow-up ("and in React?") is read together with the question before it.
  if (previous && own.length < 4) terms = [...own, ...contentTerms(previous).filter((t) => !own.includes(t))];
  if (!terms.length) return { terms: own, passages: [] };
  // Other forms of the question's words that the docs use ("limit" → "limiting", "rate limit" → "ratelimit",
  // "reactsdk" → "react sdk").
  // The other names the docs give what the question names (glossary, front-matter keywords, abbreviations):
  // "delete a user" also searches "person".
  const glossary = questionSynonyms(question, docs.synonyms);
  // A question word the glossary gave the docs' word for is found where that word is ("user" where "person" is).
  const standIns = new Map<string, string[]>();
  for (const [form, forms] of glossary) {
    const words = forms.flatMap((f) => contentTerms(f));
    for (const w of form.split(' ')) standIns.set(w, [...(standIns.get(w) ?? []), ...words]);
  }
  // A verb and its particle mean the docs' verb ("take someone out of a group" → "remove"): both words are found
  // where it is.
  for (const [words, verbs] of phrasalVerbs(question, docs.vocabulary)) {
    for (const w of words) standIns.set(w, [...(standIns.get(w) ?? []), ...verbs]);
  }
  // A word the docs write as two ("reactsdk") is found where both are, a word where another form of it is
  // ("working" where "work" is), and a word with two letters swapped where it is spelled right ("laravle").
  for (const t of own) {
    const forms = [...splitWord(t, docs.vocabulary), ...otherForms(t, docs.vocabulary), ...transposed(t, docs.vocabulary)];
    if (forms.length) standIns.set(t, [...(standIns.get(t) ?? []), ...forms]);
  }
  const alternatives = [...variantsOf(question, own, docs.vocabulary), ...[...standIns.values()].flat()];
  for (const alt of alternatives) if (!terms.includes(alt)) terms = [...terms, alt];
  const ownSet = new Set(own);
  const synonyms = new Set(alternatives);
  const found = docs.index.search(terms.join(' '), {
    combineWith: 'OR',
    filter: docs.visible(options.signedIn),
    // Words borrowed from the previous question only steer: the follow-up's own words decide.
    boostTerm: (term) => (ownSet.has(term) ? 1 : synonyms.has(term) ? 0.8 : 0.3),
    // Whole questions are made of whole words: prefix and typo matches ("gate" → "gateway") count for less.
    weights: { prefix: 0.15, fuzzy: 0.3 },
    boost: { title: 4, heading: 2, path: 1.5, keywords: 2 },
    // A word the docs use as such is not expanded ("gate" does not also search "gateway"); other words are.
    prefix: (term) => term.length > 2 && !docs.vocabulary.has(term),
  });
  const asNamed = namedIdentifier(question);
  // An identifier spelled out in words ("rate limit errors") goes to its entry as the identifier itself would.
  const spelled = asNamed?.word || asNamed?.operation ? undefined : spelledIdentifier(question, docs.passages);
  const named = spelled ? { word: spelled } : asNamed;
  // Guides, tutorials and concepts answer questions better than reference fragments, and category pages only list
  // other pages; a question naming an identifier goes to its reference entry instead (the search box's weights).
  // (Each search makes new hits: changing their score changes nothing else.)
  const questionWords = new Set(terms);
  for (const r of found) {
    const p = docs.passages[r.id as number];
    if (p) r.score *= resultWeight(p.url, p.title, p.heading, named) * (named ? 1 : namePartWeight(r.stored, questionWords));
  }
  // A page is as relevant as its best passage, plus some of what its other passages add (a guide whose several
  // sections match answers better than one stray mention elsewhere).
  const pageOfId = (id: number) => docs.passages[id]?.url.split('#')[0] ?? '';
  const pageHits = new Map<string, { id: number; score: number }[]>();
  for (const r of found) {
    const page = pageOfId(r.id as number);
    const list = pageHits.get(page);
    const hit = { id: r.id as number, score: r.score };
    if (list) list.push(hit);
    else pageHits.set(page, [hit]);
  }
  const pageScore = new Map<string, number>();
  for (const [page, hits] of pageHits) {
    hits.sort((a, b) => b.score - a.score);
    pageScore.set(page, (hits[0]?.score ?? 0) + PAGE_SUPPORT[0] * (hits[1]?.score ?? 0) + PAGE_SUPPORT[1] * (hits[2]?.score ?? 0));
  }
  // The page as a whole (title, headings, keywords) votes too, as in the search box (`voteByPage`).
  voteByPage(pageScore, { index: docs.pageIndex, pages: docs.pages }, terms.join(' '), named, {
    filter: options.signedIn ? undefined : (id) => docs.pages[id]?.gated === false,
    boostTerm: (term) => (ownSet.has(term) ? 1 : synonyms.has(term) ? 0.8 : 0.3),
    prefix: (term) => term.length > 2 && !docs.vocabulary.has(term),
  });
  // A page is as relevant as the share of the question it speaks to: a page whose passages between them match most of
  // the question's words (the rarer a word in the docs, the more it counts) ranks before one that matches a single
  // phrase of it however well ("nobody logged in" is not a question about the `LoggedIn` component).
  const covering = pageCoverage(found, own, standIns, docs.passages.length, pageOfId);
  if (covering) for (const [page, score] of pageScore) pageScore.set(page, score * (covering.get(page) ?? 0) ** COVERAGE_EXPONENT);
  // Words said together as the question says them ("client certificates", "active users") make a page more relevant
  // than the same words scattered: each page is weighted by the share of the question's pairs of words that the
  // passages counted in its score (its best three) say one after the other (measured: weights 1 to 3, 2 is best;
  // pairs said in any order, or weighted by rarity, do worse).
  const pairs = questionPairs(question, standIns, docs.vocabulary);
  if (pairs.length) {
    // A page too far down for the weight to lift it among the pages an answer can draw on is not looked at.
    const floor = ([...pageScore.values()].sort((a, b) => b - a)[(options.max ?? 5) - 1] ?? 0) / (1 + PHRASE_WEIGHT);
    for (const [page, score] of pageScore) {
      // A listing page says its pages' titles, word for word: that says nothing about the listing itself.
      if (score < floor || pageKind(page) === 'listing') continue;
      const counted = (pageHits.get(page) ?? []).slice(0, PAGE_SUPPORT.length + 1).map((h) => docs.passages[h.id] as Passage);
      const together = pairs.filter((forms) => counted.some((p) => saysAPair(p, [forms]))).length;
      pageScore.set(page, score * (1 + (PHRASE_WEIGHT * together) / pairs.length));
    }
  }
  // A question that names a product ("at the gateway") is about that product's pages.
  const weight = namedSectionWeight(question);
  for (const [page, score] of pageScore) pageScore.set(page, score * weight(page));
  const all = found.sort((a, b) => (pageScore.get(pageOfId(b.id as number)) ?? 0) - (pageScore.get(pageOfId(a.id as number)) ?? 0) || b.score - a.score);
  // …and a passage must match at least one of them when any passage does.
  const focused = terms.length > own.length ? all.filter((r) => r.queryTerms.some((t) => ownSet.has(t))) : all;
  const results = focused.length ? focused : all;
  // With meaning (a question vector), the lexical ranking is fused with the passages nearest in meaning, and the two
  // together decide whether the docs answer (`hybrid.ts`): a paraphrase that shares few words with its page is answered,
  // and the lexical checks below only say how sure the words are.
  if (options.meaning) {
    const lexical = results[0] ? lexicalVerdict(docs, question, results, found, own, terms, standIns) : { confident: false, answering: [] };
    return fuseWithMeaning(docs, question, { terms, own, ranked: lexical.answering.length ? lexical.answering : results, pageScore, confident: lexical.confident }, options);
  }
  if (!results[0]) return { terms, passages: [] };
  const { confident, answering } = lexicalVerdict(docs, question, results, found, own, terms, standIns);
  if (!confident) return { terms, passages: [] };
  // With embeddings, the lexical ranking and the passages nearest in meaning are fused (reciprocal rank fusion); the
  // lexical check above still decides whether the docs answer at all.
  let ranked: { id: number; score: number }[] = answering.map((r) => ({ id: r.id as number, score: r.score }));
  if (options.dense?.length) ranked = reciprocalRankFusion([ranked.map((r) => r.id), options.dense]);
  const top = ranked[0] as { id: number; score: number };
  // The best passages, one per page for the first three (answers draw on several pages when several are
  // relevant), then a page's second passage when there is room; weak passages (under 30 % of the best) are left out.
  const max = options.max ?? 5;
  const usable = ranked.filter((r) => r.score >= top.score * (options.dense?.length ? 0 : 0.3) && docs.passages[r.id]);
  const pageOf = (r: (typeof ranked)[number]) => (docs.passages[r.id] as Passage).url.split('#')[0];
  const picked: typeof ranked = [];
  const seen = new Set<string>();
  for (const r of usable) {
    if (picked.length >= Math.min(3, max)) break;
    if (seen.has(pageOf(r) ?? '')) continue;
    seen.add(pageOf(r) ?? '');
    picked.push(r);
  }
  const perPage = new Map<string, number>();
  for (const r of picked) perPage.set(pageOf(r) ?? '', 1);
  for (const r of usable) {
    if (picked.length >= max) break;
    const page = pageOf(r) ?? '';
    if (picked.includes(r) || (perPage.get(page) ?? 0) >= 2) continue;
    perPage.set(page, (perPage.get(page) ?? 0) + 1);
    picked.push(r);
  }
  const passages: Retrieved[] = picked.map((r, i) => ({ passage: docs.passages[r.id] as Passage, score: r.score, n: i + 1 }));
  return { terms, passages };
}

/**
 * Whether the words of a question are found well enough for the docs to answer it, and the passages that answer (the
 * ranked ones, or those further down that say every word in prose when the top ones have them only in code).
 */
function lexicalVerdict(
  docs: DocsIndex,
  question: string,
  results: readonly Hit[],
  found: readonly Hit[],
  own: readonly string[],
  terms: readonly string[],
  standIns: ReadonlyMap<string, readonly string[]>,
): { confident: boolean; answering: Hit[] } {
  const no = { confident: false, answering: [] };
  // A question word counts as found where an index word is a match of it (`isMatchOf`).
  const asked = own.length ? own : terms;
  const matched = (r: Hit) => asked.filter((q) => r.terms.some((t) => isMatchOf(q, t, standIns))).length;
  // Relevance: how many of the question's own words the best passage (or one of the top ones) matches.
  const best5 = Math.max(...results.slice(0, 5).map(matched));
  const coverage = best5 / asked.length;
  if (coverage < 0.5 && !(asked.length >= 4 && coverage >= 0.34)) return no;
  // A question that no passage matches in more than half of its words, and none of whose pairs of words the docs ever
  // say one after the other, uses the docs' words in other senses ("reverse a linked list in python" against the
  // "reverse proxy" and the plugin list of Gate's pages): the docs do not answer it. (Every answerable question of the
  // bench's set at that coverage has a pair the docs say.)
  const pairs = questionPairs(question, standIns, docs.vocabulary);
  if (coverage <= 0.5 && pairs.length >= 2 && !found.some((r) => saysAPair(docs.passages[r.id as number], pairs))) return no;
  // Low confidence: a question of several words of which one passage matches only one ("capital of Australia"
  // against a privacy-law page) is not answered by the docs.
  if (asked.length >= 2 && best5 < 2) return no;
  // Words met only in code (a path in a config file, an HTML tag) do not make a passage about them: at least two of
  // the question's words (or its only one) must be in what a top passage says, its title, heading and prose.
  const said = (r: Hit) => {
    const p = docs.passages[r.id as number];
    if (!p) return 0;
    const words = saidWords(p);
    return asked.filter((q) => words.has(q) || r.terms.some((t) => words.has(t) && isMatchOf(q, t, standIns))).length;
  };
  if (Math.max(...results.slice(0, 5).map(said)) >= Math.min(2, asked.length)) return { confident: true, answering: [...results] };
  // The best passages have the question's words only in code (an API page's paths and samples): a passage further
  // down that says every one of them in prose answers instead ("redirect http to https" → the TLS page's
  // troubleshooting). Without one, the docs do not answer.
  const answering = results.slice(5, 50).filter((r) => said(r) === asked.length);
  if (asked.length < 2 || !answering.length) return no;
  return { confident: true, answering };
}

/**
 * The share of the question's own words that each page's passages match between them (`pageShares`), the words read
 * as the relevance check reads them (`isMatchOf`). Undefined when the question has no words of its own.
 */
export function pageCoverage(
  found: readonly { id: unknown; terms: string[] }[],
  own: readonly string[],
  standIns: ReadonlyMap<string, readonly string[]>,
  passageCount: number,
  pageOf: (id: number) => string,
): Map<string, number> | undefined {
  if (!own.length) return undefined;
  const words = own.slice(0, 31);
  // The question words each index word matches, as a bit mask, worked out once per distinct word (passages share most).
  const maskOf = new Map<string, number>();
  const termMask = (t: string) => {
    let mask = maskOf.get(t);
    if (mask === undefined) {
      mask = words.reduce((m, q, bit) => (isMatchOf(q, t, standIns) ? m | (1 << bit) : m), 0);
      maskOf.set(t, mask);
    }
    return mask;
  };
  return pageShares(
    words,
    found.map((r) => [pageOf(r.id as number), r.terms.reduce((m, t) => m | termMask(t), 0)] as const),
    passageCount,
  );
}

/** Reciprocal rank fusion of several rankings of passage ids (each best first): score = Σ 1 / (k + rank). */
export function reciprocalRankFusion(rankings: readonly (readonly number[])[], k = 60): { id: number; score: number }[] {
  const scores = new Map<number, number>();
  for (const ranking of rankings) ranking.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + rank + 1)));
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

/**
 * Retrieval with meaning: the question is embedded by the bundled sentence encoder and compared with every passage,
 * then `retrieve` fuses that with the lexical ranking and decides whether the docs answer (`hybrid.ts`).
 */
export async function retrieveWithMeaning(docs: DocsIndex, meaning: Meaning, question: string, options: RetrieveOptions): Promise<Retrieval> {
  const vector = await meaning.embedQuestion(question);
  return retrieve(docs, question, { ...options, meaning: { cosines: meaning.index.cosines(vector) } });
}
