// Checks for the Access concepts pages (site/docs/access/concepts/**).
// Every page is parsed and compiled the way Docusaurus reads it, and its content is held to the
// model of /work/shared/spec/product-spec.md and api-operations.md: routes, links, prose length,
// wording, API paths and curl requests, event, bucket, claim and header names, JSON examples and
// TypeScript samples (type-checked against the packages installed in the workspace).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '@mdx-js/mdx';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import matter from 'gray-matter';
import { createSlugger } from '@docusaurus/utils';
import remarkDirective from 'remark-directive';
import remarkGfm from 'remark-gfm';
import ts from 'typescript';
import { visit } from 'unist-util-visit';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// ---------------------------------------------------------------------------------------------
// Locations and the spec
// ---------------------------------------------------------------------------------------------
const here = path.dirname(fileURLToPath(import.meta.url));
const siteDir = path.resolve(here, '..');
const docsDir = path.join(siteDir, 'docs');
const roomDir = path.join(docsDir, 'access', 'concepts');
const roomRoute = '/docs/access/concepts';
const specDir = process.env.KEYWAY_SPEC_DIR ?? '/work/shared/spec';

const routesTxt = fs.readFileSync(path.join(specDir, 'routes.txt'), 'utf8');
const allRoutes = new Set(
  routesTxt
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('/'))
    .map((l) => l.split(/\s+/)[0] ?? ''),
);
const roomRoutes = [...allRoutes].filter((r) => r.startsWith(`${roomRoute}/`)).sort();

// ---------------------------------------------------------------------------------------------
// The model the pages must agree with (names copied from product-spec.md sections 3, 7 and 8)
// ---------------------------------------------------------------------------------------------
const BUCKETS = [
  'end_user_read_write',
  'end_user_read_only',
  'end_user_no_access',
  'person_pool-end_user_read_write',
  'person_pool-end_user_read_only',
  'person_pool-end_user_no_access',
];
const EVENTS = [
  'AuthenticationSucceeded_v1',
  'AuthenticationFailed_v1',
  'PersonIdentified_v1',
  'PersonLoggedOut_v1',
  'KeywaySDKLoaded_v1',
  'VirtualPageLoaded_v1',
];
const EVENT_ENVELOPE = ['organization_id', 'analytics_correlation_id', 'window_location', 'user_agent', 'event_data'];
const SUCCESS_FIELDS = ['person_id', 'success_authn_method', 'authenticated_methods', 'handle'];
const FAILURE_FIELDS = ['failed_authn_method', 'failure_reason', 'failure_detail', 'handle', 'challenge_id', 'person_id'];
const FAILURE_SLUGS = [
  'incorrect_otp_code_via_email',
  'incorrect_otp_code_via_sms',
  'incorrect_otp_code',
  'invalid_password',
  'incorrect_password',
  'recovery_failed',
  'oidc_popup_blocked',
  'client_side_error',
];
const AUTHN_METHODS = [
  'webauthn', 'email_link', 'sms_link', 'otp_via_sms', 'otp_via_email', 'totp', 'oidc', 'saml', 'api',
  'direct_id', 'password', 'impersonate', 'anonymous',
];
const TOKEN_CLAIMS = ['person_id', 'oid', 'first_token', 'authenticated_methods', 'authentications', 'person_type', 'groups'];
// Registered JWT claims a token example may show next to Keyway's own claims.
const JWT_REGISTERED = ['iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti'];
const HIERARCHY_FIELDS = [
  'id', 'parent_id', 'name', 'tenant_name', 'children_ids', 'person_pool_orgs_ids', 'group_pool_orgs_ids',
  'manager_org_id', 'person_in_manager_org', 'inherits_rbac_pools',
];
const KEYWAY_HEADERS = [
  'Keyway-OrgID', 'Keyway-API-Key', 'Keyway-SdkVersion', 'Keyway-Required-Consistency',
  'Keyway-Required-Consistency-Timeout',
];
const CONSISTENCY_VALUES = ['local_region', 'all_regions'];
const API_HOST = 'http://localhost:8787';
const REGIMES = ['aus-privacy', 'ccpa', 'gdpr', 'glba', 'hipaa', 'japan-privacy', 'south-korea-privacy'];
const BANNED = /\b(TODO|TBD|lorem ipsum|coming soon|being written|placeholder)\b/i;

// ---------------------------------------------------------------------------------------------
// The REST operations we may cite: api-operations.md (which also lists the SDK calls of spec §7)
// ---------------------------------------------------------------------------------------------
type Operation = { method: string; template: string; re: RegExp; person: boolean; management: boolean };
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function templateRegExp(template: string): RegExp {
  const body = template
    .split('/')
    .map((seg) => (/^\{[^}]+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}$`);
}

export function parseOperations(markdown: string): Operation[] {
  const ops: Operation[] = [];
  let personFacing = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('## ')) personFacing = /SDK-facing/i.test(line);
    let methods: string[] = [];
    let previous = '';
    for (const m of line.matchAll(/`([A-Z|]+ )?(\/[^`\s]*)`/g)) {
      const verbs = m[1]?.trim().split('|').filter((v) => METHODS.includes(v));
      const template = m[2] ?? '';
      if (verbs && verbs.length) methods = verbs;
      // A bare path continues the methods named before it on the same line (`POST /attestation`, `/attestation/v2`)
      // when it has the same first segment; a bare suffix such as `/impersonate/v2` is shorthand and not a path.
      else if (template.split('/')[1] !== previous.split('/')[1]) continue;
      previous = template;
      for (const method of methods) {
        // An operation listed under several headings is one operation, callable the ways each listing says.
        const known = ops.find((o) => o.method === method && o.template === template);
        const op = known ?? { method, template, re: templateRegExp(template), person: false, management: false };
        if (personFacing) op.person = true;
        else op.management = true;
        if (!known) ops.push(op);
      }
    }
  }
  return ops;
}
const operations = parseOperations(fs.readFileSync(path.join(specDir, 'api-operations.md'), 'utf8'));

