// `npm run bench:assistant`: search and assistant quality and speed over the real site build.
// - top-1 / top-3 page hit rates on site/test/assistant-questions.json, for the search box (results grouped by page)
//   and for the assistant's retrieval (targets: top-3 >= 97 %, top-1 >= 85 %, assistant);
// - the share of off-topic and commercial questions answered with the contact-us answer (target 100 %), asked
//   through the real chat endpoint (POST /api/assistant/chat on an in-process docs server), and the share of
//   answerable questions given that answer instead (read as commercial, or nothing retrieved; no target, lower is better);
// - time to the first streamed byte of an answer (first `delta` event), p50/p95 (target p95 < 150 ms, extractive);
// - search latency p50/p95 of the search-box query over queries drawn from every page and heading (target p95 < 10 ms),
//   with plain MiniSearch over the same passages as the baseline measured in the same run.
// Questions marked `"holdout"` are counted in every figure and also reported on their own (hit rates and contact-us
// share), together and per round (`true` is round 1): they were written before a ranking change and are not tuned on,
// so they show whether it generalises. The unseen rounds' misses are not printed, so that they stay unseen.
// Usage: node bench/assistant.mjs [siteDir]   (default: site/build, or KEYWAY_SITE_DIR). Exits 1 below target.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDocsIndex, contentTerms, makeSnippet, MiniSearch, QUERY_DEFAULTS, runSearch, SEARCH_OPTIONS } from '@keyway/docs-server/search';
import { retrieve } from '@keyway/docs-server/assistant';
import { createDocsServer } from '@keyway/docs-server';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const siteDir = path.resolve(process.argv[2] ?? process.env.KEYWAY_SITE_DIR ?? path.join(root, 'site/build'));
if (!fs.existsSync(path.join(siteDir, 'docs'))) {
  console.error(`No site build with docs at ${siteDir}: run "npm run build" first (or pass a build folder).`);
  process.exit(2);
}
const { questions, unseenRounds = [] } = JSON.parse(fs.readFileSync(path.join(root, 'site/test/assistant-questions.json'), 'utf8'));
const answerable = questions.filter((q) => q.page);
const contactUs = questions.filter((q) => !q.page);

let t = performance.now();
const docs = await buildDocsIndex(siteDir);
const buildMs = performance.now() - t;
const publicCount = docs.passages.filter((p) => !p.gated).length;
console.log(`index: ${docs.passages.length} passages (${publicCount} public) from ${new Set(docs.passages.map((p) => p.url.split('#')[0])).size} pages in ${buildMs.toFixed(0)} ms`);
console.log(`questions: ${questions.length} (${answerable.length} with an answering page, ${contactUs.length} off-topic or commercial; ${questions.filter((q) => q.holdout).length} of them hold-out)`);

const pageOf = (url) => url.split('#')[0];
const distinctPages = (urls) => [...new Set(urls.map(pageOf))];
const pct = (n, d) => `${((n / d) * 100).toFixed(1)} % (${n}/${d})`;
const filter = docs.visible(false);
// The search box's page vote (the whole-page index the build ships in search-index.json).
const voter = { index: docs.pageIndex, pages: docs.pages };
// Hold-out rounds: `true` is round 1; the set's `unseenRounds` (or else the last round) have not been looked at question
// by question (see the set's description), so their misses are not printed.
const roundOf = (holdout) => (holdout === true ? 1 : holdout);
const rounds = [...new Set(questions.filter((q) => q.holdout).map((q) => roundOf(q.holdout)))].sort((a, b) => a - b);
const unseen = new Set(unseenRounds.length ? unseenRounds : rounds.slice(-1));
function hitRates(label, pagesFor) {
  const all = { top1: 0, top3: 0, n: 0 };
  const held = { top1: 0, top3: 0, n: 0 };
  const byRound = new Map(rounds.map((r) => [r, { top1: 0, top3: 0, n: 0 }]));
  const misses = [];
  for (const { question, page, holdout } of answerable) {
    const pages = pagesFor(question);
    for (const tally of holdout ? [all, held, byRound.get(roundOf(holdout))] : [all]) {
      tally.n++;
      if (pages[0] === page) tally.top1++;
      if (pages.slice(0, 3).includes(page)) tally.top3++;
    }
    if (holdout && unseen.has(roundOf(holdout))) continue;
    if (!pages.slice(0, 3).includes(page)) misses.push(`  miss${holdout ? ' (hold-out)' : ''}: ${question}\n        want ${page}\n        got  ${pages.slice(0, 3).join(', ') || '(nothing)'}`);
  }
  console.log(`${label}: top-1 ${pct(all.top1, all.n)}, top-3 ${pct(all.top3, all.n)}`);
  if (held.n) console.log(`${label}, hold-out only: top-1 ${pct(held.top1, held.n)}, top-3 ${pct(held.top3, held.n)}`);
  for (const [round, t] of byRound) {
    if (t.n) console.log(`${label}, hold-out round ${round}${unseen.has(round) ? ' (unseen)' : ''}: top-1 ${pct(t.top1, t.n)}, top-3 ${pct(t.top3, t.n)}`);
  }
  return { top1: all.top1 / all.n, top3: all.top3 / all.n, misses };
}
const searchRates = hitRates('search box (pages)', (q) => distinctPages(runSearch(docs.index, q, 30, filter, voter).map((h) => h.url)));
const assistantRates = hitRates('assistant retrieval (pages)', (q) => distinctPages(retrieve(docs, q, { signedIn: false }).passages.map((p) => p.passage.url)));
if (assistantRates.misses.length) console.log(`assistant misses:\n${assistantRates.misses.join('\n')}`);

