// CORS as a browser meets it: every operation of api/openapi.yaml can be called from an allowed origin with every
// header the contract declares for it, and the page can read the headers the published SDK reads. The expected lists
// are read from the YAML here, independently of the server's own derivation.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULT_OPENAPI_PATH } from '../src/openapi.js';
import { useTestServer } from './helpers.js';

const ORIGIN = 'http://localhost:3000';

interface Doc {
  paths: Record<string, Record<string, { parameters?: Array<{ $ref?: string; name?: string; in?: string }>; requestBody?: unknown; security?: Array<Record<string, unknown>> }>>;
  components: { parameters: Record<string, { name: string; in: string }>; securitySchemes: Record<string, { type: string; in?: string; name?: string }> };
}
const doc = parse(readFileSync(DEFAULT_OPENAPI_PATH, 'utf8')) as Doc;

/** The headers a client sends on one operation, by the contract. */
function headersOf(op: Doc['paths'][string][string]): string[] {
  const out = new Set<string>();
  for (const p of op.parameters ?? []) {
    const param = p.$ref ? doc.components.parameters[p.$ref.split('/').pop()!]! : p;
    if (param.in === 'header') out.add(param.name!.toLowerCase());
  }
  if (op.requestBody) out.add('content-type');
  for (const alt of op.security ?? []) {
    for (const name of Object.keys(alt)) {
      const s = doc.components.securitySchemes[name]!;
      out.add(s.type === 'apiKey' ? s.name!.toLowerCase() : 'authorization');
    }
  }
  return [...out];
}

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([m]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
    .map(([method, op]) => ({ method: method.toUpperCase(), path, headers: headersOf(op) })),
);
const split = (v: string | null) => (v ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean).sort();

describe('CORS from the contract', () => {
  const t = useTestServer('sqlite', { corsOrigins: [ORIGIN] });

  it('allows exactly the methods and request headers the contract declares, the published SDK headers among them', async () => {
    const pre = await fetch(`${t.server.url}/persons`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } });
    expect(pre.status).toBe(204);
    expect(split(pre.headers.get('access-control-allow-methods'))).toEqual([...new Set(operations.map((o) => o.method.toLowerCase()))].sort());
    const allowed = split(pre.headers.get('access-control-allow-headers'));
    expect(allowed).toEqual([...new Set(operations.flatMap((o) => o.headers))].sort());
    for (const h of ['keyway-api-key', 'keyway-orgid', 'keyway-sdkversion', 'keyway-sdkretrycount', 'authorization', 'content-type']) expect(allowed).toContain(h);
  });

  it(`passes the preflight of all ${operations.length} operations with every header each one declares`, async () => {
    const refused: string[] = [];
    for (const op of operations) {
      const url = `${t.server.url}${op.path.replace(/\{[^}]+\}/g, 'x')}`;
      const pre = await fetch(url, {
        method: 'OPTIONS',
        headers: { origin: ORIGIN, 'access-control-request-method': op.method, 'access-control-request-headers': op.headers.join(',') },
      });
      const methods = split(pre.headers.get('access-control-allow-methods'));
      const headers = split(pre.headers.get('access-control-allow-headers'));
      const ok =
        pre.headers.get('access-control-allow-origin') === ORIGIN && methods.includes(op.method.toLowerCase()) && op.headers.every((h) => headers.includes(h));
      if (!ok) refused.push(`${op.method} ${op.path}`);
    }
    expect(refused).toEqual([]);
  });

  it('exposes Location and Keyway-Correlation-ID (read by the published SDK) on answers to an allowed origin', async () => {
    const res = await fetch(`${t.server.url}/persons`, { headers: { origin: ORIGIN, 'keyway-orgid': t.server.orgId, 'keyway-api-key': 'kw_dev_api_key_not_secret' } });
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const exposed = split(res.headers.get('access-control-expose-headers'));
    expect(exposed).toEqual(expect.arrayContaining(['location', 'keyway-correlation-id', 'retry-after']));
    expect(res.headers.get('keyway-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives another origin no CORS headers at all', async () => {
    const pre = await fetch(`${t.server.url}/persons`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3999', 'access-control-request-method': 'GET', 'access-control-request-headers': 'keyway-api-key' },
    });
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    expect(pre.headers.get('access-control-allow-headers')).toBeNull();
  });
});
