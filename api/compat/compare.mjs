// Compares our contract (api/openapi.yaml) with the facts of the public reference contract (public-contract.json),
// operation by operation, from the point of view of a client written against the public document (header prefix
// `SlashID-` read as `Keyway-`). Prints per-tag figures and the global share of shared operations callable unchanged.
//
//   node api/compat/compare.mjs                 figures and the drift summary
//   node api/compat/compare.mjs --drifts        also every drift with its detail
//   node api/compat/compare.mjs --write-known   rewrite known-drifts.json with today's drifts (keeps the class and
//                                               reason of entries that still apply; new ones get a default class)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { documentFacts } from './facts.mjs';

export const FIXTURE = fileURLToPath(new URL('./public-contract.json', import.meta.url));
export const KNOWN = fileURLToPath(new URL('./known-drifts.json', import.meta.url));
export const CONTRACT = fileURLToPath(new URL('../openapi.yaml', import.meta.url));
export const CLASSES = ['enum', 'optional-field', 'status', 'shape', 'query-param', 'credential-import', 'oidc-param', 'deviation'];
/** Drift kinds that stop a documented call from being accepted as the document writes it. */
const CALL_KINDS = new Set(['operation', 'parameter', 'security', 'request']);

const UMBRELLA = 'Identity Management';
const OUT_OF_SCOPE_TAGS = new Set(['Workflows', 'Super Admin Management']);
const CREDENTIAL_IMPORT = /^(credentials|password_hash|public_key|webauthn_credential_id|authenticator|key_uri|recovery_codes_total|unused_recovery_codes|attestation_type)$/;

export function loadFixture(path = FIXTURE) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

export function loadOurs(path = CONTRACT) {
  return documentFacts(parse(readFileSync(path, 'utf8')));
}

const typeList = (type) => [type ?? 'any'].flat();

/** Does a value of the documented type fit our declared type? (Request: the client sends `documented`.) */
function typeFits(documented, ours) {
  const o = typeList(ours);
  if (o.includes('any')) return true;
  return typeList(documented).every((t) => t === 'any' || o.includes(t) || (t === 'integer' && o.includes('number')));
}

/** Response types: the client reads `ours` as the documented type (integer and number read alike). */
function typeReads(documented, ours) {
  const d = typeList(documented);
  if (d.includes('any')) return true;
  return typeList(ours).every((t) => t === 'any' || d.includes(t) || (['integer', 'number'].includes(t) && (d.includes('integer') || d.includes('number'))));
}

const isJson = (mediaType) => /json/.test(mediaType);

function pickContent(content, mediaType) {
  if (!content) return undefined;
  if (content[mediaType]) return content[mediaType];
  if (isJson(mediaType)) {
    const json = Object.keys(content).find(isJson);
    if (json) return content[json];
  }
  return undefined;
}

function classify(operation, drift) {
  const { kind, location = '' } = drift;
  const path = operation.split(' ')[1];
  if (kind === 'operation') return 'deviation';
  if (path === '/oauth2/authorize' && (kind === 'parameter' || kind === 'request')) return 'oidc-param';
  if (kind === 'status') return 'status';
  if (kind === 'request' && path === '/persons/{person_id}/credentials') return 'credential-import';
  if (kind === 'request' && /^\/persons(\/bulk-import)?$/.test(path) && location.split(/[.[\]]+/).some((part) => CREDENTIAL_IMPORT.test(part))) return 'credential-import';
  if (drift.what === 'enum') return 'enum';
  if (kind === 'parameter') return drift.in === 'query' ? 'query-param' : 'shape';
  if (kind === 'request' && drift.what === 'refused' && !drift.documentedRequired) return 'optional-field';
  if (kind === 'request' && drift.what === 'required in ours' && !drift.undocumented) return 'optional-field';
  return 'shape';
}

