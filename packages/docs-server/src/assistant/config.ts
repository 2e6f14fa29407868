import type { AssistantOptions } from './plugin.js';

/**
 * The assistant's configuration from the environment (see the README). Throws an Error naming the variable when a
 * value is unusable, so the server refuses to start half-configured.
 */
export function assistantOptionsFromEnv(env: NodeJS.ProcessEnv): AssistantOptions {
  const options: AssistantOptions = {};
  const url = env.KEYWAY_ASSISTANT_LLM_URL?.trim();
  const model = env.KEYWAY_ASSISTANT_LLM_MODEL?.trim();
  if (url) {
    httpUrl('KEYWAY_ASSISTANT_LLM_URL', url);
    if (!model) throw new Error('KEYWAY_ASSISTANT_LLM_MODEL is required with KEYWAY_ASSISTANT_LLM_URL (the model name the endpoint serves).');
    options.llm = { url, model, ...(env.KEYWAY_ASSISTANT_LLM_API_KEY ? { apiKey: env.KEYWAY_ASSISTANT_LLM_API_KEY } : {}) };
    if (env.KEYWAY_ASSISTANT_LLM_TIMEOUT_MS) options.llm.timeoutMs = positive(env, 'KEYWAY_ASSISTANT_LLM_TIMEOUT_MS');
  } else if (model || env.KEYWAY_ASSISTANT_LLM_API_KEY) {
    throw new Error('KEYWAY_ASSISTANT_LLM_MODEL and KEYWAY_ASSISTANT_LLM_API_KEY need KEYWAY_ASSISTANT_LLM_URL (the chat completions endpoint).');
  }
  const embeddingsUrl = env.KEYWAY_ASSISTANT_EMBEDDINGS_URL?.trim();
  const embeddingsModel = env.KEYWAY_ASSISTANT_EMBEDDINGS_MODEL?.trim();
  if (embeddingsUrl) {
    httpUrl('KEYWAY_ASSISTANT_EMBEDDINGS_URL', embeddingsUrl);
    if (!embeddingsModel) throw new Error('KEYWAY_ASSISTANT_EMBEDDINGS_MODEL is required with KEYWAY_ASSISTANT_EMBEDDINGS_URL (the embedding model the endpoint serves, e.g. nomic-embed-text).');
    const apiKey = env.KEYWAY_ASSISTANT_EMBEDDINGS_API_KEY ?? env.KEYWAY_ASSISTANT_LLM_API_KEY;
    options.embeddings = { url: embeddingsUrl, model: embeddingsModel, ...(apiKey ? { apiKey } : {}) };
  } else if (embeddingsModel || env.KEYWAY_ASSISTANT_EMBEDDINGS_API_KEY) {
    throw new Error('KEYWAY_ASSISTANT_EMBEDDINGS_MODEL and KEYWAY_ASSISTANT_EMBEDDINGS_API_KEY need KEYWAY_ASSISTANT_EMBEDDINGS_URL (the embeddings endpoint).');
  }
  const meaning = env.KEYWAY_ASSISTANT_MEANING?.trim().toLowerCase();
  if (meaning) {
    if (!['on', 'off'].includes(meaning)) throw new Error(`KEYWAY_ASSISTANT_MEANING must be "on" or "off", got ${JSON.stringify(env.KEYWAY_ASSISTANT_MEANING)}`);
    options.meaning = meaning === 'on';
  }
  if (env.KEYWAY_ASSISTANT_FEEDBACK_FILE) options.feedbackFile = env.KEYWAY_ASSISTANT_FEEDBACK_FILE;
  if (env.KEYWAY_ASSISTANT_RATE_LIMIT) options.chatPerMinute = positive(env, 'KEYWAY_ASSISTANT_RATE_LIMIT');
  if (env.KEYWAY_SEARCH_RATE_LIMIT) options.searchPerMinute = positive(env, 'KEYWAY_SEARCH_RATE_LIMIT');
  return options;
}

function httpUrl(name: string, value: string): void {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new Error(`${name} must be an http(s) URL such as http://localhost:11434/v1, got ${JSON.stringify(value)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`${name} must use http or https, got ${JSON.stringify(value)}`);
}

function positive(env: NodeJS.ProcessEnv, name: string): number {
  const value = Number(env[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number above 0, got ${JSON.stringify(env[name])}`);
  return value;
}
