// Checks for the Keyway Gate pages (site/docs/gate/**).
// Every page is parsed and compiled the way Docusaurus reads it and held to the one configuration
// model of site/docs/gate/_reference/options.yaml: every configuration block parses in its format
// and uses only options of the reference with the right types, every environment variable and
// metric named exists in it, and the option tables are renderings of it. Plus the page rules:
// routes, front matter, links, unique headings, prose length and banned wording.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '@mdx-js/mdx';
import matter from 'gray-matter';
import { createSlugger } from '@docusaurus/utils';
import remarkDirective from 'remark-directive';
import remarkGfm from 'remark-gfm';
import rehypeRaw from 'rehype-raw';
import { visit } from 'unist-util-visit';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_HOST, anonymousPerson, parseCurls, sendCurl, shellWords, startLocalServer, type LocalServer } from './docs-helpers';
import {
  checkEnvValue,
  envIndex,
  loadReference,
  markersOf,
  parseConfig,
  parseHcl,
  renderMarker,
  renderPage,
  validateConfig,
  validatePlugins,
} from '../docs/gate/_reference/gate-config.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const siteDir = path.resolve(here, '..');
const docsDir = path.join(siteDir, 'docs');
const roomDir = path.join(docsDir, 'gate');
const specDir = process.env.KEYWAY_SPEC_DIR ?? path.resolve(siteDir, '..', 'spec');
const routesFile = path.join(specDir, 'routes.txt');
const allRoutes = new Set(
  fs
    .readFileSync(routesFile, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('/'))
    .map((l) => l.split(/\s+/)[0] ?? ''),
);
const roomRoutes = [...allRoutes].filter((r) => r.startsWith('/docs/gate/')).sort();

const ref = loadReference();
const ENV = envIndex(ref);
const METRICS = new Set<string>(ref.metrics.map((m: { name: string }) => m.name));
const HISTOGRAMS = new Set<string>(ref.metrics.filter((m: { type: string }) => m.type === 'histogram').map((m: { name: string }) => m.name));
// The Keyway identity server the docs use, and the endpoints of it Gate calls.
// The production API host of the SDK's `environment: 'production'`, which is also the issuer of the tokens it signs.
const ISSUER = 'https://api.keyway.dev';
const IDENTITY_PATHS = new Set([
  '',
  '/',
  '/.well-known/jwks.json',
  '/.well-known/openid-configuration',
  '/token/validate',
  '/oauth2/tokens',
  '/oauth2/tokens/introspect',
  '/oauth2/tokens/revoke',
  '/oauth2/authorize',
]);
const BANNED = /(?<![A-Za-z])(TODO|TBD|lorem ipsum|coming soon|being written|placeholder)(?![A-Za-z])/i;
const CONFIG_LANGS = new Set(['yaml', 'yml', 'json', 'toml', 'hcl']);
// The request values of the templating page.
const TEMPLATE_VALUE = /^(claims\.[A-Za-z0-9_.-]+|claims\.NAME|request\.(method|path|host|id)|request\.headers\.[A-Za-z0-9-]+|client\.ip)$/;

// ---------------------------------------------------------------------------------------------
// Reading the pages
// ---------------------------------------------------------------------------------------------
type Block = { lang: string; meta: string; value: string; line: number };
type Page = {
  file: string;
  rel: string;
  route: string;
  raw: string;
  data: Record<string, unknown>;
  body: string;
  blocks: Block[];
  links: string[];
  headings: string[];
  h1: string[];
  rawHtml: string[];
  prose: string;
};

function listPages(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.mdx?$/.test(f) && !f.split(path.sep).some((p) => p.startsWith('_')))
    .map((f) => path.join(dir, f))
    .sort();
}

function routeOf(file: string): string {
  const rel = path.relative(docsDir, file).replace(/\.mdx?$/, '').split(path.sep).join('/');
  return `/docs/${rel.replace(/(^|\/)index$/, '')}`.replace(/\/$/, '');
}

async function readPage(file: string): Promise<Page> {
  const raw = fs.readFileSync(file, 'utf8');
  const { data, content } = matter(raw);
  const blocks: Block[] = [];
  const links: string[] = [];
  const headings: string[] = [];
  const h1: string[] = [];
  const rawHtml: string[] = [];
  const proseParts: string[] = [];
  const capture = () => (tree: any) => {
    visit(tree, (node: any) => {
      if (node.type === 'code') blocks.push({ lang: node.lang ?? '', meta: node.meta ?? '', value: node.value, line: node.position?.start.line ?? 0 });
      if (node.type === 'link' || node.type === 'definition') links.push(node.url);
      if (node.type === 'heading') headings.push(textOf(node));
      if (node.type === 'heading' && node.depth === 1) h1.push(textOf(node));
      if (node.type === 'html' && !/^<!--[\s\S]*-->$/.test(node.value.trim())) rawHtml.push(node.value);
      if (node.type === 'paragraph' || node.type === 'heading') proseParts.push(textOf(node, true));
    });
  };
  // As Docusaurus compiles it: .md is CommonMark with raw HTML through rehype-raw, .mdx is MDX.
  const md = !file.endsWith('.mdx');
  const passThrough = ['mdxFlowExpression', 'mdxJsxFlowElement', 'mdxJsxTextElement', 'mdxTextExpression', 'mdxjsEsm'];
  await compile({ value: content, path: file }, {
    format: md ? 'md' : 'mdx',
    remarkPlugins: [remarkGfm, remarkDirective, capture],
    rehypePlugins: md ? [[rehypeRaw, { passThrough }]] : [],
  });
  return { file, rel: path.relative(roomDir, file), route: routeOf(file), raw, data, body: content, blocks, links, headings, h1, rawHtml, prose: proseParts.join(' ') };
}

