import { describe, expect, it } from 'vitest';
import { OpenApiContract } from '../src/openapi.js';
import { api, signInWithEmail, useTestServer } from './helpers.js';

const contract = OpenApiContract.load()!;

/** Every operation of api/openapi.yaml, with path parameters filled with plausible values. */
const operations = Object.entries(contract.doc.paths).flatMap(([path, item]) =>
  Object.keys(item)
    .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
    .map((method) => ({ method: method.toUpperCase(), path: path.replace(/\{person_id\}/g, 'pid:nobody').replace(/\{[^}]+\}/g, 'x'), hasBody: !!(item[method] as { requestBody?: unknown }).requestBody })),
);

describe('every operation of the spec answers broken input with a 4xx, never a 5xx', () => {
  const t = useTestServer('sqlite', { limits: { perIpPerMinute: 0, perHandlePerMinute: 0 } });

  it(`covers ${operations.length} operations`, async () => {
    const call = api(t.server);
    const token = await signInWithEmail(t.server, 'fuzz@example.com');
    const failures: string[] = [];
    const auth = { token, headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
    for (const op of operations) {
      const attempts: Array<[string, Parameters<typeof call>[3], unknown]> = [
        ['no credentials', { org: null }, undefined],
      ];
      if (op.method !== 'GET') {
        attempts.push(['empty object', auth, {}]);
        attempts.push(['wrong types', auth, { handle: 5, token: [], consent_levels: 'x', persons: {}, domains: 1 }]);
      } else {
        attempts.push(['odd query', { ...auth }, undefined]);
      }
      if (op.hasBody) {
        attempts.push(['malformed JSON', { ...auth, raw: '{"a":' }, undefined]);
        attempts.push(['wrong content type', { ...auth, raw: 'a=1', headers: { ...auth.headers, 'content-type': 'application/xml' } }, undefined]);
        attempts.push(['huge body', { ...auth, raw: JSON.stringify({ pad: 'x'.repeat(100_000) }) }, undefined]);
      }
      for (const [name, opts, body] of attempts) {
        const path = name === 'odd query' ? `${op.path}?limit=-1&offset=abc&buckets=%00&filter=%22` : op.path;
        const res = await call(op.method, path, body, opts);
        if (res.status >= 500 || res.status < 400) {
          // A few calls succeed on an empty body by design (e.g. GET lists); only 5xx is a defect there.
          if (res.status >= 500) failures.push(`${op.method} ${op.path} (${name}) → ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
          continue;
        }
        if (res.headers.get('content-type')?.includes('json') && res.body?.errors) {
          if (!res.body.errors[0]?.message) failures.push(`${op.method} ${op.path} (${name}) → ${res.status} without a message`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
