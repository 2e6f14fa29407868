import { sql } from 'kysely';
import type { Ctx } from '../context.js';
import { answerMessage } from '../http/errors.js';
import { RateLimitError } from '../http/rate-limit.js';

/**
 * Account-level guessing defence: failed answers are counted per organization, person (or handle) and factor in the
 * database, so every process on one PostgreSQL database sees the same count. From `lockoutThreshold` failures on,
 * each further failure locks that factor for that account for `lockoutBaseSeconds`, doubled per failure, at most
 * `lockoutMaxSeconds`. A correct answer clears the count; a count left alone for a day starts again.
 * While locked, every answer (right or wrong) to that factor is refused with 429 and Retry-After, so the lock reveals
 * nothing about a guess. Other factors of the account (an e-mailed link, recovery) keep working.
 */
export interface GuessSubject {
  org_id: string;
  method: string;
  person_id: string | null;
  handle_type: string | null;
  handle_value: string | null;
}

const DAY_MS = 86_400_000;

/** The key of an account and factor, or undefined when the answer is tied to neither (nothing to count). */
export function guessKey(s: GuessSubject, recovery: boolean): string | undefined {
  const who = s.person_id ? `person:${s.person_id}` : s.handle_type && s.handle_value ? `handle:${s.handle_type}:${s.handle_value}` : undefined;
  return who && `${s.org_id}|${s.method}${recovery ? ':recovery' : ''}|${who}`;
}

/** Seconds the factor stays locked after `failures` failures (0: not locked). */
export function lockSeconds(ctx: Ctx, failures: number): number {
  const { lockoutThreshold, lockoutBaseSeconds, lockoutMaxSeconds } = ctx.limits;
  if (lockoutThreshold <= 0 || failures < lockoutThreshold) return 0;
  return Math.min(lockoutBaseSeconds * 2 ** Math.min(failures - lockoutThreshold, 30), lockoutMaxSeconds);
}

/** Throws 429 (with Retry-After) while the factor of this account is locked. */
export async function assertNotLocked(ctx: Ctx, key: string | undefined): Promise<void> {
  if (!key || ctx.limits.lockoutThreshold <= 0) return;
  const row = await ctx.db.selectFrom('guess_failures').select(['locked_until']).where('key', '=', key).executeTakeFirst();
  const until = row?.locked_until ? Date.parse(row.locked_until) : 0;
  const left = Math.ceil((until - Date.now()) / 1000);
  if (left > 0) {
    const wait = left >= 120 ? `${Math.ceil(left / 60)} minutes` : `${left} s`;
    throw new RateLimitError(answerMessage('factorLocked', { wait }), left);
  }
}

/** Counts one failed answer (atomically, shared by every process) and locks the factor when the count says so. */
export async function recordFailure(ctx: Ctx, key: string | undefined): Promise<void> {
  if (!key || ctx.limits.lockoutThreshold <= 0) return;
  const now = new Date();
  const stale = new Date(now.getTime() - DAY_MS).toISOString();
  const row = await ctx.db
    .insertInto('guess_failures')
    .values({ key, failures: 1, locked_until: null, updated_at: now.toISOString() })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        failures: sql<number>`case when guess_failures.updated_at < ${stale} then 1 else guess_failures.failures + 1 end`,
        updated_at: now.toISOString(),
      }),
    )
    .returning(['failures'])
    .executeTakeFirstOrThrow();
  const seconds = lockSeconds(ctx, Number(row.failures));
  if (seconds > 0) {
    await ctx.db.updateTable('guess_failures').set({ locked_until: new Date(now.getTime() + seconds * 1000).toISOString() }).where('key', '=', key).execute();
  }
}

/** A correct answer: the account starts again from zero failures for that factor. */
export async function clearFailures(ctx: Ctx, key: string | undefined): Promise<void> {
  if (!key || ctx.limits.lockoutThreshold <= 0) return;
  await ctx.db.deleteFrom('guess_failures').where('key', '=', key).execute();
}

/** Ends every lock of one person's factor (a new password set through recovery or by an administrator). */
export async function clearPersonFactor(ctx: Pick<Ctx, 'db'>, personId: string, method: string): Promise<void> {
  await ctx.db.deleteFrom('guess_failures').where('key', 'like', `%|${method}|person:${personId}`).execute();
}