function findOperations(method: string, urlPath: string): Operation[] {
  return operations.filter((o) => o.method === method && o.re.test(urlPath));
}

// ---------------------------------------------------------------------------------------------
// api/openapi.yaml, the single source of truth of the REST API: where it already describes an
// operation we show, our requests and responses must validate against it.
// ---------------------------------------------------------------------------------------------
type SecurityRequirement = Record<string, string[]>;
type OpenApiParameter = { $ref?: string; name?: string; in?: string; schema?: { type?: string } };
type OpenApiOperation = {
  security?: SecurityRequirement[];
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }>;
};
type OpenApi = { paths?: Record<string, Record<string, OpenApiOperation>>; components?: Record<string, Record<string, unknown>> };

const openapiFile = path.resolve(siteDir, '..', 'api', 'openapi.yaml');
function loadOpenApi(): OpenApi | undefined {
  try {
    return parseYaml(fs.readFileSync(openapiFile, 'utf8')) as OpenApi;
  } catch (err) {
    console.warn(`api/openapi.yaml not usable, schema checks skipped: ${(err as Error).message}`);
    return undefined;
  }
}
const openapi = loadOpenApi();
const OPENAPI_ID = 'https://keyway.example/openapi.json';
// ajv and ajv-formats are CommonJS modules whose default export arrives as `.default` under some loaders.
const interop = <T>(m: T): T => (m as T & { default?: T }).default ?? m;
const ajv = new (interop(Ajv2020))({ strict: false, allErrors: true });
interop(addFormats)(ajv);
if (openapi) ajv.addSchema({ ...openapi, $id: OPENAPI_ID } as object);

/** The operation of openapi.yaml that serves METHOD PATH, if the spec describes it already. */
function openapiOperation(method: string, urlPath: string): { template: string; op: OpenApiOperation } | undefined {
  for (const [template, item] of Object.entries(openapi?.paths ?? {})) {
    const op = item[method.toLowerCase()];
    if (op && templateRegExp(template).test(urlPath)) return { template, op };
  }
  return undefined;
}

function schemaRef(schema: unknown): object {
  // Rebase local "#/components/..." references onto the registered OpenAPI document.
  const json = JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${OPENAPI_ID}#/`);
  return JSON.parse(json) as object;
}

