// `npm run bench:assistant`: retrieval quality and search speed over the real site build.
// - top-3 hit rate of the assistant's retrieval on site/test/assistant-questions.json (target >= 90 %);
// - search latency p50/p95 of the search-box query (/api/search) over queries drawn from every page and heading,
//   and of the assistant's retrieval (target p95 < 10 ms); the baseline, measured in the same run, is the same
//   query answered by MiniSearch itself (what the engine compiles its index from), and both must return the same
//   results.
// Usage: node bench/assistant.mjs [siteDir]   (default: site/build, or KEYWAY_SITE_DIR). Exits 1 below target.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDocsIndex, contentTerms, makeSnippet, MiniSearch, QUERY_DEFAULTS, runSearch, SEARCH_OPTIONS } from '@keyway/docs-server/search';
import { retrieve } from '@keyway/docs-server/assistant';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const siteDir = path.resolve(process.argv[2] ?? process.env.KEYWAY_SITE_DIR ?? path.join(root, 'site/build'));
if (!fs.existsSync(path.join(siteDir, 'docs'))) {
  console.error(`No site build with docs at ${siteDir}: run "npm run build" first (or pass a build folder).`);
  process.exit(2);
}
const { questions } = JSON.parse(fs.readFileSync(path.join(root, 'site/test/assistant-questions.json'), 'utf8'));

let t = performance.now();
const docs = await buildDocsIndex(siteDir);
const buildMs = performance.now() - t;
const publicCount = docs.passages.filter((p) => !p.gated).length;
console.log(`index: ${docs.passages.length} passages (${publicCount} public) from ${new Set(docs.passages.map((p) => p.url.split('#')[0])).size} pages in ${buildMs.toFixed(0)} ms`);

const pageOf = (url) => url.split('#')[0];
const misses = [];
let hits = 0;
for (const { question, page } of questions) {
  const top = retrieve(docs, question, { signedIn: false }).passages.slice(0, 3).map((p) => pageOf(p.passage.url));
  if (top.includes(page)) hits++;
  else misses.push(`  miss: ${question}\n        want ${page}\n        got  ${top.join(', ') || '(nothing)'}`);
}
const hitRate = hits / questions.length;
console.log(`retrieval: top-3 hit rate ${(hitRate * 100).toFixed(1)} % (${hits}/${questions.length})`);
if (misses.length) console.log(misses.join('\n'));

// Queries a reader types: every title and heading, its first word or two, a typo of it, and the questions.
const queries = [];
for (const p of docs.passages) {
  const words = (p.heading || p.title).split(/\s+/).filter(Boolean);
  queries.push(words.join(' '), words.slice(0, 2).join(' '));
  const w = words[0] ?? '';
  if (w.length > 4) queries.push(w.slice(0, 2) + w[3] + w[2] + w.slice(4)); // transposed letters
}
queries.push(...questions.map((q) => q.question));

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
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
const filter = docs.visible(false);
const searchP95 = time('search (search box and /api/search)', (q) => runSearch(docs.index, q, 10, filter), queries);
const retrieveP95 = time('assistant retrieval', (q) => retrieve(docs, q, { signedIn: false }), queries);

// Baseline: the same search-box query on a MiniSearch index of the same passages (the engine before the compiled index).
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
const baselineP95 = time('baseline: the same search on MiniSearch', (q) => miniSearch(q), queries);
const differ = queries.filter((q) => miniSearch(q).map((h) => h.url).join() !== runSearch(docs.index, q, 10, filter).map((h) => h.url).join());
console.log(`p95 ratio: ${(searchP95 / baselineP95).toFixed(2)} of the baseline; result lists differing from the baseline: ${differ.length} of ${queries.length}${differ.length ? ` (first: ${JSON.stringify(differ[0])})` : ''}`);

const load = (await import('node:os')).loadavg()[0];
console.log(`machine: ${(await import('node:os')).cpus().length} cores, load average ${load.toFixed(1)} (wall times grow with load; CPU times do not)`);
const ok = hitRate >= 0.9 && searchP95 < 10;
console.log(ok ? 'targets met: hit rate >= 90 %, search p95 < 10 ms' : 'TARGETS MISSED: hit rate >= 90 % and search p95 < 10 ms');
if (retrieveP95 >= 10) console.log('note: assistant retrieval p95 is above 10 ms');
process.exit(ok ? 0 : 1);
