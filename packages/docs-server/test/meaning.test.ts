import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingNames } from '../src/assistant/silence.js';
import { loadMeaning, loadSentenceEncoder, MeaningIndex, passageText, VECTORS_DIR, writePassageVectors } from '../src/assistant/meaning.js';
import { retrieveWithMeaning } from '../src/assistant/retrieve.js';
import { buildDocsIndex } from '../src/search/site-index.js';
import { chat, fixtureSite, startFixtureServer } from './assistant-fixture.js';

// Retrieval by meaning with the bundled sentence encoder (no service, no download), and the docs' silence: a question
// about something they never name gets "the docs do not cover this" with the closest pages, not a near miss.

describe('names the docs never say', () => {
  const vocabulary = new Set(['react', 'form', 'sign', 'snowflake', 'sink', 'sms', 'code', 'gate', 'stack', 'passkey', 'tokenfororganization', 'person', 'register']);

  it('finds a product, framework or channel the docs lack, however it is written', () => {
    expect(missingNames('Is there a Vue 3 version of the sign-in Form?', vocabulary)).toEqual(['Vue']);
    expect(missingNames('How do I set up a BigQuery sink?', vocabulary)).toEqual(['BigQuery']);
    expect(missingNames('can the sign-in code be sent over whatsapp', vocabulary)).toEqual(['whatsapp']);
    // An English word written as a name inside the sentence is one ("Slack" is not a typo of the docs' "stack").
    expect(missingNames('Does Gate post alerts to Slack?', vocabulary)).toEqual(['Slack']);
  });

  it('leaves out English words, typos of the docs words, identifiers the docs have, sentence starts and chat shorthand', () => {
    expect(missingNames('Strangers should not reach the form', vocabulary)).toEqual([]);
    expect(missingNames('how do i regsiter a pasksey', vocabulary)).toEqual([]);
    expect(missingNames('what does tokenForOrganization return for a person', vocabulary)).toEqual([]);
    expect(missingNames('doesnt the form show for ppl without a passkey', vocabulary)).toEqual([]);
  });
});

describe('retrieval by meaning', () => {
  it('a build reuses the vectors an earlier build made for the same passages, and embeds only what changed', async () => {
    const site = fixtureSite();
    const docs = await buildDocsIndex(site);
    const real = await loadSentenceEncoder();
    let embedded = 0;
    const counting = { ...real, embed: (texts: readonly string[]) => ((embedded += texts.length), real.embed(texts)) };
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-vectors-cache-'));
    const first = await writePassageVectors(site, docs.passages, { model: counting, cacheDir });
    expect(first).toMatchObject({ count: docs.passages.length, embedded: docs.passages.length });
    expect(embedded).toBe(docs.passages.length);
    const firstBytes = fs.readFileSync(path.join(site, VECTORS_DIR, 'vectors.i8'));

    // Another build of the same docs (another output folder): nothing is embedded, the vectors are the same bytes.
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-vectors-other-'));
    embedded = 0;
    const second = await writePassageVectors(other, docs.passages, { model: counting, cacheDir });
    expect(second).toMatchObject({ count: docs.passages.length, embedded: 0 });
    expect(embedded).toBe(0);
    expect(Buffer.compare(fs.readFileSync(path.join(other, VECTORS_DIR, 'vectors.i8')), firstBytes)).toBe(0);

    // One passage edited: only it is embedded, and its vector is the one of its new text.
    const changed = docs.passages.map((p, i) => (i === 1 ? { ...p, prose: `${p.prose} Rotate the secret every month.` } : p));
    const third = await writePassageVectors(other, changed, { model: counting, cacheDir });
    expect(third.embedded).toBe(1);
    expect(embedded).toBe(1);
    const loaded = await MeaningIndex.load(other, { passages: changed });
    expect(loaded.describe().source).toBe('build');
    const [now] = await real.embed([passageText(changed[1]!)]);
    expect(loaded.cosines(now!)[1]).toBeGreaterThan(0.98);
  });

  it('writes the passage vectors at build time and reads them back, making only those whose passage changed', async () => {
    const site = fixtureSite();
    const docs = await buildDocsIndex(site);
    const written = await writePassageVectors(site, docs.passages);
    expect(written.count).toBe(docs.passages.length);
    expect(fs.existsSync(path.join(site, VECTORS_DIR, 'vectors.i8'))).toBe(true);
    const loaded = await MeaningIndex.load(site, docs);
    expect(loaded.describe()).toMatchObject({ vectors: docs.passages.length, source: 'build' });
    // The same vectors as the encoder makes for the passage now (one signed byte per dimension).
    const [fresh] = await loaded.model.embed([passageText(docs.passages[0]!)]);
    expect(loaded.cosines(fresh!)[0]).toBeGreaterThan(0.98);
    // A passage whose text changed is embedded again rather than given another passage's vector.
    const changed = { ...docs, passages: docs.passages.map((p, i) => (i === 0 ? { ...p, prose: `${p.prose} Rotate the secret every month.` } : p)) };
    const again = await MeaningIndex.load(site, changed);
    const [now] = await again.model.embed([passageText(changed.passages[0]!)]);
    expect(again.cosines(now!)[0]).toBeGreaterThan(0.98);
  });

  it('declines a question about a product the docs never name, offering the closest pages; answers one they cover', async () => {
    const site = fixtureSite();
    const docs = await buildDocsIndex(site);
    const meaning = await loadMeaning(site, docs);
    const covered = await retrieveWithMeaning(docs, meaning, 'How do I create a machine client with a client secret?', { signedIn: false });
    expect(covered.declined).toBeUndefined();
    expect(covered.passages[0]?.passage.url).toBe('/docs/access/guides/m2m#create-a-client');
    const silent = await retrieveWithMeaning(docs, meaning, 'Can a machine client get its secret from HashiCorp Vault?', { signedIn: false });
    expect(silent.passages).toEqual([]);
    expect(silent.declined).toMatchObject({ reason: 'not-covered', missing: ['HashiCorp', 'Vault'] });
    expect(silent.declined?.closest[0]?.passage.url).toMatch(/^\/docs\/access\/guides\/m2m/);
    const offTopic = await retrieveWithMeaning(docs, meaning, 'recipe for chocolate cake', { signedIn: false });
    expect(offTopic.declined).toMatchObject({ reason: 'off-topic', closest: [] });
  });

  it('answers through the chat endpoint: "the docs do not cover this" with the closest pages cited and the contact action', async () => {
    const server = await startFixtureServer({ assistant: { meaning: true, sentenceDelayMs: 0 } });
    try {
      await expect.poll(async () => (await chat(server.url, { question: 'machine client secret' })).meta?.meaning, { timeout: 30_000 }).toBe(true);
      const { answer, citations, meta } = await chat(server.url, { question: 'Can a machine client get its secret from HashiCorp Vault?' });
      expect(meta).toMatchObject({ contact: true, reason: 'not-covered' });
      expect(answer).toMatch(/^\*\*The Keyway docs do not cover this\*\*: “HashiCorp” and “Vault” appear nowhere in them/);
      expect(answer).toContain('[contact us](https://keyway.dev/contact)');
      expect(citations[0]?.url).toMatch(/^\/docs\/access\/guides\/m2m/);
      expect(answer).toContain(`](${citations[0]?.url}) [1]`);
      // Off-topic questions keep the contact-us answer, with no pages.
      const offTopic = await chat(server.url, { question: 'recipe for chocolate cake' });
      expect(offTopic.meta).toMatchObject({ contact: true, reason: 'off-topic' });
      expect(offTopic.citations).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
