#!/usr/bin/env node
// Benchmark of the Keyway identity server on loopback (not a test): bare Fastify hello-world as the baseline,
// token validations per second, and complete email-OTP sign-ins per second (ID request → code from the dev
// mailbox → attestation) on SQLite. Each server runs in its own process; this process generates the load.
//
//   npm run bench:server              (builds the server first when dist/ is missing)
//   BENCH_SECONDS=10 BENCH_CONCURRENCY=32 npm run bench:server
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const serverPkg = join(root, 'packages/identity-server');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARMUP_SECONDS = 1;

if (!existsSync(join(serverPkg, 'dist/cli.js'))) {
  const r = spawnSync('npm', ['run', 'build', '-w', '@keyway/identity-server'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });

function request(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, { method, agent, headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } : headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode >= 300) return reject(new Error(`${method} ${url} → ${res.statusCode}: ${text.slice(0, 200)}`));
        resolve(JSON.parse(text));
      });
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** Runs `op` from CONCURRENCY loops for `seconds`; returns ops/s and latency percentiles (ms). */
async function load(op, seconds) {
  const latencies = [];
  let errors = 0;
  let firstError;
  const deadline = performance.now() + seconds * 1000;
  let seq = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        await op(seq++);
        latencies.push(performance.now() - t0);
      } catch (err) {
        errors++;
        firstError ??= err;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  if (firstError) console.error(`  ${errors} errors, first: ${firstError.message}`);
  return { perSecond: latencies.length / elapsed, p50: pct(50), p99: pct(99), count: latencies.length, errors };
}

function startProcess(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: serverPkg, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

const stop = (child) => new Promise((r) => { child.removeAllListeners('exit'); child.once('exit', r); child.kill('SIGTERM'); });

const HELLO = `
import Fastify from 'fastify';
const app = Fastify();
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: 0, host: '127.0.0.1' });
console.log('listening on http://127.0.0.1:' + app.server.address().port);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
`;

const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const results = [];
function report(name, r, baseline) {
  results.push({ name, ...r });
  const ratio = baseline ? ` ${fmt((r.perSecond / baseline) * 100, 1)} % of baseline` : '';
  console.log(`${name.padEnd(34)} ${fmt(r.perSecond).padStart(8)} /s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms${ratio}`);
}

console.log(`Keyway identity server benchmark: ${SECONDS} s per measure, ${CONCURRENCY} concurrent clients, Node ${process.version}\n`);

// 1. Baseline: bare Fastify hello-world.
const hello = await startProcess(['--input-type=module', '-e', HELLO], {});
await load(() => request(`${hello.url}/`), WARMUP_SECONDS);
const baseline = await load(() => request(`${hello.url}/`), SECONDS);
await stop(hello.child);
report('hello-world (Fastify baseline)', baseline);

// 2. The identity server on a fresh SQLite file.
const dataDir = mkdtempSync(join(tmpdir(), 'keyway-bench-'));
const id = await startProcess(['dist/cli.js'], { KEYWAY_API_PORT: '0', DATA_DIR: dataDir, NODE_ENV: 'development', KEYWAY_RATE_LIMIT_PER_IP: '0', KEYWAY_RATE_LIMIT_PER_HANDLE: '0', DATABASE_URL: '' });
const orgHeaders = { 'keyway-orgid': process.env.KEYWAY_ORG_ID ?? 'org_keyway_dev' };
const runId = Date.now().toString(36);

// `/id` answers the challenge list as `result` (spec §7; older servers: `result.challenges`).
const challengesOf = (res) => (Array.isArray(res.result) ? res.result : res.result.challenges);

async function signIn(n) {
  const email = `bench-${runId}-${n}@example.com`;
  const idRes = await request(`${id.url}/id/v2`, { method: 'POST', headers: orgHeaders, body: { handle: email, factor: { method: 'otp_via_email' } } });
  const mail = await request(`${id.url}/dev/mailbox.json?to=${encodeURIComponent(email)}&limit=1`);
  const code = mail.result[0]?.code;
  if (!code) throw new Error(`no code for ${email}`);
  const att = await request(`${id.url}/attestation/v3`, { method: 'POST', headers: orgHeaders, body: { challenge_id: challengesOf(idRes)[0].id, challenge_type: 'otp', data: { otp: code } } });
  if (!att.result?.token) throw new Error('no token');
  return att.result.token;
}

try {
  const token = await signIn('seed');
  const validate = () =>
    request(`${id.url}/token/validate`, { method: 'POST', headers: orgHeaders, body: { token } }).then((r) => {
      if (!r.result.valid) throw new Error(`token invalid: ${r.result.invalidity_reason}`);
    });
  await load(validate, WARMUP_SECONDS);
  report('token validations', await load(validate, SECONDS), baseline.perSecond);

  await load((n) => signIn(`warm-${n}`), WARMUP_SECONDS);
  const signIns = await load((n) => signIn(n), SECONDS);
  report('email-OTP sign-ins (3 calls each)', signIns, baseline.perSecond);

  console.log('\nTargets: token validation ≥ 50 % of hello-world; ≥ 300 complete OTP sign-ins/s on 2 cores with SQLite.');
  const v = results.find((r) => r.name === 'token validations');
  console.log(`  token validation: ${fmt((v.perSecond / baseline.perSecond) * 100, 1)} % ${v.perSecond / baseline.perSecond >= 0.5 ? 'meets' : 'MISSES'} the target`);
  console.log(`  sign-ins: ${fmt(signIns.perSecond)} /s ${signIns.perSecond >= 300 ? 'meets' : 'MISSES'} the target`);
} finally {
  await stop(id.child);
  rmSync(dataDir, { recursive: true, force: true });
  agent.destroy();
}
