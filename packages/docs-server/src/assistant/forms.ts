import { isStopWord, processTerm, tokenize } from '../search/engine.js';

const STOP = { has: isStopWord };

const VOWEL = /[aeiouy]/;

/**
 * The roots a word may be a form of: the word itself, and the word without a verb or noun ending ("encrypted" →
 * "encrypt", "notified" → "notify", "configuration" → "configure", "managing" → "manage").
 * Agent nouns are not forms of their verb: "customer" is not "custom", nor "header" "head", nor "container" "contain".
 */
function roots(t: string): string[] {
  const out = [t];
  if (t.endsWith('ied') && t.length > 5) out.push(`${t.slice(0, -3)}y`);
  for (const end of ['ing', 'ed', 'ion', 'ation', 'ication', 'ment']) {
    if (!t.endsWith(end) || t.length < end.length + 3) continue;
    const base = t.slice(0, -end.length);
    // The newer endings need a longer root: "comment" is not a form of "com".
    if (!VOWEL.test(base) || (end.length > 3 && base.length < 4)) continue;
    out.push(base, `${base}e`);
    if (end === 'ication') out.push(`${base}y`);
    if (/([b-df-hj-np-tv-z])\1$/.test(base)) out.push(base.slice(0, -1));
  }
  return out;
}

/** The nouns of a verb ("encrypt" → "encryption", "configure" → "configuration", "notify" → "notification"). */
function nouns(root: string): string[] {
  const stem = root.endsWith('e') ? root.slice(0, -1) : root;
  const out = [`${root}ion`, `${stem}ion`, `${stem}ation`];
  if (root.length >= 5) out.push(`${root}ment`);
  if (root.endsWith('y')) out.push(`${root.slice(0, -1)}ication`);
  return out;
}

/**
 * Other forms of a word: its verb endings, its roots and their nouns ("limit" → "limiting", "moving" → "move",
 * "encrypted" → "encrypt", "encryption", "notified" → "notify", "notification"). A root's own verb endings are not
 * added: "logged" is not "logging", nor "signed" "signing".
 */
export function inflections(t: string): string[] {
  const out = [`${t}ing`, `${t}ed`, ...nouns(t)];
  if (t.endsWith('e')) out.push(`${t.slice(0, -1)}ing`, `${t}d`);
  for (const root of roots(t).slice(1)) out.push(root, ...nouns(root));
  return [...new Set(out)];
}

/**
 * English verbs made of a verb and a particle, and the plain verbs the docs use for them. The object may stand between
 * the two ("take someone out", "turn it off").
 */
const PHRASAL_VERBS: readonly (readonly [string, string, readonly string[]])[] = [
  ['take', 'out', ['remove']],
  ['kick', 'out', ['remove']],
  ['throw', 'out', ['remove', 'delete']],
  ['take', 'off', ['remove']],
  ['take', 'away', ['remove', 'revoke']],
  ['get', 'rid', ['remove', 'delete']],
  ['cut', 'off', ['revoke', 'block']],
  ['lock', 'out', ['block', 'lockout']],
  ['turn', 'on', ['enable']],
  ['switch', 'on', ['enable']],
  ['turn', 'off', ['disable']],
  ['switch', 'off', ['disable']],
  ['set', 'up', ['setup', 'configure']],
  ['look', 'up', ['find', 'search', 'lookup']],
  ['sign', 'up', ['signup', 'register']],
  ['log', 'in', ['login']],
  ['log', 'out', ['logout']],
  ['sign', 'out', ['logout', 'signout']],
  ['shut', 'down', ['stop', 'shutdown']],
  ['spin', 'up', ['start', 'deploy']],
  ['roll', 'back', ['rollback', 'revert']],
  ['put', 'in', ['add']],
  ['hand', 'out', ['issue']],
];

const IRREGULAR_PAST: Record<string, readonly string[]> = { take: ['took', 'taken'], throw: ['threw', 'thrown'], get: ['got', 'gotten'], spin: ['spun'] };

/** Every form of each phrasal verb's verb ("set" → "sets", "setting"…), worked out once. */
const VERB_FORMS = new Map(
  PHRASAL_VERBS.map(([verb]) => {
    // A short verb ending in one vowel and a consonant doubles it: "setting", "putting", "logged".
    const doubled = /^[^aeiou]*[aeiou][bdgklmnprtv]$/.test(verb) ? [`${verb}${verb.at(-1)}ing`, `${verb}${verb.at(-1)}ed`] : [];
    return [verb, new Set([verb, `${verb}s`, ...inflections(verb), ...doubled, ...(IRREGULAR_PAST[verb] ?? [])])];
  }),
);

/**
 * The phrasal verbs of a question (verb, then its particle within the next four words) with the docs' verbs for
 * them that the index knows: "take someone out of a group" → [["take", "out"], ["remove"]].
 */
export function phrasalVerbs(question: string, vocabulary: Set<string>): [string[], string[]][] {
  const words = tokenize(question).map((w) => w.toLowerCase());
  const out: [string[], string[]][] = [];
  for (const [verb, particle, plain] of PHRASAL_VERBS) {
    const forms = VERB_FORMS.get(verb);
    const at = words.findIndex((w) => forms?.has(w));
    if (at < 0 || !words.slice(at + 1, at + 5).includes(particle)) continue;
    const known = plain.filter((v) => vocabulary.has(v));
    if (known.length) out.push([[processTerm(words[at] as string), particle], known]);
  }
  return out;
}

/** The other inflections of a question word (four letters or more, no digits) that the docs use. */
export function otherForms(t: string, vocabulary: Set<string>): string[] {
  if (t.length < 4 || /\d/.test(t)) return [];
  return inflections(t).filter((v) => v !== t && vocabulary.has(v));
}

/**
 * A word the docs do not know with two adjacent letters swapped back, when that makes a word they do ("laravle" →
 * "laravel", "tokne" → "token"): the commonest typo, two edits for the index's typo tolerance, which allows one in a
 * word of this length. Empty when there is none; every such word when several are.
 */
export function transposed(t: string, vocabulary: Set<string>): string[] {
  if (vocabulary.has(t) || t.length < 4 || /\d/.test(t)) return [];
  const found = new Set<string>();
  for (let i = 0; i + 1 < t.length; i++) {
    if (t[i] === t[i + 1]) continue;
    const swapped = t.slice(0, i) + t[i + 1] + t[i] + t.slice(i + 2);
    if (vocabulary.has(swapped) && !STOP.has(swapped)) found.add(swapped);
  }
  return [...found];
}

/** A word the docs do not know, as two words they do ("reactsdk" → "react", "sdk"); empty when there is none. */
export function splitWord(t: string, vocabulary: Set<string>): string[] {
  if (vocabulary.has(t) || t.length < 6 || /\d/.test(t)) return [];
  for (let i = 3; i <= t.length - 3; i++) {
    const a = t.slice(0, i);
    const b = t.slice(i);
    if (vocabulary.has(a) && vocabulary.has(b) && !STOP.has(a) && !STOP.has(b)) return [a, b];
  }
  return [];
}

/** Levenshtein distance, giving up (returning max + 1) as soon as it exceeds `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
      row.push(v);
      best = Math.min(best, v);
    }
    if (best > max) return max + 1;
    prev = row;
  }
  return prev[b.length] ?? max + 1;
}

