// Keyway Gate configuration model: loads options.yaml (the one reference of every option),
// renders its tables for the docs pages, parses configuration files in the four formats Gate
// reads (YAML, JSON, TOML, HCL) and validates a parsed configuration against the reference.
//
// Used by site/test/gate-docs.test.ts and by `node site/docs/gate/_reference/render.mjs`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { parse as parseToml } from 'smol-toml';

const here = path.dirname(fileURLToPath(import.meta.url));

/** @returns {any} the parsed reference */
export function loadReference(file = path.join(here, 'options.yaml')) {
  return YAML.parse(fs.readFileSync(file, 'utf8'));
}

// ---------------------------------------------------------------- types

const DURATION = /^(\d+(ms|s|m|h))+$/;
const WHOLE_SUBSTITUTION = /^\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}$/;
const TEMPLATE = /\{\{\s*([^}]*?)\s*\}\}/g;
const TEMPLATE_VALUE = /^(claims\.[A-Za-z0-9_.-]+|request\.(method|path|host|id)|request\.headers\.[A-Za-z0-9-]+|client\.ip)$/;

/** Human-readable type, as shown in the tables. */
export function typeLabel(opt) {
  if (opt.type === 'enum') return `enum: ${opt.values.join(', ')}`;
  if (opt.type === 'list') {
    if (opt.items === 'plugin') return 'list of plugin entries';
    if (typeof opt.items === 'object') return `list of enum: ${opt.items.values.join(', ')}`;
    return `list of ${opt.items}`;
  }
  if (opt.type === 'map') return 'map of string';
  return opt.type;
}

/**
 * Checks one scalar or list value against an option's type.
 * @returns {string | null} why the value is wrong, or null
 */
export function checkValue(opt, value) {
  const describe = JSON.stringify(value);
  if (typeof value === 'string' && WHOLE_SUBSTITUTION.test(value)) return null; // resolved at load time
  if (typeof value === 'string' && value.includes('{{')) {
    if (!opt.templated) return `${describe} uses a {{ }} template, but this option is not templated`;
    for (const m of value.matchAll(TEMPLATE)) {
      if (!TEMPLATE_VALUE.test(m[1] ?? '')) return `unknown template value {{ ${m[1]} }}`;
    }
  }
  switch (opt.type) {
    case 'string':
      return typeof value === 'string' ? null : `expected a string, got ${describe}`;
    case 'integer':
      return Number.isInteger(value) ? null : `expected an integer, got ${describe}`;
    case 'number':
      return typeof value === 'number' ? null : `expected a number, got ${describe}`;
    case 'boolean':
      return typeof value === 'boolean' ? null : `expected true or false, got ${describe}`;
    case 'duration':
      return typeof value === 'string' && DURATION.test(value) ? null : `expected a duration such as "30s", got ${describe}`;
    case 'url': {
      if (typeof value !== 'string') return `expected a URL, got ${describe}`;
      try {
        new URL(value.replace(/\$\{[^}]*\}/g, 'x'));
        return null;
      } catch {
        return `expected an absolute URL, got ${describe}`;
      }
    }
    case 'enum':
      return opt.values.includes(value) ? null : `expected one of ${opt.values.join(', ')}, got ${describe}`;
    case 'list': {
      if (!Array.isArray(value)) return `expected a list, got ${describe}`;
      const item = typeof opt.items === 'object' ? opt.items : { type: opt.items };
      for (const v of value) {
        const why = checkValue({ ...item, templated: opt.templated }, v);
        if (why) return `list item: ${why}`;
      }
      return null;
    }
    case 'map': {
      if (!isPlainObject(value)) return `expected a map of strings, got ${describe}`;
      for (const [k, v] of Object.entries(value)) {
        const why = checkValue({ type: 'string', templated: opt.templated }, v);
        if (why) return `key ${k}: ${why}`;
      }
      return null;
    }
    default:
      return `unknown type ${opt.type} in the reference`;
  }
}

