/**
 * A read-only search index for a fixed set of documents, compiled once from MiniSearch's serialized index (the
 * `search-index.json` of the build, or the docs server's own index) into typed arrays: a sorted vocabulary, postings
 * with their BM25+ scores precomputed per field, and a bigram index of the vocabulary for typo tolerance.
 *
 * It scores exactly as MiniSearch does (same BM25+ parameters, prefix and fuzzy weights, field boosts, AND/OR and the
 * "quality" factor: the number of distinct query words a document matches) but answers a query without building a
 * Map per word: scores accumulate in preallocated arrays, AND queries only visit documents that matched every
 * earlier word (rarest first), and fuzzy matching only runs the edit distance on words that share enough bigrams
 * with the query word. Search runs in Node and in the browser; it never imports MiniSearch itself.
 */
import type { AsPlainObject } from 'minisearch';

export type TermOption<T> = T | ((term: string, i: number, terms: string[]) => T);

export interface QueryOptions {
  /** AND: every word must match; OR (default): any word, documents matching more words first. */
  combineWith?: 'AND' | 'OR';
  /** Also match index words that start with the query word. */
  prefix?: TermOption<boolean>;
  /** Also match index words within this edit distance (a fraction of the word's length when below 1; true = 0.2). */
  fuzzy?: TermOption<boolean | number>;
  /** The largest edit distance a fraction may give (default 6). */
  maxFuzzy?: number;
  /** Field weights (default 1 each); replaces the index's defaults as a whole, as in MiniSearch. */
  boost?: Record<string, number>;
  /** A weight per query word. */
  boostTerm?: (term: string, i: number, terms: string[]) => number;
  /** How much prefix and fuzzy matches count (defaults 0.375 and 0.45). */
  weights?: { prefix?: number; fuzzy?: number };
  /** Keeps only documents (by id) for which it returns true. */
  filter?: (id: number) => boolean;
}

export interface IndexSettings {
  tokenize: (text: string) => string[];
  processTerm: (term: string) => string;
  /** Query options used when a search does not say otherwise. */
  defaults?: QueryOptions;
}

const BM25 = { k: 1.2, b: 0.7, d: 0.5 };
const DEFAULT_WEIGHTS = { fuzzy: 0.45, prefix: 0.375 };

/** One query's per-word expansion: index words (ids) and the weight each one counts for. */
interface Expansion {
  term: string;
  /** Index of the term among the query's distinct words. */
  unique: number;
  ids: number[];
  weights: number[];
  /** How many postings the expansion visits (to take AND words rarest first). */
  cost: number;
}

/** A result: document id, score and the words that matched (computed on first read). */
export class Hit {
  #terms: string[] | undefined;
  #queryTerms: string[] | undefined;
  constructor(
    private readonly index: StaticIndex,
    /** Internal document number. */
    readonly doc: number,
    public score: number,
    private readonly expansions: Expansion[],
    /** Which distinct query words matched: bit i for the i-th distinct word of the query (the first 31 only). */
    readonly mask: number,
  ) {}

  /** The document's id (as it was added to the index). */
  get id(): number {
    return this.index.ids[this.doc] as number;
  }

  /** The document's stored fields. */
  get stored(): Record<string, string> {
    return this.index.stored[this.doc] ?? {};
  }

  /** The index words that matched (query words, or their prefix and typo variants). */
  get terms(): string[] {
    if (!this.#terms) {
      const out: string[] = [];
      for (const e of this.expansions) for (const id of e.ids) if (this.index.contains(id, this.doc)) out.push(this.index.vocabulary[id] as string);
      this.#terms = [...new Set(out)];
    }
    return this.#terms;
  }

  /** The (processed) query words that matched, each once. */
  get queryTerms(): string[] {
    if (!this.#queryTerms) {
      const out = new Set<string>();
      for (const e of this.expansions) {
        if (out.has(e.term)) continue;
        const hit = e.unique < 31 ? (this.mask & (1 << e.unique)) !== 0 : e.ids.some((id) => this.index.contains(id, this.doc));
        if (hit) out.add(e.term);
      }
      this.#queryTerms = [...out];
    }
    return this.#queryTerms;
  }
}

