// The data of the reference pages: one page per operation and one per tag, as JSON that one React component renders
// (site/src/components/api/ReferencePage.tsx). Descriptions, parameters, bodies and responses are Markdown rendered to
// HTML here, at build time, so they are static HTML in the built page and the browser needs no Markdown renderer.
import { createSlugger } from '@docusaurus/utils';
import MarkdownIt from 'markdown-it';
import type { FieldRow, ReferenceBlock, ReferencePageData, TryItOperation } from '../../src/components/api/types';
import { UMBRELLA_TAG, type ApiSpec, type Json, type MediaType, type Operation, type Parameter, type Response, type Schema } from './spec';
import { formParts, mediaExample, requestModel, samplesFor, SDK_CALLS } from './samples';

export interface Category {
  id: string;
  label: string;
  description: string;
}

const STATUS_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '204': 'No Content',
  '302': 'Found',
  '400': 'Bad Request',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'Not Found',
  '408': 'Request Timeout',
  '409': 'Conflict',
  '413': 'Payload Too Large',
  '415': 'Unsupported Media Type',
  '429': 'Too Many Requests',
};

/** Text inside a Markdown table cell: `|` would end the cell and a newline the row. */
export function tableCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

const code = (s: string): string => (s.includes('`') ? `\`\` ${s} \`\`` : `\`${s}\``);
const cell = tableCell;
const json = (v: Json): string => JSON.stringify(v, null, 2);
const refName = (ref: string): string => ref.split('/').pop() ?? ref;

