import type { Db } from './index.js';

/** How long used or expired challenges are kept (for support questions) before they are deleted. */
export const CHALLENGE_RETENTION_MS = 24 * 3600_000;
/** How long dev-mailbox messages are kept. */
export const MAILBOX_RETENTION_MS = 7 * 24 * 3600_000;

/**
 * Deletes what can no longer matter: challenges expired a day ago, revocations and derivation links of tokens that have expired anyway,
 * refresh tokens expired a day ago, and week-old dev-mailbox messages. Returns how many challenges, revocations and messages went.
 */
export async function purgeExpired(db: Db, now = Date.now()): Promise<{ challenges: number; revoked_tokens: number; mailbox: number }> {
  const iso = (ms: number) => new Date(ms).toISOString();
  const c = await db.deleteFrom('challenges').where('expires_at', '<', iso(now - CHALLENGE_RETENTION_MS)).executeTakeFirst();
  const r = await db.deleteFrom('revoked_tokens').where('expires_at', '<', iso(now)).executeTakeFirst();
  const m = await db.deleteFrom('mailbox').where('created_at', '<', iso(now - MAILBOX_RETENTION_MS)).executeTakeFirst();
  // Rate-limit windows last a minute (http/rate-limit.ts); one an hour old counts nothing.
  await db.deleteFrom('rate_windows').where('window_start', '<', now - 3600_000).execute();
  await db.deleteFrom('token_parents').where('expires_at', '<', iso(now)).execute();
  // Used refresh tokens are kept while they could be replayed (reuse detection); past their expiry they can go.
  await db.deleteFrom('oauth_refresh_tokens').where('expires_at', '<', iso(now - CHALLENGE_RETENTION_MS)).execute();
  return { challenges: Number(c.numDeletedRows), revoked_tokens: Number(r.numDeletedRows), mailbox: Number(m.numDeletedRows) };
}
