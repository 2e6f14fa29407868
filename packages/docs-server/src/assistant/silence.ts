import { createRequire } from 'node:module';
import { isStopWord, processTerm, withoutContractions } from '../search/engine.js';
import { editDistance, otherForms, splitWord, transposed } from './forms.js';

const require = createRequire(import.meta.url);
let english: Set<string> | undefined;
/** English words (`an-array-of-english-words`, MIT: about 275,000, lower case), loaded on first use. */
function englishWords(): Set<string> {
  english ??= new Set(require('an-array-of-english-words') as string[]);
  return english;
}

/**
 * Whether the docs say a word in some form: as it is, another inflection, or (a word that is no English word, so maybe
 * a misspelling) with two letters swapped or one typo away. An English word is not read as a typo of another:
 * "Slack" is not "stack".
 */
function docsKnow(word: string, vocabulary: Set<string>, english: boolean): boolean {
  const t = processTerm(word);
  if (vocabulary.has(t) || vocabulary.has(word)) return true;
  if (otherForms(t, vocabulary).length || splitWord(t, vocabulary).length) return true;
  if (english) return false;
  if (transposed(t, vocabulary).length) return true;
  if (t.length < 5) return false;
  for (const v of vocabulary) if (Math.abs(v.length - t.length) <= 1 && v[0] === t[0] && editDistance(t, v, 1) <= 1) return true;
  return false;
}

/**
 * The names a question uses that the docs never say: a word the docs do not have in any form that is written as a
 * name (capitalised inside the sentence, or with capitals inside it: "an Angular SDK", "Slack", "BigQuery", "XSS") or,
 * in lower case, is no English word of five letters or more ("bigquery", "whatsapp"; shorter ones are too often chat
 * shorthand, "ppl", "pls"). What such a question asks about is not in the docs, however close its other words come.
 */
export function missingNames(text: string, vocabulary: Set<string>): string[] {
  const question = withoutContractions(text);
  const out: string[] = [];
  // Sentence starts: the first word, and the word after a full stop, a colon, a question or exclamation mark.
  const starts = new Set<number>([0]);
  for (const m of question.matchAll(/[.!?:]\s+/g)) starts.add((m.index ?? 0) + m[0].length);
  for (const m of question.matchAll(/[\p{L}][\p{L}\p{N}]*/gu)) {
    const word = m[0];
    const lower = word.toLowerCase();
    if (lower.length < 3 || isStopWord(lower) || /\d/.test(word)) continue;
    // A contraction written without its apostrophe ("doesnt", "cant") is its verb.
    if (/n[t]$/.test(lower) && isStopWord(lower.slice(0, -2).replace(/^ca$/, 'can').replace(/^wo$/, 'will'))) continue;
    const words = englishWords();
    const isEnglish = words.has(lower) || words.has(processTerm(lower));
    if (docsKnow(lower, vocabulary, isEnglish)) continue;
    const asName = (/^\p{Lu}/u.test(word) && !starts.has(m.index ?? 0)) || /.\p{Lu}/u.test(word);
    if (asName || (!isEnglish && lower.length >= 5)) out.push(word);
  }
  return [...new Set(out)];
}