/** Checks the string value of an environment variable (how Gate reads it) against its option. */
export function checkEnvValue(opt, raw) {
  if (opt.items === 'plugin') {
    try {
      return Array.isArray(JSON.parse(raw)) ? null : 'expected a JSON array of plugin entries';
    } catch {
      return 'expected a JSON array of plugin entries';
    }
  }
  let value = raw;
  if (opt.type === 'integer' || opt.type === 'number') value = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  if (opt.type === 'boolean') value = raw === 'true' ? true : raw === 'false' ? false : raw;
  if (opt.type === 'list') value = raw === '' ? [] : raw.split(',').map((s) => s.trim());
  return checkValue(opt, value);
}

function isPlainObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------- validation

/** Index of the global options as a tree of nested keys. */
function globalTree(ref) {
  const tree = {};
  for (const opt of ref.global) {
    const parts = opt.name.split('.');
    let node = tree;
    for (const p of parts.slice(0, -1)) node = node[p] ??= { __group: true };
    node[parts.at(-1)] = opt;
  }
  return tree;
}

/** Every environment variable Gate reads, mapped to its option (or to the process entry). */
export function envIndex(ref) {
  const map = new Map();
  for (const opt of ref.global) if (opt.env) map.set(opt.env, opt);
  for (const p of ref.process) if (!map.has(p.env)) map.set(p.env, { name: p.env, type: 'string' });
  return map;
}

/**
 * Validates a parsed Gate configuration.
 * @param {any} ref the reference
 * @param {unknown} config the parsed file
 * @param {{ complete: boolean }} opts complete files must also have every required option
 * @returns {string[]} errors, each naming the option path
 */
export function validateConfig(ref, config, { complete }) {
  const errors = [];
  if (!isPlainObject(config)) return ['the configuration must be a mapping of options'];
  walk(globalTree(ref), config, '', errors, ref);
  if (complete) {
    const get = (p) => p.split('.').reduce((o, k) => (isPlainObject(o) ? o[k] : undefined), config);
    if (get('keyway.issuer_url') === undefined) errors.push('keyway.issuer_url: required');
    const mode = get('run_mode') ?? 'reverse-proxy';
    if (mode === 'reverse-proxy' && get('upstream.url') === undefined) errors.push('upstream.url: required in reverse-proxy mode');
    if (mode !== 'reverse-proxy' && Array.isArray(config.plugins))
      config.plugins.forEach((e, i) => {
        if (isPlainObject(e) && e.enabled !== false && (e.mode ?? ref.plugins[e.id]?.modes[0]) === 'response')
          errors.push(`plugins[${i}] (${e.name ?? e.id}).mode: response-mode plugins cannot run in ${mode} mode`);
      });
    if (get('tls.enabled') === true && (get('tls.cert_file') === undefined || get('tls.key_file') === undefined))
      errors.push('tls: cert_file and key_file are required when tls.enabled is true');
  }
  if (Array.isArray(config.plugins)) errors.push(...validatePlugins(ref, config.plugins, { complete }));
  return errors;
}

function walk(tree, obj, prefix, errors, ref) {
  for (const [key, value] of Object.entries(obj)) {
    const where = prefix + key;
    const node = tree[key];
    if (node === undefined || key === '__group') {
      errors.push(`${where}: unknown option`);
    } else if (node.__group) {
      if (isPlainObject(value)) walk(node, value, `${where}.`, errors, ref);
      else errors.push(`${where}: expected a mapping of options, got ${JSON.stringify(value)}`);
    } else if (node.items !== 'plugin') {
      const why = checkValue(node, value);
      if (why) errors.push(`${where}: ${why}`);
    } else if (!Array.isArray(value)) {
      errors.push(`${where}: expected a list of plugin entries`);
    }
  }
}

