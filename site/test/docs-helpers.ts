// Shared helpers of the docs tests (site/test/*-docs.test.ts): the spec routes and REST operations,
// api/openapi.yaml validation, reading pages the way Docusaurus compiles them, curl parsing, type-checking
// TypeScript samples against the installed packages, and the in-process identity server entry.
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
import { CONTRACT_PATH, loadContract } from '@keyway/api';
import { DEFAULT_DEV_API_KEY } from '@keyway/identity-server';
import { startTestIdentityServer, type TestServerOptions, type TestServer } from '@keyway/identity-server/testing';

// ---------------------------------------------------------------------------------------------
// Locations and the spec
// ---------------------------------------------------------------------------------------------
export const here = path.dirname(fileURLToPath(import.meta.url));
export const siteDir = path.resolve(here, '..');
export const docsDir = path.join(siteDir, 'docs');
/** The repository's copy of the specification (spec/, kept equal to ../shared/spec by site/test/spec-copy.test.ts). */
export const specDir = process.env.KEYWAY_SPEC_DIR ?? path.resolve(siteDir, '..', 'spec');

export const routesTxt = fs.readFileSync(path.join(specDir, 'routes.txt'), 'utf8');
export const allRoutes = new Set(
  routesTxt
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('/'))
    .map((l) => l.split(/\s+/)[0] ?? ''),
);

// ---------------------------------------------------------------------------------------------
// The model the pages must agree with (names copied from product-spec.md sections 3, 7 and 8)
// ---------------------------------------------------------------------------------------------
export const BUCKETS = [
  'end_user_read_write',
  'end_user_read_only',
  'end_user_no_access',
  'person_pool-end_user_read_write',
  'person_pool-end_user_read_only',
  'person_pool-end_user_no_access',
];
export const EVENTS = [
  'AuthenticationSucceeded_v1',
  'AuthenticationFailed_v1',
  'PersonIdentified_v1',
  'PersonLoggedOut_v1',
  'KeywaySDKLoaded_v1',
  'VirtualPageLoaded_v1',
];
export const EVENT_ENVELOPE = ['organization_id', 'analytics_correlation_id', 'window_location', 'user_agent', 'event_data'];
export const SUCCESS_FIELDS = ['person_id', 'success_authn_method', 'authenticated_methods', 'handle'];
export const FAILURE_FIELDS = ['failed_authn_method', 'failure_reason', 'failure_detail', 'handle', 'challenge_id', 'person_id'];
export const FAILURE_SLUGS = [
  'incorrect_otp_code_via_email',
  'incorrect_otp_code_via_sms',
  'incorrect_otp_code',
  'invalid_password',
  'incorrect_password',
  'recovery_failed',
  'oidc_popup_blocked',
  'client_side_error',
];
export const AUTHN_METHODS = [
  'webauthn', 'email_link', 'sms_link', 'otp_via_sms', 'otp_via_email', 'totp', 'oidc', 'saml', 'api',
  'direct_id', 'password', 'impersonate', 'anonymous',
];
export const TOKEN_CLAIMS = ['person_id', 'oid', 'first_token', 'authenticated_methods', 'authentications', 'person_type', 'groups'];
// Registered JWT claims a token example may show next to Keyway's own claims.
export const JWT_REGISTERED = ['iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti'];
export const HIERARCHY_FIELDS = [
  'id', 'parent_id', 'name', 'tenant_name', 'children_ids', 'person_pool_orgs_ids', 'group_pool_orgs_ids',
  'manager_org_id', 'person_in_manager_org', 'inherits_rbac_pools',
];
export const KEYWAY_HEADERS = [
  'Keyway-OrgID', 'Keyway-API-Key', 'Keyway-SdkVersion', 'Keyway-Required-Consistency',
  'Keyway-Required-Consistency-Timeout',
];
export const CONSISTENCY_VALUES = ['local_region', 'all_regions'];
export const API_HOST = 'http://localhost:8787';
export const REGIMES = ['aus-privacy', 'ccpa', 'gdpr', 'glba', 'hipaa', 'japan-privacy', 'south-korea-privacy'];
/**
 * Pages an issue asked for that the route contract does not name, each with its issue (README: "Pages beyond the route
 * contract"). They are pages like the others: links may point to them, and their room's test checks them.
 */
