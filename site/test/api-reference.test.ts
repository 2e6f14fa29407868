// The generated REST API reference (site/plugins/api-reference): a page for every operation of the contract, category
// pages listing their operations, pages that compile as MDX, request samples that work against a real local identity
// server, SDK samples naming methods the SDK has, and the try-it request builder's answers to bad input.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { compile } from '@mdx-js/mdx';
import matter from 'gray-matter';
import remarkGfm from 'remark-gfm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiSpec, CLIENT_ROUTES, foldClientRoutes, operationSlug, referencePages, referenceSidebar, writeApiReference, type Operation } from '../plugins/api-reference';
import { renderMarkdown } from '../plugins/api-reference/render';
import sidebars from '../sidebars';
import { SDK_CALLS, samplesFor } from '../plugins/api-reference/samples';
import { buildRequest } from '../src/components/api/TryItPanel';
import type { ReferenceBlock, ReferencePageData, TryItOperation } from '../src/components/api/types';
import { CONTRACT_PATH } from '@keyway/api';
import type { TestServer } from '@keyway/identity-server/testing';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const siteDir = path.resolve(here, '..');
const repoRoot = path.resolve(siteDir, '..');
const openapiFile = CONTRACT_PATH;
const operationsMd = path.join(repoRoot, 'spec', 'api-operations.md');
const routesTxt = path.join(repoRoot, 'spec', 'routes.txt');

