import type { DocsIndex } from '../search/site-index.js';

/** An OpenAI-compatible embeddings endpoint (OpenAI, Ollama, vLLM, llama.cpp server, …). */
export interface EmbeddingsConfig {
  /** Base URL (`http://localhost:11434/v1`) or the full `/embeddings` URL. */
  url: string;
  model: string;
  apiKey?: string;
  /** Milliseconds to wait for one request (default 10 s at start, per batch; a question waits at most 2 s). */
  timeoutMs?: number;
  /** Passages sent per request while indexing (default 64). */
  batchSize?: number;
}

export const embeddingsUrl = (url: string): string => (/\/embeddings\/?$/.test(url) ? url : `${url.replace(/\/+$/, '')}/embeddings`);

/** Embeds texts with one request; vectors come back normalized (so a dot product is the cosine). */
export async function embed(config: EmbeddingsConfig, input: string[], timeoutMs = config.timeoutMs ?? 10_000): Promise<Float32Array[]> {
  const res = await fetch(embeddingsUrl(config.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
    body: JSON.stringify({ model: config.model, input }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`The embeddings endpoint answered HTTP ${res.status}: ${(await res.text().catch(() => '')).slice(0, 200)}`);
  const body = (await res.json()) as { data?: { index?: number; embedding?: unknown }[] };
  const data = body.data ?? [];
  if (data.length !== input.length) throw new Error(`The embeddings endpoint returned ${data.length} vectors for ${input.length} texts.`);
  const out: Float32Array[] = new Array(input.length);
  data.forEach((d, i) => {
    if (!Array.isArray(d.embedding) || !d.embedding.every((x) => typeof x === 'number')) throw new Error('The embeddings endpoint returned a vector that is not a list of numbers.');
    const v = Float32Array.from(d.embedding as number[]);
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    for (let j = 0; j < v.length; j++) v[j] = (v[j] as number) / norm;
    out[d.index ?? i] = v;
  });
  return out;
}

/** What is embedded for a passage: where it is and what it says (long texts cut, as models have a context limit). */
const passageText = (p: { title: string; heading: string; text: string }) => `${p.title}${p.heading ? ` › ${p.heading}` : ''}\n${p.text}`.slice(0, 2000);

/** The passage vectors of an index, and the nearest passages to a question. */
export class DenseIndex {
  private constructor(
    private readonly config: EmbeddingsConfig,
    private readonly vectors: (Float32Array | undefined)[],
  ) {}

  /** Embeds every passage of the index, batch by batch. */
  static async build(config: EmbeddingsConfig, docs: DocsIndex): Promise<DenseIndex> {
    const size = config.batchSize ?? 64;
    const vectors: (Float32Array | undefined)[] = new Array(docs.passages.length);
    for (let i = 0; i < docs.passages.length; i += size) {
      const batch = docs.passages.slice(i, i + size);
      const got = await embed(config, batch.map(passageText));
      got.forEach((v, j) => (vectors[(batch[j] as { id: number }).id] = v));
    }
    return new DenseIndex(config, vectors);
  }

  /** Passage ids nearest to the question (cosine), best first, among those `visible` allows. */
  async nearest(question: string, visible: ((id: number) => boolean) | undefined, limit = 30): Promise<number[]> {
    const [q] = await embed(this.config, [question], Math.min(this.config.timeoutMs ?? 2000, 2000));
    if (!q) return [];
    const scored: { id: number; s: number }[] = [];
    this.vectors.forEach((v, id) => {
      if (!v || v.length !== q.length || (visible && !visible(id))) return;
      let s = 0;
      for (let j = 0; j < v.length; j++) s += (v[j] as number) * (q[j] as number);
      scored.push({ id, s });
    });
    return scored
      .sort((a, b) => b.s - a.s)
      .slice(0, limit)
      .map((x) => x.id);
  }
}