interface Row {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

const MAX_DEPTH = 4;
const MAX_ROWS = 80;

/** allOf merged into one object schema (properties and required lists), $refs at the top resolved. */
function flatten(spec: ApiSpec, schema: Schema, seen: string[]): { schema: Schema; seen: string[] } {
  let s = schema;
  let chain = seen;
  while (s.$ref) {
    if (chain.includes(s.$ref)) return { schema: { type: 'object', description: `${refName(s.$ref)} (recursive, see above)` }, seen: chain };
    chain = [...chain, s.$ref];
    s = spec.lookup<Schema>(s.$ref);
  }
  if (!s.allOf) return { schema: s, seen: chain };
  const merged: Schema = { ...s, allOf: undefined, properties: { ...s.properties }, required: [...(s.required ?? [])] };
  for (const part of s.allOf) {
    const p = flatten(spec, part, chain).schema;
    Object.assign(merged.properties!, p.properties);
    merged.required!.push(...(p.required ?? []));
    merged.type ??= p.type;
    merged.description ??= p.description;
    if (p.additionalProperties !== undefined) merged.additionalProperties ??= p.additionalProperties;
  }
  return { schema: merged, seen: chain };
}

function typeLabel(spec: ApiSpec, schema: Schema, seen: string[]): string {
  const name = schema.$ref ? refName(schema.$ref) : undefined;
  const s = flatten(spec, schema, seen).schema;
  const variants = s.oneOf ?? s.anyOf;
  if (variants) return variants.map((v) => typeLabel(spec, v, seen)).join(' or ');
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : s.const !== undefined ? [typeof s.const] : [];
  const base = types
    .map((t) => (t === 'array' && s.items ? `array of ${typeLabel(spec, s.items, seen)}` : t === 'string' && s.format ? `string (${s.format})` : t))
    .join(' or ');
  return name && types.includes('object') ? `${base} (${name})` : base || (name ?? 'any');
}

function constraints(s: Schema): string[] {
  const out: string[] = [];
  if (s.const !== undefined) out.push(`Always ${code(JSON.stringify(s.const))}.`);
  if (s.enum) out.push(`One of ${s.enum.map((e) => code(JSON.stringify(e))).join(', ')}.`);
  if (s.default !== undefined) out.push(`Default ${code(JSON.stringify(s.default))}.`);
  if (s.minimum !== undefined) out.push(`At least ${s.minimum}.`);
  if (s.maximum !== undefined) out.push(`At most ${s.maximum}.`);
  if (s.minLength !== undefined && s.minLength > 1) out.push(`At least ${s.minLength} characters.`);
  if (s.maxLength !== undefined) out.push(`At most ${s.maxLength} characters.`);
  if (s.minItems !== undefined && s.minItems > 0) out.push(`At least ${s.minItems} item${s.minItems === 1 ? '' : 's'}.`);
  if (s.maxItems !== undefined) out.push(`At most ${s.maxItems} item${s.maxItems === 1 ? '' : 's'}.`);
  if (s.pattern) out.push(`Pattern ${code(s.pattern)}.`);
  if (s.contentMediaType) out.push(`Content ${code(s.contentMediaType)}.`);
  if (s.deprecated) out.push('Deprecated.');
  return out;
}

/** One row per property, nested objects and arrays of objects expanded with dotted names (`handles[].type`). */
export function schemaRows(spec: ApiSpec, schema: Schema, prefix = '', depth = 0, seen: string[] = []): Row[] {
  const { schema: s, seen: chain } = flatten(spec, schema, seen);
  const rows: Row[] = [];
  const variants = s.oneOf ?? s.anyOf;
  if (variants && !s.properties) {
    variants.forEach((v, i) => {
      const f = flatten(spec, v, chain).schema;
      const title = f.title ?? (v.$ref ? refName(v.$ref) : `option ${i + 1}`);
      if (f.properties || f.allOf) rows.push(...schemaRows(spec, v, `${prefix}(${title}) `, depth + 1, chain));
    });
    return rows;
  }
  if (s.type === 'array' && s.items && !s.properties && depth === 0) return schemaRows(spec, s.items, `${prefix}[].`, depth + 1, chain);
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    const resolved = flatten(spec, prop, chain).schema;
    const description = [prop.description ?? resolved.description ?? '', ...constraints(resolved)].filter(Boolean).join(' ');
    rows.push({ name: prefix + key, type: typeLabel(spec, prop, chain), required: s.required?.includes(key) ?? false, description });
    if (depth >= MAX_DEPTH) continue;
    if (resolved.properties || resolved.allOf || ((resolved.oneOf ?? resolved.anyOf) && !resolved.type)) {
      rows.push(...schemaRows(spec, prop, `${prefix}${key}.`, depth + 1, chain));
    } else if (resolved.items) {
      const item = flatten(spec, resolved.items, chain).schema;
      if (item.properties || item.allOf) rows.push(...schemaRows(spec, resolved.items, `${prefix}${key}[].`, depth + 1, chain));
    }
    if (resolved.additionalProperties && typeof resolved.additionalProperties === 'object') {
      const extra = resolved.additionalProperties;
      rows.push({ name: `${prefix}${key}.*`, type: typeLabel(spec, extra, chain), required: false, description: extra.description ?? 'Any name.' });
    }
  }
  if (depth === 0 && s.additionalProperties && typeof s.additionalProperties === 'object' && !s.properties) {
    rows.push({ name: `${prefix}*`, type: typeLabel(spec, s.additionalProperties, chain), required: false, description: s.additionalProperties.description ?? 'Any name.' });
  }
  return rows.slice(0, MAX_ROWS);
}

/**
 * The rows of a schema as fields, each under the one it belongs to: a row whose dotted name continues another's
 * (`handles[].type` after `handles`) is its child, so the page can fold children under their parent.
 */
export function fieldRows(rows: Row[]): FieldRow[] {
  const out: FieldRow[] = [];
  rows.forEach((r) => {
    let parent = -1;
    for (let i = out.length - 1; i >= 0; i--) {
      const name = (out[i] as FieldRow).name;
      if (r.name.startsWith(`${name}.`) || r.name.startsWith(`${name}[].`)) {
        parent = i;
        break;
      }
    }
    const label = parent < 0 ? r.name : r.name.slice((out[parent] as FieldRow).name.length).replace(/^(\[\])?\./, '');
    out.push({ name: r.name, label, type: r.type, required: r.required, html: inlineHtml(r.description), parent });
  });
  return out;
}

