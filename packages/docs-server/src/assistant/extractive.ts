import type { Retrieval } from './retrieve.js';

const SENTENCE = /[^.!?]+(?:[.!?]+(?=\s|$)|$)/g;

/** How many of the terms a sentence mentions (a term matches a word it starts, or that starts it, typos aside). */
function termHits(sentence: string, terms: string[]): number {
  const words = sentence.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return terms.filter((t) => words.some((w) => w.startsWith(t) || (w.length >= 4 && t.startsWith(w)) || (t.length > 5 && w.startsWith(t.slice(0, 5)))))
    .length;
}

/** The two or three sentences of a passage that say the most about the question, in their original order. */
export function bestSentences(text: string, terms: string[], max = 3, budget = 600): string {
  const sentences = (text.match(SENTENCE) ?? [text]).map((s) => s.trim()).filter((s) => s.length > 0);
  const ranked = sentences
    .map((s, i) => ({ s, i, hits: termHits(s, terms) }))
    .sort((a, b) => b.hits - a.hits || a.i - b.i)
    .slice(0, max)
    .filter((x, k) => k === 0 || x.hits > 0)
    .sort((a, b) => a.i - b.i);
  let out = '';
  for (const { s } of ranked) {
    if (out && out.length + s.length > budget) break;
    out += (out ? ' ' : '') + s;
  }
  return out.length > budget ? `${out.slice(0, budget).replace(/\s+\S*$/, '')}…` : out;
}

const WANTS_CODE = /\b(how|example|code|snippet|install|configure|call|request|curl|sample|set ?up)\b/i;

/**
 * The answer without a language model: the best passages, each reduced to its most relevant sentences, stitched
 * together under their headings with citation markers, plus the first code block when the question asks how.
 */
export function extractiveAnswer(question: string, retrieval: Retrieval): string {
  const chosen = retrieval.passages.slice(0, 3);
  const parts = ['Here is what the Keyway docs say:'];
  let codeShown = false;
  for (const { passage, n } of chosen) {
    const where = passage.heading ? `${passage.title} › ${passage.heading}` : passage.title;
    const text = bestSentences(passage.prose, retrieval.terms) || passage.prose.slice(0, 300);
    parts.push(`**${where}** [${n}]\n\n${text}`);
    const code = passage.code[0];
    if (!codeShown && code && WANTS_CODE.test(question)) {
      const lines = code.source.split('\n');
      const source = lines.length > 30 ? `${lines.slice(0, 30).join('\n')}\n…` : code.source;
      const fence = source.includes('```') ? '~~~' : '```';
      parts.push(`${fence}${code.lang}\n${source}\n${fence}`);
      codeShown = true;
    }
  }
  parts.push('Open the cited sections for the full details.');
  return parts.join('\n\n');
}

export const NOT_FOUND_ANSWER =
  "I couldn't find anything about that in the Keyway docs, so I can't answer it. I can help with questions about Keyway: " +
  'Access (sign-in SDKs and concepts), Gate, Identity Protection and the REST API. Try rephrasing your question, or contact us.';