export const PAGES_BEYOND_CONTRACT = [
  '/docs/access/concepts/handle-proofs', // #36: the handle-proof model, for integrators
];

export const BANNED = /\b(TODO|TBD|lorem ipsum|coming soon|being written|placeholder)\b/i;

// ---------------------------------------------------------------------------------------------
// The REST operations we may cite: api-operations.md (which also lists the SDK calls of spec §7)
// ---------------------------------------------------------------------------------------------
export type Operation = { method: string; template: string; re: RegExp; person: boolean; management: boolean };
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export function templateRegExp(template: string): RegExp {
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
export const operations = parseOperations(fs.readFileSync(path.join(specDir, 'api-operations.md'), 'utf8'));

export function findOperations(method: string, urlPath: string): Operation[] {
  return operations.filter((o) => o.method === method && o.re.test(urlPath));
}

// ---------------------------------------------------------------------------------------------
// api/openapi.yaml, the single source of truth of the REST API: where it already describes an
// operation we show, our requests and responses must validate against it.
// ---------------------------------------------------------------------------------------------
export type SecurityRequirement = Record<string, string[]>;
export type OpenApiParameter = { $ref?: string; name?: string; in?: string; schema?: { type?: string } };
export type OpenApiOperation = {
  security?: SecurityRequirement[];
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }>;
};
export type OpenApi = { paths?: Record<string, Record<string, OpenApiOperation>>; components?: Record<string, Record<string, unknown>> };

export const openapiFile = CONTRACT_PATH;
export function loadOpenApi(): OpenApi | undefined {
  try {
    return loadContract().doc as unknown as OpenApi;
  } catch (err) {
    console.warn(`api/openapi.yaml not usable, schema checks skipped: ${(err as Error).message}`);
    return undefined;
  }
}
export const openapi = loadOpenApi();
export const OPENAPI_ID = 'https://keyway.example/openapi.json';
// ajv and ajv-formats are CommonJS modules whose default export arrives as `.default` under some loaders.
export const interop = <T>(m: T): T => (m as T & { default?: T }).default ?? m;
export const ajv = new (interop(Ajv2020))({ strict: false, allErrors: true });
interop(addFormats)(ajv);
if (openapi) ajv.addSchema({ ...openapi, $id: OPENAPI_ID } as object);

/** The operation of openapi.yaml that serves METHOD PATH, if the spec describes it already. */
export function openapiOperation(method: string, urlPath: string): { template: string; op: OpenApiOperation } | undefined {
  for (const [template, item] of Object.entries(openapi?.paths ?? {})) {
    const op = item[method.toLowerCase()];
    if (op && templateRegExp(template).test(urlPath)) return { template, op };
  }
  return undefined;
}

export function schemaRef(schema: unknown): object {
  // Rebase local "#/components/..." references onto the registered OpenAPI document.
  const json = JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${OPENAPI_ID}#/`);
  return JSON.parse(json) as object;
}

