export { assistantPlugin, MAX_QUESTION_LENGTH, type AssistantOptions, type Citation } from './plugin.js';
export { retrieve, retrieveWithMeaning, reciprocalRankFusion, type Retrieval, type Retrieved } from './retrieve.js';
export { extractiveAnswer, classify, NOT_FOUND_ANSWER, COMMERCIAL_ANSWER, CONTACT_URL, type QuestionClass } from './extractive.js';
export { streamCompletion, completionsUrl, type LlmConfig } from './llm.js';
export { FeedbackStore, type FeedbackRecord } from './feedback.js';
export { assistantOptionsFromEnv } from './config.js';
export { DenseIndex, embed, embeddingsUrl, type EmbeddingsConfig } from './embeddings.js';
export { loadMeaning, loadSentenceEncoder, MeaningIndex, passageText, writePassageVectors, ENCODER_NAME, VECTORS_DIR, type Meaning, type SentenceEncoder } from './meaning.js';
export { missingNames } from './silence.js';
