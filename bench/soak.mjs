#!/usr/bin/env node
// Soak of the Keyway identity server (not a test): a day of traffic pressed into minutes. One identity-server process
// (SQLite, or PostgreSQL with SOAK_DATABASE_URL) takes a steady mix of complete e-mail-code sign-ins, token
// validations, revocations and management writes for SOAK_MINUTES; every SOAK_SAMPLE_SECONDS it prints the server's own
// figures (from /metrics: RSS, heap, event-loop delay p99, revocations held, PostgreSQL pool) and the latency p50/p99
// of what was sent in that period. At the end it compares the last third of the run with the second (the first warms
// up): memory must be flat once warm and latency must not drift.
//
// Tokens live SOAK_TOKEN_SECONDS (default 60 s) so that what a day of uptime would shed (revoked tokens leaving memory
// when they expire, challenges and codes purged) happens many times within the run.
//
//   npm run bench:soak                                  (5 minutes, a sample a minute, SQLite)
//   SOAK_MINUTES=2 SOAK_SAMPLE_SECONDS=20 npm run bench:soak
//   SOAK_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/keyway_soak npm run bench:soak
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshStorage } from '@keyway/identity-server/testing';
import { adminHeaders, agent, orgHeaders, request, serverEnv, signIn, startProcess, stop } from './lib.mjs';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 5);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 60);
const TOKEN_SECONDS = Number(process.env.SOAK_TOKEN_SECONDS ?? 60);
const WORKERS = Number(process.env.SOAK_WORKERS ?? 8);
const PG_URL = process.env.SOAK_DATABASE_URL;
/** Verdicts: memory (heap, RSS) of the last third at most this much above the second third's; p99 too. */
const MEMORY_TARGET = 1.15;
const LATENCY_TARGET = 1.5;

const storage = PG_URL ? await freshStorage('postgres', { databaseUrl: PG_URL }) : { dataDir: mkdtempSync(join(tmpdir(), 'keyway-soak-')), cleanup: async () => undefined };
const env = { ...serverEnv, DATA_DIR: storage.dataDir, DATABASE_URL: storage.databaseUrl ?? '' };
const server = await startProcess(['dist/cli.js'], env);
const base = server.url;

/** The figures a Prometheus scrape of /metrics gives, by metric name (labels kept in the key). */
async function scrape() {
  const text = await (await fetch(`${base}/metrics`)).text();
  const figures = {};
  for (const line of text.split('\n')) {
    const m = /^([a-z0-9_]+(?:\{[^}]*\})?) ([0-9.e+-]+|NaN)$/.exec(line);
    if (m) figures[m[1]] = Number(m[2]);
  }
  return figures;
}

/** Latencies (ms) of the current period, by kind. */
let period = { signin: [], validate: [], revoke: [], write: [], errors: 0 };
let errorsShown = 0;
const timed = async (kind, op) => {
  const t0 = performance.now();
  try {
    await op();
    period[kind].push(performance.now() - t0);
  } catch (err) {
    period.errors++;
    if (errorsShown++ < 3) console.error(`  ${kind} failed: ${err.message}`);
  }
};

// Short-lived tokens for the soak (the organization's token_duration).
await request(`${base}/organizations/config`, { method: 'PATCH', headers: adminHeaders, body: { token_duration: TOKEN_SECONDS } });

let running = true;
let n = 0;
/** One round of a worker: a sign-in, ten validations, a management write, and every third token revoked. */
async function round() {
  const i = n++;
  let token;
  await timed('signin', async () => {
    token = await signIn(base, `soak-${i}`);
  });
  if (!token) return;
  for (let k = 0; k < 10; k++) await timed('validate', () => request(`${base}/token/validate`, { method: 'POST', headers: orgHeaders, body: { token } }));
  const person = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).person_id;
  await timed('write', () => request(`${base}/persons/${person}/attributes/end_user_no_access`, { method: 'PUT', headers: adminHeaders, body: { round: i, at: new Date().toISOString() } }));
  if (i % 3 === 0) await timed('revoke', () => request(`${base}/token/revoke`, { method: 'POST', headers: orgHeaders, body: { token } }));
}
const workers = Array.from({ length: WORKERS }, async () => {
  while (running) await round();
});

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);
const ms = (x) => (Number.isNaN(x) ? '-' : x.toFixed(1));