export function validate(schema: unknown, value: unknown): string[] {
  const check = ajv.compile(schemaRef(schema));
  return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** The query parameters an operation declares, with $refs resolved. */
export function queryParameters(op: OpenApiOperation): Map<string, OpenApiParameter> {
  const out = new Map<string, OpenApiParameter>();
  for (const p of op.parameters ?? []) {
    const param = p.$ref ? (openapi?.components?.parameters?.[p.$ref.split('/').pop() ?? ''] as OpenApiParameter | undefined) : p;
    if (param?.in === 'query' && param.name) out.set(param.name, param);
  }
  return out;
}

/** Checks the query string of URL against the operation: known names, values valid for their schema. */
export function checkQuery(op: OpenApiOperation, url: string): string[] {
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

export function successSchema(op: OpenApiOperation): unknown {
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
export type MdNode = {
  type: string;
  depth?: number;
  url?: string;
  lang?: string | null;
  meta?: string | null;
  value?: string;
  name?: string;
  children?: MdNode[];
};
export type Page = {
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

export function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

export function routeOf(file: string): string {
  const rel = path.relative(docsDir, file).replace(/\\/g, '/').replace(/\.mdx?$/, '');
  return `/docs/${rel.replace(/(^|\/)index$/, '')}`.replace(/\/$/, '');
}

export function textOf(node: MdNode): string {
  if (node.type === 'text') return node.value ?? '';
  if (node.type === 'inlineCode') return node.value ?? '';
  return (node.children ?? []).map(textOf).join('');
}

// Words a reader sees as prose: text nodes outside fenced and inline code (the same rule as
// /work/shared/tools/check-routes.mjs, which strips <pre> and <code> from the built page).
export function proseOf(tree: MdNode): string {
  const parts: string[] = [];
  visit(tree as never, (node: MdNode) => {
    if (node.type === 'text') parts.push(node.value ?? '');
    if (node.type === 'textDirective' || node.type === 'leafDirective') parts.push(`:${node.name ?? ''}`);
  });
  return parts.join(' ');
}

export async function readPage(file: string, roomDir: string): Promise<Page> {
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
export type Curl = { method: string; url: string; headers: Record<string, string>; data?: string; user?: string; text: string };

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
    let user: string | undefined;
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
      else if (w === '-u' || w === '--user') user = words[++i] ?? '';
      else if (['-o', '--output', '-w', '--write-out', '--max-time'].includes(w)) i++;
    }
    if (!method) method = data === undefined ? 'GET' : 'POST';
    curls.push({ method, url, headers, text: cmd.trim(), ...(data === undefined ? {} : { data }), ...(user === undefined ? {} : { user }) });
  }
  return curls;
}

// ---------------------------------------------------------------------------------------------
// TypeScript samples: compile in memory next to this file so that imports resolve from site/
// ---------------------------------------------------------------------------------------------
// With `docusaurus: true` the samples are React components of a Docusaurus site: TSX, resolved the way
// the site's bundler resolves them, with the `@theme/*` and `@docusaurus/*` module declarations.
export function typeCheck(blocks: { name: string; source: string }[], { docusaurus = false } = {}): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: docusaurus ? ts.ModuleKind.ESNext : ts.ModuleKind.NodeNext,
    moduleResolution: docusaurus ? ts.ModuleResolutionKind.Bundler : ts.ModuleResolutionKind.NodeNext,
    ...(docusaurus ? { jsx: ts.JsxEmit.ReactJSX } : {}),
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: docusaurus ? ['node', '@docusaurus/module-type-aliases', '@docusaurus/theme-classic'] : ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    isolatedModules: true,
    verbatimModuleSyntax: true,
  };
  const virtual = new Map(blocks.map((b) => [path.join(here, '__samples__', `${b.name}.${docusaurus ? 'tsx' : 'mts'}`), b.source]));
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => virtual.has(f) || fileExists.call(host, f);
  // The samples' folder exists only in memory; samples may import each other from it.
  const samplesDir = path.join(here, '__samples__');
  const { directoryExists } = host;
  // Samples named with folders (`app/routes/login`) live in in-memory subfolders of it.
  const virtualDir = (d: string) => d === samplesDir || (d.startsWith(samplesDir + path.sep) && [...virtual.keys()].some((f) => f.startsWith(d + path.sep)));
  host.directoryExists = (d) => virtualDir(d) || (directoryExists?.call(host, d) ?? fs.existsSync(d));
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
// The local identity server, started in-process by the runnable-sample tests
// ---------------------------------------------------------------------------------------------
export type LiveServer = { url: string; orgId: string; close(): Promise<void> };

// ---------------------------------------------------------------------------------------------
// Page checks shared by the docs tests; each returns the problems it found (empty when all is well)
// ---------------------------------------------------------------------------------------------

/** Every folder needs a `_category_.json` with a string `label` and a numeric `position`. */
export function categoryProblems(dirs: Iterable<string>): string[] {
  const problems: string[] = [];
  for (const dir of new Set(dirs)) {
    const file = path.join(dir, '_category_.json');
    if (!fs.existsSync(file)) {
      problems.push(`${file} is missing`);
      continue;
    }
    const cat = JSON.parse(fs.readFileSync(file, 'utf8')) as { label?: unknown; position?: unknown };
    if (typeof cat.label !== 'string') problems.push(`${file}: label is not a string`);
    if (typeof cat.position !== 'number') problems.push(`${file}: position is not a number`);
  }
  return problems;
}

/** Front matter: a title, a short sidebar_label, a one-sentence description, an integer sidebar_position unique in its folder. */
export function frontMatterProblems(pages: Page[]): string[] {
  const problems: string[] = [];
  const positions = new Map<string, unknown[]>();
  for (const p of pages) {
    const { title, sidebar_label, description, sidebar_position } = p.data;
    if (!(typeof title === 'string' && title.length > 3)) problems.push(`${p.rel}: title`);
    if (!(typeof sidebar_label === 'string' && sidebar_label.length <= 30)) problems.push(`${p.rel}: sidebar_label missing or longer than 30`);
    if (typeof description !== 'string' || !/^[A-Z][^]*[^.]\.$/.test(description) || description.split(/\.\s+[A-Z]/).length !== 1)
      problems.push(`${p.rel}: description is not one sentence`);
    if (!Number.isInteger(sidebar_position)) problems.push(`${p.rel}: sidebar_position is not an integer`);
    const dir = path.dirname(p.file);
    positions.set(dir, [...(positions.get(dir) ?? []), sidebar_position]);
  }
  for (const [dir, list] of positions) if (new Set(list).size !== list.length) problems.push(`${dir}: sidebar_position repeats`);
  return problems;
}

/** Headings: the title is the only H1 (none in the body), and no two headings share an anchor. */
export function headingProblems(p: Page): string[] {
  const slugs = p.headings.map((h) => h.slug);
  return [
    ...p.headings.filter((h) => h.depth === 1).map((h) => `${p.rel}: a second H1 "${h.text}"`),
    ...slugs.filter((s, i) => slugs.indexOf(s) !== i).map((s) => `${p.rel}: duplicate heading #${s}`),
  ];
}

/**
 * Links: only to routes of routes.txt or pages of `byRoute` (absolute, or relative .md files that exist), never external;
 * anchors into pages of `byRoute` must name one of their headings.
 */
export function linkProblems(p: Page, byRoute: Map<string, Page>): string[] {
  const problems: string[] = [];
  for (const link of p.links) {
    const [target = '', anchor] = link.split('#');
    let route = p.route;
    if (/^[a-z]+:/i.test(target)) {
      problems.push(`${p.rel}: external link ${link} (link only to site routes)`);
      continue;
    }
    if (target.startsWith('/')) route = target.replace(/\/$/, '');
    else if (target) {
      const file = path.resolve(path.dirname(p.file), target);
      if (!/\.mdx?$/.test(target) || !fs.existsSync(file)) {
        problems.push(`${p.rel}: ${link} (relative links must name an existing .md file)`);
        continue;
      }
      route = routeOf(file);
    }
    if (!allRoutes.has(route) && !byRoute.has(route) && !PAGES_BEYOND_CONTRACT.includes(route)) problems.push(`${p.rel}: ${link} is not a route`);
    const own = byRoute.get(route);
    if (anchor && own && !own.headings.some((h) => h.slug === anchor)) problems.push(`${p.rel}: ${link} (no such heading)`);
  }
  return problems;
}

/** How a curl request satisfies each security scheme of api/openapi.yaml. */
export const SCHEME_HEADER: Record<string, (c: Curl) => boolean> = {
  OrgId: (c) => c.headers['keyway-orgid'] !== undefined,
  ApiKey: (c) => c.headers['keyway-api-key'] !== undefined,
  UserToken: (c) => /^Bearer \S+$/.test(c.headers.authorization ?? ''),
  OAuth2AccessToken: (c) => /^Bearer \S+$/.test(c.headers.authorization ?? ''),
  ClientBasic: (c) => /^Basic \S+$/.test(c.headers.authorization ?? '') || c.user !== undefined,
};

/** A fresh anonymous person of the live server: its token and person id. */
export async function anonymousPerson(live: LiveServer): Promise<{ token: string; personId: string }> {
  const res = await fetch(`${live.url}/persons/anonymous`, {
    method: 'POST',
    headers: { 'Keyway-OrgID': live.orgId, 'Content-Type': 'application/json' },
    body: '{}',
  });
  // The answer's result is the anonymous person's token (spec §7).
  const body = (await res.json()) as { result?: string };
  const token = typeof body.result === 'string' ? body.result : '';
  const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { person_id?: string };
  return { token, personId: claims.person_id ?? '' };
}

/**
 * Sends a documented curl request to the live server, with `$NAME` variables filled from `vars` (an unknown variable is an
 * error of the page). Returns the status and the body text.
 */
export async function sendCurl(live: LiveServer, c: Curl, vars: Record<string, string>, where: string): Promise<{ status: number; text: string }> {
  const fill = (s: string) =>
    s.replace(/\$\{?([A-Z_]+)\}?/g, (m, name: string) => {
      if (!(name in vars)) throw new Error(`${where}: runnable sample uses unknown variable ${m}`);
      return vars[name] ?? '';
    });
  const headers = Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k, fill(v)]));
  // curl -u id:secret is HTTP Basic authentication.
  if (c.user !== undefined) headers.authorization = `Basic ${Buffer.from(fill(c.user)).toString('base64')}`;
  const res = await fetch(fill(c.url).replace(API_HOST, live.url), {
    method: c.method,
    headers,
    ...(c.data === undefined ? {} : { body: fill(c.data) }),
  });
  return { status: res.status, text: await res.text() };
}

