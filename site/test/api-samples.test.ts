// Every request sample of the API reference runs against a real identity server, as printed: curl through sh, the fetch
// samples in Node.js, the Python samples with requests. Only the host (the test server's port instead of 8787) and the
// keys the samples leave to the reader (a user token, an OAuth2 client) are filled in; the organization and API key are
// the development ones the samples already name. A sample passes when the server answers a status the contract
// declares for the operation, that is not a refusal of the request itself (400, 401, 415, 422, 5xx), with a body that
// validates against the contract's schema for that status. Go is not installed here: each Go sample is instead checked
// to send exactly the request of the curl sample of its operation (method, URL, headers, body). The counts are printed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiSpec, type Operation } from '../plugins/api-reference';
import { bodyVariable, LOCAL_BASE_URL, requestModel, samplesFor, type RequestModel } from '../plugins/api-reference/samples';
import { anonymousPerson, openapiFile, parseCurls, schemaRef, ajv, startLocalServer, type LocalServer } from './docs-helpers';

const spec = ApiSpec.load(openapiFile);
// Deleting the organization and replacing its API key run last: every other sample needs both.
const LAST = ['DELETE /organizations', 'PUT /organizations/api-keys'];
const key = (o: Operation) => `${o.method.toUpperCase()} ${o.path}`;
const operations = [...spec.operations()].sort((a, b) => Number(LAST.includes(key(a))) - Number(LAST.includes(key(b))));
type Outcome = { slug: string; lang: string; status: number; body: string };

/**
 * Samples that depend on what an earlier sample of the run created, as a reader following the reference would have:
 * each must run after its prerequisite (the run follows the contract's order, checked below).
 */
const PREREQUISITES: Record<string, string> = {
  'POST /rbac/roles': 'POST /rbac/permissions (its example creates the docs:write permission the role names)',
};

/** Why an answer does not show the sample working, or undefined when it does. */
function verdict(op: Operation, status: number, body: string): string | undefined {
  if (!status) return `no answer: ${body.slice(0, 200)}`;
  if (status >= 500 || [400, 401, 415, 422].includes(status)) return `answered ${status}: ${body.slice(0, 300)}`;
  const responses = op.raw.responses ?? {};
  const declared = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
  if (!declared) return `answered ${status}, which the contract does not declare (${Object.keys(responses).join(', ')})`;
  const media = spec.deref(declared).content?.['application/json'];
  if (media?.schema && body) {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return `answered ${status} with a body that is not JSON`;
    }
    const check = ajv.compile(schemaRef(media.schema));
    if (!check(json)) return `answered ${status} with a body the contract's schema refuses: ${ajv.errorsText(check.errors).slice(0, 300)}`;
  }
  return undefined;
}

/** A Go string expression: literals ("…" or `…`) and os.Getenv("NAME") joined by +, with each variable written $NAME. */
function goText(expr: string): string {
  return [...expr.matchAll(/"(?:[^"\\]|\\.)*"|`[^`]*`|os\.Getenv\(("\w+")\)/g)]
    .map((m) => (m[1] ? `$${JSON.parse(m[1]) as string}` : m[0].startsWith('`') ? m[0].slice(1, -1) : (JSON.parse(m[0]) as string)))
    .join('');
}

