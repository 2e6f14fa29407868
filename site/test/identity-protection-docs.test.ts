// Consistency checks for the Identity Protection docs (site/docs/identity-protection).
//
// - every route under /docs/identity-protection in routes.txt has exactly one page, and every page is a route;
// - every page has its front matter, compiles with @mdx-js/mdx, has enough prose, no banned words,
//   unique headings and only links to existing pages (and existing headings);
// - every IPQL example uses only schemas, tables and fields of _data/model.yaml, with the IPQL rules of
//   queries/guide.md (aliases on every table, qualified columns, known functions);
// - every detection webhook example validates against _schemas/detection-webhook.schema.json and uses a
//   rule of _data/detection-rules.yaml with its category and evidence keys;
// - the field tables of the explorer pages and the rules table of the detections page are exactly what
//   the data files say (run with IP_DOCS_WRITE=1 to re-render them after editing a data file).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { FlattenedSign, exportJWK, generateKeyPair } from 'jose';
import matter from 'gray-matter';
import { parse as parseYaml } from 'yaml';
import { compile } from '@mdx-js/mdx';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const here = path.dirname(fileURLToPath(import.meta.url));
const siteDir = path.resolve(here, '..');
const room = path.join(siteDir, 'docs', 'identity-protection');
// The repository's copy of the route contract (kept equal to the shared one by site/test/spec-copy.test.ts).
const routesFile = path.resolve(siteDir, '..', 'spec', 'routes.txt');
const WRITE = process.env.IP_DOCS_WRITE === '1';

// ---------------------------------------------------------------------------------------------
// Data files
type FieldRow = [name: string, type: string, description: string];
interface TableDef { description: string; fields: FieldRow[] }
interface SchemaDef { name: string; tables: Record<string, TableDef> }
interface Model { version: number; schemas: Record<string, SchemaDef> }
interface Rule { id: string; title: string; category: string; severity: string; trigger: string; sources: string[]; evidence: string[] }

const model = parseYaml(fs.readFileSync(path.join(room, '_data', 'model.yaml'), 'utf8')) as Model;
const rules = (parseYaml(fs.readFileSync(path.join(room, '_data', 'detection-rules.yaml'), 'utf8')) as { rules: Rule[] }).rules;
const schema = JSON.parse(fs.readFileSync(path.join(room, '_schemas', 'detection-webhook.schema.json'), 'utf8')) as object;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
addFormats(ajv);
const validateWebhook = ajv.compile(schema);

// ---------------------------------------------------------------------------------------------
// Pages
const walk = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
const isPage = (f: string) => /\.mdx?$/.test(f) && !path.relative(room, f).split(path.sep).some((s) => s.startsWith('_'));
const pageFiles = walk(room).filter(isPage).sort();
const routeOf = (file: string) => {
  const rel = path.relative(path.join(siteDir, 'docs'), file).replace(/\\/g, '/').replace(/\.mdx?$/, '');
  return '/docs/' + rel.replace(/(^|\/)index$/, '');
};
const allRoutes = new Set(
  fs.readFileSync(routesFile, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.trim().split(/\s+/)[0]!),
);
const roomRoutes = [...allRoutes].filter((r) => r.startsWith('/docs/identity-protection/') || r === '/docs/identity-protection');

interface Block { lang: string; meta: string; value: string }
interface MdNode { type: string; value?: string; url?: string; depth?: number; lang?: string | null; meta?: string | null; children?: MdNode[] }
interface Page { file: string; rel: string; route: string; raw: string; data: Record<string, unknown>; content: string; tree: MdNode }

const collectTree = async (file: string, content: string): Promise<MdNode> => {
  let tree: MdNode | undefined;
  await compile(content, {
    format: file.endsWith('.mdx') ? 'mdx' : 'md',
    remarkPlugins: [() => (t: unknown) => { tree = structuredClone(t) as MdNode; }],
  });
  if (!tree) throw new Error(`${file}: no syntax tree`);
  return tree;
};
const nodes = (n: MdNode, type: string, out: MdNode[] = []): MdNode[] => {
  if (n.type === type) out.push(n);
  for (const c of n.children ?? []) nodes(c, type, out);
  return out;
};
const textOf = (n: MdNode): string => (n.type === 'text' ? n.value ?? '' : n.type === 'inlineCode' ? n.value ?? '' : (n.children ?? []).map(textOf).join(''));
// Prose the build-time check counts: text outside code blocks and inline code.
const proseWords = (n: MdNode): string[] => {
  if (n.type === 'code' || n.type === 'inlineCode' || n.type === 'yaml' || n.type === 'html' || n.type.startsWith('mdxjs')) return [];
  if (n.type === 'text') return (n.value ?? '').split(/\s+/).filter((w) => /[A-Za-z0-9]/.test(w));
  return (n.children ?? []).flatMap(proseWords);
};
// Docusaurus heading ids (github-slugger rules for ASCII text).
const slugger = () => {
  const seen = new Map<string, number>();
  return (text: string) => {
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base);
    seen.set(base, (n ?? -1) + 1);
    return n === undefined ? base : `${base}-${n + 1}`;
  };
};

