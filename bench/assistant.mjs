// `npm run bench:assistant`: search and assistant quality and speed over the real site build, per question set.
//
// Sets: the tuning set `site/test/assistant-questions.json` (seen: the engine is tuned on it, its misses are printed,
// except those of its unseen rounds) and, when present, the held-out set `site/test/assistant-heldout.json` (written
// by someone who never saw the engine: only aggregate figures are printed, never a question or a miss). A set's
// questions are answerable (`page`, and `also`: other pages that answer it), off-topic or commercial (`page: null`,
// `expect: "contact-us"`), or on topic but not answered by the docs (`page: null`, `unanswerable: true`).
//
// Per set, every question is asked through the real chat endpoint (POST /api/assistant/chat on an in-process docs
// server, extractive answers) and typed into the search box's function (`runSearch`, as the browser runs it):
// - search box: the right page among the top 1 / 3 pages;
// - assistant: the right page cited first / among the first three pages cited (a declined answer cites nothing);
// - unanswerable questions declined ("the docs do not cover this", with the closest pages cited), off-topic and
//   commercial ones given the contact-us answer, and answerable ones declined (wrongly);
// - retrieval time per question (wall and CPU, the question's embedding included when meaning is on), time to the
//   first streamed byte of an answer (first `delta` event).
// Then search latency over queries drawn from every page and heading, against plain MiniSearch in the same run.
// Targets (the issue's, judged on the held-out set when there is one): search top-3 >= 95 %, assistant top-1 >= 90 %,
// top-3 >= 97 %, unanswerable declined >= 90 %, answerable declined <= 3 %, first byte p95 < 150 ms, search p95 < 10 ms.
// Usage: node bench/assistant.mjs [--tuning-only] [siteDir]   (default: site/build, or KEYWAY_SITE_DIR). Exits 1 below a target.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDocsIndex, contentTerms, makeSnippet, MiniSearch, QUERY_DEFAULTS, runSearch, SEARCH_OPTIONS } from '@keyway/docs-server/search';
import * as assistant from '@keyway/docs-server/assistant';
import { createDocsServer } from '@keyway/docs-server';

// `--tuning-only` leaves the held-out set out (it is measured once before a change and once at the end, never between).
const tuningOnly = process.argv.includes('--tuning-only');
if (tuningOnly) process.argv.splice(process.argv.indexOf('--tuning-only'), 1);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const siteDir = path.resolve(process.argv[2] ?? process.env.KEYWAY_SITE_DIR ?? path.join(root, 'site/build'));
if (!fs.existsSync(path.join(siteDir, 'docs'))) {
  console.error(`No site build with docs at ${siteDir}: run "npm run build" first (or pass a build folder).`);
  process.exit(2);
}
const readSet = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const tuningFile = readSet(path.join(root, 'site/test/assistant-questions.json'));
const heldOutPath = path.join(root, 'site/test/assistant-heldout.json');
const sets = [{ name: 'tuning', questions: tuningFile.questions, unseenRounds: tuningFile.unseenRounds ?? [], aggregateOnly: false }];
if (fs.existsSync(heldOutPath) && !tuningOnly) sets.push({ name: 'held-out', questions: readSet(heldOutPath).questions, unseenRounds: [], aggregateOnly: true });

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const pct = (n, d) => (d ? `${((n / d) * 100).toFixed(1)} % (${n}/${d})` : 'n/a (0)');
const pageOf = (url) => url.split('#')[0];
const distinctPages = (urls) => [...new Set(urls.map(pageOf))];
const kindOf = (q) => (q.page ? 'answerable' : q.unanswerable ? 'unanswerable' : 'off-topic');

let t = performance.now();
const docs = await buildDocsIndex(siteDir);
const buildMs = performance.now() - t;
console.log(`lexical index: ${docs.passages.length} passages (${docs.passages.filter((p) => !p.gated).length} public) from ${docs.pages.length} pages in ${buildMs.toFixed(0)} ms`);
const filter = docs.visible(false);
const voter = { index: docs.pageIndex, pages: docs.pages };