/** The parts a Go sample's mime/multipart writer writes, in the shape of curlRequest's multipart body. */
function goParts(code: string): string {
  const parts: string[] = [];
  for (const m of code.matchAll(/part\.Set\("Content-Disposition", `form-data; name="(\w+)"; filename="([^"]+)"`\)\n\tpart\.Set\("Content-Type", "([^"]+)"\)[^]*?io\.WriteString\(w, ("(?:[^"\\]|\\.)*"|`[^`]*`)\)|form\.WriteField\("(\w+)", ("(?:[^"\\]|\\.)*")\)/g))
    parts.push(m[1] ? `${m[1]}=@${m[2]};type=${m[3]}\n${goText(m[4]!)}` : `${m[5]}=${goText(m[6]!)}`);
  return parts.join('\n--\n');
}

/** The request a Go sample sends, read back from its source. */
function goRequest(code: string): { method: string; url: string; headers: Record<string, string>; body?: string } {
  const call = /http\.NewRequest\("([A-Z]+)", ("(?:[^"\\]|\\.)*"), (nil|&payload|strings\.NewReader\(((?:"(?:[^"\\]|\\.)*"|`[^`]*`|os\.Getenv\("\w+"\)|\s\+\s)+|form\.Encode\(\))\))\)/.exec(code);
  if (!call) throw new Error(`no http.NewRequest in\n${code}`);
  const headers: Record<string, string> = {};
  for (const m of code.matchAll(/req\.Header\.Set\(("(?:[^"\\]|\\.)*"), (.+)\)\n/g))
    headers[(JSON.parse(m[1]!) as string).toLowerCase()] = m[2] === 'form.FormDataContentType()' ? 'multipart/form-data' : goText(m[2]!);
  if (/req\.SetBasicAuth\(os\.Getenv\("(\w+)"\), os\.Getenv\("(\w+)"\)\)/.test(code)) {
    const [, u, p] = /req\.SetBasicAuth\(os\.Getenv\("(\w+)"\), os\.Getenv\("(\w+)"\)\)/.exec(code)!;
    headers.authorization = `basic $${u}:$${p}`;
  }
  let body: string | undefined;
  if (call[4] === 'form.Encode()') body = new URLSearchParams([...code.matchAll(/form\.Set\(("(?:[^"\\]|\\.)*"), ("(?:[^"\\]|\\.)*")\)/g)].map((m) => [JSON.parse(m[1]!), JSON.parse(m[2]!)])).toString();
  else if (call[3] === '&payload') body = goParts(code);
  else if (call[4]) body = goText(call[4]);
  return { method: call[1]!, url: JSON.parse(call[2]!) as string, headers, ...(body === undefined ? {} : { body }) };
}

/** The same request, as the request model of the operation makes curl send it. */
function curlRequest(m: RequestModel): ReturnType<typeof goRequest> {
  const headers: Record<string, string> = {};
  for (const h of m.headers) headers[h.name.toLowerCase()] = h.value.map((p) => (typeof p === 'string' ? p : `$${p.variable}`)).join('');
  if (m.basicAuth) headers.authorization = `basic $${m.basicAuth.user}:$${m.basicAuth.password}`;
  if (m.body?.kind === 'json') headers['content-type'] = 'application/json';
  if (m.body?.kind === 'form') headers['content-type'] = 'application/x-www-form-urlencoded';
  if (m.body?.kind === 'raw') headers['content-type'] = m.body.contentType;
  if (m.body?.kind === 'multipart') headers['content-type'] = 'multipart/form-data';
  let body: string | undefined;
  if (m.body?.kind === 'json') body = m.body.variables.reduce((t, v) => t.replaceAll(bodyVariable(v), `$${v}`), JSON.stringify(m.body.value, null, 2));
  else if (m.body?.kind === 'form') body = new URLSearchParams(m.body.fields).toString();
  else if (m.body?.kind === 'multipart') body = m.body.parts.map((p) => (p.file ? `${p.name}=@${p.file.filename};type=${p.file.contentType}\n${p.value}` : `${p.name}=${p.value}`)).join('\n--\n');
  else if (m.body?.kind === 'raw') body = m.body.text;
  return { method: m.method, url: LOCAL_BASE_URL + m.target, headers, ...(body === undefined ? {} : { body }) };
}

describe('API reference samples against a local identity server', () => {
  it('runs each sample after the one it depends on', () => {
    for (const [later, first] of Object.entries(PREREQUISITES)) {
      const at = (k: string) => operations.findIndex((o) => key(o) === k);
      expect(at(later), later).toBeGreaterThan(at(first.split(' (')[0]!));
      expect(at(first.split(' (')[0]!), first).toBeGreaterThanOrEqual(0);
    }
  });

  let local: LocalServer | undefined;
  let client: { client_id: string; client_secret: string };
  const tokens: string[] = [];
  const results = new Map<string, { found: number; run: number; passing: number; failures: string[] }>();

  /** The keys a reader supplies, fresh for each sample (a sample may revoke its token or delete its person). */
  const keysFor = (i: number): Record<string, string> => ({
    KEYWAY_USER_TOKEN: tokens[i]!,
    KEYWAY_ACCESS_TOKEN: tokens[i]!,
    KEYWAY_CLIENT_ID: client.client_id,
    KEYWAY_CLIENT_SECRET: client.client_secret,
  });
  const here = (code: string) => code.replaceAll(LOCAL_BASE_URL, local!.live.url);

  /** A fresh server for each language: samples delete and change things (persons, the organization's settings). */
  async function fresh(): Promise<void> {
    await local?.close();
    // A reader runs one sample at a time; this runs hundreds in a minute, so the per-IP abuse limit is raised.
    local = await startLocalServer({ limits: { perIpPerMinute: 1_000_000 } });
    const res = await fetch(`${local.live.url}/oauth2/clients`, {
      method: 'POST',
      headers: { 'Keyway-OrgID': local.live.orgId, 'Keyway-API-Key': local.apiKey, 'Content-Type': 'application/json' },
      // The confidential client a reader registers for machine-to-machine calls (the scope of the token example).
      body: JSON.stringify({ client_name: 'samples', grant_types: ['client_credentials'], scopes: ['openid', 'invoices:read'] }),
    });
    client = ((await res.json()) as { result: typeof client }).result;
    tokens.length = 0;
    for (let i = 0; i < operations.length; i++) tokens.push((await anonymousPerson(local.live)).token);
  }
  afterAll(async () => {
    await local?.close();
  });

  /** Counts the outcomes; answers the unexpected ones: new failures, and listed failures that work now. */
  function record(lang: string, outcomes: Outcome[]): string[] {
    const r = { found: operations.length, run: outcomes.length, passing: 0, failures: [] as string[] };
    const unexpected: string[] = [];
    for (const o of outcomes) {
      const op = operations.find((x) => x.slug === o.slug)!;
      const why = verdict(op, o.status, o.body);
      if (why) {
        r.failures.push(`${lang} ${key(op)}: ${why}`);
        unexpected.push(`${lang} ${key(op)}: ${why}`);
      } else r.passing++;
    }
    results.set(lang, r);
    return unexpected;
  }

  it('curl samples run with sh and curl', async () => {
    await fresh();
    // One sh for all of them (a process per sample is slow on a busy machine): each sample with its keys exported,
    // followed by its status code and a separator line.
    const SEP = '@@keyway-sample-end@@';
    const script = operations
      .map((op, i) => {
        const code = samplesFor(spec, op).find((s) => s.value === 'curl')!.code;
        const exports = Object.entries(keysFor(i)).map(([k, v]) => `export ${k}='${v}'`).join('\n');
        return `${exports}\n${here(code)} -sS -w '\\n%{http_code}' 2>&1\necho; echo '${SEP}'`;
      })
      .join('\n');
    // In a directory of its own: the multipart samples write the file they upload, as a reader would have it on disk.
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-curl-samples-'));
    const child = spawn('sh', ['-s'], { stdio: ['pipe', 'pipe', 'inherit'], cwd });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stdin.end(script);
    await new Promise((resolve) => child.on('close', resolve));
    fs.rmSync(cwd, { recursive: true, force: true });
    const parts = stdout.split(`\n${SEP}\n`);
    const outcomes: Outcome[] = operations.map((op, i) => {
      const out = (parts[i] ?? '').replace(/\n$/, '');
      const at = out.lastIndexOf('\n');
      return { slug: op.slug, lang: 'curl', status: Number(out.slice(at + 1)) || 0, body: out.slice(0, at) };
    });
    expect(record('curl', outcomes)).toEqual([]);
  }, 300_000);

  /** Runs every sample of a language in one interpreter, each as printed but for the host and the keys. */
  async function runBatch(lang: 'fetch' | 'python', runner: string, args: string[]): Promise<Outcome[]> {
    await fresh();
    const jobs = operations.map((op, i) => ({ slug: op.slug, keys: keysFor(i), code: here(samplesFor(spec, op).find((s) => s.value === lang)!.code) }));
    const child = spawn(runner, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stdin.end(JSON.stringify(jobs));
    await new Promise((resolve) => child.on('close', resolve));
    return JSON.parse(out) as Outcome[];
  }

  it('JavaScript fetch samples run in Node.js', async () => {
    // Each sample's `const NAME = '…'` placeholders get the key; its console.log prints the status and the body.
    const driver = `
      const jobs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
      const AsyncFunction = (async () => {}).constructor;
      (async () => {
        const out = [];
        for (const job of jobs) {
          let printed = [];
          const console = { log: (...a) => { printed = a; } };
          const code = job.code.replace(/^const (\\w+) = '…';/gm, (m, name) => 'const ' + name + ' = ' + JSON.stringify(job.keys[name] ?? '') + ';');
          try { await new AsyncFunction('console', code)(console); out.push({ slug: job.slug, status: printed[0] ?? 0, body: String(printed[1] ?? '') }); }
          catch (e) { out.push({ slug: job.slug, status: 0, body: String(e) }); }
        }
        process.stdout.write(JSON.stringify(out));
      })();`;
    expect(record('fetch', await runBatch('fetch', process.execPath, ['-e', driver]))).toEqual([]);
  }, 300_000);

  it('Python samples run with requests', async () => {
    // Each sample runs in fresh globals with its keys in os.environ; its print(status, text) is captured.
    const driver = [
      'import contextlib, io, json, os, sys',
      'out = []',
      'for job in json.load(sys.stdin):',
      '    os.environ.update(job["keys"])',
      '    buf = io.StringIO()',
      '    try:',
      '        with contextlib.redirect_stdout(buf):',
      '            exec(compile(job["code"], job["slug"], "exec"), {"__name__": "__main__"})',
      '        status, _, body = buf.getvalue().rstrip("\\n").partition(" ")',
      '        out.append({"slug": job["slug"], "status": int(status), "body": body})',
      '    except Exception as e:',
      '        out.append({"slug": job["slug"], "status": 0, "body": repr(e)})',
      'sys.stdout.write(json.dumps(out))',
    ].join('\n');
    expect(record('python', await runBatch('python', 'python3', ['-c', driver]))).toEqual([]);
  }, 300_000);

  it('Go samples send the request of the curl sample (no Go toolchain here to run them)', () => {
    const differ: string[] = [];
    for (const op of operations) {
      const go = goRequest(samplesFor(spec, op).find((s) => s.value === 'go')!.code);
      const want = curlRequest(requestModel(spec, op));
      try {
        expect(go).toEqual(want);
      } catch {
        differ.push(`${op.method.toUpperCase()} ${op.path}: go ${JSON.stringify(go)} curl ${JSON.stringify(want)}`);
      }
      // And the curl sample sends what the model says: its parsed request has the same method, URL and headers.
      const [c] = parseCurls(samplesFor(spec, op).find((s) => s.value === 'curl')!.code.replace(/^#.*\n/gm, ''));
      if (c?.method !== want.method || c.url !== want.url) differ.push(`${op.method.toUpperCase()} ${op.path}: curl sends ${c?.method} ${c?.url}`);
    }
    results.set('go', { found: operations.length, run: 0, passing: 0, failures: differ });
    expect(differ).toEqual([]);
  });

  it('prints the count: samples found / run / passing', () => {
    const lines = [...results].map(([lang, r]) => `  ${lang.padEnd(7)} found ${r.found}, run ${r.run}, passing ${r.passing}${lang === 'go' ? ` (not run: ${r.found - r.failures.length} send the curl sample's request)` : ''}`);
    const total = [...results.values()].reduce((t, r) => ({ found: t.found + r.found, run: t.run + r.run, passing: t.passing + r.passing }), { found: 0, run: 0, passing: 0 });
    const failing = [...results.values()].flatMap((r) => r.failures);
    console.log(`API reference request samples against the local identity server: found ${total.found}, run ${total.run}, passing ${total.passing}\n${lines.join('\n')}\nnot working:\n  ${failing.join('\n  ') || '(none)'}`);
    expect(total.run).toBeGreaterThan(0);
  });
});
