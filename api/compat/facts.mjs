// Reduces an OpenAPI 3.0/3.1 document to facts: per operation its method, path, parameters, request body fields,
// security, success status codes and response fields, with types, required flags and enum values. No description,
// summary, example or other prose is kept. The same reduction is applied to the public reference document (to write
// public-contract.json) and to our api/openapi.yaml (to compare against it), so both sides are read the same way.
//
// Written by hand: the reduction is specific to this comparison (merge allOf, flatten oneOf/anyOf into the union of
// their fields, fold 3.0 `nullable` and 3.1 type arrays together); no library produces such a summary.

export const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const MAX_DEPTH = 12;

/** The public document names its headers `SlashID-…`; Keyway's are `Keyway-…`. */
export function renameHeader(name) {
  return name.replace(/^SlashID-/i, 'Keyway-');
}

function resolve(doc, node) {
  let current = node;
  const refs = [];
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`external $ref not supported: ${ref}`);
    if (refs.includes(ref)) throw new Error(`$ref loop: ${ref}`);
    refs.push(ref);
    current = ref
      .slice(2)
      .split('/')
      .reduce((value, key) => value?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    if (current === undefined) throw new Error(`unresolved $ref: ${ref}`);
  }
  return { node: current, refs };
}

function uniqueSorted(values) {
  return [...new Set(values.map((value) => (value === null ? 'null' : value)))].sort((a, b) => String(a).localeCompare(String(b)));
}

/** Merges two facts into one accepting what either side describes (used for oneOf/anyOf and allOf). */
function merge(a, b, mode) {
  if (!a) return b;
  if (!b) return a;
  const out = {};
  const types = uniqueSorted([...[a.type ?? []].flat(), ...[b.type ?? []].flat()]);
  if (mode === 'all') {
    // allOf: a part without a type constrains nothing; keep the typed part's type.
    const typed = [a.type, b.type].filter((type) => type && type !== 'any');
    out.type = typed.length ? typed[0] : (a.type ?? b.type);
  } else if (types.includes('any')) out.type = 'any';
  else out.type = types.length === 1 ? types[0] : types;
  if (a.nullable || b.nullable) out.nullable = true;
  if (a.enum || b.enum) {
    if (mode === 'all') out.enum = a.enum && b.enum ? a.enum.filter((value) => b.enum.includes(value)) : (a.enum ?? b.enum);
    else if (a.enum && b.enum) out.enum = uniqueSorted([...a.enum, ...b.enum]);
    // a union where one side has no enum has none
  }
  if (a.fields || b.fields) {
    const fields = {};
    const names = uniqueSorted([...Object.keys(a.fields ?? {}), ...Object.keys(b.fields ?? {})]);
    for (const name of names) {
      const fa = a.fields?.[name];
      const fb = b.fields?.[name];
      const field = fa && fb ? merge(fa, fb, mode) : { ...(fa ?? fb) };
      if (mode === 'all') {
        if (fa?.required || fb?.required) field.required = true;
        else delete field.required;
      } else if (fa?.required && fb?.required) field.required = true;
      else delete field.required;
      fields[name] = field;
    }
    out.fields = fields;
  }
  if (a.items || b.items) out.items = merge(a.items, b.items, mode);
  const closedA = a.closed === true;
  const closedB = b.closed === true;
  if (mode === 'all' ? closedA || closedB : closedA && closedB) out.closed = true;
  if (a.additional || b.additional) out.additional = merge(a.additional, b.additional, mode);
  if (a.recursive || b.recursive) out.recursive = a.recursive ?? b.recursive;
  return out;
}