const pages: Page[] = await Promise.all(
  pageFiles.map(async (file) => {
    const raw = fs.readFileSync(file, 'utf8');
    const { data, content } = matter(raw);
    return { file, rel: path.relative(room, file), route: routeOf(file), raw, data, content, tree: await collectTree(file, content) };
  }),
);
const blocksOf = (p: Page): Block[] => nodes(p.tree, 'code').map((c) => ({ lang: c.lang ?? '', meta: c.meta ?? '', value: c.value ?? '' }));
const headingIds = (p: Page) => {
  const slug = slugger();
  return nodes(p.tree, 'heading').map((h) => slug(textOf(h)));
};
const pageByRoute = new Map(pages.map((p) => [p.route, p]));

// ---------------------------------------------------------------------------------------------
// IPQL checker (the language is defined on queries/guide.md)
const IPQL_KEYWORDS = new Set(
  'SELECT DISTINCT FROM AS JOIN LEFT INNER ON WHERE AND OR NOT IN IS NULL LIKE ILIKE BETWEEN GROUP BY HAVING ORDER ASC DESC LIMIT TRUE FALSE INTERVAL CASE WHEN THEN ELSE END'.split(' '),
);
const IPQL_FUNCTIONS = new Set(
  'COUNT MIN MAX SUM AVG LOWER UPPER COALESCE NOW AGE_DAYS DATE_TRUNC ARRAY_CONTAINS ARRAY_LENGTH JSON_EXTRACT'.split(' '),
);
const ARRAY_FUNCTIONS = new Set(['ARRAY_CONTAINS', 'ARRAY_LENGTH']);

type Tok = { kind: 'ident' | 'string' | 'number' | 'punct'; text: string };
const tokenize = (q: string): Tok[] => {
  const toks: Tok[] = [];
  const re = /\s+|--[^\n]*|'(?:[^']|'')*'|\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*|<>|!=|<=|>=|\|\||[(),.*=<>+\-/;]/y;
  let i = 0;
  while (i < q.length) {
    re.lastIndex = i;
    const m = re.exec(q);
    if (!m) throw new Error(`unexpected character ${JSON.stringify(q[i])} at offset ${i}`);
    const t = m[0];
    i = re.lastIndex;
    if (/^\s/.test(t) || t.startsWith('--')) continue;
    toks.push({ kind: t.startsWith("'") ? 'string' : /^\d/.test(t) ? 'number' : /^[A-Za-z_]/.test(t) ? 'ident' : 'punct', text: t });
  }
  return toks;
};

