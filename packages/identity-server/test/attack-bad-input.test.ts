import { describe, expect, it } from 'vitest';
import { BACKENDS, decodeClaims, signInWithEmail, useTestServer } from './helpers.js';

// Bad input an attacker sends on purpose: it must answer a 4xx naming what was wrong, never a 500, on SQLite and
// PostgreSQL alike, and leave nothing half-written.
const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
/** JSON text of a value nested `levels` objects deep (built as text: JSON.stringify itself overflows at a few thousand). */
const deep = (levels: number): string => '{"n":'.repeat(levels) + '"bottom"' + '}'.repeat(levels);
const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

for (const backend of BACKENDS) {
  describe(`bad input classes answer 400, never 500 (${backend})`, () => {
    const t = useTestServer(backend, { limits: { perIpPerMinute: 0, perHandlePerMinute: 0 } });

    it('deeply nested JSON values in attribute writes and custom_claims', async () => {
      const token = await signInWithEmail(t.server, 'deep@example.com');
      const person = decodeClaims(token).person_id;
      for (const levels of [5_000, 100]) {
        const mine = await t.call('PATCH', '/attributes/end_user_read_write', undefined, { token, raw: `{"x":${deep(levels)}}` });
        expect(mine.status, `${levels} levels`).toBe(400);
        expect(mine.body.errors[0].message).toMatch(/^body\.x\.n\.n… is nested deeper than 32 levels$/);
        const raw = await t.call('PUT', '/attributes', undefined, { token, raw: `{"end_user_read_write":{"a":${deepArray(levels)}}}` });
        expect(raw.status).toBe(400);
        const admin = await t.call('PATCH', `/persons/${person}/attributes`, undefined, { ...KEY, raw: `{"org_read_write":{"x":${deep(levels)}}}` });
        expect(admin.status).toBe(400);
        const mint = await t.call('POST', `/persons/${person}/mint-token`, undefined, { ...KEY, raw: `{"custom_claims":{"c":${deep(levels)}}}` });
        expect(mint.status).toBe(400);
        expect(mint.body.errors[0].message).toMatch(/^body\.custom_claims\.c\.n… is nested deeper than 32 levels$/);
      }
      // Nothing was written.
      expect((await t.call('GET', '/attributes/end_user_read_write', undefined, { token })).body.result).toEqual({});
      // A modest value still works.
      expect((await t.call('PATCH', '/attributes/end_user_read_write', undefined, { token, raw: `{"x":${deep(10)}}` })).status).toBe(200);
    });

    it('NUL characters in strings are refused, naming the field', async () => {
      const id = await t.call('POST', '/id/v2', { handle: 'nul\u0000@example.com', factor: { method: 'otp_via_email' } });
      expect(id.status).toBe(400);
      expect(id.body.errors[0].message).toBe('body.handle contains a NUL character (U+0000)');
      const token = await signInWithEmail(t.server, 'nul@example.com');
      const key = await t.call('PATCH', '/attributes/end_user_read_write', { ['a\u0000b']: 1 }, { token });
      expect(key.status).toBe(400);
      expect(key.body.errors[0].message).toBe('body has a key with a NUL character (U+0000)');
      const value = await t.call('PATCH', '/attributes/end_user_read_write', { a: 'x\u0000y' }, { token });
      expect(value.status).toBe(400);
      expect(value.body.errors[0].message).toBe('body.a contains a NUL character (U+0000)');
      const query = await t.call('GET', '/attributes/end_user_read_write?attributes=a%00b', undefined, { token });
      expect(query.status).toBe(400);
      expect(query.body.errors[0].message).toBe('querystring.attributes contains a NUL character (U+0000)');
      const created = await t.call('POST', '/persons', { handles: [{ type: 'email_address', value: 'p\u0000@example.com' }] }, KEY);
      expect(created.status).toBe(400);
    });

    it('an empty object on whole-bucket PUT and PATCH', async () => {
      const token = await signInWithEmail(t.server, 'empty@example.com');
      const person = decodeClaims(token).person_id;
      for (const method of ['PUT', 'PATCH']) {
        const mine = await t.call(method, '/attributes', {}, { token });
        expect(mine.status, `${method} /attributes`).toBeLessThan(500);
        const admin = await t.call(method, `/persons/${person}/attributes`, {}, KEY);
        expect(admin.status, `${method} /persons/{id}/attributes`).toBeLessThan(500);
        const org = await t.call(method, '/organizations/attributes', {}, KEY);
        expect(org.status, `${method} /organizations/attributes`).toBeLessThan(500);
      }
    });

    it.each(['1e999', '-1e999', 'Infinity', '1e308', '99999999999999999999999'])('offset and limit of %s answer 400', async (n) => {
      for (const path of ['/persons', '/groups', '/events']) {
        for (const param of ['offset', 'limit']) {
          const r = await t.call('GET', `${path}?${param}=${n}`, undefined, KEY);
          expect(r.status, `${path}?${param}=${n}`).toBe(400);
          expect(r.body.errors[0].message).toMatch(new RegExp(`^querystring\\.${param} `));
        }
      }
    });
  });
}
