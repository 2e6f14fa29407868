import { sql, type Kysely } from 'kysely';
import type { DialectName } from './dialect.js';

// 0013: what lets the data grow (#23): indexes for the paths that read many rows, and a per-organization person
// count kept by the database itself so that an unfiltered `GET /persons` knows its exact `total_count` without
// counting a million rows. Every check is in test/indexes.test.ts (EXPLAIN on both dialects).

/** The person counter: statement-level triggers on PostgreSQL (one upsert per statement), row-level on SQLite. */
async function personCounts(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('org_person_counts')
    .addColumn('org_id', 'text', (c) => c.primaryKey())
    .addColumn('persons', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into org_person_counts (org_id, persons) select org_id, count(*) from persons group by org_id`.execute(db);
  if (dialect === 'postgres') {
    for (const [op, table, sign] of [['insert', 'new_rows', '+'], ['delete', 'old_rows', '-']] as const) {
      await sql
        .raw(
          `create function keyway_count_persons_${op}() returns trigger language plpgsql as $$
           begin
             insert into org_person_counts (org_id, persons) select org_id, ${sign}count(*) from ${table} group by org_id
             on conflict (org_id) do update set persons = org_person_counts.persons + excluded.persons;
             return null;
           end $$`,
        )
        .execute(db);
      const transition = op === 'insert' ? 'new table as new_rows' : 'old table as old_rows';
      await sql.raw(`create trigger persons_count_${op} after ${op} on persons referencing ${transition} for each statement execute function keyway_count_persons_${op}()`).execute(db);
    }
    return;
  }
  for (const [op, row, step] of [['insert', 'new', '1'], ['delete', 'old', '-1']] as const) {
    await sql
      .raw(
        `create trigger persons_count_${op} after ${op} on persons begin
           insert into org_person_counts (org_id, persons) values (${row}.org_id, ${step})
           on conflict (org_id) do update set persons = persons + (${step});
         end`,
      )
      .execute(db);
  }
}

export async function growth(db: Kysely<any>, dialect: DialectName): Promise<void> {
  // Listing newest first (`order by created_at desc, id`) reads the index in order and stops at the page.
  await db.schema.createIndex('persons_org_created').on('persons').columns(['org_id', 'created_at desc', 'id']).execute();
  // Case-insensitive handle filters: `eq` and `sw` (a range) on lower(value). On PostgreSQL in the "C" collation, so
  // that the range of a prefix is the same whatever the database's locale (SQLite compares bytes already).
  const lowered = dialect === 'postgres' ? sql`(lower(value) collate "C")` : sql`lower(value)`;
  await sql`create index handles_org_lower_value on handles (org_id, ${lowered})`.execute(db);
  await db.schema.dropIndex('events_org_name').execute();
  await db.schema.createIndex('events_org_id').on('events').columns(['org_id', 'id']).execute();
  await db.schema.createIndex('events_org_name_id').on('events').columns(['org_id', 'name', 'id']).execute();
  await db.schema.dropIndex('webhook_deliveries_due').execute();
  await db.schema.createIndex('webhook_deliveries_pending').on('webhook_deliveries').column('next_attempt_at').where(sql.ref('status'), '=', 'pending').execute();
  await personCounts(db, dialect);
}
