import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import { ApiError, answerMessage } from './errors.js';

/**
 * Fixed-window counters kept in the database (`rate_windows`), keyed by scope and subject (IP address, handle), so
 * every replica sharing it counts the same hits: N replicas allow what one allows. A window starts at the first hit
 * of a key and lasts `windowMs`; each hit is one atomic upsert. Windows that ended are swept by `purgeExpired`.
 */
export class RateLimiter {
  constructor(
    private readonly db: Db,
    private readonly windowMs = 60_000,
  ) {}

  /** Counts one hit; throws 429 when `limit` hits already happened in the current window. */
  async hit(scope: string, subject: string, limit: number, what: string): Promise<void> {
    if (limit <= 0) return;
    const now = Date.now();
    const open = now - this.windowMs;
    const row = await this.db
      .insertInto('rate_windows')
      .values({ key: `${scope}|${subject}`, window_start: now, count: 1 })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          count: sql<number>`case when rate_windows.window_start > ${open} then rate_windows.count + 1 else 1 end`,
          window_start: sql<number>`case when rate_windows.window_start > ${open} then rate_windows.window_start else ${now} end`,
        }),
      )
      .returning(['count', 'window_start'])
      .executeTakeFirstOrThrow();
    if (Number(row.count) > limit) {
      const retryAfter = Math.max(1, Math.ceil((Number(row.window_start) + this.windowMs - now) / 1000));
      throw new RateLimitError(answerMessage('rateLimited', { what, seconds: retryAfter }), retryAfter);
    }
  }
}

export class RateLimitError extends ApiError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message);
  }
}