/** Facts of a schema: type, nullable, enum, fields (with required flags), items, closed, additional. */
export function schemaFacts(doc, schema, stack = [], depth = 0) {
  if (schema === undefined || schema === null || schema === true) return { type: 'any' };
  if (schema === false) return { type: 'never' };
  const { node, refs } = resolve(doc, schema);
  const name = refs.at(-1)?.split('/').at(-1);
  if (refs.some((ref) => stack.includes(ref)) || depth > MAX_DEPTH) return { type: 'object', recursive: name ?? 'deep' };
  const inner = [...stack, ...refs];
  const next = (child) => schemaFacts(doc, child, inner, depth + 1);

  let facts = {};
  let type = node.type;
  if (Array.isArray(type)) {
    if (type.includes('null')) facts.nullable = true;
    type = type.filter((t) => t !== 'null');
    type = type.length === 1 ? type[0] : type.length ? uniqueSorted(type) : undefined;
  }
  if (node.nullable === true) facts.nullable = true;
  if (type) facts.type = type;
  if (Array.isArray(node.enum)) {
    if (node.enum.includes(null)) facts.nullable = true;
    facts.enum = uniqueSorted(node.enum.filter((value) => value !== null));
  }
  if (node.const !== undefined) facts.enum = [node.const];
  if (node.properties) {
    const required = new Set(node.required ?? []);
    facts.fields = {};
    for (const key of Object.keys(node.properties).sort()) {
      const field = next(node.properties[key]);
      if (required.has(key)) field.required = true;
      facts.fields[key] = field;
    }
    facts.type ??= 'object';
  } else if (Array.isArray(node.required) && node.required.length) {
    // `required` without properties (used inside allOf/oneOf to require fields declared elsewhere)
    facts.fields = Object.fromEntries(node.required.map((key) => [key, { type: 'any', required: true }]));
  }
  if (node.additionalProperties === false) facts.closed = true;
  else if (node.additionalProperties && typeof node.additionalProperties === 'object') facts.additional = next(node.additionalProperties);
  if (node.items) facts.items = next(node.items);
  for (const part of node.allOf ?? []) facts = merge(facts, next(part), 'all');
  const alternatives = node.oneOf ?? node.anyOf;
  if (alternatives) {
    const union = alternatives.map(next).reduce((acc, alt) => merge(acc, alt, 'any'), undefined);
    facts = merge(facts, union, 'all');
    // a union of closed objects accepts the union of their fields
    if (facts.fields && alternatives.length > 1) delete facts.closed;
  }
  facts.type ??= facts.fields ? 'object' : 'any';
  if (Array.isArray(facts.type) && facts.type.includes('null')) {
    // a union with `type: null` (3.1) is a nullable value
    facts.nullable = true;
    const rest = facts.type.filter((t) => t !== 'null');
    facts.type = rest.length === 1 ? rest[0] : rest.length ? rest : 'any';
  }
  return facts;
}

function parameterFacts(doc, raw) {
  const { node } = resolve(doc, raw);
  const schema = node.schema ? schemaFacts(doc, node.schema) : { type: 'any' };
  const out = { in: node.in, name: node.in === 'header' ? renameHeader(node.name) : node.name };
  if (node.required) out.required = true;
  out.type = schema.type;
  if (schema.enum) out.enum = schema.enum;
  if (schema.items) out.items = schema.items;
  return out;
}

function contentFacts(doc, content) {
  const out = {};
  for (const mediaType of Object.keys(content ?? {}).sort()) out[mediaType] = schemaFacts(doc, content[mediaType].schema);
  return out;
}

function securityFacts(doc, requirements) {
  const schemes = doc.components?.securitySchemes ?? {};
  return requirements.map((requirement) =>
    Object.keys(requirement)
      .map((key) => {
        const { node } = resolve(doc, schemes[key]);
        if (!node) throw new Error(`unknown security scheme ${key}`);
        if (node.type === 'apiKey') return { type: 'apiKey', in: node.in, name: node.in === 'header' ? renameHeader(node.name) : node.name };
        if (node.type === 'http') return { type: 'http', scheme: String(node.scheme).toLowerCase() };
        return { type: node.type };
      })
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  );
}

/** Facts of every operation of a document, keyed "METHOD /path". */
export function documentFacts(doc) {
  const operations = {};
  for (const [path, rawItem] of Object.entries(doc.paths ?? {})) {
    const { node: item } = resolve(doc, rawItem);
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = new Map();
      for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const facts = parameterFacts(doc, raw);
        params.set(`${facts.in}:${facts.in === 'header' ? facts.name.toLowerCase() : facts.name}`, facts);
      }
      const out = {
        method: method.toUpperCase(),
        path,
        tags: [...(op.tags ?? [])],
        parameters: [...params.values()].sort((a, b) => `${a.in}:${a.name}`.localeCompare(`${b.in}:${b.name}`)),
      };
      const security = op.security ?? doc.security;
      if (security) out.security = securityFacts(doc, security);
      if (op.requestBody) {
        const { node: body } = resolve(doc, op.requestBody);
        out.requestBody = { required: body.required === true, content: contentFacts(doc, body.content) };
      }
      out.responses = {};
      for (const status of Object.keys(op.responses ?? {}).sort()) {
        if (!/^2\d\d$/.test(status)) continue;
        const { node: response } = resolve(doc, op.responses[status]);
        out.responses[status] = response.content ? { content: contentFacts(doc, response.content) } : {};
      }
      operations[`${out.method} ${path}`] = out;
    }
  }
  return operations;
}