// Text of a node; with `proseOnly`, inline code is left out (paragraphs in lists are visited on their own).
function textOf(node: any, proseOnly = false): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'inlineCode') return proseOnly ? ' ' : node.value;
  return (node.children ?? []).map((c: any) => textOf(c, proseOnly)).join('');
}

const files = listPages(roomDir);
const pages: Page[] = await Promise.all(files.map(readPage));
const byRoute = new Map(pages.map((p) => [p.route, p]));

// Configuration blocks: yaml/json/toml/hcl fences marked `gate-config` (a complete file) or
// `gate-fragment` (a part of one), and YAML Kubernetes manifests marked `gate-configmap` whose
// ConfigMap data keys gate.yaml / gate.json / gate.toml / gate.hcl hold complete files.
type ConfigBlock = { page: Page; block: Block; format: string; text: string; complete: boolean; same?: string };
function configBlocks(page: Page): ConfigBlock[] {
  const out: ConfigBlock[] = [];
  for (const block of page.blocks) {
    const words = block.meta.split(/\s+/);
    const same = words.find((w) => w.startsWith('gate-same='))?.slice('gate-same='.length);
    if (words.includes('gate-config') || words.includes('gate-fragment'))
      out.push({ page, block, format: block.lang, text: block.value, complete: words.includes('gate-config'), same });
    if (words.includes('gate-configmap')) {
      for (const doc of YAML.parseAllDocuments(block.value)) {
        const js = doc.toJS() as { kind?: string; data?: Record<string, string> } | null;
        if (js?.kind !== 'ConfigMap') continue;
        for (const [key, text] of Object.entries(js.data ?? {})) {
          const m = /^gate\.(yaml|json|toml|hcl)$/.exec(key);
          if (m?.[1]) out.push({ page, block, format: m[1], text, complete: true });
        }
      }
    }
  }
  return out;
}
const allConfigBlocks = pages.flatMap(configBlocks);
const where = (c: ConfigBlock) => `${c.page.rel}:${c.block.line} (${c.format})`;

