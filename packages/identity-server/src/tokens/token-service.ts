import { randomUUID } from 'node:crypto';
import { SignJWT, compactVerify, exportJWK, generateKeyPair, importJWK, jwtVerify, decodeJwt, decodeProtectedHeader, errors as joseErrors, type JWK, type CryptoKey } from 'jose';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import { exclusively } from '../db/locks.js';
import type { DialectName } from '../db/migrations.js';
import type { SigningKeyTable } from '../db/schema.js';
import { ALL_CLIENTS, Revocations } from './revocations.js';
import { ACCEPTED, NOT_ACCEPTED, TOKEN_USES, type TokenPurpose, type TokenUse, type UserTokenClaims } from './token-model.js';

/** The algorithm of every token this server signs, except id_tokens of clients that ask for RS256. */
export const SIGNING_ALG = 'ES256';
/** Algorithms of the signing keys: each has its own key, rotated on the same schedule (RS256 is mandatory for an OP, OIDC Core §15.1). */
export const SIGNING_ALGS = ['ES256', 'RS256'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

export * from './token-model.js';

interface LoadedKey {
  kid: string;
  alg: SigningAlg;
  createdAt: number;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export interface TokenServiceOptions {
  issuer: string;
  /** Lifetime of user tokens. */
  ttlSeconds: number;
  /** A new signing key is generated when the newest one is older than this. */
  rotationSeconds: number;
  /** The database's dialect: on PostgreSQL, rotation takes an advisory lock so that one replica rotates at a time. */
  dialect?: DialectName;
  /** Claim that carries the groups for an organization (default `groups`). */
  groupsClaimFor?: (oid: string) => Promise<string | undefined> | string | undefined;
  /** Token lifetime of an organization, when it sets its own. */
  ttlFor?: (oid: string) => Promise<number | undefined> | number | undefined;
  /** Extra claims of an organization's token template for a person (never overriding the claims given to sign). */
  templateClaimsFor?: (oid: string, personId: string) => Promise<Record<string, unknown>>;
  /** Claims the organization's `token_minted` sync hooks add (they may also refuse the token by throwing 403). */
  syncHookClaimsFor?: (claims: Record<string, unknown> & { oid: string; person_id: string }) => Promise<Record<string, unknown>>;
}

/** Keys are re-read from the database at most this often (on an unknown key id, or for the JWKS). */
export const KEY_REFRESH_MS = 1000;

export { ALL_CLIENTS } from './revocations.js';

export type ValidationResult =
  | { valid: true; claims: UserTokenClaims; expires_in_seconds: number; expires_at: string }
  | { valid: false; invalidity_reason: string };

/**
 * Signs and verifies user tokens with persisted, rotating ES256 keys. Old public keys stay in the JWKS until every
 * token they signed has expired. Revocations are kept in the database and, for validations, in memory (revocations.ts).
 */
export class TokenService {
  private keys: LoadedKey[] = [];
  private lastRefresh = 0;
  private refreshing: Promise<void> | undefined;
  private readonly verified = new Map<string, UserTokenClaims>();
  /** Every revocation of every replica, in memory (tokens/revocations.ts). */
  readonly revocations: Revocations;

  constructor(
    private readonly db: Db,
    readonly opts: TokenServiceOptions,
  ) {
    this.revocations = new Revocations(db);
  }

  /** Loads the keys (rotating when due) and every revocation: a server answers only once it has caught up. */
  async init(): Promise<void> {
    await this.rotateIfDue();
    await this.revocations.catchUp();
  }

  /**
   * Generates a new key when the newest is older than the rotation period and drops keys nobody can need. Replicas on
   * one PostgreSQL database do this one at a time (advisory lock), each re-reading the keys under the lock: one rotates.
   */
  async rotateIfDue(now = Date.now()): Promise<void> {
    const keep = await exclusively(this.db, this.opts.dialect ?? 'sqlite', 'keyRotation', async (trx) => {
      const rows = await trx.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').orderBy('kid').execute();
      for (const alg of SIGNING_ALGS) {
        const newest = rows.find((r) => r.alg === alg);
        if (newest && now - Date.parse(newest.created_at) < this.opts.rotationSeconds * 1000) continue;
        const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' ? { modulusLength: 2048 } : {}) });
        const kid = randomUUID();
        const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
        const privateJwk = { ...(await exportJWK(privateKey)), kid, alg };
        const row = { kid, alg, private_jwk: JSON.stringify(privateJwk), public_jwk: JSON.stringify(publicJwk), created_at: new Date(now).toISOString() };
        await trx.insertInto('signing_keys').values(row).execute();
        rows.unshift(row);
      }
      // Newest first, then by key id: the order every read of the table gives (keys of one rotation share their time).
      rows.sort((a, b) => b.created_at.localeCompare(a.created_at) || a.kid.localeCompare(b.kid));
      // A key retired at time R (when its successor of the same algorithm appeared) may have signed tokens until R; keep it until R + ttl.
      const kept: typeof rows = [];
      for (const row of rows) {
        const successor = rows.filter((r) => r.alg === row.alg && Date.parse(r.created_at) > Date.parse(row.created_at)).at(-1);
        if (successor && now - Date.parse(successor.created_at) > this.opts.ttlSeconds * 1000) {
          await trx.deleteFrom('signing_keys').where('kid', '=', row.kid).execute();
          continue;
        }
        kept.push(row);
      }
      return kept;
    });
    await this.load(keep);
    this.verified.clear();
  }

  /** Makes `rows` (newest first) the loaded keys, importing only those not loaded yet. */
  private async load(rows: SigningKeyTable[]): Promise<void> {
    const loaded = new Map(this.keys.map((k) => [k.kid, k]));
    this.keys = await Promise.all(
      rows.map(
        async (row) =>
          loaded.get(row.kid) ?? {
            kid: row.kid,
            alg: row.alg as SigningAlg,
            createdAt: Date.parse(row.created_at),
            privateKey: (await importJWK(JSON.parse(row.private_jwk) as JWK, row.alg)) as CryptoKey,
            publicKey: (await importJWK(JSON.parse(row.public_jwk) as JWK, row.alg)) as CryptoKey,
            publicJwk: JSON.parse(row.public_jwk) as JWK,
          },
      ),
    );
    this.lastRefresh = Date.now();
  }

  /**
   * Re-reads the keys from the database (keys made by another replica sharing it: a rotation, a replica started after
   * the rotation period), at most once per {@link KEY_REFRESH_MS}, so tokens naming unknown key ids cannot turn into
   * a query each. Answers whether the keys were read.
   */
  async refreshKeys(): Promise<boolean> {
    if (!this.refreshing && Date.now() - this.lastRefresh < KEY_REFRESH_MS) return false;
    this.refreshing ??= (async () => {
      try {
        this.lastRefresh = Date.now();
        await this.load(await this.db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').orderBy('kid').execute());
      } finally {
        this.refreshing = undefined;
      }
    })();
    await this.refreshing;
    return true;
  }

  jwks(): { keys: JWK[] } {
    return { keys: this.keys.map((k) => k.publicJwk) };
  }

  /** The current key of an algorithm (the newest). */
  private current(alg: SigningAlg = SIGNING_ALG): LoadedKey {
    const key = this.keys.find((k) => k.alg === alg);
    if (!key) throw new Error(`no ${alg} signing key loaded`);
    return key;
  }

  /** Signs a JWT that is not a user token (id_tokens, token containers, client tokens) with the current key of `alg` (default ES256). */
  async signJwt(
    payload: Record<string, unknown>,
    opts: { use: Exclude<TokenUse, 'user' | 'anonymous' | 'access'>; subject: string; audience: string; ttlSeconds?: number; alg?: SigningAlg },
  ): Promise<string> {
    const key = this.current(opts.alg);
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ ...payload, token_use: opts.use })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .setIssuer(this.opts.issuer)
      .setSubject(opts.subject)
      .setAudience(opts.audience)
      .setIssuedAt(now)
      .setExpirationTime(now + (opts.ttlSeconds ?? this.opts.ttlSeconds))
      .setJti(randomUUID())
      .sign(key.privateKey);
  }

  /**
   * Signs a user token (`token_use` `user`, or `anonymous` for an anonymous person) or, with `token_use: 'access'`, an
   * OAuth2 access token.
   */
  async sign(
    input: Omit<UserTokenClaims, 'iss' | 'sub' | 'aud' | 'iat' | 'exp' | 'jti' | 'token_use'> & { token_use?: 'access' } & Record<string, unknown>,
    ttlSeconds?: number,
  ): Promise<string> {
    const claims = { ...input, token_use: input.token_use === 'access' ? 'access' : input.person_type === 'anonymous' ? 'anonymous' : 'user' };
    const ttl = ttlSeconds ?? (await this.opts.ttlFor?.(claims.oid)) ?? this.opts.ttlSeconds;
    const key = this.current();
    const now = Math.floor(Date.now() / 1000);
    const groupsClaim = (await this.opts.groupsClaimFor?.(claims.oid)) ?? 'groups';
    const templated = (await this.opts.templateClaimsFor?.(claims.oid, claims.person_id)) ?? {};
    const hooked = (await this.opts.syncHookClaimsFor?.({ ...templated, ...claims })) ?? {};
    const payload: Record<string, unknown> = { ...templated, ...hooked, ...claims };
    if (groupsClaim !== 'groups') {
      payload[groupsClaim] = claims.groups ?? [];
      delete payload.groups;
    }
    return new SignJWT(payload)
      .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: 'JWT' })
      .setIssuer(this.opts.issuer)
      .setSubject(claims.person_id)
      .setAudience(claims.oid)
      .setIssuedAt(now)
      .setExpirationTime(now + ttl)
      .setJti(randomUUID())
      .sign(key.privateKey);
  }

  /** The loaded key of `kid`: a key id this replica does not know may be one another replica made since it last read them. */
  private async keyFor(kid: string | undefined): Promise<LoadedKey | undefined> {
    return this.keys.find((k) => k.kid === kid) ?? ((await this.refreshKeys()) ? this.keys.find((k) => k.kid === kid) : undefined);
  }

  /**
   * The claims of an id_token this server signed, expired or not (an `id_token_hint`: OpenID Connect lets an expired
   * one name the person and the client), or undefined when it is not one: malformed, another issuer's, not an id_token,
   * or a signature no key of ours makes.
   */
  async idTokenHint(token: string): Promise<{ sub: string; aud: string; oid: string; sid?: string } | undefined> {
    try {
      const key = await this.keyFor(decodeProtectedHeader(token).kid);
      if (!key) return undefined;
      const { payload } = await compactVerify(token, key.publicKey, { algorithms: [key.alg] });
      const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
      if (claims.iss !== this.opts.issuer || claims.token_use !== 'id' || typeof claims.sub !== 'string' || typeof claims.aud !== 'string' || typeof claims.oid !== 'string') return undefined;
      return { sub: claims.sub, aud: claims.aud, oid: claims.oid, ...(typeof claims.sid === 'string' ? { sid: claims.sid } : {}) };
    } catch {
      return undefined;
    }
  }

  /**
   * The one token checker: signature, issuer, expiry, revocation (of the token and of the tokens it was derived from),
   * and whether its `token_use` is accepted for `purpose` ({@link ACCEPTED}). Never throws for bad input.
   */
  async validate(token: string, purpose: TokenPurpose): Promise<ValidationResult> {
    let claims = this.verified.get(token);
    if (!claims) {
      let kid: string | undefined;
      try {
        kid = decodeProtectedHeader(token).kid;
      } catch {
        return { valid: false, invalidity_reason: 'token is malformed' };
      }
      const key = await this.keyFor(kid);
      if (!key) return { valid: false, invalidity_reason: 'token was not signed by a known key' };
      try {
        const { payload } = await jwtVerify(token, key.publicKey, { issuer: this.opts.issuer, algorithms: [key.alg] });
        claims = payload as unknown as UserTokenClaims;
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) return { valid: false, invalidity_reason: 'token has expired' };
        if (err instanceof joseErrors.JWTClaimValidationFailed) return { valid: false, invalidity_reason: `token claim "${err.claim}" is invalid` };
        return { valid: false, invalidity_reason: 'token signature is invalid' };
      }
      if (!TOKEN_USES.includes(claims.token_use)) return { valid: false, invalidity_reason: 'token has no known token_use: it is not a current Keyway token (sign in again)' };
      const client = claims.token_use === 'client' && typeof claims.client_id === 'string';
      // A user token is `anonymous` exactly when its person is.
      const userKind = claims.token_use === 'user' || claims.token_use === 'anonymous';
      const person =
        typeof claims.person_id === 'string' &&
        typeof claims.person_type === 'string' &&
        (!userKind || (claims.token_use === 'anonymous') === (claims.person_type === 'anonymous'));
      if ((!person && !client) || typeof claims.oid !== 'string' || typeof claims.jti !== 'string') {
        return { valid: false, invalidity_reason: 'token is not a Keyway token' };
      }
      if (this.verified.size > 50_000) this.verified.clear();
      this.verified.set(token, claims);
    }
    const nowMs = Date.now();
    if (claims.exp * 1000 <= nowMs) {
      this.verified.delete(token);
      return { valid: false, invalidity_reason: 'token has expired' };
    }
    const revoked = this.revocations.isRevoked(claims);
    if (revoked === true || (revoked !== false && (await revoked))) return { valid: false, invalidity_reason: 'token has been revoked' };
    if (!ACCEPTED[purpose].includes(claims.token_use)) return { valid: false, invalidity_reason: NOT_ACCEPTED[claims.token_use] };
    return {
      valid: true,
      claims,
      expires_in_seconds: Math.max(0, Math.floor(claims.exp - nowMs / 1000)),
      expires_at: new Date(claims.exp * 1000).toISOString(),
    };
  }

  /**
   * Records that `child` (a token just signed) was derived from the token `parentJti` (an organization token of `/token`,
   * a token container and the user token inside it): revoking the parent revokes it too.
   */
  async recordDerived(child: string, parentJti: string): Promise<string> {
    const { jti, exp } = decodeJwt(child);
    if (!jti || !exp) throw new Error('derived token has no jti or exp');
    await this.db
      .insertInto('token_parents')
      .values({ jti, parent_jti: parentJti, expires_at: new Date(exp * 1000).toISOString() })
      .onConflict((oc) => oc.column('jti').doNothing())
      .execute();
    // The parent may have been revoked (on this or another server) between its check and this record, after the
    // revocation looked for children: look again now that the record is stored, so one of the two always sees the other.
    const parentRevoked = await this.db.selectFrom('revoked_tokens').select('jti').where('jti', '=', parentJti).executeTakeFirst();
    if (parentRevoked) await this.revoke({ jti, exp });
    return jti;
  }

  /**
   * Persists the revocation, and that of every token derived from it (down the chain); each stays invalid across
   * restarts, and for every server sharing the database, until it would have expired anyway.
   */
  async revoke(claims: Pick<UserTokenClaims, 'jti' | 'exp'>): Promise<void> {
    const revoked_at = new Date().toISOString();
    const all = await this.revocations.write(async (trx, seq) => {
      let level: Array<{ jti: string; expires_at: string }> = [{ jti: claims.jti, expires_at: new Date(claims.exp * 1000).toISOString() }];
      const seen = new Map<string, string>();
      while (level.length) {
        level = level.filter((t) => !seen.has(t.jti));
        if (!level.length) break;
        for (const t of level) seen.set(t.jti, t.expires_at);
        await trx
          .insertInto('revoked_tokens')
          .values(level.map((t) => ({ jti: t.jti, expires_at: t.expires_at, revoked_at, seq })))
          .onConflict((oc) => oc.column('jti').doNothing())
          .execute();
        level = await trx
          .selectFrom('token_parents')
          .select(['jti', 'expires_at'])
          .where('parent_jti', 'in', level.map((t) => t.jti))
          .where('expires_at', '>', revoked_at)
          .execute();
      }
      return seen;
    });
    for (const [jti, expiresAt] of all) this.revocations.noteToken(jti, Math.floor(Date.parse(expiresAt) / 1000));
  }

  /** Whether the token `jti` was revoked (by this process or any other sharing the database). */
  async isRevoked(jti: string): Promise<boolean> {
    return this.revocations.isTokenRevoked(jti);
  }

  /**
   * Revokes every token of a person, of every client and first-party, issued before the current second (a first proof
   * of their handle, a password reset). Tokens carry their time of issue in seconds: those of the current second, such
   * as the one the reset itself hands out, stay good.
   */
  async revokePerson(personId: string): Promise<void> {
    await this.revokeAll(ALL_CLIENTS, personId, Math.floor(Date.now() / 1000) - 1);
  }

  /** Revokes the tokens issued to `subject` for `clientId` before `before` (epoch seconds; default now). */
  async revokeAll(clientId: string, subject: string, before = Math.floor(Date.now() / 1000)): Promise<void> {
    await this.revocations.write((trx, seq) =>
      trx
        .insertInto('subject_revocations')
        .values({ client_id: clientId, subject, revoked_before: before, revoked_at: new Date().toISOString(), seq })
        // A later call with an earlier `before` never brings tokens back: the bound only grows.
        .onConflict((oc) =>
          oc.columns(['client_id', 'subject']).doUpdateSet({
            revoked_before: sql<number>`case when subject_revocations.revoked_before > excluded.revoked_before then subject_revocations.revoked_before else excluded.revoked_before end`,
            revoked_at: new Date().toISOString(),
            seq,
          }),
        )
        .execute(),
    );
    this.revocations.noteBound(clientId, subject, before);
  }
}
