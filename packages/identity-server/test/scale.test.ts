import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, useTestServer } from './helpers.js';
import { seeded, seedPersons } from './seed.mjs';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
/** Persons seeded per database (`KEYWAY_SCALE_PERSONS` to try another size). */
const N = Number(process.env.KEYWAY_SCALE_PERSONS ?? 100_000);
/** Today a listing at 10⁵ persons takes seconds (every person is read, see issue #23): room for a loaded machine. */
const SLOW_MS = 90_000;

// The management listing at 10⁵ persons: pages, SCIM filters on handles and the counts stay exact. (Speed is measured
// by bench/server.mjs, not here.)
describe.each(BACKENDS)(`GET /persons with ${N.toLocaleString('en-US')} persons (%s)`, (backend) => {
  const t = useTestServer(backend);
  beforeAll(async () => {
    await seedPersons((statement) => sql.raw(statement).execute(t.server.db), backend, { orgId: t.server.orgId, count: N });
  }, 120_000);

  const ids = (body: { result: Array<{ person_id: string }> }) => body.result.map((p) => p.person_id);
  const range = (from: number, to: number) => Array.from({ length: Math.abs(to - from) + 1 }, (_, k) => seeded(from > to ? from - k : from + k).person_id);

  it('pages newest first with the exact total, the first page and the last', async () => {
    const first = await t.call('GET', '/persons?limit=100', undefined, KEY);
    expect(first.status).toBe(200);
    expect(first.body.meta.pagination).toEqual({ limit: 100, offset: 0, total_count: N });
    expect(ids(first.body)).toEqual(range(N, N - 99));
    expect(first.body.result[0]).toMatchObject({ person_id: seeded(N).person_id, handles: [{ type: 'email_address', value: seeded(N).email }] });
    const last = await t.call('GET', `/persons?limit=100&offset=${N - 30}`, undefined, KEY);
    expect(last.body.meta.pagination.total_count).toBe(N);
    expect(ids(last.body)).toEqual(range(30, 1));
  }, SLOW_MS);

  it('finds one person by handle among all of them', async () => {
    const target = seeded(Math.ceil(N * 0.42));
    const found = await t.call('GET', `/persons?filter=${encodeURIComponent(`handles.value eq "${target.email}"`)}`, undefined, KEY);
    expect(found.status).toBe(200);
    expect(found.body.meta.pagination.total_count).toBe(1);
    expect(ids(found.body)).toEqual([target.person_id]);
    const none = await t.call('GET', `/persons?filter=${encodeURIComponent('handles.value eq "nobody@seed.example"')}`, undefined, KEY);
    expect(none.body.meta.pagination.total_count).toBe(0);
    expect(none.body.result).toEqual([]);
  }, SLOW_MS);

  it('counts and pages a filter that matches many (handle prefix, and-ed with region and group)', async () => {
    // Handles of persons 1200 … 1299 start with `seed-00012`; half of them are odd (us-iowa), a tenth in `tenth`.
    const prefix = seeded(1200).email.slice(0, 'seed-00012'.length);
    const sw = encodeURIComponent(`handles.value sw "${prefix}"`);
    const all = await t.call('GET', `/persons?filter=${sw}&limit=10&offset=5`, undefined, KEY);
    expect(all.body.meta.pagination).toEqual({ limit: 10, offset: 5, total_count: 100 });
    expect(ids(all.body)).toEqual(range(1294, 1285));
    const odd = await t.call('GET', `/persons?filter=${sw}${encodeURIComponent(' and region eq "us-iowa"')}&limit=100`, undefined, KEY);
    expect(odd.body.meta.pagination.total_count).toBe(50);
    expect(ids(odd.body)).toEqual(range(1299, 1201).filter((_, k) => k % 2 === 0));
    const tenth = await t.call('GET', `/persons?filter=${sw}${encodeURIComponent(' and groups eq "tenth"')}`, undefined, KEY);
    expect(ids(tenth.body)).toEqual([1290, 1280, 1270, 1260, 1250, 1240, 1230, 1220, 1210, 1200].map((i) => seeded(i).person_id));
  }, SLOW_MS);
});