function compareRequestSchema(documented, ours, location, push) {
  if (!documented || !ours || ours.recursive || documented.recursive) return;
  if (!typeFits(documented.type, ours.type)) push({ kind: 'request', location, what: 'type', detail: `document ${typeList(documented.type)}, ours ${typeList(ours.type)}` });
  if (documented.enum && ours.enum) {
    const lacking = documented.enum.filter((value) => !ours.enum.includes(value));
    if (lacking.length) push({ kind: 'request', location, what: 'enum', detail: `ours lacks ${lacking.join(', ')} (ours: ${ours.enum.join(', ')})` });
  }
  const dFields = documented.fields ?? {};
  const oFields = ours.fields ?? {};
  for (const [name, field] of Object.entries(dFields)) {
    const at = location ? `${location}.${name}` : name;
    const mine = oFields[name];
    if (!mine) {
      if (ours.additional) compareRequestSchema(field, ours.additional, at, push);
      else if (ours.closed) push({ kind: 'request', location: at, what: 'refused', documentedRequired: field.required === true, detail: field.required ? 'required by the document, unknown to ours' : 'optional in the document, unknown to ours' });
      continue;
    }
    if (mine.required && !field.required) push({ kind: 'request', location: at, what: 'required in ours', detail: 'optional in the document, required by ours' });
    compareRequestSchema(field, mine, at, push);
  }
  if (documented.fields) {
    for (const [name, field] of Object.entries(oFields)) {
      if (field.required && !dFields[name]) push({ kind: 'request', location: location ? `${location}.${name}` : name, what: 'required in ours', undocumented: true, detail: 'not in the document, required by ours' });
    }
  }
  if (documented.items) compareRequestSchema(documented.items, ours.items, `${location}[]`, push);
  if (documented.additional && ours.additional) compareRequestSchema(documented.additional, ours.additional, `${location}.*`, push);
}

function compareResponseSchema(documented, ours, location, push) {
  if (!documented || !ours || ours.recursive || documented.recursive) return;
  if (!typeReads(documented.type, ours.type)) {
    push({ kind: 'response', location, what: 'type', detail: `document ${typeList(documented.type)}, ours ${typeList(ours.type)}` });
    return;
  }
  if (documented.enum && ours.enum) {
    const extra = ours.enum.filter((value) => !documented.enum.includes(value));
    if (extra.length) push({ kind: 'response', location, what: 'enum', detail: `ours may answer ${extra.join(', ')} (document: ${documented.enum.join(', ')})` });
  }
  const oFields = ours.fields ?? {};
  for (const [name, field] of Object.entries(documented.fields ?? {})) {
    const at = location ? `${location}.${name}` : name;
    const mine = oFields[name] ?? ours.additional;
    if (!mine) {
      push({ kind: 'response', location: at, what: 'missing', detail: field.required ? 'required by the document, absent from ours' : 'optional in the document, absent from ours' });
      continue;
    }
    if (field.required && oFields[name] && !mine.required) push({ kind: 'response', location: at, what: 'optional in ours', detail: 'required by the document, optional in ours' });
    compareResponseSchema(field, mine, at, push);
  }
  if (documented.items) compareResponseSchema(documented.items, ours.items, `${location}[]`, push);
  if (documented.additional && ours.additional) compareResponseSchema(documented.additional, ours.additional, `${location}.*`, push);
}

