// What the server benchmarks share (bench/server.mjs, bench/soak.mjs): a keep-alive JSON client, a load loop with
// latency percentiles, identity-server processes, and a complete e-mail-code sign-in.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const serverPkg = join(root, 'packages/identity-server');
/** Clients each load loop runs at once (BENCH_CONCURRENCY). */
export const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

export const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });

export function request(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, { method, agent, headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } : headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode >= 300) return reject(new Error(`${method} ${url} → ${res.statusCode}: ${text.slice(0, 200)}`));
        resolve(text ? JSON.parse(text) : undefined);
      });
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/**
 * Runs `op` from `concurrency` loops for `seconds` (and until `minCount` operations are done, for slow ones);
 * returns ops/s and latency percentiles (ms).
 */
export async function load(op, seconds, { concurrency = CONCURRENCY, minCount = 0 } = {}) {
  const latencies = [];
  let errors = 0;
  let firstError;
  const deadline = performance.now() + seconds * 1000;
  let seq = 0;
  const worker = async () => {
    while (performance.now() < deadline || latencies.length + errors < minCount) {
      const t0 = performance.now();
      try {
        await op(seq++);
        latencies.push(performance.now() - t0);
      } catch (err) {
        errors++;
        firstError ??= err;
        if (errors > 20 && !latencies.length) break;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  if (firstError) console.error(`  ${errors} errors, first: ${firstError.message}`);
  return { perSecond: latencies.length / elapsed, p50: pct(50), p95: pct(95), p99: pct(99), count: latencies.length, errors };
}

export function startProcess(args, env, cwd = serverPkg) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

export const stop = (child) => new Promise((r) => { child.removeAllListeners('exit'); child.once('exit', r); child.kill('SIGTERM'); });

export const orgId = process.env.KEYWAY_ORG_ID ?? 'org_keyway_dev';
export const orgHeaders = { 'keyway-orgid': orgId };
export const adminHeaders = { ...orgHeaders, 'keyway-api-key': 'kw_dev_api_key_not_secret' };
export const runId = Date.now().toString(36);
/** Identity-server environment of every part: dev mode, no per-IP or per-handle limit (the load comes from one IP). */
export const serverEnv = { KEYWAY_API_PORT: '0', KEYWAY_API_HOST: '127.0.0.1', NODE_ENV: 'development', KEYWAY_RATE_LIMIT_PER_IP: '0', KEYWAY_RATE_LIMIT_PER_HANDLE: '0' };

/** A complete email-OTP sign-in through `base` (3 calls and a mailbox read); answers the token. */
export async function signIn(base, n) {
  const email = `bench-${runId}-${n}@example.com`;
  const idRes = await request(`${base}/id/v2`, { method: 'POST', headers: orgHeaders, body: { handle: email, factor: { method: 'otp_via_email' } } });
  const mail = await request(`${base}/dev/mailbox.json?to=${encodeURIComponent(email)}&limit=1`);
  const code = mail.result[0]?.code;
  if (!code) throw new Error(`no code for ${email}`);
  const att = await request(`${base}/attestation/v3`, { method: 'POST', headers: orgHeaders, body: { challenge_id: idRes.result[0].id, challenge_type: 'otp', data: { otp: code } } });
  if (!att.result?.token) throw new Error('no token');
  return att.result.token;
}

export const validator = (base, token) => () =>
  request(`${base}/token/validate`, { method: 'POST', headers: orgHeaders, body: { token } }).then((r) => {
    if (!r.result.valid) throw new Error(`token invalid: ${r.result.invalidity_reason}`);
  });

