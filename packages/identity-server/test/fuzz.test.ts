import { describe, expect, it } from 'vitest';
import { OpenApiContract } from '../src/openapi.js';
import { api, BACKENDS, decodeClaims, signInWithEmail, useTestServer } from './helpers.js';

const contract = OpenApiContract.load()!;

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; oneOf?: Schema[]; anyOf?: Schema[] };

/** The JSON body schema of an operation (refs are inlined by the contract loader). */
const bodySchema = (op: { requestBody?: { content?: Record<string, { schema?: Schema }> } }): Schema | undefined => op.requestBody?.content?.['application/json']?.schema;

/** Every operation of api/openapi.yaml, with path parameters filled with plausible values. */
const operations = Object.entries(contract.doc.paths).flatMap(([path, item]) =>
  Object.keys(item)
    .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
    .map((method) => {
      const op = item[method] as { requestBody?: { content?: Record<string, { schema?: Schema }> } };
      const schema = bodySchema(op);
      const props = Object.keys(schema?.properties ?? schema?.oneOf?.[0]?.properties ?? {});
      return { method: method.toUpperCase(), template: path, hasBody: !!op.requestBody, props };
    }),
);

/** JSON text nested `levels` deep (built as text: JSON.stringify itself overflows on such values). */
const deepJson = (levels: number) => '{"n":'.repeat(levels) + '"bottom"' + '}'.repeat(levels);

// The classes of bad input generated for each operation, besides the generic ones: deeply nested values, NUL
// characters in strings and keys, empty objects on real resources (no SQL built from empty lists) and numeric query
// values beyond any range. SQLite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it).
for (const backend of BACKENDS) {
  describe(`every operation of the spec answers broken input with a 4xx, never a 5xx (${backend})`, () => {
    const t = useTestServer(backend, { limits: { perIpPerMinute: 0, perHandlePerMinute: 0 } });

    it(`covers ${operations.length} operations`, async () => {
      const call = api(t.server);
      const token = await signInWithEmail(t.server, 'fuzz@example.com');
      const personId = decodeClaims(token).person_id as string;
      const failures: string[] = [];
      const auth = { token, headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
      for (const op of operations) {
        // Attribute writes and token minting reach the real person (an empty object there must not build `IN ()`, a
        // deep value must not reach JSON.stringify); other paths use identifiers that do not exist, so nothing is
        // deleted mid-run.
        const real = /\/attributes|\/mint-token/.test(op.template);
        const path = op.template
          .replace(/\{person_id\}/g, real ? personId : 'pid:nobody')
          .replace(/\{bucket_name\}/g, 'org_read_write')
          .replace(/\{[^}]+\}/g, 'x');
        const fields = op.props.length ? op.props : /\/attributes$/.test(op.template) ? ['end_user_read_write'] : ['value'];
        const attempts: Array<[string, Parameters<typeof call>[3], unknown, string?]> = [['no credentials', { org: null }, undefined]];
        if (op.method !== 'GET') {
          attempts.push(['empty object', auth, {}]);
          attempts.push(['wrong types', auth, { handle: 5, token: [], consent_levels: 'x', persons: {}, domains: 1 }]);
          attempts.push(['NUL in every field', auth, Object.fromEntries(fields.map((f) => [f, 'a\u0000b']))]);
          attempts.push(['NUL in a key', auth, { ['a\u0000b']: 'x' }]);
          attempts.push(['deeply nested value', { ...auth, raw: `{${fields.map((f) => `${JSON.stringify(f)}:${deepJson(5_000)}`).join(',')}}` }, undefined]);
        } else {
          attempts.push(['odd query', { ...auth }, undefined, '?limit=-1&offset=abc&buckets=%00&filter=%22']);
          attempts.push(['numbers beyond range', { ...auth }, undefined, '?limit=1e999&offset=1e999']);
          attempts.push(['offset beyond range', { ...auth }, undefined, '?offset=1e308']);
          attempts.push(['huge integers', { ...auth }, undefined, '?limit=99999999999999999999&offset=-99999999999999999999']);
          attempts.push(['NUL in the query', { ...auth }, undefined, '?buckets=a%00b&attributes=a%00b&event_name=a%00b&filter=a%00b']);
        }
        if (op.hasBody) {
          attempts.push(['malformed JSON', { ...auth, raw: '{"a":' }, undefined]);
          attempts.push(['wrong content type', { ...auth, raw: 'a=1', headers: { ...auth.headers, 'content-type': 'application/xml' } }, undefined]);
          attempts.push(['huge body', { ...auth, raw: JSON.stringify({ pad: 'x'.repeat(100_000) }) }, undefined]);
        }
        for (const [name, opts, body, query] of attempts) {
          const res = await call(op.method, path + (query ?? ''), body, opts);
          if (res.status >= 500 || res.status < 400) {
            // A few calls succeed on an empty body by design (e.g. GET lists); only 5xx is a defect there.
            if (res.status >= 500) failures.push(`${op.method} ${op.template} (${name}) → ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
            continue;
          }
          if (res.headers.get('content-type')?.includes('json') && res.body?.errors) {
            if (!res.body.errors[0]?.message) failures.push(`${op.method} ${op.template} (${name}) → ${res.status} without a message`);
          }
        }
      }
      expect(failures).toEqual([]);
    }, 240_000);
  });
}