/** The JSON answer documented right after a code block (a json block titled "Response…"), if any. */
export function documentedAnswer(p: Page, index: number): { result?: unknown; errors?: { httpcode: number }[] } | undefined {
  const next = p.code[index + 1];
  return next?.lang === 'json' && /title="Response/.test(next.meta) ? (JSON.parse(next.value) as { result?: unknown; errors?: { httpcode: number }[] }) : undefined;
}

/** Wording: at least `minWords` words of prose, no banned word, no unreplaced {product}. */
export function wordingProblems(p: Page, minWords = 300): string[] {
  const problems: string[] = [];
  if (p.words < minWords) problems.push(`${p.rel}: ${p.words} words of prose, fewer than ${minWords}`);
  const banned = p.raw.match(BANNED)?.[0];
  if (banned) problems.push(`${p.rel}: banned wording "${banned}"`);
  if (p.raw.includes('{product}')) problems.push(`${p.rel}: unreplaced {product}`);
  return problems;
}

/** The identity server started in-process on a free port with a throw-away database (development mode). */
export interface LocalServer {
  live: TestServer;
  /** Management API key of the seeded organization. */
  apiKey: string;
  /** Stops the server and removes its database. */
  close(): Promise<void>;
}

export async function startLocalServer(options: TestServerOptions = {}): Promise<LocalServer> {
  const live = await startTestIdentityServer({ logger: false, ...options });
  return { live, apiKey: DEFAULT_DEV_API_KEY, close: () => live.stop() };
}

