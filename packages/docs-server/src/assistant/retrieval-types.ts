import type { Passage } from '../search/extract.js';

export interface Retrieved {
  passage: Passage;
  score: number;
  /** Citation number, from 1. */
  n: number;
}

/** Why the docs do not answer a question. */
export interface Declined {
  /**
   * `not-covered`: on topic, but what it asks about is not in the docs (a product, framework or channel they never
   * name, or nothing near its meaning); `off-topic`: nothing of the docs is near it.
   */
  reason: 'not-covered' | 'off-topic';
  /** The names the question uses that the docs never say ("Vue", "BigQuery"), as written. */
  missing: string[];
  /** The passages nearest to the question (one per page), to offer as what the docs do cover; empty when off-topic. */
  closest: Retrieved[];
}

export interface Retrieval {
  /** The question's meaningful words. */
  terms: string[];
  /** Best passages first; empty when nothing relevant was found. */
  passages: Retrieved[];
  /** Set when the docs do not answer the question (then `passages` is empty). */
  declined?: Declined;
  /** The cosine of the question with the passage nearest to it in meaning, when meaning was used. */
  nearest?: number;
}

/** A question's vector compared with every passage's (`MeaningIndex.cosines`), by passage id. */
export interface QuestionMeaning {
  cosines: Float32Array;
}

export interface RetrieveOptions {
  signedIn: boolean;
  /** Earlier questions of the conversation, oldest first (follow-ups borrow their words). */
  previousQuestions?: string[];
  max?: number;
  /** Passage ids nearest to the question in meaning, best first (hybrid retrieval with embeddings), visible ones only. */
  dense?: readonly number[];
  /** The question's closeness in meaning to every passage (the bundled sentence encoder): turns on hybrid retrieval. */
  meaning?: QuestionMeaning;
}