/** `METHOD /path` of every operation the spec lists: the bullets of each tag and the SDK-facing list. */
function specOperations(): { key: string; tag?: string }[] {
  const text = fs.readFileSync(operationsMd, 'utf8');
  const out: { key: string; tag?: string }[] = [];
  let tag: string | undefined;
  for (const line of text.split('\n')) {
    const h = /^## ([a-z0-9-]+)\b/.exec(line);
    if (h) tag = h[1];
    if (/^## SDK-facing/.test(line)) tag = undefined;
    const b = /^- `([A-Z]+) (\/[^`\s]*)`/.exec(line);
    if (b) out.push({ key: `${b[1]} ${b[2]}`, tag });
  }
  // The SDK list abbreviates: `GET|PUT /x`, a bare `/x/v2` repeating the methods before it, `/impersonate/v2` for a
  // path ending like the one before it.
  const sdk = text.slice(text.indexOf('## SDK-facing'));
  let methods: string[] = [];
  let prev = '';
  for (const [, item] of sdk.matchAll(/`([^`]+)`/g)) {
    const m = /^(?:([A-Z|]+) )?(\/\S*)$/.exec(item!);
    if (!m) continue;
    if (m[1]) methods = m[1].split('|');
    let p = m[2]!;
    const first = p.split('/')[1]!;
    const at = prev.lastIndexOf(`/${first}`);
    if (!m[1] && at > 0 && !p.startsWith(prev.slice(0, at + first.length + 1))) p = prev.slice(0, at) + p;
    for (const method of methods) out.push({ key: `${method} ${p}` });
    prev = p;
  }
  return out;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-api-reference-'));
const docsApiDir = path.join(tmp, 'api');
let operations: Operation[];
let pages: Map<string, ReferencePageData>;
const opPage = (o: Operation): ReferencePageData => pages.get(`/docs/api/${o.slug}`)!;
const blocksOf = <K extends ReferenceBlock['kind']>(page: ReferencePageData, kind: K) =>
  page.blocks.filter((b): b is Extract<ReferenceBlock, { kind: K }> => b.kind === kind);
const htmlOf = (page: ReferencePageData): string =>
  [...blocksOf(page, 'html').map((b) => b.html), ...blocksOf(page, 'fields').flatMap((b) => b.rows.map((r) => r.html))].join('\n');

beforeAll(() => {
  fs.mkdirSync(docsApiDir, { recursive: true });
  fs.copyFileSync(path.join(siteDir, 'docs', 'api', '_overview.mdx'), path.join(docsApiDir, '_overview.mdx'));
  operations = writeApiReference(openapiFile, docsApiDir).operations;
  pages = new Map(referencePages(openapiFile).pages.map((p) => [p.permalink, p]));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('pages', () => {
  it('slugs are the method and the path in words', () => {
    expect(operationSlug('get', '/persons/{person_id}/attributes')).toBe('get-persons-person-id-attributes');
    expect(operationSlug('get', '/.well-known/openid-configuration')).toBe('get-well-known-openid-configuration');
  });

  it('every operation of the spec and of the contract has its page at /docs/api/<method-and-path-in-words>', () => {
    const contract = ApiSpec.load(openapiFile).operations();
    const listed = fs.existsSync(operationsMd) ? specOperations() : contract.map((o) => ({ key: `${o.method.toUpperCase()} ${o.path}` }));
    expect(listed.length).toBeGreaterThan(100);
    const byKey = new Map(operations.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o]));
    const missing = listed.filter((l) => !byKey.has(l.key)).map((l) => l.key);
    expect(missing, 'operations of the spec without a page').toEqual([]);
    expect(operations.length).toBe(contract.length);
    for (const o of operations) {
      const page = opPage(o);
      expect(page, o.slug).toBeDefined();
      expect(page.kind).toBe('operation');
      expect(page.title).toBe(o.summary);
      expect(page.blocks[0]).toEqual({ kind: 'endpoint', method: o.method, path: o.path });
    }
  });

  it('every category of routes.txt has a page listing exactly the operations of its tag', () => {
    const categories = fs
      .readFileSync(routesTxt, 'utf8')
      .split('\n')
      .map((l) => /^\/docs\/category\/api\/(\S+)/.exec(l.trim())?.[1])
      .filter((t): t is string => !!t);
    expect(categories).toHaveLength(22);
    const listed = fs.existsSync(operationsMd) ? specOperations() : [];
    const tagDescriptions = new Map((ApiSpec.load(openapiFile).doc.tags ?? []).map((t) => [t.name, t.description]));
    for (const tag of categories) {
      const page = pages.get(`/docs/category/api/${tag}`)!;
      expect(page?.kind, tag).toBe('category');
      // The contract's words, not a second description that could contradict it.
      const described = tagDescriptions.get(tag);
      if (described) expect(htmlOf(page), tag).toContain(renderMarkdown(described));
      const links = blocksOf(page, 'operations').flatMap((b) => b.operations.map((o) => o.href.replace('/docs/api/', '')));
      const expected = operations.filter((o) => o.tags.includes(tag)).map((o) => o.slug);
      expect(expected.length, tag).toBeGreaterThan(0);
      expect(new Set(links), tag).toEqual(new Set(expected));
      expect(blocksOf(page, 'heading').map((h) => h.text)).toContain(`Operations (${expected.length})`);
      for (const l of listed.filter((x) => x.tag === tag)) {
        const [method, p] = l.key.split(' ') as [string, string];
        expect(links, `${tag} lists ${l.key}`).toContain(operationSlug(method, p));
      }
    }
    // The umbrella lists every management operation.
    expect(JSON.stringify(pages.get('/docs/category/api/identity-management'))).toContain('"href":"/docs/api/get-persons"');
  });

  it('an operation page has its sections, field tables, samples and try-it data; the overview compiles as MDX', async () => {
    const post = opPage(operations.find((o) => o.slug === 'post-persons')!);
    const headings = blocksOf(post, 'heading').map((h) => `${'#'.repeat(h.level)} ${h.text}`);
    expect(headings).toEqual(['## Authentication', '## Parameters', '## Request body', '## Responses', '### 201 Created', '### Errors', '## Try it', '## Request samples']);
    // Try-it, the request samples and the example response form the second column.
    expect(post.blocks.filter((b) => b.column === 'aside').map((b) => b.kind)).toEqual(['heading', 'tryIt', 'heading', 'samples', 'example']);
    expect(post.toc.map((t) => t.id)).toEqual(blocksOf(post, 'heading').map((h) => h.id));
    // Nested fields: `handles[].type` belongs to `handles`, under the name `type`.
    const body = blocksOf(post, 'fields').find((b) => b.list === 'fields')!.rows;
    const handles = body.findIndex((r) => r.name === 'handles');
    expect(body.find((r) => r.name === 'handles[].type')).toMatchObject({ label: 'type', type: 'string', required: true, parent: handles });
    expect(body[handles]!.parent).toBe(-1);
    // Two ways to authenticate read "either … or".
    expect(htmlOf(post)).toMatch(/<strong>Either<\/strong> the <code>Keyway-OrgID<\/code>[\s\S]*<strong>or<\/strong> the <code>Keyway-API-Key<\/code>/);
    const [samples] = blocksOf(post, 'samples');
    expect(samples!.samples.map((s) => s.label)).toEqual(['curl', 'JavaScript (fetch)', 'Python', 'Go']);
    expect(blocksOf(post, 'tryIt')[0]!.operation).toMatchObject({ method: 'POST', path: '/persons', security: ['OrgId', 'ApiKey'], contentType: 'application/json' });
    const me = opPage(operations.find((o) => o.slug === 'get-me')!);
    const sdk = blocksOf(me, 'samples')[0]!.samples.find((s) => s.value === 'sdk');
    expect(sdk?.label).toBe('@keyway/sdk');
    expect(sdk?.code).toContain('keyway.user.me()');
    const { content } = matter(fs.readFileSync(path.join(docsApiDir, '_generated', 'index.mdx'), 'utf8'));
    await expect(compile(content, { remarkPlugins: [remarkGfm] })).resolves.toBeTruthy();
  }, 120_000);

  it('every operation page carries reader words derived from the contract: verbs of its method, its resource, how it is called', () => {
    const verbs: Record<string, RegExp> = { get: /^(list|get|read|fetch) /, post: /^(create|add) /, put: /^(update|change) /, patch: /^(update|change) /, delete: /^(remove|delete) / };
    for (const op of operations) {
      const keywords = opPage(op).keywords ?? [];
      expect(keywords, op.slug).toContain(`${op.method.toUpperCase()} ${op.path}`);
      expect(keywords.some((k) => verbs[op.method]!.test(k)), op.slug).toBe(true);
      expect(keywords, op.slug).toContain('REST API');
    }
    // A management operation is called from a backend; the person's own from the browser.
    const remove = opPage(operations.find((o) => o.slug === 'delete-persons-person-id')!).keywords;
    expect(remove).toEqual(expect.arrayContaining(['remove persons', 'delete persons', 'backend', 'server-side']));
    const listGroups = opPage(operations.find((o) => o.slug === 'get-groups')!).keywords;
    expect(listGroups).toEqual(expect.arrayContaining(['list groups', 'get groups']));
    expect(opPage(operations.find((o) => o.slug === 'get-me')!).keywords).toContain('browser');
  });

  it("the contract's Markdown becomes inert HTML: no raw HTML, no script links, unique heading ids", () => {
    expect(renderMarkdown('Use <script>alert(1)</script> and [x](javascript:alert(1)) or [y](/docs/api#errors)')).toBe(
      '<p>Use &lt;script&gt;alert(1)&lt;/script&gt; and [x](javascript:alert(1)) or <a href="/docs/api#errors">y</a></p>',
    );
    for (const page of pages.values()) {
      expect(htmlOf(page), page.permalink).not.toMatch(/<(script|iframe|img|style)\b|\son\w+=/i);
      for (const [, href] of htmlOf(page).matchAll(/href="([^"]*)"/g)) expect(href, page.permalink).toMatch(/^(\/docs\/|#|https?:\/\/)/);
      const ids = blocksOf(page, 'heading').map((h) => h.id);
      expect(new Set(ids).size, page.permalink).toBe(ids.length);
    }
  });

  it('every category page has an overview of its resource, linking only to pages of the route contract', () => {
    const contract = new Set(
      fs.readFileSync(routesTxt, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.trim().split(/\s+/)[0]),
    );
    for (const page of pages.values()) {
      if (page.kind !== 'category') continue;
      const words = htmlOf(page).replace(/<[^>]+>/g, ' ').split(/\s+/).filter(Boolean).length;
      expect(words, page.permalink).toBeGreaterThanOrEqual(80);
      for (const [, href] of htmlOf(page).matchAll(/href="(\/docs\/[^"#]*)/g)) expect(contract.has(href!), `${page.permalink} -> ${href}`).toBe(true);
    }
    // The umbrella category is grouped by sub-category.
    const umbrella = pages.get('/docs/category/api/identity-management')!;
    expect(blocksOf(umbrella, 'heading').filter((h) => h.level === 3).map((h) => h.text)).toContain(`Persons (${operations.filter((o) => o.primaryTag === 'persons').length})`);
  });

  it('links between reference pages point to pages that exist, and previous/next follow the sidebar', () => {
    for (const page of pages.values()) {
      const internal = [...htmlOf(page).matchAll(/href="(\/docs\/(?:api|category\/api)\/[^"#]+)/g)].map((m) => m[1]!);
      for (const href of [...internal, ...blocksOf(page, 'operations').flatMap((b) => b.operations.map((o) => o.href))]) expect(pages.has(href), `${page.permalink} -> ${href}`).toBe(true);
    }
    const first = pages.get('/docs/category/api/groups')!;
    expect(first.previous).toEqual({ title: 'Overview', permalink: '/docs/api' });
    expect(pages.get(first.next!.permalink)?.previous?.permalink).toBe(first.permalink);
  });

  it('sidebars: the api sidebar links every reference page grouped by tag; the public docs have no API entries', () => {
    const ref = referenceSidebar(openapiFile);
    const persons = ref.find((i) => typeof i === 'object' && 'label' in i && i.label === 'Persons') as { items: { href?: string }[] };
    expect(persons.items.map((i) => i.href)).toContain('/docs/api/get-persons');
    const hrefs = JSON.stringify(ref).match(/"href":"[^"]+"/g) ?? [];
    expect(new Set(hrefs).size).toBe(pages.size);
    expect(JSON.stringify(sidebars)).not.toMatch(/docs\/api|category\/api/);
  });
});

describe('client route table', () => {
  // The shape Docusaurus writes to routes.js and routesChunkNames.json (server/codegen/codegenRoutes.js).
  const route = (p: string, hash: string, kind?: string) =>
    `  {\n    path: '${p}',\n    component: ComponentCreator('${p}', '${hash}'),\n    exact: true${kind ? `,\n    keywayApiPage: "${kind}"` : ''}\n  }`;
  const routesJs = `export default [\n${[
    route('/login', 'f43'),
    route('/docs/api/get-me', '414', 'operation'),
    route('/docs/api/post-persons', '2b1', 'operation'),
    route('/docs/category/api/persons', '9c0', 'category'),
    route('/docs/category/api/groups', '1aa', 'category'),
    route('/search', 'be6'),
  ].join(',\n')}\n];\n`;
  const chunkNames = Object.fromEntries(
    ['/login-f43', '/docs/api/get-me-414', '/docs/api/post-persons-2b1', '/docs/category/api/persons-9c0', '/docs/category/api/groups-1aa', '/search-be6'].map((k) => [k, { __comp: 'c' }]),
  );

  it('folds the reference pages into one parameter route per kind and drops their chunk-name entries', () => {
    const folded = foldClientRoutes(routesJs, chunkNames);
    const table = new Function('ComponentCreator', folded.routesJs.replace('export default', 'return')) as (c: (p: string, h: string) => string) => { path: string; component: string }[];
    expect(table((p, h) => `${p}-${h}`)).toEqual([
      { path: '/login', component: '/login-f43', exact: true },
      { path: CLIENT_ROUTES.operation, component: `${CLIENT_ROUTES.operation}-414`, exact: true },
      { path: CLIENT_ROUTES.category, component: `${CLIENT_ROUTES.category}-9c0`, exact: true },
      { path: '/search', component: '/search-be6', exact: true },
    ]);
    expect(Object.keys(folded.chunkNames)).toEqual(['/login-f43', `${CLIENT_ROUTES.operation}-414`, `${CLIENT_ROUTES.category}-9c0`, '/search-be6']);
  });

  it('refuses a route table whose format it does not know, instead of shipping every route', () => {
    expect(() => foldClientRoutes(routesJs.replace(/exact: true,/g, 'exact: true, strict: true,'), chunkNames)).toThrow(/format changed/);
    expect(() => foldClientRoutes(route('/login', 'f43'), chunkNames)).toThrow(/no reference routes/);
  });
});

describe('request samples', () => {
  const all = () => {
    const spec = ApiSpec.load(openapiFile);
    return operations.flatMap((o) => samplesFor(spec, o).map((s) => ({ ...s, slug: o.slug })));
  };

  it('JavaScript samples (fetch and @keyway/sdk) parse', () => {
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (code: string) => unknown;
    for (const s of all().filter((x) => x.value === 'fetch' || x.value === 'sdk')) {
      expect(() => new AsyncFunction(s.code.replace(/^import .*$/m, '')), `${s.slug} ${s.value}`).not.toThrow();
    }
  });

  it('Python samples compile', async () => {
    const samples = all().filter((x) => x.value === 'python');
    expect(samples).toHaveLength(operations.length);
    const checker = 'import json,sys\nfor s in json.load(sys.stdin):\n    compile(s["code"], s["slug"], "exec")\nprint("ok")';
    const child = execFile('python3', ['-c', checker]);
    child.stdin!.end(JSON.stringify(samples));
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    await new Promise((resolve) => child.on('close', resolve));
    expect(err).toBe('');
    expect(out.trim()).toBe('ok');
  });
});

describe('SDK samples', () => {
  it('name methods that @keyway/sdk defines, on operations the contract has', () => {
    const src = ['keyway.ts', 'user.ts'].map((f) => fs.readFileSync(path.join(repoRoot, 'packages', 'sdk', 'src', f), 'utf8')).join('\n');
    const keys = new Set(operations.map((o) => `${o.method.toUpperCase()} ${o.path}`));
    for (const [key, call] of Object.entries(SDK_CALLS)) {
      expect(keys.has(key), key).toBe(true);
      for (const m of call.methods) expect(src, `${key}: SDK method ${m}`).toMatch(new RegExp(`^\\s+(?:async )?${m}\\(`, 'm'));
    }
  });
});

describe('try-it request builder', () => {
  const op: TryItOperation = {
    method: 'GET',
    path: '/persons/{person_id}',
    security: ['OrgId', 'ApiKey'],
    parameters: [{ name: 'person_id', in: 'path', required: true }],
  };
  const creds = { orgId: 'org_1', apiKey: 'k' };

  it('names what is missing or malformed', () => {
    expect(buildRequest(op, 'localhost:8787', { 'path:person_id': 'pid:1' }, creds, '')).toEqual({
      error: 'The base URL "localhost:8787" is not an http(s) URL, e.g. http://localhost:8787.',
    });
    expect(buildRequest(op, 'http://localhost:8787', {}, creds, '')).toEqual({ error: 'Fill in the path parameter "person_id".' });
    expect(buildRequest(op, 'http://localhost:8787', { 'path:person_id': 'pid:1' }, { orgId: 'org_1' }, '')).toEqual({
      error: 'Fill in the API key (Keyway-API-Key): this operation needs it.',
    });
    const post: TryItOperation = { method: 'POST', path: '/groups', security: [], parameters: [], contentType: 'application/json' };
    const bad = buildRequest(post, 'http://localhost:8787', {}, {}, '{"name": ');
    expect('error' in bad && bad.error).toMatch(/^The request body is not valid JSON: /);
  });

  it('builds the URL, headers and body', () => {
    const built = buildRequest(op, 'http://127.0.0.1:9/base/', { 'path:person_id': 'pid:a/b' }, creds, '');
    if ('error' in built) throw new Error(built.error);
    expect(built.url).toBe('http://127.0.0.1:9/base/persons/pid%3Aa%2Fb');
    const h = built.init.headers as Headers;
    expect([h.get('Keyway-OrgID'), h.get('Keyway-API-Key')]).toEqual(['org_1', 'k']);
  });

  it('sends a multipart operation\'s body text as the file part, and lets the browser write the boundary', async () => {
    const upload: TryItOperation = {
      method: 'POST',
      path: '/persons/bulk-import',
      security: [],
      parameters: [],
      contentType: 'multipart/form-data',
      file: { field: 'file', filename: 'persons.csv', contentType: 'text/csv' },
      fields: [],
    };
    expect(buildRequest(upload, 'http://localhost:8787', {}, {}, ' ')).toEqual({ error: 'Fill in the content of the file persons.csv.' });
    const built = buildRequest(upload, 'http://localhost:8787', {}, {}, 'handle_type,handle_value\n');
    if ('error' in built) throw new Error(built.error);
    expect((built.init.headers as Headers).get('Content-Type')).toBeNull();
    const file = (built.init.body as FormData).get('file') as File;
    expect([file.name, file.type, await file.text()]).toEqual(['persons.csv', 'text/csv', 'handle_type,handle_value\n']);
  });
});

describe('curl samples against a local identity server', () => {
  let server: TestServer | undefined;
  beforeAll(async () => {
    const { DEFAULT_DEV_API_KEY } = await import('@keyway/identity-server');
    const { startTestIdentityServer } = await import('@keyway/identity-server/testing');
    server = await startTestIdentityServer({ apiKey: DEFAULT_DEV_API_KEY, corsOrigins: [] });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  /** Runs the curl block of a page as a reader would paste it, against the test server; answers status and body. */
  async function runCurl(slug: string, env: Record<string, string> = {}): Promise<{ status: number; body: string }> {
    const o = operations.find((x) => x.slug === slug)!;
    const block = blocksOf(opPage(o), 'samples')[0]?.samples.find((s) => s.value === 'curl')?.code;
    if (!block) throw new Error(`no curl sample on ${slug}`);
    const script = block.replaceAll('http://localhost:8787', server!.url) + ` -sS -w '\\n%{http_code}'`;
    const { stdout } = await run('sh', ['-c', script], { env: { ...process.env, ...env } });
    const at = stdout.lastIndexOf('\n');
    return { status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) };
  }

  it('management calls: create and list groups, create a person in that group, list persons', async () => {
    const group = await runCurl('post-groups');
    expect(group.status, group.body).toBeLessThan(300);
    const groups = await runCurl('get-groups');
    expect(groups.status, groups.body).toBe(200);
    const created = await runCurl('post-persons');
    expect(created.status, created.body).toBe(201);
    expect(JSON.parse(created.body).result.person_id).toMatch(/^pid:/);
    const list = await runCurl('get-persons');
    expect(list.status, list.body).toBe(200);
    expect(JSON.parse(list.body).meta.pagination.total_count).toBeGreaterThanOrEqual(1);
  });

  it('public and SDK calls: discovery, an anonymous person, then /me with its token', async () => {
    const discovery = await runCurl('get-well-known-openid-configuration');
    expect(discovery.status).toBe(200);
    expect(JSON.parse(discovery.body).jwks_uri).toBeTruthy();
    const anonymous = await runCurl('post-persons-anonymous');
    expect(anonymous.status, anonymous.body).toBe(200);
    const token = JSON.parse(anonymous.body).result as string;
    const me = await runCurl('get-me', { KEYWAY_USER_TOKEN: token });
    expect(me.status, me.body).toBe(200);
    expect(JSON.parse(me.body).result.person.person_type).toBe('anonymous');
  });
});