/** Validates a list of plugin entries (the `plugins` option). */
export function validatePlugins(ref, entries, { complete }) {
  const errors = [];
  const names = new Set();
  const fields = new Map(ref.plugin_entry.map((f) => [f.name, f]));
  entries.forEach((entry, i) => {
    const at = `plugins[${i}]`;
    if (!isPlainObject(entry)) return void errors.push(`${at}: expected a plugin entry mapping`);
    const plugin = ref.plugins[entry.id];
    if (typeof entry.id !== 'string') return void errors.push(`${at}.id: required`);
    if (!plugin) return void errors.push(`${at}.id: unknown plugin ${JSON.stringify(entry.id)}`);
    const label = `${at} (${entry.name ?? entry.id})`;
    for (const [k, v] of Object.entries(entry)) {
      const f = fields.get(k);
      if (!f) errors.push(`${label}.${k}: unknown plugin entry field`);
      else if (f.type !== 'object') {
        const why = checkValue(f, v);
        if (why) errors.push(`${label}.${k}: ${why}`);
      } else if (!isPlainObject(v)) errors.push(`${label}.config: expected a mapping of options`);
    }
    const mode = entry.mode ?? plugin.modes[0];
    if (!plugin.modes.includes(mode)) errors.push(`${label}.mode: ${entry.id} supports ${plugin.modes.join(', ')}, not ${mode}`);
    const name = entry.name ?? entry.id;
    if (names.has(name)) errors.push(`${label}.name: ${name} is used twice; give each instance a unique name`);
    names.add(name);
    const config = isPlainObject(entry.config) ? entry.config : {};
    const options = new Map(plugin.options.map((o) => [o.name, o]));
    for (const [k, v] of Object.entries(config)) {
      const o = options.get(k);
      if (!o) errors.push(`${label}.config.${k}: not an option of ${entry.id}`);
      else {
        const why = checkValue(o, v);
        if (why) errors.push(`${label}.config.${k}: ${why}`);
      }
    }
    if (complete)
      for (const o of plugin.options)
        if (o.required && !(o.name in config)) errors.push(`${label}.config.${o.name}: required by ${entry.id}`);
  });
  return errors;
}

// ---------------------------------------------------------------- formats

/** Parses a configuration file in one of Gate's formats. Throws with a message on a syntax error. */
export function parseConfig(format, text) {
  switch (format) {
    case 'yaml':
    case 'yml': {
      const doc = YAML.parseDocument(text);
      if (doc.errors.length) throw new Error(doc.errors[0].message);
      return doc.toJS();
    }
    case 'json':
      return JSON.parse(text);
    case 'toml':
      return parseToml(text);
    case 'hcl':
      return hclToConfig(parseHcl(text));
    default:
      throw new Error(`unsupported configuration format ${format}`);
  }
}

/**
 * Maps parsed HCL to the configuration model: every `plugin "ID" { ... }` block becomes an entry
 * of `plugins` with that id, in file order; other blocks become nested mappings.
 */
function hclToConfig(body) {
  const out = {};
  for (const item of body) {
    if (item.kind === 'attr') {
      if (item.key in out) throw new Error(`line ${item.line}: ${item.key} is set twice`);
      out[item.key] = item.value;
    } else if (item.type === 'plugin') {
      if (item.labels.length !== 1) throw new Error(`line ${item.line}: a plugin block takes exactly one label, its id`);
      (out.plugins ??= []).push({ id: item.labels[0], ...hclToConfig(item.body) });
    } else {
      if (item.labels.length) throw new Error(`line ${item.line}: block ${item.type} takes no label`);
      if (item.type in out) throw new Error(`line ${item.line}: block ${item.type} appears twice`);
      out[item.type] = hclToConfig(item.body);
    }
  }
  return out;
}

/**
 * A parser for the HCL subset Gate documents: attributes, blocks with string labels, strings,
 * numbers, booleans, lists, objects and comments (#, //, /* *\/).
 */