// The real chat endpoint: contact-us answers and time to the first streamed byte.
const server = await createDocsServer({ siteDir, assistant: { chatPerMinute: 100_000, searchPerMinute: 100_000 } });
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
  const text = events.filter((e) => e.event === 'delta').map((e) => e.data.text).join('');
  return { meta, text, firstDelta: firstDelta ?? Infinity, deltas: events.filter((e) => e.event === 'delta').length };
}
await ask('warm up'); // the index is built in the background at start
const isContactUs = (answer) => answer.meta.mode === 'not-found' || answer.meta.mode === 'contact';
let contacted = 0;
let heldContacted = 0;
const notContacted = [];
for (const { question, holdout } of contactUs) {
  const answer = await ask(question);
  if (isContactUs(answer)) {
    contacted++;
    if (holdout) heldContacted++;
  } else if (holdout && unseen.has(roundOf(holdout))) notContacted.push(`  not contact-us: a question of unseen round ${roundOf(holdout)} (not shown)`);
  else notContacted.push(`  not contact-us${holdout ? ' (hold-out)' : ''}: ${question}\n        answered (${answer.meta.mode}): ${answer.text.slice(0, 140).replace(/\n/g, ' ')}…`);
}
console.log(`off-topic and commercial questions answered with contact-us: ${pct(contacted, contactUs.length)}`);
const heldContactUs = contactUs.filter((q) => q.holdout).length;
if (heldContactUs) console.log(`off-topic and commercial questions answered with contact-us, hold-out only: ${pct(heldContacted, heldContactUs)}`);
if (notContacted.length) console.log(notContacted.join('\n'));
// The same endpoint for every question: time to the first byte, and the answerable questions a reader is told to
// contact us about (retrieval may find their page, and the answer still decline: a question read as commercial).
const firstBytes = [];
const declined = [];
for (const { question, page, holdout } of questions) {
  const answer = await ask(question);
  firstBytes.push(answer.firstDelta);
  if (!page || !isContactUs(answer)) continue;
  declined.push(holdout && unseen.has(roundOf(holdout)) ? `  declined: a question of unseen round ${roundOf(holdout)} (not shown)` : `  declined${holdout ? ' (hold-out)' : ''}: ${question}`);
}
await server.close();
console.log(`answerable questions given the contact-us answer instead: ${pct(declined.length, answerable.length)}`);
if (declined.length) console.log(declined.join('\n'));

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
firstBytes.sort((a, b) => a - b);
const ttfbP95 = percentile(firstBytes, 95);
console.log(`time to first streamed byte of an answer (extractive, ${firstBytes.length} questions): p50 ${percentile(firstBytes, 50).toFixed(1)} ms, p95 ${ttfbP95.toFixed(1)} ms`);

// Queries a reader types: every title and heading, its first word or two, a typo of it, and the questions.
const queries = [];
for (const p of docs.passages) {
  const words = (p.heading || p.title).split(/\s+/).filter(Boolean);
  queries.push(words.join(' '), words.slice(0, 2).join(' '));
  const w = words[0] ?? '';
  if (w.length > 4) queries.push(w.slice(0, 2) + w[3] + w[2] + w.slice(4)); // transposed letters
}
queries.push(...questions.map((q) => q.question));

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
const searchP95 = time('search (search box and /api/search)', (q) => runSearch(docs.index, q, 10, filter, voter), queries);
const retrieveP95 = time('assistant retrieval', (q) => retrieve(docs, q, { signedIn: false }), queries);

// Baseline: a plain MiniSearch index of the same passages answering the same query (AND, then OR), as before the
// compiled index. Its result lists are not expected to equal ours (ours are ranked and grouped by page).
const mini = new MiniSearch({ ...SEARCH_OPTIONS, searchOptions: QUERY_DEFAULTS });
mini.addAll(docs.passages.map(({ id, url, title, heading, text }) => ({ id, url, title, heading, text })));
const miniFilter = (r) => docs.passages[r.id]?.gated === false;
function miniSearch(query, limit = 10) {
  const seen = new Set();
  const hits = [];
  const add = (results) => {
    for (const r of results) {
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

const checks = [
  [`assistant top-3 >= 97 %`, assistantRates.top3 >= 0.97],
  [`assistant top-1 >= 85 %`, assistantRates.top1 >= 0.85],
  ['contact-us for every off-topic or commercial question', contacted === contactUs.length],
  ['search p95 < 10 ms', searchP95 < 10],
  ['first streamed byte p95 < 150 ms', ttfbP95 < 150],
];
for (const [label, ok] of checks) console.log(`${ok ? 'met   ' : 'MISSED'} ${label}`);
if (retrieveP95 >= 10) console.log('note: assistant retrieval p95 is above 10 ms');
process.exit(checks.every(([, ok]) => ok) ? 0 : 1);
