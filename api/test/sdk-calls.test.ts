// Every call of product-spec.md §7 (the SDK's calls) is in openapi.yaml, with the org id header where the spec says.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PRODUCT_SPEC_MD, loadDoc, parseSpecCalls } from './spec-helpers.js';

const doc = loadDoc();
const calls = parseSpecCalls(readFileSync(PRODUCT_SPEC_MD, 'utf8'));

describe('product-spec §7 calls', () => {
  it('are parsed from the table, abbreviations expanded', () => {
    expect(calls).toContainEqual(expect.objectContaining({ method: 'post', path: '/attestation/v3' }));
    expect(calls).toContainEqual(expect.objectContaining({ method: 'post', path: '/persons/{person_id}/impersonate/v2' }));
    expect(calls).toContainEqual(expect.objectContaining({ method: 'get', path: '/token/v2', orgIdHeader: true }));
    expect(calls).toContainEqual(expect.objectContaining({ method: 'post', path: '/events' }));
    expect(calls).toContainEqual(expect.objectContaining({ method: 'delete', path: '/attributes/{bucket_name}' }));
    expect(calls.length).toBeGreaterThanOrEqual(35);
  });

  it.each(calls.map((c) => [`${c.method.toUpperCase()} ${c.path}`, c] as const))('%s is documented', (_name, call) => {
    const op = doc.paths[call.path]?.[call.method];
    expect(op, `missing (row "${call.row}")`).toBeDefined();
    if (call.orgIdHeader) {
      // Every way to call it includes the Keyway-OrgID header.
      expect(op?.security?.length).toBeGreaterThan(0);
      for (const requirement of op?.security ?? []) expect(Object.keys(requirement)).toContain('OrgId');
    }
  });
});