console.log(`Keyway identity server soak: ${MINUTES} min on ${PG_URL ? 'PostgreSQL' : 'SQLite'}, ${WORKERS} workers, a sample every ${SAMPLE_SECONDS} s, tokens living ${TOKEN_SECONDS} s, Node ${process.version}\n`);
console.log('   min   rounds  RSS MB  heap MB  loop p99 ms  revoked held  pool open/wait  sign-in p50/p99 ms  validate p50/p99 ms  errors');
const samples = [];
const started = Date.now();
await scrape(); // the first scrape starts the server's request counters
while (Date.now() - started < MINUTES * 60_000) {
  await new Promise((r) => setTimeout(r, SAMPLE_SECONDS * 1000));
  const done = period;
  period = { signin: [], validate: [], revoke: [], write: [], errors: 0 };
  const f = await scrape();
  const s = {
    minute: (Date.now() - started) / 60_000,
    rounds: done.signin.length,
    rss: f.keyway_process_resident_memory_bytes,
    heap: f.keyway_nodejs_heap_size_used_bytes,
    loopP99: f.keyway_nodejs_eventloop_lag_p99_seconds * 1000,
    revoked: (f['keyway_revocations_in_memory{kind="token"}'] ?? 0) + (f['keyway_revocations_in_memory{kind="subject"}'] ?? 0),
    pool: f['keyway_db_pool_connections{state="open"}'] === undefined ? '-' : `${f['keyway_db_pool_connections{state="open"}']}/${f.keyway_db_pool_waiting}`,
    signin: [pct(done.signin, 50), pct(done.signin, 99)],
    validate: [pct(done.validate, 50), pct(done.validate, 99)],
    errors: done.errors,
  };
  samples.push(s);
  console.log(
    `${s.minute.toFixed(1).padStart(6)}  ${String(s.rounds).padStart(7)}  ${mb(s.rss).padStart(6)}  ${mb(s.heap).padStart(7)}  ${ms(s.loopP99).padStart(11)}  ${String(s.revoked).padStart(12)}  ${s.pool.padStart(14)}  ${`${ms(s.signin[0])}/${ms(s.signin[1])}`.padStart(18)}  ${`${ms(s.validate[0])}/${ms(s.validate[1])}`.padStart(19)}  ${String(s.errors).padStart(6)}`,
  );
}
running = false;
await Promise.all(workers);
await stop(server.child);
agent.destroy();
await storage.cleanup();
if (!PG_URL) rmSync(storage.dataDir, { recursive: true, force: true });

// The first third of the run warms up (JIT, caches, the first short-lived tokens not yet expired); the heap is sampled
// wherever the collector happens to be, so each third is averaged: the last third against the second.
const thirds = [0, 1, 2].map((k) => samples.slice(Math.floor((k * samples.length) / 3), Math.floor(((k + 1) * samples.length) / 3)));
const mean = (xs, f) => xs.reduce((a, x) => a + f(x), 0) / xs.length;
const [, warm, last] = thirds;
if (warm?.length && last?.length) {
  const heap = mean(last, (s) => s.heap) / mean(warm, (s) => s.heap);
  const rss = mean(last, (s) => s.rss) / mean(warm, (s) => s.rss);
  const p99 = mean(last, (s) => s.signin[1]) / mean(warm, (s) => s.signin[1]);
  const vp99 = mean(last, (s) => s.validate[1]) / mean(warm, (s) => s.validate[1]);
  const verdict = (ok) => (ok ? 'holds' : 'MISSES');
  console.log(`\nLast third of the run (${last.length} samples) against the second (${warm.length}):`);
  console.log(`  memory: heap ×${heap.toFixed(2)}, RSS ×${rss.toFixed(2)} (flat: ≤ ×${MEMORY_TARGET}) ${verdict(heap <= MEMORY_TARGET && rss <= MEMORY_TARGET)}`);
  console.log(`  latency: sign-in p99 ×${p99.toFixed(2)}, validation p99 ×${vp99.toFixed(2)} (no drift: ≤ ×${LATENCY_TARGET}) ${verdict(p99 <= LATENCY_TARGET && vp99 <= LATENCY_TARGET)}`);
  console.log(`  revocations held: ${Math.round(mean(warm, (s) => s.revoked))} → ${Math.round(mean(last, (s) => s.revoked))} on average (tokens live ${TOKEN_SECONDS} s: entries leave as they expire)`);
  console.log(`  errors: ${samples.reduce((a, s) => a + s.errors, 0)}`);
} else console.log('\nToo few samples to compare: run longer, or sample more often (SOAK_SAMPLE_SECONDS).');
