import { sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import type { Db } from './index.js';
import type { DialectName } from './migrations.js';

/**
 * Work that replicas sharing one PostgreSQL database must not do at the same time, each with its own advisory-lock
 * number. On SQLite one process holds the database file's write lock while it writes, so no lock is taken.
 */
export const LOCKS = { keyRotation: 23_001, purge: 23_002 } as const;

/** Runs `work` in a transaction that holds the lock; waits for a replica that holds it. */
export async function exclusively<T>(db: Db, dialect: DialectName, lock: keyof typeof LOCKS, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${LOCKS[lock]})`.execute(trx);
    return work(trx);
  });
}

/** Runs `work` in a transaction that holds the lock, or skips it (undefined) while another replica holds it. */
export async function unlessBusy<T>(db: Db, dialect: DialectName, lock: keyof typeof LOCKS, work: (trx: Transaction<Database>) => Promise<T>): Promise<T | undefined> {
  return db.transaction().execute(async (trx) => {
    if (dialect === 'postgres') {
      const got = await sql<{ got: boolean }>`select pg_try_advisory_xact_lock(${LOCKS[lock]}) as got`.execute(trx);
      if (!got.rows[0]?.got) return undefined;
    }
    return work(trx);
  });
}