function validate(schema: unknown, value: unknown): string[] {
  const check = ajv.compile(schemaRef(schema));
  return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** The query parameters an operation declares, with $refs resolved. */
function queryParameters(op: OpenApiOperation): Map<string, OpenApiParameter> {
  const out = new Map<string, OpenApiParameter>();
  for (const p of op.parameters ?? []) {
    const param = p.$ref ? (openapi?.components?.parameters?.[p.$ref.split('/').pop() ?? ''] as OpenApiParameter | undefined) : p;
    if (param?.in === 'query' && param.name) out.set(param.name, param);
  }
  return out;
}

/** Checks the query string of URL against the operation: known names, values valid for their schema. */
function checkQuery(op: OpenApiOperation, url: string): string[] {
  const declared = queryParameters(op);
  const problems: string[] = [];
  for (const [name, raw] of new URL(url.replace(/\$[A-Z_]+/g, 'sample')).searchParams) {
    const param = declared.get(name);
    if (!param) {
      problems.push(`unknown query parameter ${name} (declared: ${[...declared.keys()].join(', ') || 'none'})`);
      continue;
    }
    const schema = param.schema ?? {};
    const value = schema.type === 'array' ? raw.split(',') : schema.type === 'integer' ? Number(raw) : schema.type === 'boolean' ? raw === 'true' : raw;
    problems.push(...validate(schema, value).map((e) => `query ${name}: ${e}`));
  }
  return problems;
}

function successSchema(op: OpenApiOperation): unknown {
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (status.startsWith('2')) {
      const schema = response.content?.['application/json']?.schema;
      if (schema) return schema;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Reading the pages
// ---------------------------------------------------------------------------------------------
type MdNode = {
  type: string;
  depth?: number;
  url?: string;
  lang?: string | null;
  meta?: string | null;
  value?: string;
  name?: string;
  children?: MdNode[];
};
type Page = {
  file: string;
  rel: string;
  route: string;
  raw: string;
  body: string;
  data: Record<string, unknown>;
  tree: MdNode;
  prose: string;
  words: number;
  headings: { depth: number; text: string; slug: string }[];
  links: string[];
  code: { lang: string; meta: string; value: string }[];
  inlineCode: string[];
};

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

function routeOf(file: string): string {
  const rel = path.relative(docsDir, file).replace(/\\/g, '/').replace(/\.mdx?$/, '');
  return `/docs/${rel.replace(/(^|\/)index$/, '')}`.replace(/\/$/, '');
}

function textOf(node: MdNode): string {
  if (node.type === 'text') return node.value ?? '';
  if (node.type === 'inlineCode') return node.value ?? '';
  return (node.children ?? []).map(textOf).join('');
}

// Words a reader sees as prose: text nodes outside fenced and inline code (the same rule as
// /work/shared/tools/check-routes.mjs, which strips <pre> and <code> from the built page).
function proseOf(tree: MdNode): string {
  const parts: string[] = [];
  visit(tree as never, (node: MdNode) => {
    if (node.type === 'text') parts.push(node.value ?? '');
    if (node.type === 'textDirective' || node.type === 'leafDirective') parts.push(`:${node.name ?? ''}`);
  });
  return parts.join(' ');
}

async function readPage(file: string): Promise<Page> {
  const raw = fs.readFileSync(file, 'utf8');
  const { data, content } = matter(raw);
  let tree: MdNode = { type: 'root' };
  const capture = () => (t: unknown) => {
    tree = structuredClone(t) as MdNode;
  };
  await compile(
    { value: content, path: file },
    { format: file.endsWith('.mdx') ? 'mdx' : 'md', remarkPlugins: [remarkGfm, remarkDirective, capture] },
  );
  // The slugger Docusaurus itself uses for heading ids, so anchors are checked exactly as the build resolves them.
  const slugger = createSlugger();
  const headings: Page['headings'] = [];
  const links: string[] = [];
  const code: Page['code'] = [];
  const inlineCode: string[] = [];
  visit(tree as never, (node: MdNode) => {
    if (node.type === 'heading') {
      const text = textOf(node).trim();
      headings.push({ depth: node.depth ?? 0, text, slug: slugger.slug(text) });
    } else if (node.type === 'link' || node.type === 'definition') links.push(node.url ?? '');
    else if (node.type === 'code') code.push({ lang: node.lang ?? '', meta: node.meta ?? '', value: node.value ?? '' });
    else if (node.type === 'inlineCode') inlineCode.push(node.value ?? '');
  });
  const prose = proseOf(tree);
  return {
    file,
    rel: path.relative(roomDir, file),
    route: routeOf(file),
    raw,
    body: content,
    data,
    tree,
    prose,
    words: prose.split(/\s+/).filter((w) => /[A-Za-z0-9]/.test(w)).length,
    headings,
    links,
    code,
    inlineCode,
  };
}

// ---------------------------------------------------------------------------------------------
// curl commands in shell blocks
// ---------------------------------------------------------------------------------------------
export type Curl = { method: string; url: string; headers: Record<string, string>; data?: string; text: string };

export function shellWords(command: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i] ?? '';
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < command.length && '"\\$`'.includes(command[i + 1] ?? '')) cur += command[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && command[i + 1] === '\n') i++;
    else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote in: ${command.slice(0, 80)}`);
  if (inWord) words.push(cur);
  return words;
}

export function parseCurls(script: string): Curl[] {
  // One logical command per line after joining backslash continuations; only curl commands count.
  const joined = script.replace(/\\\n/g, ' ');
  const commands: string[] = [];
  let buf = '';
  for (const line of joined.split('\n')) {
    buf = buf ? `${buf}\n${line}` : line;
    // Keep reading while a quote is open (JSON bodies spread over several lines).
    const open = (buf.match(/'/g) ?? []).length % 2 === 1;
    if (!open) {
      commands.push(buf);
      buf = '';
    }
  }
  if (buf) commands.push(buf);
  const curls: Curl[] = [];
  for (const cmd of commands) {
    const at = cmd.search(/(^|[\s($|])curl\s/);
    if (at < 0) continue;
    const words = shellWords(cmd.slice(at).replace(/^[\s($|]/, '').split(/\s\|\s/)[0] ?? '');
    let method = '';
    let url = '';
    let data: string | undefined;
    const headers: Record<string, string> = {};
    for (let i = 1; i < words.length; i++) {
      const w = words[i] ?? '';
      if (w === '-X' || w === '--request') method = words[++i] ?? '';
      else if (w === '-H' || w === '--header') {
        const h = words[++i] ?? '';
        const colon = h.indexOf(':');
        headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
      } else if (['-d', '--data', '--data-raw', '--data-binary', '--json'].includes(w)) data = words[++i] ?? '';
      else if (/^https?:\/\//.test(w)) url = w;
      else if (['-o', '--output', '-u', '--user', '-w', '--write-out', '--max-time'].includes(w)) i++;
    }
    if (!method) method = data === undefined ? 'GET' : 'POST';
    curls.push({ method, url, headers, text: cmd.trim(), ...(data === undefined ? {} : { data }) });
  }
  return curls;
}

// ---------------------------------------------------------------------------------------------
// TypeScript samples: compile in memory next to this file so that imports resolve from site/
// ---------------------------------------------------------------------------------------------
function typeCheck(blocks: { name: string; source: string }[]): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    isolatedModules: true,
    verbatimModuleSyntax: true,
  };
  const virtual = new Map(blocks.map((b) => [path.join(here, '__samples__', `${b.name}.mts`), b.source]));
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => virtual.has(f) || fileExists.call(host, f);
  host.readFile = (f) => virtual.get(f) ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, ...rest) => {
    const src = virtual.get(f);
    return src !== undefined ? ts.createSourceFile(f, src, lang) : getSourceFile.call(host, f, lang, ...rest);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------
let pages: Page[] = [];
const byRoute = new Map<string, Page>();

beforeAll(async () => {
  const files = walk(roomDir).filter((f) => /\.mdx?$/.test(f)).sort();
  pages = await Promise.all(files.map(readPage));
  for (const p of pages) byRoute.set(p.route, p);
});

function page(route: string): Page {
  const p = byRoute.get(`${roomRoute}/${route}`);
  if (!p) throw new Error(`no page for ${roomRoute}/${route}`);
  return p;
}

describe('the spec helpers', () => {
  it('reads the operations of api-operations.md, including the SDK-facing ones', () => {
    expect(findOperations('DELETE', '/persons/p-123')).toHaveLength(1);
    expect(findOperations('GET', '/organizations/webhooks/verification-jwks').length).toBeGreaterThan(0);
    expect(findOperations('POST', '/persons/anonymous')[0]).toMatchObject({ person: true, management: false });
    expect(findOperations('POST', '/token/revoke')[0]).toMatchObject({ person: true, management: true });
    expect(findOperations('DELETE', '/persons/p-123')[0]).toMatchObject({ person: false, management: true });
    expect(findOperations('PATCH', '/attributes/end_user_read_only')[0]?.person).toBe(true);
    expect(findOperations('POST', '/attestation/v3')).toHaveLength(1);
    expect(findOperations('GET', '/persons/p-1/nothing-here')).toHaveLength(0);
    expect(findOperations('POST', '/consent/gdpr/extra')).toHaveLength(0);
  });

  it('parses curl commands with continuations, quotes and JSON bodies', () => {
    const [c] = parseCurls(
      `curl -X PATCH "${API_HOST}/persons/$PERSON_ID" \\\n  -H "Keyway-OrgID: $KEYWAY_ORG_ID" \\\n  -H 'Content-Type: application/json' \\\n  -d '{\n  "active": false\n}'`,
    );
    expect(c?.method).toBe('PATCH');
    expect(c?.url).toBe(`${API_HOST}/persons/$PERSON_ID`);
    expect(c?.headers['keyway-orgid']).toBe('$KEYWAY_ORG_ID');
    expect(JSON.parse(c?.data ?? '')).toEqual({ active: false });
    expect(parseCurls(`curl -s ${API_HOST}/me -H "Authorization: Bearer $TOKEN" | jq .result`)[0]?.method).toBe('GET');
  });
});

describe('the concepts room', () => {
  it('has exactly one page per concepts route, with index.md for routes that have children', () => {
    expect(roomRoutes).toHaveLength(17);
    expect(pages.map((p) => p.route).sort()).toEqual(roomRoutes);
    for (const r of roomRoutes) {
      const hasChildren = roomRoutes.some((o) => o.startsWith(`${r}/`));
      const p = byRoute.get(r);
      if (hasChildren) expect(p?.rel, r).toMatch(/(^|\/)index\.mdx?$/);
      else expect(p?.rel, r).not.toMatch(/(^|\/)index\.mdx?$/);
    }
  });

  it('has a valid _category_.json in every folder', () => {
    const dirs = [roomDir, ...walk(roomDir).filter((f) => /\.mdx?$/.test(f)).map((f) => path.dirname(f))];
    for (const dir of new Set(dirs)) {
      const file = path.join(dir, '_category_.json');
      expect(fs.existsSync(file), file).toBe(true);
      const cat = JSON.parse(fs.readFileSync(file, 'utf8')) as { label?: unknown; position?: unknown };
      expect(typeof cat.label, file).toBe('string');
      expect(typeof cat.position, file).toBe('number');
    }
  });

  it('gives every page title, sidebar_label, a one-sentence description and a unique sidebar_position', () => {
    const positions = new Map<string, unknown[]>();
    for (const p of pages) {
      const { title, sidebar_label, description, sidebar_position } = p.data;
      expect(typeof title === 'string' && title.length > 3, `${p.rel} title`).toBe(true);
      expect(typeof sidebar_label === 'string' && sidebar_label.length <= 30, `${p.rel} sidebar_label`).toBe(true);
      expect(typeof description, `${p.rel} description`).toBe('string');
      expect(String(description), `${p.rel} description is one sentence`).toMatch(/^[A-Z][^]*[^.]\.$/);
      expect(String(description).split(/\.\s+[A-Z]/).length, `${p.rel} description is one sentence`).toBe(1);
      expect(Number.isInteger(sidebar_position), `${p.rel} sidebar_position`).toBe(true);
      const dir = path.dirname(p.file);
      positions.set(dir, [...(positions.get(dir) ?? []), sidebar_position]);
    }
    for (const [dir, list] of positions) expect(new Set(list).size, dir).toBe(list.length);
  });

  it('compiles every page and keeps headings unique, with the title as the only H1', () => {
    for (const p of pages) {
      expect(p.headings.filter((h) => h.depth === 1), p.rel).toEqual([]);
      const slugs = p.headings.map((h) => h.slug);
      expect(slugs.filter((s, i) => slugs.indexOf(s) !== i), `${p.rel} duplicate headings`).toEqual([]);
      expect(p.headings.length, `${p.rel} has sections`).toBeGreaterThanOrEqual(3);
    }
  });

  it('has at least 300 words of prose outside code on every page', () => {
    if (process.env.SHOW_WORDS) console.log(pages.map((p) => `${p.words}\t${p.rel}`).join('\n'));
    for (const p of pages) expect(p.words, `${p.rel} prose words`).toBeGreaterThanOrEqual(300);
  });

  it('never uses banned wording or an unreplaced {product}', () => {
    for (const p of pages) {
      expect(p.raw.match(BANNED)?.[0], p.rel).toBeUndefined();
      expect(p.raw, p.rel).not.toContain('{product}');
    }
  });

  it('links only to routes that exist, and to headings that exist on our own pages', () => {
    for (const p of pages) {
      for (const link of p.links) {
        const [target = '', anchor] = link.split('#');
        let route: string;
        if (/^[a-z]+:/i.test(target)) throw new Error(`${p.rel}: external link ${link} (link only to site routes)`);
        if (target === '') route = p.route;
        else if (target.startsWith('/')) route = target.replace(/\/$/, '');
        else {
          expect(target, `${p.rel}: relative links must name a .md file`).toMatch(/\.mdx?$/);
          const file = path.resolve(path.dirname(p.file), target);
          expect(fs.existsSync(file), `${p.rel}: ${link} (no such file)`).toBe(true);
          route = routeOf(file);
        }
        expect(allRoutes.has(route) || byRoute.has(route), `${p.rel}: ${link} is not a route`).toBe(true);
        const own = byRoute.get(route);
        if (anchor && own) expect(own.headings.map((h) => h.slug), `${p.rel}: ${link} (no such heading)`).toContain(anchor);
      }
    }
  });

  it('links every page to at least two other pages (next steps)', () => {
    for (const p of pages) {
      const others = new Set(p.links.map((l) => l.split('#')[0]).filter((l) => l && !l.startsWith('#')));
      expect(others.size, p.rel).toBeGreaterThanOrEqual(2);
    }
  });
});

describe('accuracy against the spec', () => {
  it('cites only REST operations that the API offers', () => {
    const cited = /\b(GET|POST|PUT|PATCH|DELETE) (\/[A-Za-z0-9_\-{}./]*)/g;
    for (const p of pages) {
      const texts = [p.prose, ...p.inlineCode, ...p.code.filter((c) => c.lang !== 'http').map((c) => c.value)];
      for (const t of texts) {
        for (const m of t.matchAll(cited)) {
          const [, method = '', urlPath = ''] = m;
          const clean = urlPath.replace(/[.,]$/, '').split('?')[0] ?? '';
          expect(findOperations(method, clean).length, `${p.rel}: ${method} ${clean}`).toBeGreaterThan(0);
        }
      }
    }
  });

  it('writes every curl request against the local server with the right headers and a valid body', () => {
    let count = 0;
    for (const p of pages) {
      for (const block of p.code.filter((c) => ['bash', 'sh', 'shell'].includes(c.lang))) {
        for (const c of parseCurls(block.value)) {
          count++;
          const where = `${p.rel}: ${c.text.slice(0, 90)}`;
          expect(c.url.startsWith(`${API_HOST}/`), `${where} (host)`).toBe(true);
          const urlPath = c.url.slice(API_HOST.length).split('?')[0] ?? '';
          const ops = findOperations(c.method, urlPath);
          expect(ops.length, `${where} (${c.method} ${urlPath} is not an API operation)`).toBeGreaterThan(0);
          const bearer = /^Bearer \$[A-Z_]+$/.test(c.headers.authorization ?? '');
          const management = c.headers['keyway-orgid'] === '$KEYWAY_ORG_ID' && c.headers['keyway-api-key'] === '$KEYWAY_API_KEY';
          const anonymous = urlPath === '/persons/anonymous' && c.headers['keyway-orgid'] === '$KEYWAY_ORG_ID';
          // Where api/openapi.yaml already describes the operation, its security schemes decide (next test).
          if (openapiOperation(c.method, urlPath)) {
            /* checked against openapi.yaml */
          } else if (ops.every((o) => o.person && !o.management)) expect(bearer || anonymous, `${where} (person call needs a bearer token)`).toBe(true);
          else if (ops.every((o) => o.management && !o.person)) expect(management, `${where} (management call needs org id and API key)`).toBe(true);
          else expect(bearer || management, `${where} (credentials)`).toBe(true);
          if (bearer) expect(c.headers['keyway-api-key'], `${where} (never mix an API key into a person call)`).toBeUndefined();
          if (c.data !== undefined) {
            expect(c.headers['content-type'], `${where} (content type)`).toBe('application/json');
            expect(() => JSON.parse(c.data ?? ''), `${where} (body is JSON)`).not.toThrow();
          }
          const consistency = c.headers['keyway-required-consistency'];
          if (consistency !== undefined) expect(CONSISTENCY_VALUES, where).toContain(consistency);
          const timeout = c.headers['keyway-required-consistency-timeout'];
          if (timeout !== undefined) expect(timeout, `${where} (timeout in seconds)`).toMatch(/^\d+$/);
        }
      }
    }
    expect(count, 'the concepts pages show real requests').toBeGreaterThanOrEqual(15);
  });

  it.skipIf(!openapi)('matches api/openapi.yaml wherever it describes the operation: credentials, request bodies and responses', () => {
    const SCHEME_HEADER: Record<string, (c: Curl) => boolean> = {
      OrgId: (c) => c.headers['keyway-orgid'] !== undefined,
      ApiKey: (c) => c.headers['keyway-api-key'] !== undefined,
      UserToken: (c) => /^Bearer \S+$/.test(c.headers.authorization ?? ''),
      OAuth2AccessToken: (c) => /^Bearer \S+$/.test(c.headers.authorization ?? ''),
      ClientBasic: (c) => /^Basic \S+$/.test(c.headers.authorization ?? '') || c.text.includes(' -u '),
    };
    let requests = 0;
    let responses = 0;
    for (const p of pages) {
      let last: { curl: Curl; op: OpenApiOperation } | undefined;
      for (const block of p.code) {
        if (['bash', 'sh', 'shell'].includes(block.lang)) {
          const curls = parseCurls(block.value);
          last = undefined;
          for (const c of curls) {
            const urlPath = c.url.slice(API_HOST.length).split('?')[0] ?? '';
            const found = openapiOperation(c.method, urlPath);
            if (!found) continue;
            requests++;
            const where = `${p.rel}: ${c.method} ${found.template}`;
            const security = found.op.security ?? [];
            if (security.length)
              expect(
                security.some((req) => Object.keys(req).every((scheme) => SCHEME_HEADER[scheme]?.(c) ?? false)),
                `${where} sends credentials matching one of ${JSON.stringify(security)}`,
              ).toBe(true);
            expect(checkQuery(found.op, c.url), `${where} query`).toEqual([]);
            // Consistency headers only where the operation declares them (they make no sense on reads).
            const declaresConsistency = (found.op.parameters ?? []).some((prm) => prm.$ref?.endsWith('/RequiredConsistency') || prm.name === 'Keyway-Required-Consistency');
            if (c.headers['keyway-required-consistency'] !== undefined || c.headers['keyway-required-consistency-timeout'] !== undefined)
              expect(declaresConsistency, `${where} does not take the consistency headers`).toBe(true);
            const bodySchema = found.op.requestBody?.content?.['application/json']?.schema;
            if (c.data !== undefined && bodySchema) {
              const body = JSON.parse(c.data.replace(/\$[A-Z_]+/g, (v) => (v.endsWith('TOKEN') ? 'eyJhbGciOiJFUzI1NiJ9.eyJ9.c2ln' : 'sample'))) as unknown;
              expect(validate(bodySchema, body), `${where} request body`).toEqual([]);
            }
            if (curls.length === 1) last = { curl: c, op: found.op };
          }
        } else if (block.lang === 'json' && /title="Response/.test(block.meta) && last) {
          const value = JSON.parse(block.value) as Record<string, unknown>;
          const where = `${p.rel}: response of ${last.curl.method} ${last.curl.url}`;
          const schema = 'errors' in value ? { $ref: '#/components/schemas/ErrorResponse' } : successSchema(last.op);
          if (schema) {
            responses++;
            expect(validate(schema, value), where).toEqual([]);
          }
          if ('errors' in value) expect('result' in value, `${where}: an error answer has no result`).toBe(false);
        }
      }
    }
    // Token claims and analytics events shown on their own follow the component schemas too.
    for (const p of pages) {
      for (const block of p.code.filter((c) => c.lang === 'json')) {
        const value = JSON.parse(block.value) as Record<string, unknown>;
        const where = `${p.rel}: ${block.meta}`;
        if ('person_id' in value && 'oid' in value) {
          responses++;
          expect(validate({ $ref: '#/components/schemas/TokenClaims' }, value), where).toEqual([]);
        }
        if ('event_name' in value) {
          responses++;
          expect(validate({ $ref: '#/components/schemas/AnalyticsEvent' }, value), where).toEqual([]);
        }
      }
    }
    expect(requests, 'requests checked against openapi.yaml').toBeGreaterThan(0);
    expect(responses, 'responses checked against openapi.yaml').toBeGreaterThan(0);
  });

  it('uses only the Keyway header names, event names, bucket names and consistency values of the spec', () => {
    for (const p of pages) {
      for (const m of p.raw.matchAll(/\bKeyway-[A-Za-z-]+/g)) expect(KEYWAY_HEADERS, p.rel).toContain(m[0]);
      for (const m of p.raw.matchAll(/\b[A-Z][A-Za-z]+_v\d+\b/g)) expect(EVENTS, p.rel).toContain(m[0]);
      for (const m of p.raw.matchAll(/(?:person_pool-)?end_user_[a-z_]+/g)) expect(BUCKETS, p.rel).toContain(m[0]);
      for (const m of p.raw.matchAll(/Keyway-Required-Consistency:\s*"?([a-z_]+)/g)) expect(CONSISTENCY_VALUES, p.rel).toContain(m[1]);
      expect(p.raw, `${p.rel}: the default groups claim is named groups`).not.toMatch(/groups_claim_name[^.\n]*default[^.\n]*`(?!groups`)[a-z_]+`/);
    }
  });

  it('shows JSON that parses, responses in the API envelope and token examples with real claims', () => {
    let responses = 0;
    for (const p of pages) {
      for (const block of p.code.filter((c) => c.lang === 'json')) {
        const where = `${p.rel}: ${block.meta || block.value.slice(0, 60)}`;
        let value: unknown;
        expect(() => (value = JSON.parse(block.value)), where).not.toThrow();
        if (value && typeof value === 'object' && ('result' in value || 'errors' in value)) {
          // The API envelope: result, errors[{httpcode,message}] when something went wrong, and
          // meta.pagination{limit,offset,total_count} on every list answer.
          responses++;
          const env = value as { result?: unknown; errors?: unknown; meta?: { pagination?: Record<string, unknown> } };
          expect(Object.keys(env).filter((k) => !['result', 'errors', 'meta'].includes(k)), `${where} envelope keys`).toEqual([]);
          if (env.errors !== undefined) {
            expect(Array.isArray(env.errors), `${where} errors[]`).toBe(true);
            for (const e of env.errors as { httpcode?: unknown; message?: unknown }[]) {
              expect(typeof e.httpcode, `${where} errors[].httpcode`).toBe('number');
              expect(typeof e.message, `${where} errors[].message`).toBe('string');
            }
          }
          if (Array.isArray(env.result) || env.meta !== undefined)
            for (const k of ['limit', 'offset', 'total_count']) expect(typeof env.meta?.pagination?.[k], `${where} meta.pagination.${k}`).toBe('number');
        }
        if (value && typeof value === 'object' && 'person_id' in value && 'oid' in value) {
          const claims = value as Record<string, unknown>;
          for (const k of Object.keys(claims)) expect([...TOKEN_CLAIMS, ...JWT_REGISTERED, 'user_token'], `${where} claim ${k}`).toContain(k);
          for (const m of (claims.authenticated_methods as string[] | undefined) ?? []) expect(AUTHN_METHODS, where).toContain(m);
        }
        if (value && typeof value === 'object' && 'event_data' in value) {
          for (const k of EVENT_ENVELOPE) expect(Object.keys(value), `${where} event envelope`).toContain(k);
        }
      }
    }
    expect(responses, 'the concepts pages show real responses').toBeGreaterThanOrEqual(5);
  });

  it('type-checks every TypeScript sample against the installed packages', () => {
    const blocks = pages.flatMap((p) =>
      p.code
        .filter((c) => ['ts', 'tsx', 'typescript'].includes(c.lang))
        .map((c, i) => ({ name: `${p.rel.replace(/[^a-z0-9]+/gi, '_')}_${i}`, source: c.value })),
    );
    expect(blocks.length, 'the concepts pages include TypeScript samples').toBeGreaterThanOrEqual(2);
    expect(typeCheck(blocks)).toEqual([]);
  }, 120_000);

  it('explains token containers with every claim of the model', () => {
    const p = page('token-containers');
    for (const k of [...TOKEN_CLAIMS, 'groups_claim_name', 'user_token']) expect(p.raw, k).toContain(`\`${k}\``);
  });

  it('explains anonymous persons as person_type anonymous created by POST /persons/anonymous', () => {
    const p = page('anonymous-persons');
    expect(p.raw).toContain('POST /persons/anonymous');
    expect(p.raw).toMatch(/`person_type`[^\n]*`anonymous`/);
    expect(p.prose).toMatch(/never[^.]*authenticated/i);
  });

  it('documents all six attribute buckets, the default and the endpoints that read and write them', () => {
    const p = page('attribute-buckets');
    for (const b of BUCKETS) expect(p.raw, b).toContain(`\`${b}\``);
    expect(p.prose).toMatch(/default/i);
    for (const op of ['GET /attributes', 'PATCH /attributes/{bucket_name}', 'GET /organizations/attribute-buckets', 'PUT /persons/{person_id}/attributes/{bucket_name}'])
      expect(p.raw, op).toContain(op);
  });

  it('describes every organization hierarchy entry field on the suborganizations page', () => {
    const p = page('suborganizations');
    for (const f of HIERARCHY_FIELDS) expect(p.raw, f).toContain(`\`${f}\``);
    for (const op of ['GET /me/orgs', 'POST /organizations/suborganizations', 'GET /organizations/suborganizations']) expect(p.raw, op).toContain(op);
  });

  it('defines every analytics event with its envelope, payload fields and failure reasons', () => {
    const p = page('events/event_definitions');
    const headingTexts = p.headings.map((h) => h.text);
    for (const e of EVENTS) expect(headingTexts, e).toContain(e);
    for (const f of [...EVENT_ENVELOPE, ...SUCCESS_FIELDS, ...FAILURE_FIELDS, ...FAILURE_SLUGS]) expect(p.raw, f).toContain(`\`${f}\``);
    const overview = page('events');
    for (const e of EVENTS) expect(overview.raw, e).toContain(e);
    expect(overview.raw).toContain('POST /events');
  });

  it('explains both consistency headers and their values on the replication page', () => {
    const p = page('replication');
    for (const h of ['Keyway-Required-Consistency', 'Keyway-Required-Consistency-Timeout', ...CONSISTENCY_VALUES]) expect(p.raw, h).toContain(h);
    expect(p.raw).toMatch(/\b408\b/);
  });

  it('tells how to verify sync hooks with the webhook verification keys', () => {
    const p = page('sync-hooks');
    expect(p.raw).toContain('/organizations/webhooks/verification-jwks');
    expect(p.raw).toContain('POST /organizations/webhooks/{webhook_id}/triggers');
    expect(p.code.some((c) => c.lang === 'ts' && c.value.includes('jwtVerify'))).toBe(true);
  });

  it('gives every compliance regime a page that is not legal advice and maps Keyway features to it', () => {
    const index = page('data-protection-compliance');
    for (const r of REGIMES) {
      expect(index.links.some((l) => l.replace(/\.md$/, '').endsWith(r)), `index links ${r}`).toBe(true);
      const p = page(`data-protection-compliance/${r}`);
      expect(p.prose, `${r} disclaimer`).toMatch(/not legal advice/i);
      for (const feature of ['DELETE /persons/{person_id}', 'GET /persons/{person_id}/attributes']) expect(p.raw, `${r}: ${feature}`).toContain(feature);
      expect(p.raw, `${r}: consent`).toMatch(/\/consent\/gdpr/);
      for (const link of ['attribute-buckets', 'encryption', 'replication', 'events']) {
        expect(p.links.some((l) => l.includes(link)), `${r} links ${link}`).toBe(true);
      }
    }
    expect(index.prose).toMatch(/not legal advice/i);
  });
});