export function parseHcl(text) {
  let i = 0;
  let line = 1;
  const fail = (msg) => {
    throw new Error(`HCL line ${line}: ${msg}`);
  };
  const skip = (newlines) => {
    for (;;) {
      const c = text[i];
      if (c === '\n') {
        if (!newlines) return;
        line++;
        i++;
      } else if (c === ' ' || c === '\t' || c === '\r') i++;
      else if (c === '#' || (c === '/' && text[i + 1] === '/')) while (i < text.length && text[i] !== '\n') i++;
      else if (c === '/' && text[i + 1] === '*') {
        const end = text.indexOf('*/', i + 2);
        if (end < 0) fail('unterminated comment');
        line += text.slice(i, end).split('\n').length - 1;
        i = end + 2;
      } else return;
    }
  };
  const ident = () => {
    const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i));
    if (!m) fail(`expected a name, found ${JSON.stringify(text.slice(i, i + 10))}`);
    i += m[0].length;
    return m[0];
  };
  const string = () => {
    let out = '';
    i++; // opening quote
    for (;;) {
      const c = text[i++];
      if (c === undefined || c === '\n') fail('unterminated string');
      if (c === '"') return out;
      if (c === '\\') {
        const e = text[i++];
        const map = { n: '\n', t: '\t', '"': '"', '\\': '\\' };
        if (!(e in map)) fail(`unknown escape \\${e}`);
        out += map[e];
      } else out += c;
    }
  };
  const value = () => {
    skip(true);
    const c = text[i];
    if (c === '"') return string();
    if (c === '[') {
      i++;
      const list = [];
      for (;;) {
        skip(true);
        if (text[i] === ']') return i++, list;
        list.push(value());
        skip(true);
        if (text[i] === ',') i++;
        else if (text[i] !== ']') fail('expected , or ] in a list');
      }
    }
    if (c === '{') {
      i++;
      const obj = {};
      for (;;) {
        skip(true);
        if (text[i] === '}') return i++, obj;
        const key = text[i] === '"' ? string() : ident();
        skip(false);
        if (text[i] !== '=' && text[i] !== ':') fail(`expected = after ${key}`);
        i++;
        obj[key] = value();
        skip(false);
        if (text[i] === ',') i++;
      }
    }
    const m = /^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null)\b/.exec(text.slice(i));
    if (!m) fail(`unexpected ${JSON.stringify(text.slice(i, i + 10))}`);
    i += m[0].length;
    return m[0] === 'null' ? null : m[0] === 'true' ? true : m[0] === 'false' ? false : Number(m[0]);
  };
  const body = (closing) => {
    const items = [];
    for (;;) {
      skip(true);
      if (i >= text.length) {
        if (closing) fail('missing }');
        return items;
      }
      if (text[i] === '}') {
        if (!closing) fail('unexpected }');
        i++;
        return items;
      }
      const at = line;
      const name = ident();
      skip(false);
      if (text[i] === '=') {
        i++;
        items.push({ kind: 'attr', key: name, value: value(), line: at });
        skip(false);
        if (i < text.length && text[i] !== '\n' && text[i] !== '}') fail('expected a new line after an attribute');
        continue;
      }
      const labels = [];
      while (text[i] === '"') {
        labels.push(string());
        skip(false);
      }
      if (text[i] !== '{') fail(`expected = or { after ${name}`);
      i++;
      items.push({ kind: 'block', type: name, labels, body: body(true), line: at });
    }
  };
  return body(false);
}

// ---------------------------------------------------------------- rendering

const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s) => (s === undefined || s === null ? '—' : '`' + cell(s) + '`');
const defaultCell = (d) => (/^(none|the )/.test(String(d)) ? cell(d) : code(d));

