import type { Passage } from '../search/extract.js';
import type { DocsIndex } from '../search/site-index.js';
import type { Hit } from '../search/static-index.js';
import type { Declined, Retrieval, Retrieved, RetrieveOptions } from './retrieval-types.js';
import { missingNames } from './silence.js';

/** Reciprocal rank fusion of the lexical and the meaning page rankings: 1 / (k + rank) each. */
export const FUSION_K = 5;
/**
 * How much the meaning ranking counts against the lexical one. Measured on the tuning set (327 answerable): the
 * encoder alone puts the right page first for 31 % and among three for 51 % (whole-page texts: 40 / 55 %); fused at
 * weight 1, top-1 falls from 279 to 204, at 0.5 to 243, at 0.3 to 257 (the unseen rounds 69 → 52, 58, 63); at 0.1 it
 * changes no hit: it only orders pages the lexical ranking leaves tied.
 */
export const MEANING_WEIGHT = 0.1;
/**
 * A question the lexical checks find no answer for is still answered when a passage is at least this close to it in
 * meaning (cosine of the encoder's vectors). Calibrated on the tuning sets' distributions: the off-topic questions
 * reach 0.68 and the on-topic unanswerable ones 0.74 (answerable ones: median 0.66, 5 % under 0.50), so only a
 * paraphrase closer than any of those is rescued.
 */
export const ANSWER_COSINE = 0.75;
/**
 * Under this, nothing of the docs is near a question whose words they do not find either: it is off-topic even when it
 * names something they never say ("Paris"). (Tuning sets: small talk, weather, recipes, sport 0.19–0.41; on-topic
 * unanswerable ones from 0.39, 5 % under 0.42.)
 */
export const OFF_TOPIC_COSINE = 0.45;

const pageOf = (p: Passage) => p.url.split('#')[0] ?? p.url;

/** The lexical engine's findings for a question, as `retrieve` hands them on. */
export interface LexicalFindings {
  terms: string[];
  own: string[];
  /** Passages best first (the lexical page ranking, then passage scores). */
  ranked: readonly Hit[];
  pageScore: ReadonlyMap<string, number>;
  /** Whether the lexical checks find the question's words well enough for the docs to answer. */
  confident: boolean;
}

/**
 * Hybrid retrieval: the lexical page ranking and the ranking of pages by their passage nearest in meaning, fused by
 * reciprocal rank; each page answers with its best lexical passage (or, found by meaning only, its nearest one). The
 * docs are silent when the question names something they never say (`missingNames`), or when the words are not found
 * well and no passage is near the question in meaning: then the nearest pages are offered instead of an answer.
 */
export function fuseWithMeaning(docs: DocsIndex, question: string, lexical: LexicalFindings, options: RetrieveOptions): Retrieval {
  const cosines = options.meaning?.cosines as Float32Array;
  const visible = docs.visible(options.signedIn);
  // Each page's passage nearest in meaning.
  const nearest = new Map<string, { id: number; cos: number }>();
  for (let id = 0; id < cosines.length; id++) {
    const p = docs.passages[id];
    if (!p || (visible && !visible(id))) continue;
    const page = pageOf(p);
    const cos = cosines[id] as number;
    const best = nearest.get(page);
    if (!best || cos > best.cos) nearest.set(page, { id, cos });
  }
  const byMeaning = [...nearest].sort((a, b) => b[1].cos - a[1].cos);
  const top = byMeaning[0]?.[1].cos ?? 0;
  // Each page's best lexical passage, pages in lexical order.
  const lexicalBest = new Map<string, number>();
  for (const r of lexical.ranked) {
    const p = docs.passages[r.id as number];
    if (p && !lexicalBest.has(pageOf(p))) lexicalBest.set(pageOf(p), r.id as number);
  }
  const fused = new Map<string, number>();
  [...lexicalBest.keys()].forEach((page, rank) => fused.set(page, 1 / (FUSION_K + rank + 1)));
  byMeaning.slice(0, 50).forEach(([page], rank) => fused.set(page, (fused.get(page) ?? 0) + MEANING_WEIGHT / (FUSION_K + rank + 1)));
  const pages = [...fused].sort((a, b) => b[1] - a[1]);
  const max = options.max ?? 5;
  const passageOf = (page: string) => lexicalBest.get(page) ?? (nearest.get(page) as { id: number }).id;
  const picked: Retrieved[] = [];
  for (const [page, score] of pages) {
    if (picked.length >= Math.min(3, max)) break;
    picked.push({ passage: docs.passages[passageOf(page)] as Passage, score, n: picked.length + 1 });
  }
  // A page's second passage (lexical order) when there is room.
  for (const r of lexical.ranked) {
    if (picked.length >= max) break;
    const p = docs.passages[r.id as number] as Passage;
    const page = pageOf(p);
    if (!picked.some((x) => pageOf(x.passage) === page) || picked.some((x) => x.passage === p) || picked.filter((x) => pageOf(x.passage) === page).length >= 2) continue;
    picked.push({ passage: p, score: r.score, n: picked.length + 1 });
  }
  const missing = missingNames(question, docs.vocabulary);
  const silent = missing.length > 0 || (!lexical.confident && top < ANSWER_COSINE);
  if (!silent) return { terms: lexical.terms, passages: picked, nearest: top };
  // On topic but not covered: the question names what the docs never say ("a Vue version of the sign-in Form": the
  // Form is theirs, Vue is not), unless neither its words nor its meaning come near the docs ("the weather in Paris
  // tomorrow"). Otherwise, what the lexical checks decline is off-topic, as before: the contact-us answer, no pages (a
  // general programming question shares words and some meaning with the docs, 0.59–0.68 on the tuning set, as much
  // as the on-topic unanswerable ones: closeness in meaning does not tell the two apart).
  const onTopic = missing.length > 0 && (lexical.confident || top >= OFF_TOPIC_COSINE);
  const declined: Declined = { reason: onTopic ? 'not-covered' : 'off-topic', missing, closest: [] };
  if (declined.reason === 'not-covered') declined.closest = picked.slice(0, 3).filter((r, i, all) => all.findIndex((x) => pageOf(x.passage) === pageOf(r.passage)) === i);
  return { terms: lexical.terms, passages: [], declined, nearest: top };
}