// ---------------------------------------------------------------------------------------------
// Samples marked `runnable` (```bash title="…" runnable) run against the local identity server,
// started in-process from packages/identity-server on a free port with a throw-away database.
// Each request gets a fresh anonymous person: $TOKEN is its user token, $PERSON_ID its id.
// ---------------------------------------------------------------------------------------------
type LiveServer = { url: string; orgId: string; close(): Promise<void> };
type ServerModule = { startIdentityServer(o: Record<string, unknown>): Promise<LiveServer>; DEFAULT_DEV_API_KEY: string };
const serverEntry = path.resolve(siteDir, '..', 'packages', 'identity-server', 'src', 'index.ts');

describe('runnable samples against the local identity server', () => {
  let server: LiveServer | undefined;
  let apiKey = '';
  let dataDir = '';
  let startError = '';

  beforeAll(async () => {
    try {
      const mod = (await import(/* @vite-ignore */ serverEntry)) as ServerModule;
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-concepts-'));
      server = await mod.startIdentityServer({ port: 0, dataDir, devMode: true, logger: false });
      apiKey = mod.DEFAULT_DEV_API_KEY;
    } catch (err) {
      startError = (err as Error).stack ?? String(err);
    }
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function anonymousPerson(live: LiveServer): Promise<{ token: string; personId: string }> {
    const res = await fetch(`${live.url}/persons/anonymous`, {
      method: 'POST',
      headers: { 'Keyway-OrgID': live.orgId, 'Content-Type': 'application/json' },
      body: '{}',
    });
    const body = (await res.json()) as { result?: { token?: string } };
    const token = body.result?.token ?? '';
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { person_id?: string };
    return { token, personId: claims.person_id ?? '' };
  }

  it('runs every runnable request and gets the documented status and result fields', async () => {
    expect(startError, 'the identity server starts').toBe('');
    const live = server as LiveServer;
    let ran = 0;
    for (const p of pages) {
      for (const [i, block] of p.code.entries()) {
        if (!/\brunnable\b/.test(block.meta)) continue;
        expect(['bash', 'sh', 'shell'], `${p.rel}: only shell blocks are runnable`).toContain(block.lang);
        const next = p.code[i + 1];
        const documented =
          next?.lang === 'json' && /title="Response/.test(next.meta) ? (JSON.parse(next.value) as { result?: unknown; errors?: { httpcode: number }[] }) : undefined;
        const curls = parseCurls(block.value);
        expect(curls.length, `${p.rel}: a runnable block holds requests`).toBeGreaterThan(0);
        for (const c of curls) {
          const person = await anonymousPerson(live);
          const vars: Record<string, string> = { KEYWAY_ORG_ID: live.orgId, KEYWAY_API_KEY: apiKey, TOKEN: person.token, PERSON_ID: person.personId };
          const fill = (s: string) =>
            s.replace(/\$\{?([A-Z_]+)\}?/g, (m, name: string) => {
              if (!(name in vars)) throw new Error(`${p.rel}: runnable sample uses unknown variable ${m}`);
              return vars[name] ?? '';
            });
          const headers = Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k, fill(v)]));
          const res = await fetch(fill(c.url).replace(API_HOST, live.url), {
            method: c.method,
            headers,
            ...(c.data === undefined ? {} : { body: fill(c.data) }),
          });
          const text = await res.text();
          const where = `${p.rel}: ${c.method} ${c.url} answered ${res.status} ${text.slice(0, 300)}`;
          ran++;
          const expectedStatus = documented?.errors?.[0]?.httpcode;
          if (expectedStatus !== undefined) expect(res.status, where).toBe(expectedStatus);
          else expect(res.status >= 200 && res.status < 300, where).toBe(true);
          if (curls.length === 1 && documented?.result && typeof documented.result === 'object' && !Array.isArray(documented.result)) {
            const actual = (JSON.parse(text) as { result?: Record<string, unknown> }).result ?? {};
            for (const key of Object.keys(documented.result)) expect(Object.keys(actual), `${where}: documented result field ${key}`).toContain(key);
          }
        }
      }
    }
    expect(ran, 'runnable samples executed').toBeGreaterThanOrEqual(10);
  }, 120_000);
});
