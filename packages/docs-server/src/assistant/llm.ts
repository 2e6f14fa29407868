import type { Retrieval } from './retrieve.js';

/** An OpenAI-compatible chat completions endpoint (OpenAI, Ollama, vLLM, llama.cpp server, …). */
export interface LlmConfig {
  /** Base URL (`http://localhost:11434/v1`) or the full `/chat/completions` URL. */
  url: string;
  model: string;
  apiKey?: string;
  /** Milliseconds before giving up on the first byte and between chunks (default 30 s). */
  timeoutMs?: number;
}

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export const completionsUrl = (url: string): string => (/\/chat\/completions\/?$/.test(url) ? url : `${url.replace(/\/+$/, '')}/chat/completions`);

const SYSTEM = `You are the Keyway documentation assistant. Answer the reader's question using ONLY the numbered documentation
passages below. Cite the passages you use with their number in square brackets, like [1] or [2][3]. Write concise Markdown;
put code in fenced code blocks with a language. Do not invent URLs, options or API fields that are not in the passages. If the
passages do not contain the answer, say that you don't know and suggest contacting Keyway. If the question is not about Keyway
or its documentation, politely decline to answer.`;

/** The prompt: instructions and passages as the system message, then the conversation and the new question. */
export function buildMessages(question: string, history: ChatMessage[], retrieval: Retrieval): { role: string; content: string }[] {
  const passages = retrieval.passages
    .map(({ passage, n }) => {
      const code = passage.code
        .slice(0, 2)
        .map((c) => `\n\`\`\`${c.lang}\n${c.source.slice(0, 1500)}\n\`\`\``)
        .join('');
      const where = passage.heading ? `${passage.title} › ${passage.heading}` : passage.title;
      return `[${n}] ${where} (${passage.url})\n${passage.text.slice(0, 2500)}${code}`;
    })
    .join('\n\n');
  return [{ role: 'system', content: `${SYSTEM}\n\nPassages:\n\n${passages}` }, ...history, { role: 'user', content: question }];
}

/** Streams the model's answer, piece by piece, from an OpenAI-compatible streaming response (SSE `data:` lines). */
export async function* streamCompletion(config: LlmConfig, messages: { role: string; content: string }[], signal?: AbortSignal): AsyncGenerator<string> {
  const timeout = config.timeoutMs ?? 30_000;
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal?.addEventListener('abort', abort);
  let timer = setTimeout(abort, timeout);
  try {
    const response = await fetch(completionsUrl(config.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
      body: JSON.stringify({ model: config.model, messages, stream: true, temperature: 0.2 }),
      signal: controller.signal,
    });
    if (!response.ok || !response.body) {
      const detail = (await response.text().catch(() => '')).slice(0, 200);
      throw new Error(`The language model answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`);
    }
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      clearTimeout(timer);
      timer = setTimeout(abort, timeout);
      buffer += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') return;
        let parsed: { choices?: { delta?: { content?: string | null } }[] };
        try {
          parsed = JSON.parse(data);
        } catch {
          continue; // a keep-alive or a provider-specific line
        }
        const piece = parsed.choices?.[0]?.delta?.content;
        if (piece) yield piece;
      }
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', abort);
  }
}
