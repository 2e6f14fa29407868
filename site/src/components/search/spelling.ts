import leven from 'leven';

/** Whether every letter of `typed` is in `word`, in order: the reader dropped letters (the most common typo). */
const dropsLetters = (typed: string, word: string): boolean => {
  let at = 0;
  for (const ch of word) if (ch === typed[at]) at++;
  return at === typed.length;
};

/**
 * "Did you mean": for a query that found nothing, the same query with each word the index does not know replaced by
 * the index word closest to it (at most one edit for words of four letters, two from five on). Among the closest, a
 * word that has every typed letter in order comes first (letters were dropped, as in "pasky" for "passkey"), then the
 * word more passages use. The engine already forgives one typo in long words; this catches what it cannot, and only
 * when there is nothing else to show.
 */
export function correctQuery(
  query: string,
  index: { vocabulary: readonly string[]; queryTerms(text: string): string[] },
  usage: (word: string) => number,
): string | undefined {
  const known = new Set(index.vocabulary);
  let changed = false;
  const corrected = query.replace(/[\p{L}\p{N}_]+/gu, (word) => {
    const term = index.queryTerms(word)[0];
    if (!term || known.has(term) || term.length < 4 || /\d/.test(term)) return word;
    const max = term.length >= 5 ? 2 : 1;
    let best: { word: string; distance: number; dropped: boolean; usage: number } | undefined;
    for (const candidate of index.vocabulary) {
      if (Math.abs(candidate.length - term.length) > max || /\d/.test(candidate)) continue;
      const distance = leven(term, candidate);
      if (distance > max || (best && distance > best.distance)) continue;
      const dropped = dropsLetters(term, candidate);
      if (best && distance === best.distance && best.dropped && !dropped) continue;
      const used = usage(candidate);
      if (!best || distance < best.distance || dropped !== best.dropped || used > best.usage) best = { word: candidate, distance, dropped, usage: used };
    }
    if (!best) return word;
    changed = true;
    return best.word;
  });
  return changed ? corrected : undefined;
}