// Meaning (dense retrieval), when this engine has it: the same model and vectors the server uses.
let meaning;
if (typeof assistant.loadMeaning === 'function') {
  t = performance.now();
  meaning = await assistant.loadMeaning(siteDir, docs);
  const m = meaning.describe();
  console.log(`meaning: ${m.model}; ${m.vectors} passage vectors (${m.source}), ${(m.bytes / 1024).toFixed(0)} KiB in memory, ready in ${(performance.now() - t).toFixed(0)} ms${m.buildMs ? `; vectors built in ${(m.buildMs / 1000).toFixed(1)} s at site build` : ''}`);
}
/** What the chat endpoint retrieves for a question (the question's embedding included). */
async function retrieveLikeTheServer(question) {
  if (meaning) return assistant.retrieveWithMeaning(docs, meaning, question, { signedIn: false });
  return assistant.retrieve(docs, question, { signedIn: false });
}

const server = await createDocsServer({ siteDir, assistant: { chatPerMinute: 1_000_000, searchPerMinute: 1_000_000, sentenceDelayMs: 0 } });
const base = await server.listen({ port: 0, host: '127.0.0.1' });
async function ask(question) {
  const started = performance.now();
  const res = await fetch(`${base}/api/assistant/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, history: [] }) });
  const decoder = new TextDecoder();
  let buffer = '';
  let firstDelta;
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    if (firstDelta === undefined && buffer.includes('event: delta')) firstDelta = performance.now() - started;
  }
  const events = buffer
    .split('\n\n')
    .filter(Boolean)
    .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') }));
  const meta = events.find((e) => e.event === 'meta')?.data ?? {};
  const citations = events.find((e) => e.event === 'citations')?.data?.citations ?? [];
  const text = events.filter((e) => e.event === 'delta').map((e) => e.data.text).join('');
  return { meta, text, citations, firstDelta: firstDelta ?? Infinity };
}
// The index (and the vectors) are loaded in the background at start: wait until the server answers from them.
for (let i = 0; i < 600; i++) {
  const warm = await ask('how do I install the React SDK');
  if (warm.meta.mode !== 'not-found' && (!meaning || warm.meta.meaning !== false)) break;
  await new Promise((resolve) => setTimeout(resolve, 500));
}

function timed(fn) {
  const c = process.cpuUsage();
  const s = performance.now();
  const out = fn();
  return Promise.resolve(out).then((value) => {
    const used = process.cpuUsage(c);
    return { value, wall: performance.now() - s, cpu: (used.user + used.system) / 1000 };
  });
}

const results = {};
for (const set of sets) {
  const unseen = new Set(set.unseenRounds);
  const hidden = (q) => set.aggregateOnly || (q.holdout !== undefined && unseen.has(q.holdout === true ? 1 : q.holdout));
  const tally = { answerable: 0, search1: 0, search3: 0, cite1: 0, cite3: 0, declinedAnswerable: 0, unanswerable: 0, declinedUnanswerable: 0, withClosest: 0, offTopic: 0, contacted: 0 };
  const misses = [];
  const retrievalWall = [];
  const retrievalCpu = [];
  const lexicalWall = [];
  const lexicalCpu = [];
  const firstBytes = [];
  for (const q of set.questions) {
    const kind = kindOf(q);
    const right = kind === 'answerable' ? new Set([q.page, ...(q.also ?? [])]) : new Set();
    const answer = await ask(q.question);
    firstBytes.push(answer.firstDelta);
    const r = await timed(() => retrieveLikeTheServer(q.question));
    retrievalWall.push(r.wall);
    retrievalCpu.push(r.cpu);
    if (meaning) {
      // The same-run baseline of retrieval time: the lexical engine alone.
      const l = await timed(() => assistant.retrieve(docs, q.question, { signedIn: false }));
      lexicalWall.push(l.wall);
      lexicalCpu.push(l.cpu);
    }
    const declined = answer.meta.contact === true;
    if (kind === 'answerable') {
      tally.answerable++;
      const searched = distinctPages(runSearch(docs.index, q.question, 30, filter, voter).map((h) => h.url));
      const cited = declined ? [] : distinctPages(answer.citations.map((c) => c.url));
      if (right.has(searched[0])) tally.search1++;
      if (searched.slice(0, 3).some((p) => right.has(p))) tally.search3++;
      if (right.has(cited[0])) tally.cite1++;
      if (cited.slice(0, 3).some((p) => right.has(p))) tally.cite3++;
      if (declined) tally.declinedAnswerable++;
      if (!hidden(q)) {
        if (declined) misses.push(`  declined: ${q.question}`);
        else if (!right.has(cited[0])) misses.push(`  assistant ${cited.slice(0, 3).some((p) => right.has(p)) ? 'top-3 only' : 'miss'}: ${q.question}\n        want ${q.page}\n        cited ${cited.slice(0, 3).join(', ') || '(nothing)'}`);
        if (!searched.slice(0, 3).some((p) => right.has(p))) misses.push(`  search miss: ${q.question}\n        want ${q.page}\n        got  ${searched.slice(0, 3).join(', ')}`);
      }
    } else if (kind === 'unanswerable') {
      tally.unanswerable++;
      if (declined) tally.declinedUnanswerable++;
      if (declined && answer.citations.length > 0) tally.withClosest++;
      if (!declined && !hidden(q)) misses.push(`  answered, though the docs do not cover it: ${q.question}\n        cited ${distinctPages(answer.citations.map((c) => c.url)).slice(0, 3).join(', ')}`);
    } else {
      tally.offTopic++;
      if (declined) tally.contacted++;
      else if (!hidden(q)) misses.push(`  not contact-us: ${q.question}\n        answered (${answer.meta.mode}): ${answer.text.slice(0, 140).replace(/\n/g, ' ')}…`);
    }
  }
  for (const list of [retrievalWall, retrievalCpu, lexicalWall, lexicalCpu, firstBytes]) list.sort((a, b) => a - b);
  const n = tally.answerable;
  console.log(`\n== ${set.name} set: ${set.questions.length} questions (${n} answerable, ${tally.unanswerable} on topic but not in the docs, ${tally.offTopic} off-topic or commercial)${set.aggregateOnly ? ' — aggregate figures only' : ''}`);
  console.log(`search box: right page top-1 ${pct(tally.search1, n)}, among top 3 ${pct(tally.search3, n)}`);
  console.log(`assistant citations: right page cited first ${pct(tally.cite1, n)}, among the first three ${pct(tally.cite3, n)}`);
  console.log(`unanswerable declined: ${pct(tally.declinedUnanswerable, tally.unanswerable)} (with the closest pages cited: ${tally.withClosest})`);
  if (tally.offTopic) console.log(`off-topic and commercial given contact-us: ${pct(tally.contacted, tally.offTopic)}`);
  console.log(`answerable wrongly declined: ${pct(tally.declinedAnswerable, n)}`);
  console.log(`retrieval per question: wall p50 ${percentile(retrievalWall, 50).toFixed(1)} ms, p95 ${percentile(retrievalWall, 95).toFixed(1)} ms; CPU p95 ${percentile(retrievalCpu, 95).toFixed(1)} ms`);
  if (lexicalWall.length) {
    console.log(
      `  baseline, the lexical engine alone in the same run: wall p95 ${percentile(lexicalWall, 95).toFixed(1)} ms, CPU p95 ${percentile(lexicalCpu, 95).toFixed(1)} ms; ` +
        `with meaning ${(percentile(retrievalWall, 95) / percentile(lexicalWall, 95)).toFixed(2)}× the wall p95, ${(percentile(retrievalCpu, 95) / percentile(lexicalCpu, 95)).toFixed(2)}× the CPU p95`,
    );
  }
  console.log(`first streamed byte: p50 ${percentile(firstBytes, 50).toFixed(1)} ms, p95 ${percentile(firstBytes, 95).toFixed(1)} ms`);
  if (!set.aggregateOnly && misses.length) console.log(`misses (unseen rounds not shown):\n${misses.join('\n')}`);
  results[set.name] = { ...tally, firstByteP95: percentile(firstBytes, 95) };
}
await server.close();

// Queries a reader types: every title and heading, its first word or two, a typo of it, and the tuning questions.
const queries = [];
for (const p of docs.passages) {
  const words = (p.heading || p.title).split(/\s+/).filter(Boolean);
  queries.push(words.join(' '), words.slice(0, 2).join(' '));
  const w = words[0] ?? '';
  if (w.length > 4) queries.push(w.slice(0, 2) + w[3] + w[2] + w.slice(4)); // transposed letters
}
queries.push(...tuningFile.questions.map((q) => q.question));

function time(label, fn, list) {
  for (const q of list.slice(0, 200)) fn(q); // warm-up
  const times = [];
  const cpu = [];
  for (const q of list) {
    const c = process.cpuUsage();
    const s = performance.now();
    fn(q);
    times.push(performance.now() - s);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const p95 = percentile(times, 95);
  console.log(
    `${label}: ${list.length} queries, wall p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${p95.toFixed(2)} ms, max ${times.at(-1).toFixed(1)} ms;` +
      ` CPU p50 ${percentile(cpu, 50).toFixed(2)} ms, p95 ${percentile(cpu, 95).toFixed(2)} ms`,
  );
  return p95;
}
console.log('');
const searchP95 = time('search (search box and /api/search)', (q) => runSearch(docs.index, q, 10, filter, voter), queries);

// Baseline: a plain MiniSearch index of the same passages answering the same query (AND, then OR), as before the
// compiled index. Its result lists are not expected to equal ours (ours are ranked and grouped by page).
const mini = new MiniSearch({ ...SEARCH_OPTIONS, searchOptions: QUERY_DEFAULTS });
mini.addAll(docs.passages.map(({ id, url, title, heading, text }) => ({ id, url, title, heading, text })));
const miniFilter = (r) => docs.passages[r.id]?.gated === false;
function miniSearch(query, limit = 10) {
  const seen = new Set();
  const hits = [];
  const add = (found) => {
    for (const r of found) {
      if (hits.length >= limit) return;
      if (seen.has(r.url)) continue;
      seen.add(r.url);
      hits.push({ url: r.url, snippet: makeSnippet(r.text ?? '', r.terms) });
    }
  };
  add(mini.search(query.trim(), { combineWith: 'AND', filter: miniFilter }));
  const terms = contentTerms(query);
  if (hits.length < limit && terms.length > 1) add(mini.search(terms.join(' '), { combineWith: 'OR', filter: miniFilter, ...(hits.length ? { fuzzy: false } : {}) }));
  return hits;
}
const baselineP95 = time('baseline: plain MiniSearch, same queries', (q) => miniSearch(q), queries);
console.log(`search p95 ratio: ${(searchP95 / baselineP95).toFixed(2)} of the baseline`);
console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)} (wall times grow with load; CPU times do not)`);

const judged = results['held-out'] ?? results.tuning;
const share = (a, b) => (b ? a / b : 1);
const checks = [
  [`search box top-3 >= 95 % (${judged === results.tuning ? 'tuning' : 'held-out'} set)`, share(judged.search3, judged.answerable) >= 0.95],
  ['assistant cites the right page first >= 90 %', share(judged.cite1, judged.answerable) >= 0.9],
  ['assistant cites the right page among the first three >= 97 %', share(judged.cite3, judged.answerable) >= 0.97],
  ['unanswerable questions declined >= 90 %', share(judged.declinedUnanswerable, judged.unanswerable) >= 0.9],
  ['answerable questions declined <= 3 %', share(judged.declinedAnswerable, judged.answerable) <= 0.03],
  ['contact-us for every off-topic or commercial question (tuning set)', results.tuning.contacted === results.tuning.offTopic],
  ['search p95 < 10 ms', searchP95 < 10],
  ['first streamed byte p95 < 150 ms', judged.firstByteP95 < 150],
];
for (const [label, ok] of checks) console.log(`${ok ? 'met   ' : 'MISSED'} ${label}`);
process.exit(checks.every(([, ok]) => ok) ? 0 : 1);
