import { CompiledQuery, sql, type Compilable } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventsQuery } from '../src/events/store.js';
import { pageIdsQuery, personsQuery } from '../src/persons/person-list.js';
import { parseFilter } from '../src/persons/scim-filter.js';
import { dueDeliveries } from '../src/webhooks/claims.js';
import { BACKENDS, useTestServer } from './helpers.js';
import { seedPersons } from './seed.mjs';

// The queries of the paths that read many rows use their indexes (src/db/growth.ts), on both databases: the plans
// the databases choose for the real queries, at 10⁴ persons and events. A plan is stable where a timing is not.

const N = 10_000;

describe.each(BACKENDS)('query plans at 10⁴ rows (%s)', (backend) => {
  const t = useTestServer(backend);
  beforeAll(async () => {
    const db = t.server.db;
    await seedPersons((statement) => sql.raw(statement).execute(db), backend, { orgId: t.server.orgId, count: N });
    const org = t.server.orgId;
    // 10⁴ events of 20 names among 5·10⁴ (the others are another organization's), and 10⁴ webhook deliveries of
    // which one in a hundred is pending.
    const series = (select: string, n = N) =>
      backend === 'postgres' ? `${select} from generate_series(1, ${n}) as i` : `with recursive s(i) as (select 1 union all select i + 1 from s where i < ${n}) ${select} from s`;
    const eventOrg = `case when i % 5 = 0 then '${org}' else 'org_other' end`;
    await sql.raw(series(`insert into events (org_id, source, name, person_id, payload, created_at) select ${eventOrg}, 'sdk', 'Name' || (i % 20), null, '{}', '2020-01-01'`, 5 * N)).execute(db);
    await sql
      .raw(series(`insert into webhook_deliveries (id, webhook_id, org_id, event_type, event, status, attempts, next_attempt_at, created_at) select 'd' || i, 'w', '${org}', 'E', '{}', case when i % 100 = 0 then 'pending' else 'delivered' end, 0, '2020-01-01', '2020-01-01'`))
      .execute(db);
    await sql`analyze`.execute(db);
  }, 60_000);

  /** The plan of a query, one line per step (`EXPLAIN` / `EXPLAIN QUERY PLAN`). */
  const plan = async (query: Compilable) => {
    const { sql: text, parameters } = query.compile();
    const prefix = backend === 'postgres' ? 'explain ' : 'explain query plan ';
    const rows = (await t.server.db.executeQuery(CompiledQuery.raw(prefix + text, [...parameters]))).rows as Array<Record<string, unknown>>;
    return rows.map((r) => String(r['QUERY PLAN'] ?? r.detail)).join('\n');
  };
  const usesIndex = (text: string, index: string) => expect(text).toMatch(backend === 'postgres' ? new RegExp(`Index (Only )?Scan( Backward)? using ${index}|Bitmap Index Scan on ${index}`) : new RegExp(`USING (COVERING )?INDEX ${index}\\b`));
  const persons = (filter?: string) => personsQuery(t.server.db, backend, t.server.orgId, filter ? parseFilter(filter) : undefined);

  it('pages persons in the order of the index, stepping over the offset in the index alone', async () => {
    const text = await plan(pageIdsQuery(t.server.db, backend, t.server.orgId, { limit: 100, start: { offset: 200 } }));
    usesIndex(text, 'persons_org_created');
    // The offset is stepped over in the index alone (the rows of the page only are read).
    expect(text).toMatch(backend === 'postgres' ? /Index Only Scan( Backward)? using persons_org_created/ : /USING COVERING INDEX persons_org_created/);
    expect(text).not.toMatch(/Seq Scan|Sort|TEMP B-TREE/);
  });

  it('starts a page after a sort key by seeking in the index, not by stepping over the persons before it', async () => {
    const text = await plan(pageIdsQuery(t.server.db, backend, t.server.orgId, { limit: 100, start: { after: ['2020-01-01T00:00:00.000Z', 'pid:x'] } }));
    expect(text).toMatch(backend === 'postgres' ? /Index Only Scan( Backward)? using persons_org_created/ : /USING COVERING INDEX persons_org_created \(org_id=\? AND created_at[<>]/);
    if (backend === 'postgres') expect(text).toMatch(/Index Cond: \(\(org_id = .*created_at <= /s);
    expect(text).not.toMatch(/Seq Scan|Sort|TEMP B-TREE/);
  });

  it('finds persons by handle (equal, and by prefix) through the index on lower(value)', async () => {
    for (const filter of ['handles.value eq "Seed-0004242@seed.example"', 'handles.value sw "seed-00042"', 'handles.value sw "seed-00042" and region eq "us-iowa"']) {
      for (const query of [pageIdsQuery(t.server.db, backend, t.server.orgId, { filter: parseFilter(filter), limit: 100, start: { offset: 0 } }), persons(filter).select((eb) => eb.fn.countAll().as('n'))]) {
        const text = await plan(query);
        usesIndex(text, 'handles_org_lower_value');
        expect(text).not.toMatch(/Seq Scan on handles|SCAN h\b/);
      }
    }
  });

  it('pages events newest first by (org_id, id) and (org_id, name, id)', async () => {
    const all = await plan(eventsQuery(t.server.db, t.server.orgId).selectAll().orderBy('id', 'desc').limit(100).offset(100));
    usesIndex(all, 'events_org_id');
    const named = await plan(eventsQuery(t.server.db, t.server.orgId, 'Name5').selectAll().orderBy('id', 'desc').limit(100));
    usesIndex(named, 'events_org_name_id');
    for (const text of [all, named]) expect(text).not.toMatch(/Seq Scan|Sort|TEMP B-TREE/);
  });

  it('finds due webhook deliveries through the partial index of pending ones', async () => {
    usesIndex(await plan(dueDeliveries(t.server.db, 16).selectAll()), 'webhook_deliveries_pending');
  });
});