/**
 * Runs every request of the shell blocks marked `runnable` against the local server. Each request gets a fresh anonymous
 * person ($TOKEN, $PERSON_ID) next to $KEYWAY_ORG_ID, $KEYWAY_API_KEY and `extraVars`. A request must answer the status of
 * the documented error (a "Response" block with `errors`) or a 2xx, and the fields of a documented `result` object (or of
 * the first item of a documented list, with `lists`) must be in the real answer. Returns how many ran and what went wrong.
 */
export async function runRunnableSamples(
  pages: Page[],
  local: LocalServer,
  {
    extraVars = {},
    lists = false,
  }: { extraVars?: Record<string, string> | ((person: { token: string; personId: string }) => Record<string, string> | Promise<Record<string, string>>); lists?: boolean } = {},
): Promise<{ ran: number; problems: string[] }> {
  const { live, apiKey } = local;
  const problems: string[] = [];
  let ran = 0;
  for (const p of pages) {
    for (const [i, block] of p.code.entries()) {
      if (!/\brunnable\b/.test(block.meta)) continue;
      if (!['bash', 'sh', 'shell'].includes(block.lang)) problems.push(`${p.rel}: only shell blocks are runnable`);
      const documented = documentedAnswer(p, i);
      const curls = parseCurls(block.value);
      if (curls.length === 0) problems.push(`${p.rel}: a runnable block holds no request`);
      for (const c of curls) {
        const person = await anonymousPerson(live);
        const vars = { ...(typeof extraVars === 'function' ? await extraVars(person) : extraVars), KEYWAY_ORG_ID: live.orgId, KEYWAY_API_KEY: apiKey, TOKEN: person.token, PERSON_ID: person.personId };
        const res = await sendCurl(live, c, vars, p.rel);
        ran++;
        const where = `${p.rel}: ${c.method} ${c.url} answered ${res.status} ${res.text.slice(0, 300)}`;
        const expectedStatus = documented?.errors?.[0]?.httpcode;
        if (expectedStatus !== undefined ? res.status !== expectedStatus : res.status < 200 || res.status >= 300) problems.push(where);
        if (curls.length !== 1 || !documented) continue;
        if (!('result' in documented) && !('errors' in documented)) {
          // A plain JSON answer (OAuth 2.0 endpoints): its fields must be in the real answer, with the same value where the
          // documented one is a boolean (such as the `active` of an introspection).
          const actual = JSON.parse(res.text) as Record<string, unknown>;
          for (const [key, value] of Object.entries(documented as Record<string, unknown>)) {
            if (!(key in actual)) problems.push(`${where}: documented field ${key} is missing`);
            else if (typeof value === 'boolean' && actual[key] !== value) problems.push(`${where}: ${key} is ${String(actual[key])}, documented ${String(value)}`);
          }
          continue;
        }
        if (!documented.result || typeof documented.result !== 'object') continue;
        if (Array.isArray(documented.result) && !lists) continue;
        const first = (v: unknown): Record<string, unknown> => {
          const item: unknown = Array.isArray(v) ? v[0] : v;
          return item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
        };
        const got = first((JSON.parse(res.text) as { result?: unknown }).result);
        for (const key of Object.keys(first(documented.result))) if (!(key in got)) problems.push(`${where}: documented result field ${key} is missing`);
      }
    }
  }
  return { ran, problems };
}

/**
 * Operations a page names ("GET /me/orgs" in prose, inline code or code other than raw HTTP) that `isOperation` does not
 * know. By default an operation is one of api-operations.md.
 */
export function citedOperationProblems(
  p: Page,
  isOperation: (method: string, urlPath: string) => boolean = (method, urlPath) => findOperations(method, urlPath).length > 0,
): string[] {
  const cited = /\b(GET|POST|PUT|PATCH|DELETE) (\/[A-Za-z0-9_\-{}./]*)/g;
  const problems: string[] = [];
  const texts = [p.prose, ...p.inlineCode, ...p.code.filter((c) => c.lang !== 'http').map((c) => c.value)];
  for (const t of texts) {
    for (const [, method = '', urlPath = ''] of t.matchAll(cited)) {
      const clean = urlPath.replace(/[.,]$/, '').split('?')[0] ?? '';
      if (!isOperation(method, clean)) problems.push(`${p.rel}: ${method} ${clean} is not an operation of the API`);
    }
  }
  return problems;
}
