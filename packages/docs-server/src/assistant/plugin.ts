import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { SECURITY_HEADERS } from '../headers.js';
import { runSearch } from '../search/engine.js';
import { buildDocsIndex, type DocsIndex } from '../search/site-index.js';
import { classify, COMMERCIAL_ANSWER, extractiveAnswer, NOT_FOUND_ANSWER, notCoveredAnswer } from './extractive.js';
import { FeedbackStore, type AnswerRecord } from './feedback.js';
import { buildMessages, streamCompletion, type ChatMessage, type LlmConfig } from './llm.js';
import { retrieve, retrieveWithMeaning, type Retrieval } from './retrieve.js';
import { loadMeaning, type Meaning } from './meaning.js';
import { DenseIndex, type EmbeddingsConfig } from './embeddings.js';

export const MAX_QUESTION_LENGTH = 500;
export const MAX_HISTORY_MESSAGES = 10;
export const MAX_HISTORY_MESSAGE_LENGTH = 4000;
export const MAX_SEARCH_LIMIT = 50;

export interface AssistantOptions {
  /** An OpenAI-compatible chat endpoint; without it, answers are extractive (the best passages, cited). */
  llm?: LlmConfig;
  /** Feedback is appended here as JSON lines (and kept in memory either way). */
  feedbackFile?: string;
  /** Requests per minute and per IP: chat (default 20) and search (default 120). */
  chatPerMinute?: number;
  searchPerMinute?: number;
  /** Pages only signed-in visitors may find (default: the Identity Protection detections and queries pages). */
  gatedPrefixes?: readonly string[];
  /**
   * Hybrid retrieval: an OpenAI-compatible embeddings endpoint. Passages are embedded once the index is built (in the
   * background); questions are then answered from the lexical ranking fused with the nearest passages.
   */
  embeddings?: EmbeddingsConfig;
  /** Pause between the sentences of an answer streamed without a model, in ms (default 35; 0 sends them at once). */
  sentenceDelayMs?: number;
  /**
   * Retrieval by meaning with the bundled sentence encoder (default on): the build's passage vectors (or, without
   * them, vectors made in the background at start) fused with the lexical ranking. `false` keeps the lexical engine alone.
   */
  meaning?: boolean;
}

/** An answer as it streams: sentences of prose, and code blocks line by line (whitespace kept, so pieces join back). */
export function streamPieces(markdown: string): string[] {
  const pieces: string[] = [];
  let inCode = false;
  for (const line of markdown.split(/(?<=\n)/)) {
    if (/^(```|~~~)/.test(line)) inCode = !inCode;
    if (inCode || /^(```|~~~)/.test(line)) pieces.push(line);
    else pieces.push(...line.split(/(?<=[.!?]\s)/).filter(Boolean));
  }
  return pieces;
}

export interface Citation {
  n: number;
  url: string;
  title: string;
  heading: string;
}

class BadInput extends Error {}
class IndexUnavailable extends Error {}

/** The search box's query over the passages a reader may see: what `/api/search` answers (and the MCP `search_docs` tool). */
export function searchDocs(docs: DocsIndex, query: string, limit: number, signedIn: boolean) {
  return runSearch(docs.index, query, limit, docs.visible(signedIn), { index: docs.pageIndex, pages: docs.pages }).map(({ url, title, heading, snippet, page }) => ({ url, title, heading, snippet, page }));
}

const fail = (reply: FastifyReply, status: number, error: string) => reply.code(status).send({ error });

function parseChatBody(body: unknown): { question: string; history: ChatMessage[] } {
  if (!body || typeof body !== 'object') throw new BadInput('Send a JSON object: { "question": "…", "history": [] }.');
  const { question, history = [] } = body as { question?: unknown; history?: unknown };
  if (typeof question !== 'string' || !question.trim()) throw new BadInput('"question" must be a non-empty string.');
  if (question.length > MAX_QUESTION_LENGTH) throw new BadInput(`"question" is too long: at most ${MAX_QUESTION_LENGTH} characters.`);
  if (!Array.isArray(history)) throw new BadInput('"history" must be an array of { "role": "user" | "assistant", "content": "…" }.');
  if (history.length > MAX_HISTORY_MESSAGES) throw new BadInput(`"history" is too long: at most ${MAX_HISTORY_MESSAGES} messages.`);
  const messages = history.map((m: unknown, i): ChatMessage => {
    const { role, content } = (m ?? {}) as { role?: unknown; content?: unknown };
    if ((role !== 'user' && role !== 'assistant') || typeof content !== 'string') {
      throw new BadInput(`"history[${i}]" must be { "role": "user" | "assistant", "content": "…" }.`);
    }
    return { role, content: content.slice(0, MAX_HISTORY_MESSAGE_LENGTH) };
  });
  return { question: question.trim(), history: messages };
}