const credentialKey = (c) => (c.type === 'apiKey' ? `apiKey:${c.in}:${c.in === 'header' ? c.name.toLowerCase() : c.name}` : c.type === 'http' ? `http:${c.scheme}` : c.type === 'oauth2' || c.type === 'openIdConnect' ? 'http:bearer' : c.type);
const paramKey = (p) => `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;

/** The drifts of one operation, each { kind, location?, what?, detail } plus an id stable across value changes. */
export function compareOperation(documented, ours) {
  const drifts = [];
  const push = (drift) => drifts.push(drift);
  if (!ours) {
    return [{ kind: 'operation', what: 'missing', id: 'operation missing', detail: 'no operation with this method and path' }];
  }
  // parameters (a header the document lists may be one of our security schemes)
  const ourSecurityHeaders = new Set((ours.security ?? []).flat().filter((c) => c.type === 'apiKey').map((c) => `${c.in}:${c.in === 'header' ? c.name.toLowerCase() : c.name}`));
  const ourParams = new Map(ours.parameters.map((p) => [paramKey(p), p]));
  const docParams = new Map(documented.parameters.map((p) => [paramKey(p), p]));
  for (const [key, param] of docParams) {
    const mine = ourParams.get(key);
    const base = { kind: 'parameter', in: param.in, location: key };
    if (!mine) {
      if (!ourSecurityHeaders.has(key)) push({ ...base, what: 'missing', detail: `${param.required ? 'required' : 'optional'} in the document, not declared by ours` });
      continue;
    }
    if (mine.required && !param.required) push({ ...base, what: 'required in ours', detail: 'optional in the document, required by ours' });
    if (!typeFits(param.type, mine.type)) push({ ...base, what: 'type', detail: `document ${typeList(param.type)}, ours ${typeList(mine.type)}` });
    if (param.enum && mine.enum) {
      const lacking = param.enum.filter((value) => !mine.enum.includes(value));
      if (lacking.length) push({ ...base, what: 'enum', detail: `ours lacks ${lacking.join(', ')}` });
    }
  }
  for (const [key, param] of ourParams) {
    if (param.required && !docParams.has(key)) push({ kind: 'parameter', in: param.in, location: key, what: 'required in ours', detail: 'not in the document, required by ours' });
  }
  // security: for some documented alternative, the client's credentials (that alternative plus the documented
  // header parameters) must cover one of our alternatives
  const documentedHeaders = documented.parameters.filter((p) => p.in === 'header').map((p) => `apiKey:header:${p.name.toLowerCase()}`);
  const alternatives = documented.security?.length ? documented.security : [[]];
  const ourAlternatives = ours.security?.length ? ours.security : [[]];
  const accepted = alternatives.some((alt) => {
    const sends = new Set([...alt.map(credentialKey), ...documentedHeaders]);
    return ourAlternatives.some((mine) => mine.every((c) => sends.has(credentialKey(c))));
  });
  if (!accepted) {
    const show = (alts) => alts.map((alt) => alt.map(credentialKey).join('+') || 'none').join(' | ');
    push({ kind: 'security', what: 'credentials', detail: `document ${show(alternatives)}, ours ${show(ourAlternatives)}` });
  }
  // request body
  if (documented.requestBody) {
    if (!ours.requestBody) push({ kind: 'request', location: '(body)', what: 'refused', documentedRequired: documented.requestBody.required, detail: 'the document sends a body, ours declares none' });
    else {
      for (const [mediaType, schema] of Object.entries(documented.requestBody.content)) {
        const mine = pickContent(ours.requestBody.content, mediaType);
        if (!mine) push({ kind: 'request', location: `(${mediaType})`, what: 'media type', detail: `ours accepts ${Object.keys(ours.requestBody.content).join(', ')}` });
        else compareRequestSchema(schema, mine, '', push);
      }
    }
  } else if (ours.requestBody?.required) push({ kind: 'request', location: '(body)', what: 'required in ours', detail: 'the document sends no body, ours requires one' });
  // success status codes and response fields
  const documentedCodes = Object.keys(documented.responses);
  const ourCodes = Object.keys(ours.responses);
  const shared = documentedCodes.filter((code) => ourCodes.includes(code));
  if (documentedCodes.length && !shared.length) push({ kind: 'status', what: 'status', detail: `document ${documentedCodes.join('/')}, ours ${ourCodes.join('/') || 'none'}` });
  const documentedCode = shared[0] ?? documentedCodes[0];
  const ourCode = shared[0] ?? ourCodes[0];
  const documentedAnswer = documented.responses[documentedCode];
  const ourAnswer = ours.responses[ourCode];
  if (documentedAnswer?.content && ourAnswer) {
    for (const [mediaType, schema] of Object.entries(documentedAnswer.content)) {
      const mine = pickContent(ourAnswer.content, mediaType);
      if (!mine) push({ kind: 'response', location: `(${mediaType})`, what: 'missing', detail: ourAnswer.content ? `ours answers ${Object.keys(ourAnswer.content).join(', ')}` : 'ours answers no body' });
      else if (mine.fields?.result?.required && !['result', 'errors', 'meta'].some((name) => schema.fields?.[name])) push({ kind: 'response', location: '(body)', what: 'wrapped', detail: 'the document answers the bare object, ours wraps it in the envelope' });
      else compareResponseSchema(schema, mine, '', push);
    }
  }
  for (const drift of drifts) drift.id = [drift.kind, drift.location, drift.what].filter(Boolean).join(' ');
  return drifts;
}

/** Compares every documented operation; returns per-operation results and the figures. */
export function compareContracts(fixture = loadFixture(), ours = loadOurs(), known = existsSync(KNOWN) ? loadKnown() : { drifts: [] }) {
  // a listed drift keeps the class given in the list (e.g. `deviation`); others get the default class
  const listedClass = new Map(known.drifts.map((entry) => [`${entry.operation} | ${entry.drift}`, entry.class]));
  const operations = [];
  for (const [key, documented] of Object.entries(fixture.operations)) {
    const mine = ours[key];
    const drifts = compareOperation(documented, mine).map((drift) => ({ ...drift, class: listedClass.get(`${key} | ${drift.id}`) ?? classify(key, drift) }));
    const callable = !!mine && !drifts.some((d) => CALL_KINDS.has(d.kind));
    const status = !!mine && !drifts.some((d) => d.kind === 'status');
    const fields = !!mine && !drifts.some((d) => d.kind === 'response');
    operations.push({ key, tags: documented.tags, present: !!mine, callable, status, fields, drifts });
  }
  return { operations, figures: figures(operations) };
}

function count(list) {
  const shared = list.filter((op) => op.present);
  return {
    operations: list.length,
    shared: shared.length,
    callable: shared.filter((op) => op.callable).length,
    status: shared.filter((op) => op.status).length,
    callableWithStatus: shared.filter((op) => op.callable && op.status).length,
    fields: shared.filter((op) => op.fields).length,
    unchanged: shared.filter((op) => op.drifts.length === 0).length,
  };
}

function figures(operations) {
  const tags = [...new Set(operations.flatMap((op) => op.tags))].sort((a, b) => (a === UMBRELLA) - (b === UMBRELLA) || a.localeCompare(b));
  const byTag = Object.fromEntries(tags.map((tag) => [tag, count(operations.filter((op) => op.tags.includes(tag)))]));
  const byClass = {};
  for (const op of operations) for (const drift of op.drifts) byClass[drift.class] = (byClass[drift.class] ?? 0) + 1;
  return { global: count(operations), byTag, byClass };
}

const pct = (part, whole) => (whole ? `${((100 * part) / whole).toFixed(1)} %` : '–');

/** The figures as plain text, to be quoted. */
export function formatFigures({ global, byTag, byClass }) {
  const rows = [['tag', 'documented', 'shared', 'callable unchanged', 'documented status code', 'both', 'response fields present']];
  for (const [tag, c] of Object.entries(byTag)) rows.push([tag, c.operations, c.shared, `${c.callable}/${c.shared}`, `${c.status}/${c.shared}`, `${c.callableWithStatus}/${c.shared}`, `${c.fields}/${c.shared}`]);
  rows.push(['all operations', global.operations, global.shared, `${global.callable}/${global.shared}`, `${global.status}/${global.shared}`, `${global.callableWithStatus}/${global.shared}`, `${global.fields}/${global.shared}`]);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  const lines = rows.map((row) => row.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  '));
  lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  const out = [
    'Compatibility of api/openapi.yaml with the public reference contract (api/compat/public-contract.json)',
    '',
    ...lines,
    '',
    `shared operations: ${global.shared} of ${global.operations} documented (${global.operations - global.shared} absent: ${[...OUT_OF_SCOPE_TAGS].join(', ')})`,
    `callable unchanged: ${global.callable}/${global.shared} = ${pct(global.callable, global.shared)} of shared operations`,
    `documented status code: ${global.status}/${global.shared} = ${pct(global.status, global.shared)}`,
    `callable unchanged with the documented status code: ${global.callableWithStatus}/${global.shared} = ${pct(global.callableWithStatus, global.shared)}`,
    `response fields all present: ${global.fields}/${global.shared} = ${pct(global.fields, global.shared)}`,
    `no drift at all: ${global.unchanged}/${global.shared} = ${pct(global.unchanged, global.shared)}`,
    `drifts by class: ${Object.entries(byClass).sort().map(([k, v]) => `${k} ${v}`).join(', ')}`,
  ];
  return out.join('\n');
}

export function loadKnown(path = KNOWN) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Today's drifts against the committed list: unlisted drifts, stale entries, and malformed entries. */
export function checkKnown(result, known = loadKnown()) {
  const listed = new Map();
  const malformed = [];
  for (const entry of known.drifts) {
    const key = `${entry.operation} | ${entry.drift}`;
    if (listed.has(key)) malformed.push(`${key}: listed twice`);
    if (!CLASSES.includes(entry.class)) malformed.push(`${key}: unknown class ${entry.class}`);
    if (entry.class === 'deviation' && !entry.reason?.trim()) malformed.push(`${key}: a deviation needs a reason`);
    listed.set(key, entry);
  }
  const current = new Map();
  for (const op of result.operations) for (const drift of op.drifts) current.set(`${op.key} | ${drift.id}`, { op: op.key, drift });
  const unlisted = [...current.entries()].filter(([key]) => !listed.has(key)).map(([key, { drift }]) => `${key} [${drift.class}]: ${drift.detail}`);
  const stale = [...listed.keys()].filter((key) => !current.has(key));
  return { unlisted, stale, malformed };
}

function writeKnown(result, path = KNOWN) {
  let previous = new Map();
  try {
    previous = new Map(loadKnown(path).drifts.map((entry) => [`${entry.operation} | ${entry.drift}`, entry]));
  } catch {
    // first run
  }
  const drifts = [];
  for (const op of result.operations) {
    for (const drift of op.drifts) {
      const kept = previous.get(`${op.key} | ${drift.id}`);
      const entry = { operation: op.key, drift: drift.id, class: kept?.class ?? drift.class };
      const reason = kept?.reason ?? (drift.kind === 'operation' && op.tags.some((tag) => OUT_OF_SCOPE_TAGS.has(tag)) ? 'Out of scope: the product spec lists neither Workflows nor Super Admin Management.' : undefined);
      if (reason) entry.reason = reason;
      drifts.push(entry);
    }
  }
  const note = 'Every drift of api/openapi.yaml from api/compat/public-contract.json that is known today, one entry per operation and drift. api/test/compat.test.ts fails on a drift not listed here and on an entry whose drift no longer exists: remove entries as the contract and the server catch up. class: enum, optional-field, status, shape, query-param, credential-import, oidc-param, or deviation (deliberate, with a reason).';
  // one entry a line, so that a change to the list reads as a one-line diff
  writeFileSync(path, `{\n "note": ${JSON.stringify(note)},\n "drifts": [\n${drifts.map((entry) => `  ${JSON.stringify(entry)}`).join(',\n')}\n ]\n}\n`);
  return drifts.length;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = compareContracts();
  console.log(formatFigures(result.figures));
  if (process.argv.includes('--drifts')) {
    for (const op of result.operations) {
      if (!op.drifts.length) continue;
      console.log(`\n${op.key} [${op.tags.join(', ')}]`);
      for (const drift of op.drifts) console.log(`  ${drift.class.padEnd(17)} ${drift.id}: ${drift.detail}`);
    }
  }
  if (process.argv.includes('--write-known')) console.log(`\n${writeKnown(result)} entries written to ${KNOWN}`);
}