function parameterRows(spec: ApiSpec, params: Parameter[]): FieldRow[] {
  return params.map((p) => {
    const s = p.schema ? flatten(spec, p.schema, []).schema : {};
    const desc = [p.description ?? s.description ?? '', ...constraints(s), p.example !== undefined ? `Example ${code(JSON.stringify(p.example))}.` : '']
      .filter(Boolean)
      .join(' ');
    return { name: p.name, label: p.name, in: p.in, type: p.schema ? typeLabel(spec, p.schema, []) : 'string', required: p.required ?? false, html: inlineHtml(desc), parent: -1 };
  });
}

/**
 * Collects a page's blocks: Markdown is rendered to HTML when a non-Markdown block (heading, code, React part) comes,
 * and headings get the ids Docusaurus would give them, unique within the page, for the table of contents.
 */
class PageBuilder {
  readonly blocks: ReferenceBlock[] = [];
  readonly toc: ReferencePageData['toc'] = [];
  private markdown: string[] = [];
  private readonly slugger = createSlugger();

  text(...lines: string[]): this {
    this.markdown.push(...lines);
    return this;
  }

  heading(level: 2 | 3, text: string, column?: 'aside'): this {
    const id = this.slugger.slug(text);
    this.toc.push({ value: markdown.utils.escapeHtml(text), id, level });
    return this.block({ kind: 'heading', level, id, text, ...(column ? { column } : {}) });
  }

  block(block: ReferenceBlock): this {
    this.flush();
    this.blocks.push(block);
    return this;
  }

  done(): { blocks: ReferenceBlock[]; toc: ReferencePageData['toc'] } {
    this.flush();
    return { blocks: this.blocks, toc: this.toc };
  }

  private flush(): void {
    const source = this.markdown.join('\n').trim();
    this.markdown = [];
    if (source) this.blocks.push({ kind: 'html', html: renderMarkdown(source) });
  }
}