// ---------------------------------------------------------------------------------------------
// The configuration model itself
// ---------------------------------------------------------------------------------------------
describe('the Gate configuration reference', () => {
  it('defines every option with a type, a default and a description, and env names in the KEYWAY_GATE_ namespace', () => {
    const types = new Set(['string', 'integer', 'number', 'boolean', 'duration', 'url', 'enum', 'list', 'map', 'object']);
    const all = [...ref.global, ...ref.plugin_entry, ...Object.values<any>(ref.plugins).flatMap((p) => p.options)];
    for (const o of all) {
      expect(types.has(o.type), `${o.name} type ${o.type}`).toBe(true);
      expect(o.default, `${o.name} default`).not.toBeUndefined();
      expect(String(o.description ?? '').length, `${o.name} description`).toBeGreaterThan(10);
      if (o.type === 'enum') expect(Array.isArray(o.values) && o.values.length > 1, `${o.name} values`).toBe(true);
    }
    const names = ref.global.map((o: any) => o.name);
    expect(new Set(names).size).toBe(names.length);
    const envs = [...ref.global.filter((o: any) => o.env).map((o: any) => o.env), ...ref.process.map((p: any) => p.env)];
    expect(new Set(envs).size).toBe(envs.length);
    for (const e of envs) expect(e).toMatch(/^KEYWAY_GATE_[A-Z0-9_]+$/);
    for (const o of ref.global) expect(o.name === 'version' || o.env !== null || o.type === 'map', `${o.name} has no env`).toBe(true);
  });

  it('has one plugin page per plugin and one configuration page per option page', () => {
    const pluginPages = roomRoutes.filter((r) => r.startsWith('/docs/gate/plugins/')).map((r) => r.split('/').pop());
    expect(Object.keys(ref.plugins).sort()).toEqual(pluginPages.sort());
    for (const o of ref.global) {
      const route = o.page === 'monitoring' ? '/docs/gate/monitoring' : `/docs/gate/configuration/${o.page}`;
      expect(allRoutes.has(route), `${o.name} page ${route}`).toBe(true);
    }
    for (const p of Object.values<any>(ref.plugins)) {
      expect(p.modes.every((m: string) => m === 'request' || m === 'response')).toBe(true);
      const names = p.options.map((o: any) => o.name);
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it('accepts a complete configuration and reports each kind of mistake by its option path', () => {
    const good = {
      version: 1,
      port: 8080,
      upstream: { url: 'http://127.0.0.1:3000', timeout: '10s' },
      keyway: { issuer_url: 'https://api.keyway.dev', org_id: '${KEYWAY_ORG_ID}' },
      headers: { request_set: { 'X-Request-Id': '{{ request.id }}' } },
      plugins: [
        { id: 'validate-jwt', config: { audiences: ['orders-api'], forward_claims: { 'X-User-Id': 'sub' } } },
        { id: 'ratelimit', mode: 'request', config: { requests: 100, key: '{{ claims.sub }}' } },
      ],
    };
    expect(validateConfig(ref, good, { complete: true })).toEqual([]);
    const bad = {
      prot: 8080,
      port: '8080',
      upstream: { timeout: 10 },
      log: { level: 'verbose' },
      headers: { request_set: { 'X-Bad': '{{ token.raw }}' } },
      plugins: [
        { id: 'validate-jwt', mode: 'response', config: { audience: 'x' } },
        { id: 'validate-oauth2-tokens', config: { client_id: 'gate', cache_ttl: '1 minute' } },
        { id: 'opa', enable: true, config: { decision_url: 'http://opa:8181/v1/data/gate/allow' } },
        { id: 'opa', config: { decision_url: 'http://opa:8181/v1/data/gate/allow', timeout: '{{ request.id }}' } },
        { id: 'rate-limit' },
      ],
    };
    const errors = validateConfig(ref, bad, { complete: true });
    const expected = [
      'prot: unknown option',
      'port: expected an integer',
      'upstream.timeout: expected a duration',
      'log.level: expected one of debug, info, warn, error',
      'headers.request_set: key X-Bad: unknown template value {{ token.raw }}',
      'keyway.issuer_url: required',
      'upstream.url: required in reverse-proxy mode',
      'plugins[0] (validate-jwt).mode: validate-jwt supports request, not response',
      'plugins[0] (validate-jwt).config.audience: not an option of validate-jwt',
      'plugins[1] (validate-oauth2-tokens).config.cache_ttl: expected a duration',
      'plugins[1] (validate-oauth2-tokens).config.client_secret: required by validate-oauth2-tokens',
      'plugins[2] (opa).enable: unknown plugin entry field',
      'plugins[3] (opa).name: opa is used twice',
      'plugins[3] (opa).config.timeout: "{{ request.id }}" uses a {{ }} template, but this option is not templated',
      'plugins[4].id: unknown plugin "rate-limit"',
    ];
    for (const e of expected) expect(errors.some((x) => x.startsWith(e)), `${e}\n in ${errors.join('\n')}`).toBe(true);
    expect(errors).toHaveLength(expected.length);
  });

  it('refuses response-mode plugins when Gate never sees the response', () => {
    const base = { keyway: { issuer_url: 'https://api.keyway.dev' }, run_mode: 'extauth' };
    const withHttpOnly = { ...base, plugins: [{ id: 'http-only', name: 'to-cookie' }] };
    expect(validateConfig(ref, withHttpOnly, { complete: true })).toEqual([
      'plugins[0] (to-cookie).mode: response-mode plugins cannot run in extauth mode',
    ]);
    expect(validateConfig(ref, { ...base, plugins: [{ id: 'http-only', mode: 'request' }] }, { complete: true })).toEqual([]);
    expect(validateConfig(ref, { ...base, plugins: [{ id: 'http-only', enabled: false }] }, { complete: true })).toEqual([]);
  });

  it('reads environment variable values the way Gate does', () => {
    expect(checkEnvValue(ENV.get('KEYWAY_GATE_PORT'), '8443')).toBeNull();
    expect(checkEnvValue(ENV.get('KEYWAY_GATE_PORT'), 'http')).toMatch(/integer/);
    expect(checkEnvValue(ENV.get('KEYWAY_GATE_TLS_ENABLED'), 'yes')).toMatch(/true or false/);
    expect(checkEnvValue(ENV.get('KEYWAY_GATE_LOG_REDACT_HEADERS'), 'authorization,cookie')).toBeNull();
    expect(checkEnvValue(ENV.get('KEYWAY_GATE_PLUGINS'), '{"id":"opa"}')).toMatch(/JSON array/);
    expect(checkEnvValue(ENV.get('KEYWAY_GATE_RUN_MODE'), 'proxy')).toMatch(/reverse-proxy/);
  });

  it('parses HCL with labelled plugin blocks in order and rejects malformed HCL with its line', () => {
    const text = [
      'version = 1 # format',
      'keyway {',
      '  issuer_url = "https://api.keyway.dev"',
      '}',
      'plugin "validate-jwt" {',
      '  config {',
      '    audiences      = ["orders-api"]',
      '    forward_claims = { "X-User-Id" = "sub" }',
      '  }',
      '}',
      'plugin "ratelimit" {',
      '  config { requests = 5 }',
      '}',
    ].join('\n');
    expect(parseConfig('hcl', text)).toEqual({
      version: 1,
      keyway: { issuer_url: 'https://api.keyway.dev' },
      plugins: [
        { id: 'validate-jwt', config: { audiences: ['orders-api'], forward_claims: { 'X-User-Id': 'sub' } } },
        { id: 'ratelimit', config: { requests: 5 } },
      ],
    });
    expect(() => parseHcl('keyway {\n  issuer_url = "https://x\n}')).toThrow(/line 2: unterminated string/);
    expect(() => parseConfig('hcl', 'port = 1\nport = 2\n')).toThrow(/line 2: port is set twice/);
    expect(() => parseHcl('plugins {\n  x = [1, 2\n}')).toThrow(/expected , or ]/);
  });

  it('renders tables that list every option of the marker it stands for', () => {
    const table = renderMarker(ref, 'plugin id=ratelimit');
    for (const o of ref.plugins.ratelimit.options) expect(table).toContain(`| \`${o.name}\` |`);
    expect(renderMarker(ref, 'global page=tls')).toContain('`KEYWAY_GATE_TLS_CERT_FILE`');
    expect(() => renderMarker(ref, 'global page=nowhere')).toThrow(/no global options/);
    expect(renderMarker(ref, 'errors')).toContain('| 422 or 502 | `pii_detected` |');
  });
});

// ---------------------------------------------------------------------------------------------
// Pages: routes, front matter, compilation, links, headings, prose, wording
// ---------------------------------------------------------------------------------------------
describe('the Gate pages', () => {
  it('exist for exactly the /docs/gate routes of routes.txt', () => {
    expect(roomRoutes.length).toBeGreaterThan(40);
    expect(pages.map((p) => p.route).sort()).toEqual(roomRoutes);
  });

  it('have a _category_.json in every folder', () => {
    for (const dir of new Set(files.map((f) => path.dirname(f)))) {
      const cat = JSON.parse(fs.readFileSync(path.join(dir, '_category_.json'), 'utf8'));
      expect(typeof cat.label, dir).toBe('string');
      expect(typeof cat.position, dir).toBe('number');
    }
  });

  for (const page of pages) {
    describe(page.rel, () => {
      it('has complete front matter', () => {
        for (const key of ['title', 'sidebar_label', 'description']) {
          expect(typeof page.data[key], key).toBe('string');
          expect(String(page.data[key]).length, key).toBeGreaterThan(2);
        }
        expect(String(page.data.description)).toMatch(/\.$/);
        expect(typeof page.data.sidebar_position).toBe('number');
        expect(page.h1, 'the front matter title is the only H1').toEqual([]);
      });

      it('has no raw HTML other than the option-table markers (a bare <word> in prose would become an element)', () => {
        expect(page.rawHtml).toEqual([]);
      });

      it('links only to existing pages', () => {
        for (const url of page.links) {
          expect(url, 'links stay inside the site: a page of this room or a route of routes.txt').not.toMatch(/^[a-z]+:/i);
          if (url.startsWith('#')) {
            const slugger = createSlugger();
            const anchors = page.headings.map((h) => slugger.slug(h));
            expect(anchors, `anchor ${url}`).toContain(url.slice(1));
            continue;
          }
          const target = url.split('#')[0] ?? '';
          if (target.startsWith('/')) {
            expect(allRoutes.has(target) || byRoute.has(target), `link ${url}`).toBe(true);
          } else {
            expect(target, `relative link ${url} must name a .md file`).toMatch(/\.mdx?$/);
            expect(fs.existsSync(path.resolve(path.dirname(page.file), target)), `link ${url}`).toBe(true);
          }
        }
      });

      it('has unique headings', () => {
        const slugs = page.headings.map((h) => createSlugger().slug(h));
        expect(slugs.filter((s, i) => slugs.indexOf(s) !== i)).toEqual([]);
      });

      it('has at least 300 words of prose and no unfinished wording', () => {
        // Paragraphs and headings only: code, inline code and tables do not count.
        const words = page.prose.split(/\s+/).filter((w) => /[A-Za-z]/.test(w));
        expect(words.length).toBeGreaterThanOrEqual(300);
        expect(page.raw).not.toMatch(BANNED);
      });

      it('names only environment variables, metrics and identity server paths of the reference', () => {
        for (const m of page.raw.matchAll(/\bKEYWAY_GATE_[A-Z0-9_]+/g)) expect(ENV.has(m[0]), `environment variable ${m[0]}`).toBe(true);
        for (const block of page.blocks) {
          // NAME=value in shell and env files, NAME: value in Compose, name: NAME + value: in Kubernetes.
          const assignments = /\b(KEYWAY_GATE_[A-Z0-9_]+)(?:=|: |"?\s*\n\s*value: )("[^"]*"|'[^']*'|[^\s\\,}]+)/g;
          for (const m of block.value.matchAll(assignments)) {
            const raw = (m[2] ?? '').replace(/^["']|["']$/g, '');
            if (raw.startsWith('$')) continue;
            expect(checkEnvValue(ENV.get(m[1] ?? ''), raw), `${m[1]}=${raw}`).toBeNull();
          }
        }
        for (const m of page.raw.matchAll(/\bkeyway_gate_[a-z_]+/g)) {
          const base = m[0].replace(/_(bucket|sum|count)$/, '');
          expect(METRICS.has(m[0]) || (HISTOGRAMS.has(base) && base !== m[0]), `metric ${m[0]}`).toBe(true);
        }
        for (const m of page.raw.matchAll(/https:\/\/api\.keyway\.dev([^\s"'`)\]<>]*)/g)) {
          const p = (m[1] ?? '').split('?')[0] ?? '';
          expect(IDENTITY_PATHS.has(p), `identity server path ${p}`).toBe(true);
        }
      });

      it('uses only the error codes of the reference, each with its status', () => {
        const codes = new Map<string, number[]>(ref.errors.map((e: { code: string; status: number[] }) => [e.code, e.status]));
        for (const m of page.raw.matchAll(/"error":\s*"([a-z_]+)"|error="([a-z_]+)"|Keyway-Gate-Reason: ([a-z_]+)/gi))
          expect(codes.has(m[1] ?? m[2] ?? m[3] ?? ''), `error code ${m[0]}`).toBe(true);
        for (const m of page.raw.matchAll(/\b([1-5]\d\d) `([a-z_]+)`/g))
          if (codes.has(m[2] ?? '')) expect(codes.get(m[2] ?? ''), `${m[0]}`).toContain(Number(m[1]));
        // In an answer shown as text, the status line and the error code of the body that follows agree.
        for (const block of page.blocks.filter((b) => b.lang === 'text'))
          for (const answer of block.value.split(/(?=HTTP\/[\d.]+ )/)) {
            const status = /^HTTP\/[\d.]+ (\d{3})/.exec(answer)?.[1];
            const code = /"error":\s*"([a-z_]+)"/.exec(answer)?.[1];
            if (status && code) expect(codes.get(code), `${code} after HTTP ${status}`).toContain(Number(status));
          }
      });

      it('writes request templates, well-known paths and release versions as the reference defines them', () => {
        // Keyway token templates ({{ person.… }}) are the identity server's, checked against it below.
        const gateText = page.blocks.filter((b) => /\bkeyway-token-template\b/.test(b.meta)).reduce((raw, b) => raw.replace(b.value, ''), page.raw);
        for (const m of gateText.matchAll(/\{\{\s*([^}`\n]*?)\s*\}\}/g)) {
          if (m[1] === '...' || m[1] === 'value' || m[1] === '') continue; // the generic forms on the templating page
          if (page.raw.slice(Math.max(0, (m.index ?? 0) - 24), m.index).endsWith('unknown template value ')) continue; // a quoted error
          expect(m[1], `template {{ ${m[1]} }}`).toMatch(TEMPLATE_VALUE);
        }
        for (const m of page.raw.matchAll(/\/\.well-known\/[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*/g))
          expect(['/.well-known/jwks.json', '/.well-known/openid-configuration', '/.well-known/keys'], m[0]).toContain(m[0]);
        for (const m of page.raw.matchAll(/(?:gate:|keyway-gate_|gate\/|keyway-gate )(\d+\.\d+\.\d+)/g))
          expect(m[1], `release ${m[0]}`).toBe(ref.release.version);
      });

      it('has option tables that match the reference', () => {
        expect(renderPage(ref, page.raw), 'run node site/docs/gate/_reference/render.mjs').toBe(page.raw);
        const markers = markersOf(page.raw);
        const id = page.route.split('/').pop() ?? '';
        if (page.route.startsWith('/docs/gate/plugins/')) expect(markers).toContain(`plugin id=${id}`);
        if (page.route.startsWith('/docs/gate/configuration/') || page.route === '/docs/gate/monitoring')
          expect(markers).toContain(`global page=${id}`);
      });
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Configuration blocks
// ---------------------------------------------------------------------------------------------
describe('the Gate configuration examples', () => {
  it('are found on the pages that need them', () => {
    expect(allConfigBlocks.length).toBeGreaterThan(45);
    for (const id of Object.keys(ref.plugins)) {
      const page = byRoute.get(`/docs/gate/plugins/${id}`);
      const own = allConfigBlocks.filter((c) => c.page === page && c.complete);
      const usesIt = own.some((c) => (parseConfig(c.format, c.text)?.plugins ?? []).some((e: { id: string }) => e.id === id));
      expect(usesIt, `${id}: a complete configuration that uses the plugin`).toBe(true);
    }
    const formats = new Set(allConfigBlocks.map((c) => c.format.replace('yml', 'yaml')));
    expect([...formats].sort()).toEqual(['hcl', 'json', 'toml', 'yaml']);
  });

  it('mark every block titled as a Gate configuration file', () => {
    for (const page of pages)
      for (const b of page.blocks) {
        if (!/title="([^"]*\/)?gate\.(ya?ml|json|toml|hcl)[" ]/.test(b.meta) || !CONFIG_LANGS.has(b.lang)) continue;
        expect(/\bgate-(config|fragment|configmap)\b/.test(b.meta), `${page.rel}:${b.line} ${b.meta}`).toBe(true);
      }
  });

  for (const c of allConfigBlocks) {
    it(`${where(c)} parses and uses only options of the reference`, () => {
      let parsed: unknown;
      try {
        parsed = parseConfig(c.format, c.text);
      } catch (e) {
        throw new Error(`${where(c)} does not parse: ${(e as Error).message}`);
      }
      const errors = Array.isArray(parsed) ? validatePlugins(ref, parsed, { complete: c.complete }) : validateConfig(ref, parsed, { complete: c.complete });
      expect(errors, where(c)).toEqual([]);
    });
  }

  it('show every option of the reference in at least one example', () => {
    const used = new Set<string>();
    const walk = (o: unknown, prefix: string) => {
      if (typeof o !== 'object' || o === null || Array.isArray(o)) return;
      for (const [k, v] of Object.entries(o)) {
        used.add(prefix + k);
        if (k !== 'plugins') walk(v, `${prefix}${k}.`);
      }
    };
    for (const c of allConfigBlocks) {
      const parsed = parseConfig(c.format, c.text);
      walk(parsed, '');
      for (const e of Array.isArray(parsed) ? parsed : (parsed?.plugins ?? [])) {
        for (const k of Object.keys(e)) used.add(`entry ${k}`);
        for (const k of Object.keys(e.config ?? {})) used.add(`${e.id} ${k}`);
      }
    }
    const all = [
      ...ref.global.map((o: { name: string }) => o.name),
      ...ref.plugin_entry.map((o: { name: string }) => `entry ${o.name}`),
      ...Object.entries<any>(ref.plugins).flatMap(([id, p]) => p.options.map((o: { name: string }) => `${id} ${o.name}`)),
    ];
    expect(all.filter((n) => !used.has(n))).toEqual([]);
  });

  it('pair each gateway resource with the extauth settings of the Gate shown on the same page', () => {
    let pairs = 0;
    for (const page of pages) {
      const gates = configBlocks(page)
        .filter((c) => c.complete)
        .map((c) => parseConfig(c.format, c.text))
        .filter((c) => c.run_mode === 'extauth');
      const resources = page.blocks
        .filter((b) => b.lang === 'yaml' && !/gate-(config|fragment)/.test(b.meta))
        .flatMap((b) => YAML.parseAllDocuments(b.value).map((d) => d.toJS()))
        .filter((r) => r?.kind === 'AuthService' || r?.kind === 'SecurityPolicy');
      for (const r of resources) {
        expect(gates.length, `${page.rel}: a ${r.kind} needs the Gate configuration it talks to`).toBe(1);
        const gate = gates[0];
        const wanted = [...(gate.extauth?.upstream_headers ?? ['authorization'])].map((h: string) => h.toLowerCase()).sort();
        if (r.kind === 'AuthService') {
          expect(r.spec.path_prefix ?? '', `${page.rel}: path_prefix`).toBe(gate.extauth?.path_prefix ?? '');
          expect(r.spec.proto, `${page.rel}: proto`).toBe(gate.extauth?.protocol ?? 'http');
          expect([...r.spec.allowed_authorization_headers].sort(), `${page.rel}: allowed_authorization_headers`).toEqual(wanted);
          expect(r.spec.failure_mode_allow, `${page.rel}: fail closed`).toBe(false);
        } else {
          expect([...r.spec.extAuth.http.headersToBackend].sort(), `${page.rel}: headersToBackend`).toEqual(wanted);
          expect(r.spec.extAuth.failOpen, `${page.rel}: fail closed`).toBe(false);
        }
        pairs++;
      }
    }
    expect(pairs).toBeGreaterThanOrEqual(3);
  });

  it('say the same thing in every format when shown side by side', () => {
    const groups = new Map<string, ConfigBlock[]>();
    for (const c of allConfigBlocks) if (c.same) groups.set(c.same, [...(groups.get(c.same) ?? []), c]);
    expect(groups.size).toBeGreaterThan(0);
    for (const [name, group] of groups) {
      expect(group.length, name).toBeGreaterThan(1);
      const first = parseConfig(group[0]!.format, group[0]!.text);
      for (const c of group.slice(1)) expect(parseConfig(c.format, c.text), `${name}: ${where(c)}`).toEqual(first);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Keyway tokens as the identity server issues them
// ---------------------------------------------------------------------------------------------
// The claims Gate reads must be claims of the tokens the local identity server really signs: a user token (an
// anonymous person's) and a machine token (client credentials), plus the claims a token template shown on the same
// page adds (the template is installed on the server and a token minted with it). Audiences must be what Keyway puts
// in `aud` (the organization ID), the issuer the production API host, and every request a page sends to the Keyway
// API runs against the local server (host, organization, client ID and secrets adapted).
const ORG_ID = /^org_[0-9a-f]{20}$/;
// A local identity server (the ignore-ssl page runs one with a self-signed certificate).
const LOCAL_ISSUER = /^https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/;
const decode = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

describe('the Gate pages against the tokens the identity server issues', () => {
  let local: LocalServer;
  let client: { client_id: string; client_secret: string };
  const schema = new Set<string>();
  const management = (p: string, init: RequestInit = {}) =>
    fetch(`${local.live.url}${p}`, {
      ...init,
      headers: { 'Keyway-OrgID': local.live.orgId, 'Keyway-API-Key': local.apiKey, 'Content-Type': 'application/json', ...(init.headers ?? {}) },
    });
  const clientToken = async (scope: string) => {
    const res = await fetch(`${local.live.url}/oauth2/tokens`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { access_token: string }).access_token;
  };

  beforeAll(async () => {
    local = await startLocalServer();
    const res = await management('/oauth2/clients', {
      method: 'POST',
      body: JSON.stringify({ client_name: 'gate docs', grant_types: ['client_credentials'], scopes: ['orders:read', 'orders:write', 'billing:read', 'reports:read'] }),
    });
    expect(res.status).toBe(201);
    client = ((await res.json()) as { result: typeof client }).result;
    for (const c of Object.keys(decode((await anonymousPerson(local.live)).token))) schema.add(c);
    for (const c of Object.keys(decode(await clientToken('orders:read')))) schema.add(c);
  }, 60_000);
  afterAll(async () => {
    await local?.close();
  });

  it('knows the claims of both kinds of token', () => {
    for (const c of ['iss', 'sub', 'aud', 'exp', 'oid', 'person_id', 'person_type', 'groups', 'scope', 'client_id']) expect(schema, c).toContain(c);
    expect(schema).not.toContain('org_id');
  });

  /** Claim names a configuration reads, with where they are read. */
  function claimsRead(config: any, text: string): { claim: string; at: string }[] {
    const out: { claim: string; at: string }[] = [];
    const entries: any[] = Array.isArray(config) ? config : (config?.plugins ?? []);
    const otherIssuer = entries.some((e) => e.id === 'validate-jwt' && (e.config?.jwks_url || (e.config?.issuer && e.config.issuer !== ISSUER)));
    for (const c of config?.lambda?.context_claims ?? []) out.push({ claim: c, at: 'lambda.context_claims' });
    for (const e of entries) {
      const keyway = e.id === 'validate-jwt' && !e.config?.jwks_url && !(e.config?.issuer && e.config.issuer !== ISSUER);
      if (keyway) {
        for (const [h, c] of Object.entries<string>(e.config?.forward_claims ?? {})) out.push({ claim: c, at: `${e.id} forward_claims ${h}` });
        for (const c of Object.keys(e.config?.required_claims ?? {})) out.push({ claim: c, at: `${e.id} required_claims` });
      }
      for (const c of e.config?.copy_claims ?? []) out.push({ claim: c, at: `${e.id} copy_claims` });
      if (e.config?.scope_claim) out.push({ claim: e.config.scope_claim, at: `${e.id} scope_claim` });
    }
    // {{ claims.NAME }} templates read the claims of whichever plugin authenticated; checked unless another issuer's tokens are accepted too.
    if (!otherIssuer) for (const m of text.matchAll(/\{\{\s*claims\.([A-Za-z0-9_-]+)/g)) if (m[1] !== 'NAME') out.push({ claim: m[1]!, at: m[0] });
    return out.map((x) => ({ ...x, claim: x.claim.split('.')[0]! }));
  }

  it('read only claims Keyway tokens carry, and accept the audience and issuer Keyway tokens have', async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const page of pages) {
      // Claims a token template shown on the page adds, as a token minted with it really carries them.
      const extra = new Set<string>();
      for (const b of page.blocks.filter((x) => /\bkeyway-token-template\b/.test(x.meta))) {
        const put = await management('/organizations/config/token-template', { method: 'PUT', body: JSON.stringify({ content: b.value }) });
        // 204: the template is stored (the public reference contract's status).
        if (put.status !== 204) problems.push(`${page.rel}:${b.line} token template refused: ${await put.text()}`);
        const minted = decode((await anonymousPerson(local.live)).token);
        for (const c of Object.keys(JSON.parse(b.value) as object)) if (c in minted) extra.add(c);
        await management('/organizations/config/token-template', { method: 'PUT', body: JSON.stringify({ content: '{}' }) });
      }
      for (const c of configBlocks(page)) {
        const config = parseConfig(c.format, c.text);
        if (config?.keyway?.issuer_url !== undefined && config.keyway.issuer_url !== ISSUER && !LOCAL_ISSUER.test(config.keyway.issuer_url)) problems.push(`${where(c)}: keyway.issuer_url ${config.keyway.issuer_url}, not ${ISSUER}`);
        for (const { claim, at } of claimsRead(config, c.text)) {
          checked++;
          if (!schema.has(claim) && !extra.has(claim)) problems.push(`${where(c)}: ${at} reads "${claim}", a claim Keyway tokens do not carry`);
        }
        for (const e of Array.isArray(config) ? config : (config?.plugins ?? [])) {
          if (e.id !== 'validate-jwt' || e.config?.jwks_url) continue;
          for (const aud of e.config?.audiences ?? []) if (!ORG_ID.test(aud) && aud !== '${KEYWAY_ORG_ID}') problems.push(`${where(c)}: audience ${aud}: Keyway tokens carry the organization ID in aud`);
          const oid = e.config?.required_claims?.oid;
          if (oid !== undefined && !ORG_ID.test(oid) && oid !== '${KEYWAY_ORG_ID}') problems.push(`${where(c)}: required oid ${oid} is not an organization ID`);
        }
      }
      // Policies read the claims Gate passes them.
      for (const b of page.blocks) for (const m of b.value.matchAll(/input\.claims\.([A-Za-z0-9_]+)/g)) {
        checked++;
        if (!schema.has(m[1]!)) problems.push(`${page.rel}:${b.line}: policy reads input.claims.${m[1]}`);
      }
      // Token claims shown as JSON (policy input, authorizer context, reminted tokens).
      for (const b of page.blocks.filter((x) => x.lang === 'json' && !/keyway-token-template/.test(x.meta))) {
        let json: any;
        try {
          json = JSON.parse(b.value);
        } catch {
          continue;
        }
        const shown = [json?.input?.claims, json?.principalId ? json.context : undefined].filter((x) => x && typeof x === 'object');
        for (const claims of shown) for (const c of Object.keys(claims)) {
          checked++;
          if (!schema.has(c) && !extra.has(c)) problems.push(`${page.rel}:${b.line}: shows claim "${c}", which Keyway tokens do not carry`);
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(problems).toEqual([]);
  }, 60_000);

  it('send requests the identity server accepts, and show the answers it gives', async () => {
    const problems: string[] = [];
    let ran = 0;
    for (const page of pages) {
      for (const [i, block] of page.blocks.entries()) {
        if (!['bash', 'sh', 'shell'].includes(block.lang)) continue;
        for (const c of parseCurls(block.value).filter((x) => x.url.startsWith(ISSUER))) {
          const scope = /scope=([^\s"']+)/.exec(c.text)?.[1] ?? 'orders:read';
          // Keys adapted: the documented client becomes the one created above, its secret whatever variable names it.
          const user = c.user === undefined ? undefined : `${client.client_id}:${client.client_secret}`;
          const token = await clientToken('orders:read');
          const vars = { CLIENT_ID: client.client_id, CLIENT_SECRET: client.client_secret, GATE_CLIENT_SECRET: client.client_secret, GATE_INTROSPECTION_SECRET: client.client_secret, OPAQUE_TOKEN: token, TOKEN: token };
          // Every -d of the command, as the shell passes them (curl joins them with &).
          const words = shellWords(c.text.slice(c.text.search(/curl\s/)).split(/\s\|\s/)[0] ?? '');
          const form = words.flatMap((w, k) => (w === '-d' || w === '--data' ? [words[k + 1] ?? ''] : []));
          const sent = { ...c, method: form.length ? 'POST' : 'GET', url: c.url.replace(ISSUER, API_HOST), ...(user ? { user } : {}), ...(form.length ? { data: form.join('&') } : {}), headers: { ...c.headers, 'content-type': 'application/x-www-form-urlencoded' } };
          const res = await sendCurl(local.live, sent, vars, page.rel);
          ran++;
          const at = `${page.rel}:${block.line}: ${c.method} ${c.url} (${scope})`;
          if (res.status !== 200) {
            problems.push(`${at} answered ${res.status} ${res.text}`);
            continue;
          }
          // The JSON block after a block whose only request this is shows its answer.
          const next = page.blocks[i + 1];
          if (next?.lang !== 'json' || parseCurls(block.value).length !== 1) continue;
          const actual = JSON.parse(res.text) as Record<string, unknown>;
          const shown = JSON.parse(next.value) as Record<string, unknown>;
          for (const [k, v] of Object.entries(shown)) {
            if (!(k in actual)) problems.push(`${at}: shows "${k}", which the answer does not have`);
            else if (typeof v !== typeof actual[k]) problems.push(`${at}: "${k}" is ${typeof actual[k]}, shown as ${typeof v}`);
          }
          if (typeof shown.access_token === 'string' && typeof actual.access_token === 'string') {
            // A token shown cut short still begins with a JOSE header like the one Keyway signs (alg, typ, a kid).
            const header = (t: string) => JSON.parse(Buffer.from(t.split('.')[0] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
            const [want, got] = [header(shown.access_token.replace(/\.\.\.$/, '')), header(actual.access_token)];
            if (want.alg !== got.alg || want.typ !== got.typ || Object.keys(want).sort().join() !== Object.keys(got).sort().join())
              problems.push(`${at}: the token shown has the header ${JSON.stringify(want)}, Keyway signs ${JSON.stringify({ ...got, kid: '…' })}`);
          }
        }
      }
    }
    console.log(`Gate pages: ${ran} requests to the Keyway API ran against the local identity server, ${ran - problems.length} as documented`);
    expect(ran).toBeGreaterThanOrEqual(6);
    expect(problems).toEqual([]);
  }, 60_000);
});