/** Returns the problems of an IPQL query against the data model; an empty list means the query is valid. */
const checkIpql = (query: string, m: Model = model): string[] => {
  const errors: string[] = [];
  let toks: Tok[];
  try {
    toks = tokenize(query);
  } catch (e) {
    return [(e as Error).message];
  }
  const up = (t: Tok | undefined) => (t?.kind === 'ident' ? t.text.toUpperCase() : t?.text);
  if (up(toks[0]) !== 'SELECT') errors.push('a query starts with SELECT');
  if (toks.filter((t) => t.text === ';').length > 0 && up(toks.at(-1)) !== ';') errors.push('only one statement per query');
  const aliases = new Map<string, { schema: string; table: string; def: TableDef }>();
  const outputs = new Set<string>();
  const used = new Set<number>();
  // Pass 1: table references and output names.
  toks.forEach((t, i) => {
    const u = up(t);
    if ((u === 'FROM' || u === 'JOIN') && toks[i + 1]?.kind === 'ident') {
      const s = toks[i + 1]!, dot = toks[i + 2], tb = toks[i + 3];
      if (dot?.text !== '.' || tb?.kind !== 'ident') {
        errors.push(`${u} ${s.text}: tables are written schema.table`);
        return;
      }
      let a = i + 4;
      if (up(toks[a]) === 'AS') a++;
      const al = toks[a];
      [i + 1, i + 2, i + 3, a].forEach((k) => used.add(k));
      const def = m.schemas[s.text]?.tables[tb.text];
      if (!m.schemas[s.text]) errors.push(`unknown schema ${s.text}`);
      else if (!def) errors.push(`unknown table ${s.text}.${tb.text}`);
      if (al?.kind !== 'ident' || IPQL_KEYWORDS.has(al.text.toUpperCase())) errors.push(`${s.text}.${tb.text} needs an alias`);
      else if (aliases.has(al.text)) errors.push(`alias ${al.text} used twice`);
      else if (def) aliases.set(al.text, { schema: s.text, table: tb.text, def });
    }
  });
  toks.forEach((t, i) => {
    if (up(t) === 'AS' && !used.has(i + 1) && toks[i + 1]?.kind === 'ident') {
      outputs.add(toks[i + 1]!.text);
      used.add(i + 1);
    }
  });
  if (aliases.size === 0) errors.push('no FROM clause');
  // Pass 2: every other identifier.
  toks.forEach((t, i) => {
    if (t.kind !== 'ident' || used.has(i)) return;
    const u = t.text.toUpperCase();
    if (toks[i - 1]?.text === '.') return; // field part, checked with its alias
    if (toks[i + 1]?.text === '.') {
      const f = toks[i + 2];
      const a = aliases.get(t.text);
      if (!a) {
        errors.push(`unknown alias ${t.text}`);
        return;
      }
      if (f?.text === '*') return;
      const field = a.def.fields.find(([n]) => n === f?.text);
      if (!field) {
        errors.push(`unknown field ${a.schema}.${a.table}.${f?.text ?? ''} (alias ${t.text})`);
        return;
      }
      // Literal comparisons must match the field type: a boolean against TRUE/FALSE, a number against an integer.
      const op = toks[i + 3]?.text, lit = toks[i + 4];
      if (op && ['=', '!=', '<>', '<', '>', '<=', '>='].includes(op) && lit) {
        const litType = lit.kind === 'string' ? 'string' : lit.kind === 'number' ? 'integer' : ['TRUE', 'FALSE'].includes(lit.text.toUpperCase()) ? 'boolean' : undefined;
        const fits = (t: string) => field[1] === t || (t === 'string' && field[1] === 'timestamp');
        if (litType && !fits(litType)) errors.push(`${a.schema}.${a.table}.${field[0]} is ${field[1]}, compared with ${lit.text}`);
      }
      const fn = toks[i - 2];
      if (toks[i - 1]?.text === '(' && fn && ARRAY_FUNCTIONS.has(fn.text.toUpperCase()) && !field[1].startsWith('array<'))
        errors.push(`${fn.text.toUpperCase()} needs an array field, ${a.schema}.${a.table}.${field[0]} is ${field[1]}`);
      return;
    }
    if (toks[i + 1]?.text === '(') {
      if (!IPQL_FUNCTIONS.has(u) && !IPQL_KEYWORDS.has(u)) errors.push(`unknown function ${t.text}`);
      return;
    }
    if (IPQL_KEYWORDS.has(u)) return;
    if (outputs.has(t.text)) return;
    errors.push(`unqualified or unknown name ${t.text} (write alias.field)`);
  });
  return errors;
};

