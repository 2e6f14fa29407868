import { sql } from 'kysely';
import type { Db } from '../db/index.js';

// Which process sends which webhook delivery. Deliveries are rows; a process claims an attempt by moving its
// attempt count and pushing `next_attempt_at` past the webhook's timeout (plus a margin, 30 s unless configured), so
// that an attempt cut short by a crash is due again later and no two processes send the same attempt.

/** Deliveries due now, oldest first, at most `limit` (the partial index webhook_deliveries_pending serves it). */
export const dueDeliveries = (db: Db, limit: number) =>
  db.selectFrom('webhook_deliveries').where('status', '=', 'pending').where('next_attempt_at', '<=', new Date().toISOString()).orderBy('next_attempt_at').limit(limit);

/**
 * PostgreSQL: claims up to `limit` due deliveries in one statement. `for update skip locked` lets several replicas poll at
 * once without waiting on each other's rows or claiming the same one. Returns the claimed ids and their attempt
 * count before the claim.
 */
export async function claimDue(db: Db, marginMs: number, limit: number): Promise<Array<{ id: string; attempts: number }>> {
  const { rows } = await sql<{ id: string; attempts: number }>`
    update webhook_deliveries d
    set attempts = d.attempts + 1,
        next_attempt_at = to_char((now() at time zone 'utc') + (coalesce((select w.timeout from webhooks w where w.id = d.webhook_id), 0) * 1000 + ${marginMs}::integer) * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    where d.id in ${dueDeliveries(db, limit).select('id').forUpdate().skipLocked()}
    returning d.id, d.attempts - 1 as attempts`.execute(db);
  return rows;
}

/** SQLite (and one delivery at a time): claims this attempt unless another process did already. */
export async function claimOne(db: Db, id: string, attempts: number, timeoutSeconds: number, marginMs: number): Promise<boolean> {
  const claimUntil = new Date(Date.now() + timeoutSeconds * 1000 + marginMs).toISOString();
  const claimed = await db.updateTable('webhook_deliveries').set({ attempts: attempts + 1, next_attempt_at: claimUntil }).where('id', '=', id).where('attempts', '=', attempts).where('status', '=', 'pending').executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}
