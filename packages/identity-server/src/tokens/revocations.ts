import { sql, type Transaction } from 'kysely';
import type { Db } from '../db/index.js';
import type { Database } from '../db/schema.js';

// The revocations a token validation must honour, kept in memory (#43): validating a token asks no database.
//
// Every revocation write (a token, the tokens derived from it, or a bound on a subject's tokens) runs in a transaction
// that first bumps the one-row `revocation_feed` counter and stamps its rows with the new number. The bump takes the
// row's lock, so revocation writes commit in the order of their numbers, on every replica sharing the database: a
// replica that reads the counter at N and then the rows numbered above its cursor has seen every revocation up to N.
// Each replica reads the counter every REVOCATION_POLL_MS (one primary-key row) and the new rows when it moved; the
// replica that writes a revocation knows it at once. A replica that could not read for REVOCATION_STALENESS_MS (a
// database away, an event loop held up) reads before it answers a validation, so it never answers from old memory:
// the bound the READMEs state holds, or the validation fails with the database's error.
//
// Memory stays bounded: a revoked token leaves when it expires, a bound on a subject when every token it could refuse
// has expired (user tokens live at most 30 days).

/** How often each replica reads the revocation counter. */
export const REVOCATION_POLL_MS = 250;
/** The bound the READMEs state: a revocation made on any replica is honoured by every replica within this. */
export const REVOCATION_STALENESS_MS = 1000;
/** The longest a token this server signs can live (an organization's `token_duration` is at most 30 days), plus a day. */
const LONGEST_TOKEN_SECONDS = 31 * 24 * 3600;
/** Expired entries are swept this often. */
const SWEEP_MS = 10_000;

/** The client id of a subject revocation that holds for every client and first-party token of a person. */
export const ALL_CLIENTS = '*';

const boundKey = (clientId: string, subject: string) => `${clientId}\n${subject}`;

/** What a validation knows of a token to ask whether it was revoked. */
export interface RevocableClaims {
  jti: string;
  sub: string;
  iat: number;
  client_id?: string | undefined;
}

export class Revocations {
  /** Revoked token ids, with their expiry (epoch seconds). */
  private readonly tokens = new Map<string, number>();
  /** `client \n subject` → tokens issued at or before this second (epoch) are revoked. */
  private readonly bounds = new Map<string, number>();
  /** The feed number read last; undefined before the first read. */
  private cursor: number | undefined;
  private lastRead = 0;
  private lastSweep = 0;
  private reading: Promise<void> | undefined;

  constructor(private readonly db: Db) {}

  /**
   * Whether the token was revoked: from memory, read again first when it may be older than the stated bound. The
   * common case answers synchronously (a boolean, no promise: validations are the hot path).
   */
  isRevoked(claims: RevocableClaims): boolean | Promise<boolean> {
    return this.stale() ? this.catchUp().then(() => this.knows(claims)) : this.knows(claims);
  }

  /** Whether the token id was revoked (the token itself, not a bound on its subject). */
  async isTokenRevoked(jti: string): Promise<boolean> {
    if (this.stale()) await this.catchUp();
    return this.tokens.has(jti);
  }

  /** Whether memory may be older than the stated bound (or was never read). */
  private stale(): boolean {
    return this.cursor === undefined || Date.now() - this.lastRead >= REVOCATION_STALENESS_MS;
  }

  private knows(c: RevocableClaims): boolean {
    if (this.tokens.has(c.jti)) return true;
    const all = this.bounds.get(boundKey(ALL_CLIENTS, c.sub));
    if (all !== undefined && all >= c.iat) return true;
    const own = c.client_id === undefined ? undefined : this.bounds.get(boundKey(c.client_id, c.sub));
    return own !== undefined && own >= c.iat;
  }

  /** Reads what other replicas revoked since the last read (one read at a time; callers share it). */
  catchUp(): Promise<void> {
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    const startedAt = Date.now();
    const row = await this.db.selectFrom('revocation_feed').select('seq').where('id', '=', 1).executeTakeFirst();
    const feed = Number(row?.seq ?? 0);
    // Behind the feed (or a database whose feed went back: a restored copy): read what is new, or everything.
    if (this.cursor === undefined || feed !== this.cursor) {
      const from = this.cursor === undefined || feed < this.cursor ? -1 : this.cursor;
      const now = new Date(startedAt).toISOString();
      const tokens = await this.db.selectFrom('revoked_tokens').select(['jti', 'expires_at']).where('seq', '>', from).where('expires_at', '>', now).execute();
      const bounds = await this.db.selectFrom('subject_revocations').select(['client_id', 'subject', 'revoked_before']).where('seq', '>', from).execute();
      for (const t of tokens) this.noteToken(t.jti, Math.floor(Date.parse(t.expires_at) / 1000));
      for (const b of bounds) this.noteBound(b.client_id, b.subject, Number(b.revoked_before));
      this.cursor = feed;
    }
    this.lastRead = startedAt;
    if (startedAt - this.lastSweep >= SWEEP_MS) this.sweep(startedAt);
  }

  private sweep(nowMs: number): void {
    this.lastSweep = nowMs;
    const now = Math.floor(nowMs / 1000);
    for (const [jti, exp] of this.tokens) if (exp < now) this.tokens.delete(jti);
    for (const [key, before] of this.bounds) if (before + LONGEST_TOKEN_SECONDS < now) this.bounds.delete(key);
  }

  /** A token revoked here: known at once on this replica. */
  noteToken(jti: string, exp: number): void {
    this.tokens.set(jti, exp);
  }

  /** A bound written here (it only grows). */
  noteBound(clientId: string, subject: string, before: number): void {
    const key = boundKey(clientId, subject);
    this.bounds.set(key, Math.max(before, this.bounds.get(key) ?? before));
  }

  /** Runs a revocation write in a transaction numbered by the feed: `write` stamps its rows with `seq`. */
  async write<T>(write: (trx: Transaction<Database>, seq: number) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      const bumped = await trx.updateTable('revocation_feed').set({ seq: sql<number>`seq + 1` }).where('id', '=', 1).returning('seq').executeTakeFirstOrThrow();
      return write(trx, Number(bumped.seq));
    });
  }

  /** How many entries memory holds (for tests and the bench). */
  size(): { tokens: number; bounds: number } {
    return { tokens: this.tokens.size, bounds: this.bounds.size };
  }
}