/**
 * The markdown a marker stands for. Markers are HTML comments on their own line:
 * `<!-- gate-options global page=tls -->`, `<!-- gate-options plugin id=opa -->`,
 * `<!-- gate-options entry -->`, `<!-- gate-options env -->`, `<!-- gate-options metrics -->`,
 * `<!-- gate-options errors -->`, `<!-- gate-options plugins -->`,
 * each closed by `<!-- /gate-options -->`.
 */
export function renderMarker(ref, spec) {
  const [kind, ...args] = spec.trim().split(/\s+/);
  const arg = Object.fromEntries(args.map((a) => a.split('=')));
  const rows = [];
  if (kind === 'global') {
    const opts = ref.global.filter((o) => o.page === arg.page);
    if (!opts.length) throw new Error(`no global options for page ${arg.page}`);
    rows.push('| Option | Type | Default | Environment variable | Description |', '| --- | --- | --- | --- | --- |');
    for (const o of opts) rows.push(`| ${code(o.name)} | ${typeLabel(o)} | ${defaultCell(o.default)} | ${o.env ? code(o.env) : 'file only'} | ${cell(o.description)} |`);
  } else if (kind === 'plugin') {
    const p = ref.plugins[arg.id];
    if (!p) throw new Error(`no plugin ${arg.id}`);
    rows.push(`Supported modes: ${p.modes.map(code).join(', ')} (default ${code(p.modes[0])}).`, '');
    rows.push('| Option | Type | Default | Description |', '| --- | --- | --- | --- |');
    for (const o of p.options) rows.push(`| ${code(o.name)} | ${typeLabel(o)}${o.templated ? ', templated' : ''} | ${defaultCell(o.default)} | ${cell(o.description)} |`);
  } else if (kind === 'entry') {
    rows.push('| Field | Type | Default | Description |', '| --- | --- | --- | --- |');
    for (const o of ref.plugin_entry) rows.push(`| ${code(o.name)} | ${typeLabel(o)} | ${defaultCell(o.default)} | ${cell(o.description)} |`);
  } else if (kind === 'env') {
    rows.push('| Environment variable | Option | Type |', '| --- | --- | --- |');
    for (const p of ref.process) rows.push(`| ${code(p.env)} | no option of the file: ${cell(p.description)} | string |`);
    for (const o of ref.global)
      if (o.env) rows.push(`| ${code(o.env)} | ${code(o.name)} | ${o.items === 'plugin' ? 'JSON array of plugin entries' : typeLabel(o)} |`);
  } else if (kind === 'plugins') {
    rows.push('| Plugin | Kind | Modes |', '| --- | --- | --- |');
    for (const [id, p] of Object.entries(ref.plugins)) rows.push(`| [${id}](/docs/gate/plugins/${id}) | ${p.kind} | ${p.modes.join(', ')} |`);
  } else if (kind === 'errors') {
    rows.push('| Status | `error` | Meaning |', '| --- | --- | --- |');
    for (const e of ref.errors) rows.push(`| ${e.status.join(' or ')} | ${code(e.code)} | ${cell(e.description)} |`);
  } else if (kind === 'metrics') {
    rows.push('| Metric | Type | Labels | Description |', '| --- | --- | --- | --- |');
    for (const m of ref.metrics) rows.push(`| ${code(m.name)} | ${m.type} | ${m.labels.map(code).join(', ')} | ${cell(m.description)} |`);
  } else throw new Error(`unknown marker kind ${kind}`);
  return rows.join('\n');
}

const MARKER = /<!-- gate-options ([^>]*?) -->\n[\s\S]*?<!-- \/gate-options -->/g;

/** Replaces the content of every marker of a page with its rendering. */
export function renderPage(ref, text) {
  return text.replace(MARKER, (_, spec) => `<!-- gate-options ${spec} -->\n${renderMarker(ref, spec)}\n<!-- /gate-options -->`);
}

/** The marker specs of a page. */
export function markersOf(text) {
  return [...text.matchAll(MARKER)].map((m) => m[1]);
}