const isIpqlBlock = (b: Block) => b.lang === 'sql' && /title="IPQL/.test(b.meta);
const ipqlBlocks = pages.flatMap((p) => blocksOf(p).filter(isIpqlBlock).map((b) => ({ page: p, block: b })));
const webhookExamples = pages.flatMap((p) =>
  blocksOf(p)
    .filter((b) => b.lang === 'json' && /"api_version": "/.test(b.value))
    .map((b) => ({ page: p, block: b })),
);

// ---------------------------------------------------------------------------------------------
// Rendered sections
const esc = (s: string) => s.replace(/\|/g, '\\|');
const renderSchema = (key: string): string => {
  const s = model.schemas[key];
  if (!s) throw new Error(`no schema ${key}`);
  return Object.entries(s.tables)
    .map(([name, t]) =>
      [
        `### \`${key}.${name}\``,
        '',
        t.description,
        '',
        '| Field | Type | Description |',
        '| --- | --- | --- |',
        ...t.fields.map(([f, ty, d]) => `| \`${f}\` | \`${ty}\` | ${esc(d)} |`),
      ].join('\n'),
    )
    .join('\n\n');
};
const sourceLabel: Record<string, string> = { browser_extension: 'browser extension' };
const renderRules = (): string =>
  [
    '| Rule | Title | Category | Default severity | Trigger | Sources |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rules.map(
      (r) =>
        `| \`${r.id}\` | ${esc(r.title)} | \`${r.category}\` | ${r.severity} | ${r.trigger} | ${r.sources.map((s) => sourceLabel[s] ?? `\`${s}\``).join(', ')} |`,
    ),
  ].join('\n');
const renderEvidence = (): string =>
  ['| Rule | Evidence keys |', '| --- | --- |', ...rules.map((r) => `| \`${r.id}\` | ${r.evidence.map((e) => `\`${e}\``).join(', ')} |`)].join('\n');

const explorerSlug = (key: string) => key.replace(/_/g, '-');
const renderTargets: { file: string; marker: string; render: () => string }[] = [
  ...Object.keys(model.schemas)
    .filter((k) => k !== 'core')
    .map((k) => ({ file: path.join(room, 'queries', 'explorer', `${explorerSlug(k)}.md`), marker: `model:${k}`, render: () => renderSchema(k) })),
  { file: path.join(room, 'queries', 'index.md'), marker: 'model:core', render: () => renderSchema('core') },
  { file: path.join(room, 'detections', 'index.md'), marker: 'rules', render: renderRules },
  { file: path.join(room, 'detections', 'index.md'), marker: 'evidence', render: renderEvidence },
  {
    file: path.join(room, 'detections', 'webhooks.md'),
    marker: 'schema',
    render: () => ['```json title="detection-webhook.schema.json"', fs.readFileSync(path.join(room, '_schemas', 'detection-webhook.schema.json'), 'utf8').trimEnd(), '```'].join('\n'),
  },
];
const sectionRe = (marker: string) => new RegExp(`(<!-- ${marker}:begin -->\\n)([\\s\\S]*?)\\n?(<!-- ${marker}:end -->)`);

// ---------------------------------------------------------------------------------------------
describe('Identity Protection docs: pages and routes', () => {
  it('has exactly one page for every /docs/identity-protection route, and no page outside the routes', () => {
    const mine = pages.map((p) => p.route).sort();
    expect(mine).toEqual([...roomRoutes].sort());
    expect(mine.length).toBe(44);
  });

  it('has a valid _category_.json in every folder', () => {
    const dirs = [room, ...walk(room).map((f) => path.dirname(f))].filter((d) => !path.relative(room, d).split(path.sep).some((s) => s.startsWith('_')));
    for (const d of new Set(dirs)) {
      const f = path.join(d, '_category_.json');
      expect(fs.existsSync(f), `${path.relative(room, d) || '.'} has no _category_.json`).toBe(true);
      const c = JSON.parse(fs.readFileSync(f, 'utf8')) as { label?: unknown; position?: unknown };
      expect(typeof c.label, f).toBe('string');
      expect(typeof c.position, f).toBe('number');
    }
  });

  describe.each(pages.map((p) => [p.rel, p] as const))('%s', (_rel, p) => {
    it('has title, sidebar_label, a one-sentence description and sidebar_position', () => {
      expect(typeof p.data.title).toBe('string');
      expect(typeof p.data.sidebar_label).toBe('string');
      expect(typeof p.data.sidebar_position).toBe('number');
      const d = p.data.description;
      expect(typeof d).toBe('string');
      expect((d as string).match(/[.!?](\s|$)/g)?.length, 'description is one sentence ending with a period').toBe(1);
      expect(nodes(p.tree, 'heading').filter((h) => h.depth === 1), 'the front matter title is the only H1').toEqual([]);
    });

    it('has at least 300 words of prose and no banned wording', () => {
      const words = proseWords(p.tree);
      expect(words.length, `${p.rel} has ${words.length} words of prose`).toBeGreaterThanOrEqual(300);
      expect(p.raw).not.toMatch(/\b(TODO|TBD|lorem ipsum|coming soon|being written|placeholder)\b/i);
    });

    it('has unique headings', () => {
      const ids = headingIds(p);
      expect(ids.length).toBe(new Set(ids).size);
    });

    it('links only to existing pages and headings', () => {
      const bad: string[] = [];
      for (const l of nodes(p.tree, 'link')) {
        const url = l.url ?? '';
        if (/^(https?:|mailto:)/.test(url)) continue;
        const [target = '', hash] = url.split('#');
        let route: string;
        if (target === '') route = p.route;
        else if (target.startsWith('/')) route = target;
        else if (/\.mdx?$/.test(target)) {
          const f = path.resolve(path.dirname(p.file), target);
          if (!fs.existsSync(f)) {
            bad.push(`${url}: no file ${path.relative(room, f)}`);
            continue;
          }
          route = routeOf(f);
        } else {
          bad.push(`${url}: relative links must name a .md file`);
          continue;
        }
        if (!allRoutes.has(route) && !pageByRoute.has(route)) bad.push(`${url}: no route ${route}`);
        const tp = pageByRoute.get(route);
        if (hash && tp && !headingIds(tp).includes(hash)) bad.push(`${url}: no heading #${hash} on ${route}`);
        if (hash && !tp) bad.push(`${url}: cannot check the anchor of a page outside this section`);
      }
      expect(bad).toEqual([]);
    });

    it('labels every SQL block as IPQL or as a warehouse query', () => {
      for (const b of blocksOf(p).filter((x) => x.lang === 'sql'))
        expect(b.meta, `sql block without an IPQL/Snowflake title:\n${b.value}`).toMatch(/title="(IPQL|Snowflake)/);
    });
  });
});

