// Compatibility with the public reference contract (api/compat/public-contract.json, facts derived from the
// "SlashID API" v1.1 document): every drift of api/openapi.yaml must be listed in api/compat/known-drifts.json,
// and every listed drift must still exist. Prints the per-tag figures (also `npm run compat -w api`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deriveFixture } from '../compat/derive-fixture.mjs';
import { checkKnown, compareContracts, compareOperation, formatFigures, loadFixture } from '../compat/compare.mjs';
import { documentFacts } from '../compat/facts.mjs';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const fixture = loadFixture();
const result = compareContracts(fixture);

/** Keys a facts-only fixture may hold outside the `fields` maps (whose keys are the documented field names). */
const FACT_KEYS = new Set([
  'source', 'repository', 'path', 'title', 'version', 'openapi', 'derivation', 'operations',
  'method', 'tags', 'parameters', 'in', 'name', 'required', 'type', 'enum', 'items', 'security', 'scheme',
  'requestBody', 'content', 'responses', 'fields', 'nullable', 'closed', 'additional', 'recursive',
]);

function proseFound(node: Json, at: string, out: string[], inFields = false, inMaps = false): string[] {
  if (Array.isArray(node)) node.forEach((item, i) => proseFound(item, `${at}[${i}]`, out));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      // keys of `fields`, `operations`, `content` and `responses` are names, media types and status codes
      if (!inFields && !inMaps && !FACT_KEYS.has(key)) out.push(`${at}.${key}`);
      proseFound(value, `${at}.${key}`, out, key === 'fields' && !inFields, ['operations', 'content', 'responses'].includes(key) && !inFields);
    }
  } else if (typeof node === 'string' && (node.length > 120 || /\n/.test(node))) out.push(`${at}: ${node.slice(0, 40)}…`);
  return out;
}

/** A one-operation document for the comparator's own checks. */
function doc(operation: Json, components: Json = {}) {
  return documentFacts({ openapi: '3.1.0', paths: { '/things': { post: operation } }, components } as never)['POST /things'];
}

describe('the public contract fixture', () => {
  it('holds facts only: no description, summary, example or other prose', () => {
    expect(proseFound(fixture as Json, '$', [])).toEqual([]);
  });

  it('covers the 156 documented operations with Keyway- headers', () => {
    const operations = Object.values(fixture.operations) as { parameters: { in: string; name: string }[] }[];
    expect(operations).toHaveLength(156);
    const headers = operations.flatMap((op) => op.parameters.filter((p) => p.in === 'header').map((p) => p.name));
    expect(headers.filter((name) => !name.startsWith('Keyway-') && name !== 'If-Match')).toEqual([]);
  });

  it.skipIf(!process.env.KEYWAY_PUBLIC_CONTRACT_DOC)('is the derivation of the public document (KEYWAY_PUBLIC_CONTRACT_DOC)', () => {
    const derived = deriveFixture(readFileSync(process.env.KEYWAY_PUBLIC_CONTRACT_DOC as string, 'utf8'));
    expect(JSON.parse(JSON.stringify(derived))).toEqual(fixture);
  });
});

describe('the comparator', () => {
  const body = (schema: Json) => ({ requestBody: { required: true, content: { 'application/json': { schema } } } });
  const ok = (code: string, schema?: Json) => ({ responses: { [code]: schema ? { description: 'x', content: { 'application/json': { schema } } } : { description: 'x' } } });
  const documented = doc({
    parameters: [{ name: 'handle', in: 'query', schema: { type: 'string' } }, { name: 'SlashID-OrgID', in: 'header', required: true, schema: { type: 'string' } }],
    ...body({ type: 'object', required: ['name'], properties: { name: { type: 'string' }, region: { type: 'string', enum: ['us-iowa', 'europe-belgium'] }, note: { type: 'string' } } }),
    ...ok('201', { type: 'object', properties: { result: { type: 'object', properties: { id: { type: 'string' }, created_at: { type: 'string' } } } } }),
  });

  it('finds no drift between an operation and itself', () => {
    expect(compareOperation(documented, documented)).toEqual([]);
  });

  it('names each drift a documented client would meet', () => {
    const ours = doc({
      parameters: [{ name: 'Keyway-OrgID', in: 'header', required: true, schema: { type: 'string' } }],
      ...body({ type: 'object', additionalProperties: false, required: ['name', 'kind'], properties: { name: { type: 'integer' }, kind: { type: 'string' }, region: { type: 'string', enum: ['eu-west', 'us-iowa'] } } }),
      ...ok('200', { type: 'object', properties: { result: { type: 'object', properties: { id: { type: 'string' }, created: { type: 'string' } } } } }),
    });
    expect(compareOperation(documented, ours).map((drift: { id: string }) => drift.id).sort()).toEqual([
      'parameter query:handle missing',
      'request kind required in ours',
      'request name type',
      'request note refused',
      'request region enum',
      'response result.created_at missing',
      'status status',
    ]);
  });

  it('reports an enveloped answer where the document answers the bare object', () => {
    const bare = doc(ok('200', { type: 'object', additionalProperties: true }));
    const wrapped = doc(ok('200', { type: 'object', required: ['result'], properties: { result: { type: 'object' }, errors: { type: 'array' } } }));
    expect(compareOperation(bare, wrapped).map((drift: { id: string }) => drift.id)).toEqual(['response (body) wrapped']);
    expect(compareOperation(wrapped, wrapped)).toEqual([]);
  });

  it('reads a field every oneOf alternative requires as required, and one that some alternative leaves out as optional', () => {
    const trigger = (name: Json) => ({ type: 'object', required: ['trigger_type', 'trigger_name'], properties: { trigger_type: { type: 'string' }, trigger_name: name } });
    const facts = doc(body({ oneOf: [trigger({ type: 'string', enum: ['a'] }), trigger({ type: 'string', enum: ['b'] }), { type: 'object', required: ['trigger_type'], properties: { trigger_type: { type: 'string' }, note: { type: 'string' } } }] }));
    const fields = facts.requestBody.content['application/json'].fields;
    expect(fields.trigger_type.required).toBe(true);
    expect(fields.trigger_name.required).toBeUndefined();
    const both = doc(body({ oneOf: [trigger({ type: 'string', enum: ['a'] }), trigger({ type: 'string', enum: ['b'] })] }));
    expect(both.requestBody.content['application/json'].fields.trigger_name).toEqual({ type: 'string', enum: ['a', 'b'], required: true });
  });

  it('reports an operation absent from our contract', () => {
    expect(compareOperation(documented, undefined).map((drift: { id: string }) => drift.id)).toEqual(['operation missing']);
  });
});

describe('api/openapi.yaml against the public contract', () => {
  it('prints the figures', () => {
    console.log(formatFigures(result.figures));
    expect(result.figures.global.shared).toBeGreaterThan(0);
  });

  it('has no drift missing from api/compat/known-drifts.json, and no listed drift that is gone', () => {
    const { unlisted, stale, malformed } = checkKnown(result);
    expect({ malformed, unlisted, stale }, 'Fix the drift, or list it (class, and a reason for a deliberate deviation); remove listed entries that no longer apply (`node api/compat/compare.mjs --drifts` shows every drift)').toEqual({ malformed: [], unlisted: [], stale: [] });
  });

});
