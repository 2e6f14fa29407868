// Every request sample of the API reference runs against a real identity server, as printed: curl through sh, the fetch
// samples in Node.js, the Python samples with requests. Only the host (the test server's port instead of 8787) and the
// keys the samples leave to the reader (a user token, an OAuth2 client) are filled in; the organization and API key are
// the development ones the samples already name. A sample passes when the server answers a status the contract
// declares for the operation, that is not a refusal of the request itself (400, 401, 415, 422, 5xx), with a body that
// validates against the contract's schema for that status. Go is not installed here: each Go sample is instead checked
// to send exactly the request of the curl sample of its operation (method, URL, headers, body). The counts are printed.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiSpec, type Operation } from '../plugins/api-reference';
import { LOCAL_BASE_URL, requestModel, samplesFor, type RequestModel } from '../plugins/api-reference/samples';
import { anonymousPerson, openapiFile, parseCurls, schemaRef, ajv, startLocalServer, type LocalServer } from './docs-helpers';

const spec = ApiSpec.load(openapiFile);
// Deleting the organization and replacing its API key run last: every other sample needs both.
const LAST = ['DELETE /organizations', 'PUT /organizations/api-keys'];
const key = (o: Operation) => `${o.method.toUpperCase()} ${o.path}`;
const operations = [...spec.operations()].sort((a, b) => Number(LAST.includes(key(a))) - Number(LAST.includes(key(b))));
type Outcome = { slug: string; lang: string; status: number; body: string };

/**
 * Samples that do not work today, each with the reason (found by this runner; fixing them is work on the contract's
 * examples or the server, listed in the README). The test fails on any other failing sample, and on a listed one that
 * works now (then remove it from the list): the list can only shrink.
 */
const KNOWN_BROKEN: Record<string, string> = {
  'DELETE /consent/gdpr': 'the example sends no consent_levels and no deleteAll=true: 400',
  'POST /token/revoke': 'the example token is not one the server signed: 400',
  'POST /actions/sdk': 'the server answers 404 for the example event, a status the contract does not declare',
  'POST /events': 'the server answers 404 for the example event, a status the contract does not declare',
  'GET /oauth2/authorize': 'the example redirect_uri is not a URI: 400',
  'POST /oauth2/tokens': 'the example authorization code cannot be valid (codes are one-time and last 60 s): 400',
  'DELETE /persons/{person_id}/handles/{handle}': 'the handle placeholder does not match the handle pattern: 400',
  'POST /persons/bulk-import': 'the generated sample sends the example as JSON under a multipart content type with no boundary: 400 (was a 500, fixed in the server)',
  'PUT /organizations/config/templates/{template_name}': 'the example email_link template has no {{ link }}: 400',
  'POST /organizations/sso/saml/provider-credentials': 'the example metadata URL (idp.example.com) cannot be fetched: 400',
  'POST /rbac/roles': 'the example role names a permission that does not exist yet: 400',
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

/** The request a Go sample sends, read back from its source. */
function goRequest(code: string): { method: string; url: string; headers: Record<string, string>; body?: string } {
  const call = /http\.NewRequest\("([A-Z]+)", ("(?:[^"\\]|\\.)*"), (nil|strings\.NewReader\(("(?:[^"\\]|\\.)*"|`[^`]*`|form\.Encode\(\))\))\)/.exec(code);
  if (!call) throw new Error(`no http.NewRequest in\n${code}`);
  const headers: Record<string, string> = {};
  for (const m of code.matchAll(/req\.Header\.Set\(("(?:[^"\\]|\\.)*"), (.+)\)\n/g))
    headers[(JSON.parse(m[1]!) as string).toLowerCase()] = m[2]!.split(' + ').map((p) => (p.startsWith('os.Getenv(') ? `$${JSON.parse(p.slice(10, -1))}` : JSON.parse(p))).join('');
  if (/req\.SetBasicAuth\(os\.Getenv\("(\w+)"\), os\.Getenv\("(\w+)"\)\)/.test(code)) {
    const [, u, p] = /req\.SetBasicAuth\(os\.Getenv\("(\w+)"\), os\.Getenv\("(\w+)"\)\)/.exec(code)!;
    headers.authorization = `basic $${u}:$${p}`;
  }
  let body: string | undefined;
  if (call[4] === 'form.Encode()') body = new URLSearchParams([...code.matchAll(/form\.Set\(("(?:[^"\\]|\\.)*"), ("(?:[^"\\]|\\.)*")\)/g)].map((m) => [JSON.parse(m[1]!), JSON.parse(m[2]!)])).toString();
  else if (call[4]?.startsWith('`')) body = call[4].slice(1, -1);
  else if (call[4]) body = JSON.parse(call[4]) as string;
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
  const body = m.body?.kind === 'json' ? JSON.stringify(m.body.value, null, 2) : m.body?.kind === 'form' ? new URLSearchParams(m.body.fields).toString() : m.body?.text;
  return { method: m.method, url: LOCAL_BASE_URL + m.target, headers, ...(body === undefined ? {} : { body }) };
}

describe('API reference samples against a local identity server', () => {
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
    local = await startLocalServer('keyway-api-samples-', { limits: { perIpPerMinute: 1_000_000 } });
    const res = await fetch(`${local.live.url}/oauth2/clients`, {
      method: 'POST',
      headers: { 'Keyway-OrgID': local.live.orgId, 'Keyway-API-Key': local.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'samples', grant_types: ['client_credentials'], scopes: ['openid'] }),
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
      if (why) r.failures.push(`${lang} ${key(op)}: ${why}`);
      else r.passing++;
      if (why && !KNOWN_BROKEN[key(op)]) unexpected.push(`${lang} ${key(op)}: ${why}`);
      if (!why && KNOWN_BROKEN[key(op)]) unexpected.push(`${lang} ${key(op)} works now: remove it from KNOWN_BROKEN`);
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
    const child = spawn('sh', ['-s'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stdin.end(script);
    await new Promise((resolve) => child.on('close', resolve));
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
    console.log(`API reference request samples against the local identity server: found ${total.found}, run ${total.run}, passing ${total.passing}\n${lines.join('\n')}\nnot working (KNOWN_BROKEN):\n  ${failing.join('\n  ')}`);
    expect(total.run).toBeGreaterThan(0);
  });
});
