import type { Kysely } from 'kysely';

/**
 * 0021, the revocation feed (#43): a one-row counter bumped by every revocation write, and each revocation row's number, so
 * that a replica reads only what is new since its last look (validations then never ask the database).
 */
export async function revocationFeed(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('revocation_feed').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('seq', 'bigint', (c) => c.notNull()).execute();
  await db.insertInto('revocation_feed').values({ id: 1, seq: 0 }).execute();
  for (const table of ['revoked_tokens', 'subject_revocations']) {
    await db.schema.alterTable(table).addColumn('seq', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.createIndex(`${table}_seq`).on(table).column('seq').execute();
  }
}