/** The contract's Markdown as HTML: raw HTML in it is escaped, links may only be site paths, anchors or http(s). */
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });
markdown.validateLink = (url: string): boolean => /^(\/(?!\/)|#|https?:\/\/)/i.test(url.trim());
// A wide field table scrolls sideways in its column: focusable, so a keyboard can scroll it (WCAG 2.1.1; axe's
// scrollable-region-focusable, e2e/accessibility.e2e.ts).
markdown.renderer.rules.table_open = (tokens, idx, options, _env, self) => {
  tokens[idx]!.attrSet('tabindex', '0');
  return self.renderToken(tokens, idx, options);
};

export function renderMarkdown(source: string): string {
  return markdown.render(source).trim();
}

/** A description as inline HTML (a field's text sits beside its name, not in a paragraph of its own). */
const inlineHtml = (source: string): string => markdown.renderInline(source.replace(/\s*\n\s*/g, ' ')).trim();

function exampleBlock(value: Json, contentType: string): ReferenceBlock {
  if (typeof value === 'string' && contentType !== 'application/json') return { kind: 'code', language: 'text', code: value };
  return { kind: 'code', language: 'json', code: json(value) };
}

/**
 * A body: field table and example. In success answers the envelope's `errors` (and `meta` when the example has none)
 * are left out: the overview documents the envelope once.
 */
function mediaSection(page: PageBuilder, spec: ApiSpec, contentType: string, media: MediaType, success = false, aside?: string): void {
  const example = mediaExample(spec, media);
  const hasMeta = !!example && typeof example === 'object' && !Array.isArray(example) && 'meta' in example;
  if (media.schema) {
    const rows = schemaRows(spec, media.schema).filter(
      (r) => !success || !(/^errors(\[|\.|$)/.test(r.name) || (!hasMeta && /^meta(\.|$)/.test(r.name))),
    );
    if (rows.length) page.block({ kind: 'fields', list: 'fields', rows: fieldRows(rows) });
    else page.text(`Type: ${typeLabel(spec, media.schema, [])}.`, '');
  }
  if (example !== null && !(typeof example === 'object' && !Array.isArray(example) && !Object.keys(example).length)) {
    const block = exampleBlock(example, contentType);
    // The example response of an operation page sits beside the request samples (second column at desktop width).
    if (aside && block.kind === 'code') page.block({ kind: 'example', label: `${aside} · ${contentType}`, language: block.language, code: block.code, column: 'aside' });
    else page.text(`Example (${code(contentType)}):`, '').block(block);
  }
}

const SECURITY_TEXT: Record<string, string> = {
  OrgId: 'the `Keyway-OrgID` header with your organization id',
  ApiKey: 'the `Keyway-API-Key` header with a management API key of that organization',
  UserToken: "`Authorization: Bearer` with the signed-in person's user token",
  ClientBasic: 'HTTP Basic authentication with the OAuth2 client id and secret',
  OAuth2AccessToken: '`Authorization: Bearer` with an OAuth2 access token',
  KeywayOAuth2: '`Authorization: Bearer` with an OAuth2 access token',
};

/**
 * How to authenticate: one way in a sentence; several alternatives as "either … or …" (each alternative's schemes go
 * together, joined by "plus").
 */
export function securitySection(op: Operation): string[] {
  if (!op.security.length || op.security.every((alt) => !Object.keys(alt).length)) return ['No credentials: anyone may call this operation.'];
  const ways = op.security.map((alt) => {
    const names = Object.keys(alt);
    return names.length ? names.map((n) => SECURITY_TEXT[n] ?? `the ${code(n)} scheme`).join(', plus ') : 'no credentials at all';
  });
  if (ways.length === 1) return [`Send ${ways[0]}.`];
  return [
    `Send **either** of these (one is enough):`,
    '',
    ...ways.map((w, i) => `- ${i === 0 ? '**Either**' : '**or**'} ${w}${i === ways.length - 1 ? '.' : ';'}`),
  ];
}

function firstMessage(spec: ApiSpec, r: Response): string {
  const media = Object.values(r.content ?? {})[0];
  if (!media) return '';
  const ex = mediaExample(spec, media) as { errors?: { message?: string }[]; error?: string } | null;
  const message = ex?.errors?.[0]?.message ?? ex?.error;
  return message ? code(message) : '';
}

/** The operation's data for the try-it panel: only what it needs. */
export function tryItProps(spec: ApiSpec, op: Operation): TryItOperation {
  const body = op.raw.requestBody ? spec.deref(op.raw.requestBody) : undefined;
  const [contentType, media] = Object.entries(body?.content ?? {})[0] ?? [];
  const example = media ? mediaExample(spec, media) : null;
  return {
    method: op.method.toUpperCase(),
    path: op.path,
    security: op.security[0] ? Object.keys(op.security[0]) : [],
    parameters: op.parameters.map((p) => {
      const ex = p.example ?? (p.schema ? flatten(spec, p.schema, []).schema.example : undefined);
      return { name: p.name, in: p.in as TryItOperation['parameters'][number]['in'], required: p.required ?? false, ...(ex !== undefined ? { example: typeof ex === 'string' ? ex : Array.isArray(ex) ? ex.join(',') : JSON.stringify(ex) } : {}) };
    }),
    ...(contentType === 'multipart/form-data' && media ? multipartTryIt(spec, op, media, example) : {}),
    ...(contentType && contentType !== 'multipart/form-data'
      ? { contentType, body: typeof example === 'string' ? example : contentType === 'application/x-www-form-urlencoded' && example && typeof example === 'object' ? new URLSearchParams(example as Record<string, string>).toString() : json(example) }
      : {}),
  };
}

/** A multipart operation in the try-it panel: the body field edits the file part's text, other fields go beside it. */
function multipartTryIt(spec: ApiSpec, op: Operation, media: MediaType, example: Json): Pick<TryItOperation, 'contentType' | 'body' | 'file' | 'fields'> {
  const parts = formParts(spec, example, media, op);
  const filePart = parts.find((p) => p.file);
  return {
    contentType: 'multipart/form-data',
    body: filePart?.value ?? '',
    ...(filePart?.file ? { file: { field: filePart.name, filename: filePart.file.filename, contentType: filePart.file.contentType } } : {}),
    fields: parts.filter((p) => !p.file).map((p) => [p.name, p.value] as [string, string]),
  };
}

export const operationHref = (op: Operation): string => `/docs/api/${op.slug}`;
export const categoryHref = (tag: string): string => `/docs/category/api/${tag}`;

/** The one-line description for `<meta name="description">` and search results. */
function metaDescription(text: string): string {
  const first = text.split('\n\n')[0]!.replace(/\s+/g, ' ').replace(/`/g, '').trim();
  return first.length > 200 ? first.slice(0, 197) + '...' : first;
}

/** The words readers use for what each HTTP method does ("how do I remove…", "list the…", "change the…"). */
const METHOD_VERBS: Record<string, string[]> = {
  get: ['get', 'read', 'fetch', 'retrieve', 'look up'],
  post: ['create', 'add', 'send'],
  put: ['update', 'change', 'set', 'replace'],
  patch: ['update', 'change', 'edit', 'modify'],
  delete: ['delete', 'remove'],
};

/**
 * Searchable words for an operation page, derived from the contract alone (the page is generated: it has no front
 * matter to carry keywords): the method and path, the reader verbs of its method ("list" for a GET of a collection)
 * joined to the resource nouns of its path ("remove consent gdpr"), its categories, and how it is called (every
 * operation is a REST API endpoint; one that takes the organization's API key is called from a backend, server-side;
 * one that takes the signed-in person's token from the browser). The same rule for every operation, none hand-picked.
 */
export function operationKeywords(op: Operation, categories: Map<string, Category>): string[] {
  const segments = op.path.split('/').filter(Boolean);
  const nouns = segments.filter((s) => !/^\{.*\}$/.test(s)).map((s) => s.replace(/[-_.]+/g, ' '));
  const resource = nouns.slice(-2).join(' ');
  const collection = op.method === 'get' && !/^\{.*\}$/.test(segments.at(-1) ?? '');
  const verbs = [...(collection ? ['list'] : []), ...(METHOD_VERBS[op.method] ?? [])];
  const schemes = new Set(op.security.flatMap((alt) => Object.keys(alt)));
  const calledFrom = [
    ...(schemes.has('ApiKey') || schemes.has('ClientBasic') ? ['backend', 'server-side', 'management API'] : []),
    ...(schemes.has('UserToken') ? ['browser', 'signed-in person'] : []),
  ];
  const labels = op.tags.map((t) => categories.get(t)?.label ?? t);
  return [
    ...new Set([
      `${op.method.toUpperCase()} ${op.path}`,
      ...verbs.map((v) => `${v} ${resource}`),
      ...nouns,
      ...labels,
      'REST API',
      'endpoint',
      ...calledFrom,
    ]),
  ];
}

/** The page of one operation (previous/next links are filled in from the sidebar by the caller). */
export function operationPage(spec: ApiSpec, op: Operation, categories: Map<string, Category>): ReferencePageData {
  const page = new PageBuilder();
  page.block({ kind: 'endpoint', method: op.method, path: op.path });
  page.text(op.description, '', `Categories: ${op.tags.map((t) => `[${categories.get(t)?.label ?? t}](${categoryHref(t)})`).join(', ')}.`, '');
  if (op.raw.deprecated) page.block({ kind: 'warning', text: 'This operation is deprecated.' });
  page.heading(2, 'Authentication').text(...securitySection(op), '');
  if (op.parameters.length) page.heading(2, 'Parameters').block({ kind: 'fields', list: 'parameters', rows: parameterRows(spec, op.parameters) });
  if (op.raw.requestBody) {
    const body = spec.deref(op.raw.requestBody);
    page.heading(2, 'Request body').text(`${body.required ? 'Required' : 'Optional'}.${body.description ? ' ' + body.description : ''}`, '');
    for (const [contentType, media] of Object.entries(body.content ?? {})) {
      page.text(`Content type ${code(contentType)}:`, '');
      mediaSection(page, spec, contentType, media);
    }
  }
  page.heading(2, 'Responses');
  const errors: string[] = [];
  let asideExample = true;
  for (const [status, ref] of Object.entries(op.raw.responses ?? {})) {
    const r = spec.deref(ref);
    if (Number(status) >= 400) {
      errors.push(`| ${status} | ${cell(r.description ?? STATUS_TEXT[status] ?? '')} | ${cell(firstMessage(spec, r))} |`);
      continue;
    }
    page.heading(3, `${status} ${STATUS_TEXT[status] ?? ''}`.trimEnd()).text(r.description ?? '', '');
    const headers = Object.entries(r.headers ?? {}).map(([name, h]) => [name, spec.deref(h)] as const);
    if (headers.length)
      page.block({ kind: 'fields', list: 'headers', rows: headers.map(([name, h]) => ({ name, label: name, html: inlineHtml(h.description ?? ''), parent: -1 })) });
    for (const [contentType, media] of Object.entries(r.content ?? {})) {
      mediaSection(page, spec, contentType, media, true, asideExample ? `Example response ${status}` : undefined);
      asideExample = false;
    }
  }
  if (errors.length) {
    page
      .heading(3, 'Errors')
      .text('Errors answer `{ "errors": [{ "httpcode", "message" }] }`; the [overview](/docs/api#errors) explains each status.', '')
      .text('| Status | When | Example message |', '| --- | --- | --- |', ...errors, '');
  }
  // Second column at desktop width (ReferenceContent), after the introduction on narrow screens: try-it beside the
  // samples, which follow what the reader types into it.
  page.heading(2, 'Try it', 'aside').block({ kind: 'tryIt', operation: tryItProps(spec, op), column: 'aside' });
  const sdk = SDK_CALLS[`${op.method.toUpperCase()} ${op.path}`];
  page.heading(2, 'Request samples', 'aside').block({ kind: 'samples', samples: samplesFor(spec, op), model: requestModel(spec, op), ...(sdk ? { sdk: sdk.code } : {}), column: 'aside' });
  const built = page.done();
  // The example response follows the samples in the second column.
  const blocks = [...built.blocks.filter((b) => b.column !== 'aside'), ...built.blocks.filter((b) => b.column === 'aside' && b.kind !== 'example'), ...built.blocks.filter((b) => b.kind === 'example')];
  return {
    permalink: operationHref(op),
    kind: 'operation',
    title: op.summary,
    ...(op.raw.deprecated ? { deprecated: true } : {}),
    description: metaDescription(op.description),
    keywords: operationKeywords(op, categories),
    blocks,
    toc: built.toc,
  };
}

const operationRows = (ops: Operation[]) =>
  ops.map((o) => ({ method: o.method, title: o.summary, href: operationHref(o), path: o.path, ...(o.raw.deprecated ? { deprecated: true } : {}) }));

/**
 * The page of one tag: its description, the overview of the resource (hand-written Markdown, when there is one) and a
 * table of its operations. The umbrella tag's operations are grouped by their own category, in sidebar order.
 */
export function categoryPage(cat: Category, ops: Operation[], options: { overview?: string; categories?: Category[] } = {}): ReferencePageData {
  const page = new PageBuilder().text(cat.description, '');
  // The overview's own `##` headings become headings of the page (ids, table of contents).
  for (const line of (options.overview ?? '').trim().split('\n')) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) page.heading(2, heading[1]!.trim());
    else page.text(line);
  }
  page.text('');
  page.heading(2, `Operations (${ops.length})`);
  const groups = cat.id === UMBRELLA_TAG && options.categories ? options.categories.filter((c) => c.id !== cat.id) : [];
  if (groups.length) {
    for (const group of groups) {
      const mine = ops.filter((o) => o.primaryTag === group.id);
      if (!mine.length) continue;
      page.heading(3, `${group.label} (${mine.length})`).text(`[About ${group.label}](${categoryHref(group.id)})`, '');
      page.block({ kind: 'operations', operations: operationRows(mine) });
    }
  } else if (ops.length) page.block({ kind: 'operations', operations: operationRows(ops) });
  else page.text('The API contract defines no operation with this tag.', '');
  page.text('Every operation answers with the envelope described in the [API overview](/docs/api): data in `result`, problems in `errors`, and `meta.pagination` on lists.');
  return { permalink: categoryHref(cat.id), kind: 'category', title: cat.label, description: metaDescription(cat.description), ...page.done() };
}