describe('Identity Protection docs: onboarding guides', () => {
  const guides = pages.filter((p) => /^onboarding\/[^/]+\/(snapshot|streaming)\.md$/.test(p.rel.replace(/\\/g, '/')));
  it('has a snapshot or streaming guide for every source schema', () => {
    expect(guides.length).toBe(21);
    const slugs = new Set(guides.map((g) => g.rel.split(path.sep)[1]));
    expect([...slugs].sort()).toEqual(Object.keys(model.schemas).filter((k) => k !== 'core').map(explorerSlug).sort());
  });
  it('offers a streaming guide for every source of a streaming rule', () => {
    for (const r of rules.filter((x) => x.trigger === 'streaming'))
      for (const src of r.sources)
        expect(fs.existsSync(path.join(room, 'onboarding', explorerSlug(src), 'streaming.md')), `${r.id} uses ${src} events`).toBe(true);
  });
  it.each(guides.map((g) => [g.rel, g] as const))('%s has the standard sections and verifies with a query of its source', (_r, g) => {
    const headings = nodes(g.tree, 'heading').filter((h) => h.depth === 2).map(textOf);
    for (const h of ['Prerequisites', 'Steps', 'Verify the connection', 'Troubleshooting', 'Next steps']) expect(headings, h).toContain(h);
    if (g.rel.endsWith('snapshot.md')) expect(headings).toContain('Permissions Keyway needs');
    const verify = g.content.split('## Verify the connection')[1]!.split('\n## ')[0]!;
    const schemaKey = g.rel.split(path.sep)[1]!.replace(/-/g, '_');
    expect(verify, 'an IPQL query in the verify section').toMatch(/```sql title="IPQL/);
    expect(verify, `the verify query reads ${schemaKey}.*`).toMatch(new RegExp(`FROM ${schemaKey}\\.`));
  });
});

describe('Identity Protection docs: data model and IPQL', () => {
  it('has an explorer page for every source schema and a schema for every explorer page', () => {
    const explorer = pages.filter((p) => p.route.startsWith('/docs/identity-protection/queries/explorer/')).map((p) => p.route.split('/').pop()).sort();
    expect(explorer).toEqual(Object.keys(model.schemas).filter((k) => k !== 'core').map(explorerSlug).sort());
  });

  it('keeps every field name unique within its table and every type known', () => {
    for (const [s, def] of Object.entries(model.schemas))
      for (const [t, tb] of Object.entries(def.tables)) {
        const names = tb.fields.map(([n]) => n);
        expect(new Set(names).size, `${s}.${t}`).toBe(names.length);
        for (const [n, ty] of tb.fields) expect(['string', 'integer', 'boolean', 'timestamp', 'json', 'array<string>'], `${s}.${t}.${n}`).toContain(ty);
      }
  });

  it.each(renderTargets.map((t) => [`${path.relative(room, t.file)} (${t.marker})`, t] as const))(
    'renders %s exactly from the data files',
    (_name, t) => {
      const text = fs.readFileSync(t.file, 'utf8');
      const m = sectionRe(t.marker).exec(text);
      expect(m, `${t.file} has no <!-- ${t.marker}:begin --> ... end section`).not.toBeNull();
      const want = t.render();
      if (WRITE && m![2] !== want) fs.writeFileSync(t.file, text.replace(sectionRe(t.marker), (_a, b: string, _c, e: string) => `${b}${want}\n${e}`));
      else expect(m![2]).toBe(want);
    },
  );

  it('finds IPQL examples on the query, detection and onboarding pages', () => {
    expect(ipqlBlocks.length).toBeGreaterThanOrEqual(40);
    const withQueries = new Set(ipqlBlocks.map((b) => b.page.route));
    for (const r of ['/docs/identity-protection/queries/examples', '/docs/identity-protection/queries/guide', '/docs/identity-protection/detections'])
      expect(withQueries, r).toContain(r);
  });

  it.each(ipqlBlocks.map((b, i) => [`${b.page.rel} #${i}`, b.block.value] as const))('IPQL example %s uses only the data model', (_n, q) => {
    expect(checkIpql(q)).toEqual([]);
  });

  it('names only existing tables, fields and rules in the prose of every page', () => {
    const bad: string[] = [];
    const ruleIds = new Set(rules.map((r) => r.id));
    for (const p of pages) {
      const inline = nodes(p.tree, 'inlineCode').map((n) => n.value ?? '');
      for (const code of inline) {
        if (/^okta\.\w+\.(read|manage)$/.test(code)) continue; // Okta OAuth scopes, not tables
        const m = /^([a-z_]+)\.([a-z_]+)(?:\.([a-z_]+))?$/.exec(code);
        if (m && model.schemas[m[1]!]) {
          const table = model.schemas[m[1]!]!.tables[m[2]!];
          if (!table) bad.push(`${p.rel}: \`${code}\` names no table`);
          else if (m[3] && !table.fields.some(([f]) => f === m[3])) bad.push(`${p.rel}: \`${code}\` names no field`);
        }
      }
      for (const id of p.content.match(/\bKW-[A-Z]+-\d{3}\b/g) ?? []) if (!ruleIds.has(id)) bad.push(`${p.rel}: rule ${id} is not in detection-rules.yaml`);
    }
    expect(bad).toEqual([]);
  });

  it('exports every core table to the Snowflake sink', () => {
    const sink = pages.find((p) => p.route === '/docs/identity-protection/sinks/snowflake')!;
    for (const t of Object.keys(model.schemas.core!.tables)) expect(sink.content, `core.${t}`).toContain(`| \`${t.toUpperCase()}\` | \`core.${t}\` |`);
  });

  it('rejects queries that step outside the data model or the IPQL rules', () => {
    expect(checkIpql('SELECT u.login FROM okta.users u')).toEqual([]);
    expect(checkIpql('SELECT u.mfa FROM okta.users u')).toEqual(['unknown field okta.users.mfa (alias u)']);
    expect(checkIpql('SELECT u.login FROM okta.people u')).toContain('unknown table okta.people');
    expect(checkIpql('SELECT u.login FROM ldap.users u')).toContain('unknown schema ldap');
    expect(checkIpql('SELECT login FROM okta.users u')).toEqual(['unqualified or unknown name login (write alias.field)']);
    expect(checkIpql('SELECT x.login FROM okta.users u')).toEqual(['unknown alias x']);
    expect(checkIpql('SELECT u.login FROM okta.users')).toContain('okta.users needs an alias');
    expect(checkIpql('SELECT SHA1(u.login) FROM okta.users u')).toEqual(['unknown function SHA1']);
    expect(checkIpql("SELECT u.login FROM okta.users u WHERE ARRAY_CONTAINS(u.email, 'x')")).toEqual([
      'ARRAY_CONTAINS needs an array field, okta.users.email is string',
    ]);
    expect(checkIpql('SELECT COUNT(*) AS n FROM core.accounts a GROUP BY a.source ORDER BY n DESC')).toEqual([]);
    expect(checkIpql("SELECT a.username FROM core.accounts a WHERE a.mfa_enabled = 'no'")).toEqual(["core.accounts.mfa_enabled is boolean, compared with 'no'"]);
    expect(checkIpql('SELECT a.username FROM core.accounts a WHERE a.status = TRUE')).toEqual(['core.accounts.status is string, compared with TRUE']);
  });
});

describe('Identity Protection docs: detection webhooks', () => {
  it('finds webhook examples for every event type', () => {
    const types = new Set(webhookExamples.map((w) => (JSON.parse(w.block.value) as { type: string }).type));
    expect([...types].sort()).toEqual(['detection.opened', 'detection.resolved', 'detection.updated', 'webhook.test']);
  });

  it.each(webhookExamples.map((w, i) => [`${w.page.rel} #${i}`, w.block.value] as const))('webhook example %s is valid', (_n, text) => {
    const body = JSON.parse(text) as { data: { detection: { rule_id: string; category: string; source: string; evidence: Record<string, unknown>; query?: string } } };
    const ok = validateWebhook(body);
    expect(ok ? [] : validateWebhook.errors).toEqual([]);
    const d = body.data.detection;
    const rule = rules.find((r) => r.id === d.rule_id);
    expect(rule, `rule ${d.rule_id} is not in detection-rules.yaml`).toBeDefined();
    expect(d.category).toBe(rule!.category);
    expect(rule!.sources).toContain(d.source);
    for (const k of Object.keys(d.evidence)) expect(rule!.evidence, `evidence key ${k} of ${d.rule_id}`).toContain(k);
    if (d.query !== undefined) expect(checkIpql(d.query)).toEqual([]);
  });

  it('rejects payloads that break the schema', () => {
    const good = JSON.parse(webhookExamples.find((w) => w.block.value.includes('"detection.opened"'))!.block.value) as Record<string, unknown>;
    expect(validateWebhook(good)).toBe(true);
    expect(validateWebhook({ ...good, type: 'detection.deleted' })).toBe(false);
    expect(validateWebhook({ ...good, api_version: '2025-01-01' })).toBe(false);
    const data = good.data as { detection: Record<string, unknown> };
    expect(validateWebhook({ ...good, data: { detection: { ...data.detection, severity: 'urgent' } } })).toBe(false);
    expect(validateWebhook({ ...good, type: 'detection.updated' })).toBe(false); // updated needs data.changes
    const { remediation: _r, ...noRemediation } = data.detection;
    expect(validateWebhook({ ...good, data: { detection: noRemediation } })).toBe(false);
  });

  it('documents exactly the categories of the schema on the detections page', () => {
    const page = pages.find((p) => p.route === '/docs/identity-protection/detections')!;
    const section = page.content.split('## Categories')[1]!.split('\n## ')[0]!;
    const listed = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    const defs = (schema as { $defs: { detection: { properties: { category: { enum: string[] } } } } }).$defs;
    expect(listed.sort()).toEqual([...defs.detection.properties.category.enum].sort());
  });

  it('sends to Splunk the fields of core.events and the webhook body', () => {
    const page = pages.find((p) => p.route === '/docs/identity-protection/sinks/splunk')!;
    const row = page.content.split('\n').find((l) => l.startsWith('| `keyway:event` |'))!;
    const named = [...row.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    expect(named.sort()).toEqual(model.schemas.core!.tables.events!.fields.map(([f]) => f).sort());
    const det = page.content.split('\n').find((l) => l.startsWith('| `keyway:detection` |'))!;
    const required = (schema as { required: string[] }).required;
    for (const k of required) expect(det, k).toContain(`\`${k === 'data' ? 'data.detection' : k}\``);
  });

  it('keeps the rule catalog consistent with the schema', () => {
    const defs = (schema as { $defs: { detection: { properties: { category: { enum: string[] } } }; severity: { enum: string[] }; source: { enum: string[] } } }).$defs;
    const ids = rules.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of rules) {
      expect(r.id).toMatch(/^KW-[A-Z]+-[0-9]{3}$/);
      expect(defs.detection.properties.category.enum).toContain(r.category);
      expect(defs.severity.enum).toContain(r.severity);
      for (const s of r.sources) expect(defs.source.enum).toContain(s);
      expect(['snapshot', 'streaming', 'browser']).toContain(r.trigger);
    }
    const sources = Object.keys(model.schemas).filter((k) => k !== 'core');
    expect(defs.source.enum.filter((s) => s !== 'browser_extension').sort()).toEqual(sources.sort());
  });
});

describe('Identity Protection docs: webhook signature verification code', () => {
  const webhooksPage = pages.find((p) => p.route === '/docs/identity-protection/detections/webhooks')!;
  const verifierSource = blocksOf(webhooksPage).find((b) => /title="keyway-webhook-verify\.mjs"/.test(b.meta))?.value;
  const openedBody = webhookExamples.find((w) => w.page === webhooksPage && w.block.value.includes('"detection.opened"'))!.block.value;

  type Verifier = {
    keywayKeySet: (o: { fetchJwks: () => Promise<unknown> }) => unknown;
    verifyKeywayWebhook: (body: Uint8Array, header: string | undefined, o: { keySet: unknown; webhookId: string; now?: number }) => Promise<{ id: string }>;
    WebhookVerificationError: new (m: string) => Error;
  };
  const loadVerifier = async (): Promise<Verifier> => {
    expect(verifierSource, 'the webhooks page has a keyway-webhook-verify.mjs block').toBeDefined();
    const joseUrl = pathToFileURL(createRequire(import.meta.url).resolve('jose')).href;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-webhook-'));
    const file = path.join(dir, 'keyway-webhook-verify.mjs');
    fs.writeFileSync(file, verifierSource!.replace("from 'jose'", `from '${joseUrl}'`));
    return (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Verifier;
  };
  const sign = async (body: Uint8Array, key: CryptoKey, header: Record<string, unknown>) => {
    const jws = await new FlattenedSign(body).setProtectedHeader({ alg: 'ES256', typ: 'keyway-webhook+jws', ...header }).sign(key);
    return `${jws.protected}..${jws.signature}`;
  };

  it('accepts a correctly signed delivery and rejects every kind of forgery the page warns about', async () => {
    const v = await loadVerifier();
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: 'whk-2026-09', alg: 'ES256', use: 'sig' };
    const keySet = v.keywayKeySet({ fetchJwks: async () => ({ keys: [jwk] }) });
    const body = new TextEncoder().encode(openedBody);
    const iat = Math.floor(Date.now() / 1000);
    const good = await sign(body, privateKey, { kid: jwk.kid, iat, wid: 'whk_4Gm2rT8sLq0Xv1Pz' });
    const opts = { keySet, webhookId: 'whk_4Gm2rT8sLq0Xv1Pz' };

    expect((await v.verifyKeywayWebhook(body, good, opts)).id).toBe('evt_9qT3kLm2Vx8Zp4Rb7Yc1');

    const tampered = new TextEncoder().encode(openedBody.replace('"high"', '"low"'));
    await expect(v.verifyKeywayWebhook(tampered, good, opts)).rejects.toThrow(/does not match the body/);
    await expect(v.verifyKeywayWebhook(body, good, { ...opts, webhookId: 'whk_other' })).rejects.toThrow(/for webhook whk_4Gm2rT8sLq0Xv1Pz/);
    await expect(v.verifyKeywayWebhook(body, good, { ...opts, now: (iat + 301) * 1000 })).rejects.toThrow(/too old/);
    await expect(v.verifyKeywayWebhook(body, undefined, opts)).rejects.toThrow(/not a detached JWS/);
    const other = await generateKeyPair('ES256');
    const forged = await sign(body, other.privateKey, { kid: jwk.kid, iat, wid: 'whk_4Gm2rT8sLq0Xv1Pz' });
    await expect(v.verifyKeywayWebhook(body, forged, opts)).rejects.toBeInstanceOf(v.WebhookVerificationError);
  });

  it('refetches the key set when a rotated key appears, at most once a minute', async () => {
    const v = await loadVerifier();
    const oldKey = await generateKeyPair('ES256', { extractable: true });
    const newKey = await generateKeyPair('ES256', { extractable: true });
    const oldJwk = { ...(await exportJWK(oldKey.publicKey)), kid: 'k-old', alg: 'ES256' };
    const newJwk = { ...(await exportJWK(newKey.publicKey)), kid: 'k-new', alg: 'ES256' };
    let published = [oldJwk];
    const fetchJwks = vi.fn(async () => ({ keys: published }));
    const keySet = v.keywayKeySet({ fetchJwks });
    const body = new TextEncoder().encode(openedBody);
    const t0 = Date.UTC(2026, 10, 21, 8, 0, 0);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(t0);
      const opts = { keySet, webhookId: 'whk_1' };
      const iat = () => Math.floor(Date.now() / 1000);
      await v.verifyKeywayWebhook(body, await sign(body, oldKey.privateKey, { kid: 'k-old', iat: iat(), wid: 'whk_1' }), opts);
      published = [oldJwk, newJwk];
      const signedNew = async () => sign(body, newKey.privateKey, { kid: 'k-new', iat: iat(), wid: 'whk_1' });
      await expect(v.verifyKeywayWebhook(body, await signedNew(), opts)).rejects.toThrow(); // fetched less than a minute ago
      vi.setSystemTime(t0 + 61_000);
      expect((await v.verifyKeywayWebhook(body, await signedNew(), opts)).id).toBe('evt_9qT3kLm2Vx8Zp4Rb7Yc1');
      expect(fetchJwks).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