const popcount = (n: number): number => {
  let v = n - ((n >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
};

const bigrams = (term: string): string[] => {
  const padded = `\u0002${term}\u0003`;
  const out = new Set<string>();
  for (let i = 0; i < padded.length - 1; i++) out.add(padded.slice(i, i + 2));
  return [...out];
};

export class StaticIndex {
  /** Index words, sorted. */
  readonly vocabulary: string[];
  /** Document ids and stored fields, by internal document number. */
  readonly ids: number[];
  readonly stored: Record<string, string>[];
  readonly fields: string[];
  private readonly termIds = new Map<string, number>();
  /** Postings of word t in field f: postDoc/postScore[offsets[t*F+f] .. offsets[t*F+f+1]), by document number. */
  private readonly offsets: Int32Array;
  private readonly postDoc: Int32Array;
  private readonly postScore: Float64Array;
  private readonly grams = new Map<string, Int32Array>();
  private readonly settings: IndexSettings;
  // Scratch space, reused by every query (searches never overlap: JavaScript runs one at a time).
  private readonly acc: Float64Array;
  private readonly matched: Uint16Array;
  private readonly stamp: Uint16Array;
  private readonly masks: Int32Array;
  private readonly touched: Int32Array;
  private readonly gramCount: Uint16Array;
  private readonly gramTouched: Int32Array;
  private row0 = new Int32Array(64);
  private row1 = new Int32Array(64);

  private constructor(json: AsPlainObject, settings: IndexSettings) {
    this.settings = settings;
    const fieldIds = json.fieldIds;
    const F = Math.max(0, ...Object.values(fieldIds)) + 1;
    this.fields = Array.from({ length: F }, (_, f) => Object.keys(fieldIds).find((k) => fieldIds[k] === f) ?? '');
    // Documents: MiniSearch's short ids become 0..N-1.
    const shortIds = Object.keys(json.documentIds).map(Number).sort((a, b) => a - b);
    const docOf = new Map<number, number>();
    shortIds.forEach((s, i) => docOf.set(s, i));
    const N = shortIds.length;
    this.ids = shortIds.map((s) => Number(json.documentIds[s]));
    this.stored = shortIds.map((s) => (json.storedFields[s] ?? {}) as Record<string, string>);
    const fieldLength = shortIds.map((s) => json.fieldLength[s] ?? []);
    const avg = json.averageFieldLength;

    const entries = json.index.slice().sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.vocabulary = entries.map((e) => e[0]);
    this.vocabulary.forEach((t, i) => this.termIds.set(t, i));
    const V = entries.length;
    let total = 0;
    for (const [, data] of entries) for (const f of Object.keys(data)) total += Object.keys(data[f as unknown as number] ?? {}).length;
    this.offsets = new Int32Array(V * F + 1);
    this.postDoc = new Int32Array(total);
    this.postScore = new Float64Array(total);
    let p = 0;
    const { k, b, d } = BM25;
    entries.forEach(([, data], t) => {
      for (let f = 0; f < F; f++) {
        this.offsets[t * F + f] = p;
        const freqs = data[f];
        if (!freqs) continue;
        const docs = Object.keys(freqs);
        const matching = docs.length;
        const idf = Math.log(1 + (json.documentCount - matching + 0.5) / (matching + 0.5));
        const start = p;
        for (const key of docs) {
          const doc = docOf.get(Number(key));
          if (doc === undefined) continue;
          const tf = freqs[key as unknown as number] as number;
          const length = fieldLength[doc]?.[f] ?? 0;
          this.postDoc[p] = doc;
          this.postScore[p] = idf * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * length) / (avg[f] ?? 1))));
          p++;
        }
        // Documents in ascending order, so membership is a binary search.
        const order = Array.from({ length: p - start }, (_, i) => start + i).sort((x, y) => (this.postDoc[x] as number) - (this.postDoc[y] as number));
        const docsSorted = order.map((i) => this.postDoc[i] as number);
        const scoresSorted = order.map((i) => this.postScore[i] as number);
        this.postDoc.set(docsSorted, start);
        this.postScore.set(scoresSorted, start);
      }
    });
    this.offsets[V * F] = p;

    const lists = new Map<string, number[]>();
    this.vocabulary.forEach((term, id) => {
      for (const g of bigrams(term)) {
        let list = lists.get(g);
        if (!list) lists.set(g, (list = []));
        list.push(id);
      }
    });
    for (const [g, list] of lists) this.grams.set(g, Int32Array.from(list));

    this.acc = new Float64Array(N);
    this.matched = new Uint16Array(N);
    this.stamp = new Uint16Array(N);
    this.masks = new Int32Array(N);
    this.touched = new Int32Array(N);
    this.gramCount = new Uint16Array(V);
    this.gramTouched = new Int32Array(V);
  }

  /** Compiles MiniSearch's serialized index (`JSON.parse` of `JSON.stringify(miniSearch)`, or `miniSearch.toJSON()`). */
  static fromJSON(json: AsPlainObject, settings: IndexSettings): StaticIndex {
    return new StaticIndex(json, settings);
  }

  get documentCount(): number {
    return this.ids.length;
  }

  /** Whether a word is in the index (as processed). */
  has(term: string): boolean {
    return this.termIds.has(term);
  }

  /** Whether index word `id` occurs in document `doc` (any field). */
  contains(id: number, doc: number): boolean {
    const F = this.fields.length;
    for (let f = 0; f < F; f++) {
      let lo = this.offsets[id * F + f] as number;
      let hi = (this.offsets[id * F + f + 1] as number) - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const v = this.postDoc[mid] as number;
        if (v === doc) return true;
        if (v < doc) lo = mid + 1;
        else hi = mid - 1;
      }
    }
    return false;
  }

  private postings(id: number): number {
    const F = this.fields.length;
    return (this.offsets[(id + 1) * F] as number) - (this.offsets[id * F] as number);
  }

  /** Index words starting with `term`: a range of the sorted vocabulary. */
  private prefixRange(term: string): [number, number] {
    let lo = 0;
    let hi = this.vocabulary.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.vocabulary[mid] as string) < term) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    while (end < this.vocabulary.length && (this.vocabulary[end] as string).startsWith(term)) end++;
    return [lo, end];
  }

  /** Levenshtein distance of a and b, or max + 1 as soon as it must exceed max. */
  private distance(a: string, b: string, max: number): number {
    const n = b.length;
    if (this.row0.length <= n) {
      this.row0 = new Int32Array(n + 1);
      this.row1 = new Int32Array(n + 1);
    }
    let prev = this.row0;
    let row = this.row1;
    for (let j = 0; j <= n; j++) prev[j] = j;
    for (let i = 1; i <= a.length; i++) {
      row[0] = i;
      let best = i;
      const ca = a.charCodeAt(i - 1);
      for (let j = 1; j <= n; j++) {
        const sub = (prev[j - 1] as number) + (ca === b.charCodeAt(j - 1) ? 0 : 1);
        const del = (prev[j] as number) + 1;
        const ins = (row[j - 1] as number) + 1;
        const v = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
        row[j] = v;
        if (v < best) best = v;
      }
      if (best > max) return max + 1;
      const swap = prev;
      prev = row;
      row = swap;
    }
    return prev[n] as number;
  }

  /**
   * Index words within `max` edits of `term` (and not the word itself), with their distance. A word within `max`
   * edits keeps all but at most 2×max of the term's distinct bigrams, so only words sharing that many are compared.
   */
  private fuzzyMatches(term: string, max: number): [number, number][] {
    const grams = bigrams(term);
    const need = grams.length - 2 * max;
    const out: [number, number][] = [];
    const check = (id: number) => {
      const word = this.vocabulary[id] as string;
      if (Math.abs(word.length - term.length) > max || word === term) return;
      const dist = this.distance(term, word, max);
      if (dist <= max) out.push([id, dist]);
    };
    if (need <= 0) {
      for (let id = 0; id < this.vocabulary.length; id++) check(id);
      return out;
    }
    let n = 0;
    for (const g of grams) {
      const list = this.grams.get(g);
      if (!list) continue;
      for (let i = 0; i < list.length; i++) {
        const id = list[i] as number;
        if (this.gramCount[id] === 0) this.gramTouched[n++] = id;
        this.gramCount[id] = (this.gramCount[id] as number) + 1;
      }
    }
    for (let i = 0; i < n; i++) {
      const id = this.gramTouched[i] as number;
      if ((this.gramCount[id] as number) >= need) check(id);
      this.gramCount[id] = 0;
    }
    return out;
  }

  /** The words of a query as the index processed its documents'. */
  queryTerms(query: string): string[] {
    return this.settings.tokenize(query).map((t) => this.settings.processTerm(t)).filter(Boolean);
  }

  /** Searches the index; results best first. */
  search(query: string, options: QueryOptions = {}): Hit[] {
    const o: QueryOptions = { ...this.settings.defaults, ...options };
    const weights = { ...DEFAULT_WEIGHTS, ...o.weights };
    const maxFuzzy = o.maxFuzzy ?? 6;
    const terms = this.queryTerms(query);
    if (!terms.length) return [];
    const F = this.fields.length;
    const boosts = this.fields.map((f) => (o.boost && Object.prototype.hasOwnProperty.call(o.boost, f) ? (o.boost[f] as number) : 0) || 1);

    // Each query word with its index words and their weights (exact 1, prefix and typo matches less). A word given
    // twice is two words (they may differ in prefix and typo tolerance) that count once in the quality factor.
    const unique = [...new Set(terms)];
    const expansions: Expansion[] = terms.map((term, i) => {
      const e: Expansion = { term, unique: unique.indexOf(term), ids: [], weights: [], cost: 0 };
      const boostTerm = o.boostTerm ? o.boostTerm(term, i, terms) : 1;
      const prefix = typeof o.prefix === 'function' ? o.prefix(term, i, terms) : o.prefix === true;
      const fuzzyOpt = typeof o.fuzzy === 'function' ? o.fuzzy(term, i, terms) : (o.fuzzy ?? false);
      const add = (id: number, w: number) => {
        e.ids.push(id);
        e.weights.push(w * boostTerm);
        e.cost += this.postings(id);
      };
      const exact = this.termIds.get(term);
      if (exact !== undefined) add(exact, 1);
      if (prefix) {
        const [from, to] = this.prefixRange(term);
        for (let id = from; id < to; id++) {
          if (id === exact) continue;
          const len = (this.vocabulary[id] as string).length;
          add(id, (weights.prefix * len) / (len + 0.3 * (len - term.length)));
        }
      }
      if (fuzzyOpt) {
        const fuzzy = fuzzyOpt === true ? 0.2 : fuzzyOpt;
        const max = fuzzy < 1 ? Math.min(maxFuzzy, Math.round(term.length * fuzzy)) : fuzzy;
        if (max > 0) {
          for (const [id, dist] of this.fuzzyMatches(term, max)) {
            const word = this.vocabulary[id] as string;
            if (prefix && word.startsWith(term)) continue; // already counted as a prefix match
            add(id, (weights.fuzzy * word.length) / (word.length + dist));
          }
        }
      }
      return e;
    });

    const and = o.combineWith?.toUpperCase() === 'AND';
    if (and && expansions.some((e) => !e.ids.length)) return [];
    // AND: rarest word first, so later words only visit the few documents still in the running.
    const order = expansions.map((_, x) => x);
    if (and) order.sort((x, y) => (expansions[x] as Expansion).cost - (expansions[y] as Expansion).cost);

    const { acc, matched, stamp, masks, touched, postDoc, postScore, offsets } = this;
    let count = 0;
    order.forEach((x, round) => {
      const e = expansions[x] as Expansion;
      const bit = e.unique < 31 ? 1 << e.unique : 0;
      const mark = round + 1;
      for (let k = 0; k < e.ids.length; k++) {
        const id = e.ids[k] as number;
        const w = e.weights[k] as number;
        for (let f = 0; f < F; f++) {
          const from = offsets[id * F + f] as number;
          const to = offsets[id * F + f + 1] as number;
          if (from === to) continue;
          const wf = w * (boosts[f] as number);
          for (let p = from; p < to; p++) {
            const doc = postDoc[p] as number;
            if (stamp[doc] !== mark) {
              if (and && matched[doc] !== round) continue; // missed an earlier word
              if (matched[doc] === 0) touched[count++] = doc;
              stamp[doc] = mark;
              matched[doc] = (matched[doc] as number) + 1;
              masks[doc] = (masks[doc] as number) | bit;
            }
            acc[doc] = (acc[doc] as number) + wf * (postScore[p] as number);
          }
        }
      }
    });

    const rounds = expansions.length;
    const hits: Hit[] = [];
    for (let i = 0; i < count; i++) {
      const doc = touched[i] as number;
      if ((!and || matched[doc] === rounds) && (!o.filter || o.filter(this.ids[doc] as number))) {
        const mask = masks[doc] as number;
        const hit = new Hit(this, doc, acc[doc] as number, expansions, mask);
        // MiniSearch's quality factor: the number of distinct query words the document matches.
        hit.score *= (unique.length <= 31 ? popcount(mask) : hit.queryTerms.length) || 1;
        hits.push(hit);
      }
      acc[doc] = 0;
      matched[doc] = 0;
      stamp[doc] = 0;
      masks[doc] = 0;
    }
    hits.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return hits;
  }
}