const citationsOf = (retrieval: Retrieval, used: Set<number>): Citation[] =>
  retrieval.passages
    .filter(({ n }) => used.has(n))
    .map(({ passage, n }) => ({ n, url: passage.url, title: passage.title, heading: passage.heading }));

/**
 * The docs search API and the assistant: `GET /api/search`, `POST /api/assistant/chat` (Server-Sent Events) and
 * `POST /api/assistant/feedback`. Gated passages only reach visitors whose request says `docsSignedIn`.
 */
export async function assistantPlugin(
  app: FastifyInstance,
  options: AssistantOptions & { siteDir: string; /** The index, when the server shares one (the MCP server searches it too). */ loadIndex?: () => Promise<DocsIndex> },
): Promise<void> {
  let docs: Promise<DocsIndex> | undefined;
  // Built in the background from the start; a failed build is logged, answered with 503 and tried again next time.
  const getDocs = () =>
    (docs ??= (options.loadIndex?.() ?? buildDocsIndex(options.siteDir, options.gatedPrefixes)).catch((e: unknown) => {
      docs = undefined;
      app.log.error(e, 'the docs search index could not be built');
      throw new IndexUnavailable(e instanceof Error ? e.message : String(e));
    }));
  void getDocs().catch(() => undefined);
  // Embeddings are optional: until they are ready, or if the endpoint fails, the lexical engine answers alone.
  let dense: DenseIndex | undefined;
  if (options.embeddings) {
    const config = options.embeddings;
    void getDocs()
      .then((d) => DenseIndex.build(config, d))
      .then(
        (built) => {
          dense = built;
          app.log.info('assistant: passage embeddings ready (hybrid retrieval)');
        },
        (e: unknown) => app.log.error(e, 'assistant: the passages could not be embedded; answers use the lexical engine only'),
      );
  }
  // Meaning (the bundled sentence encoder) is on by default: loaded in the background, the lexical engine answering
  // alone until it is ready (or if it fails).
  let meaning: Meaning | undefined;
  if (options.meaning !== false) {
    void getDocs()
      .then((d) => loadMeaning(options.siteDir, d))
      .then(
        (loaded) => {
          meaning = loaded;
          const m = loaded.describe();
          app.log.info(`assistant: retrieval by meaning ready (${m.vectors} passage vectors, ${m.source})`);
        },
        (e: unknown) => app.log.error(e, 'assistant: the sentence encoder could not be loaded; answers use the lexical engine only'),
      );
  }
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof IndexUnavailable) return reply.code(503).header('Retry-After', '5').send({ error: `Search is not available right now: ${error.message}` });
    return reply.send(error);
  });
  const store = new FeedbackStore(options.feedbackFile);

  await app.register(rateLimit, { global: false });
  const perMinute = (max: number) => ({ rateLimit: { max, timeWindow: 60_000 } });

  app.get('/api/search', { config: perMinute(options.searchPerMinute ?? 120) }, async (request: FastifyRequest, reply) => {
    const { q, limit } = request.query as { q?: unknown; limit?: unknown };
    if (typeof q !== 'string' || !q.trim()) return fail(reply, 400, 'Query parameter "q" is required: /api/search?q=words&limit=10.');
    if (q.length > MAX_QUESTION_LENGTH) return fail(reply, 400, `Query parameter "q" is too long: at most ${MAX_QUESTION_LENGTH} characters.`);
    let max = 10;
    if (limit !== undefined) {
      max = Number(limit);
      if (typeof limit !== 'string' || !Number.isInteger(max) || max < 1 || max > MAX_SEARCH_LIMIT) {
        return fail(reply, 400, `Query parameter "limit" must be a whole number from 1 to ${MAX_SEARCH_LIMIT}.`);
      }
    }
    const index = await getDocs();
    reply.header('Cache-Control', 'no-store');
    return { results: searchDocs(index, q, max, request.docsSignedIn) };
  });

  app.post(
    '/api/assistant/chat',
    { config: perMinute(options.chatPerMinute ?? 20), bodyLimit: 64 * 1024 },
    async (request, reply) => {
      let input: ReturnType<typeof parseChatBody>;
      try {
        input = parseChatBody(request.body);
      } catch (e) {
        if (e instanceof BadInput) return fail(reply, 400, e.message);
        throw e;
      }
      const index = await getDocs();
      const previousQuestions = input.history.filter((m) => m.role === 'user').map((m) => m.content);
      const nearest = dense ? await dense.nearest(input.question, index.visible(request.docsSignedIn)).catch((e: unknown) => void request.log.warn(e, 'assistant: the question could not be embedded')) : undefined;
      const retrieveOptions = { signedIn: request.docsSignedIn, previousQuestions, ...(nearest ? { dense: nearest } : {}) };
      const retrieval = meaning ? await retrieveWithMeaning(index, meaning, input.question, retrieveOptions) : retrieve(index, input.question, retrieveOptions);
      const id = randomUUID();

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store, no-transform',
        'X-Accel-Buffering': 'no',
      });
      const aborted = new AbortController();
      res.on('close', () => aborted.abort());
      const send = (event: string, data: unknown) => {
        if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      let answer = '';
      const emit = (text: string) => {
        answer += text;
        send('delta', { text });
      };
      // Answers made here stream sentence by sentence, as a model's would, so the panel shows them arriving.
      const delay = options.sentenceDelayMs ?? 35;
      const emitSentences = async (text: string) => {
        const pieces = streamPieces(text);
        for (let i = 0; i < pieces.length; i++) {
          if (aborted.signal.aborted) return;
          if (i > 0 && delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
          emit(pieces[i] as string);
        }
      };
      let mode: AnswerRecord['mode'] = 'not-found';
      let used = new Set<number>();
      let extractiveUsed: ReturnType<typeof extractiveAnswer>['used'] | undefined;
      const commercial = classify(input.question) === 'commercial';
      try {
        if (!commercial && retrieval.declined?.reason === 'not-covered') {
          // On topic, but the docs do not answer it: say so, offer the closest pages they do have, and contact us.
          send('meta', { id, mode, contact: true, reason: 'not-covered', meaning: meaning !== undefined });
          const made = notCoveredAnswer(retrieval.declined);
          extractiveUsed = made.used;
          await emitSentences(made.markdown);
        } else if (commercial || !retrieval.passages.length) {
          send('meta', { id, mode, contact: true, reason: commercial ? 'commercial' : 'off-topic', meaning: meaning !== undefined });
          await emitSentences(commercial ? COMMERCIAL_ANSWER : NOT_FOUND_ANSWER);
        } else {
          let extractive = !options.llm;
          mode = options.llm ? 'llm' : 'extractive';
          send('meta', { id, mode, meaning: meaning !== undefined });
          if (options.llm) {
            try {
              const messages = buildMessages(input.question, input.history, retrieval);
              // The model's tokens are sent on as they arrive.
              for await (const piece of streamCompletion(options.llm, messages, aborted.signal)) emit(piece);
              used = new Set([...answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
            } catch (e) {
              if (aborted.signal.aborted) return;
              request.log.warn(e, 'assistant: the language model failed');
              if (answer) throw e;
              extractive = true;
              await emitSentences('_The language model is unavailable right now; here is what the docs say._\n\n');
            }
          }
          if (extractive) {
            mode = 'extractive';
            const made = extractiveAnswer(input.question, retrieval, index.pagePassages);
            extractiveUsed = made.used;
            await emitSentences(made.markdown);
          } else if (!used.size) used = new Set(retrieval.passages.slice(0, 3).map((p) => p.n));
        }
        if (aborted.signal.aborted) return;
        // Extractive answers cite exactly the passages they quote; model answers the retrieved passages they refer to.
        let citations = extractiveUsed
          ? extractiveUsed.map(({ passage, n }) => ({ n, url: passage.url, title: passage.title, heading: passage.heading }))
          : citationsOf(retrieval, used);
        if (!citations.length && mode === 'llm') citations = citationsOf(retrieval, new Set(retrieval.passages.slice(0, 3).map((p) => p.n)));
        store.remember({ id, question: input.question, answer, citations: citations.map((c) => c.url), mode, at: new Date().toISOString() });
        send('citations', { citations });
        send('done', { id });
      } catch (e) {
        request.log.error(e, 'assistant: answer failed');
        send('error', { message: 'The answer was interrupted. Please try again.' });
      } finally {
        res.end();
      }
    },
  );

  app.post('/api/assistant/feedback', { config: perMinute(options.chatPerMinute ?? 20), bodyLimit: 16 * 1024 }, async (request, reply) => {
    const { id, rating, comment } = (request.body ?? {}) as { id?: unknown; rating?: unknown; comment?: unknown };
    if (typeof id !== 'string' || !id) return fail(reply, 400, '"id" must be the id of an answer (from its "meta" event).');
    if (rating !== 'up' && rating !== 'down') return fail(reply, 400, '"rating" must be "up" or "down".');
    if (comment !== undefined && (typeof comment !== 'string' || comment.length > 2000)) return fail(reply, 400, '"comment" must be a string of at most 2000 characters.');
    const record = await store.add(id, rating, comment as string | undefined);
    if (!record) return fail(reply, 404, `No recent answer has the id ${JSON.stringify(id.slice(0, 80))}.`);
    return reply.code(201).send({ stored: true, rating });
  });
}
