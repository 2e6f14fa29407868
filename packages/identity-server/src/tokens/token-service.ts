import { randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, importJWK, jwtVerify, decodeJwt, decodeProtectedHeader, errors as joseErrors, type JWK, type CryptoKey } from 'jose';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import { exclusively } from '../db/locks.js';
import type { DialectName } from '../db/migrations.js';
import type { SigningKeyTable } from '../db/schema.js';

export const SIGNING_ALG = 'ES256';

export interface Authentication {
  method: string;
  handle?: string | undefined;
}

/**
 * The token model (#15): every JWT this server signs says what it is in its `token_use` claim.
 * - `user`: a person's user token (sign-in, `/token`, impersonation, management mint): the bearer credential for person calls.
 * - `anonymous`: the user token of an anonymous person (`person_type: anonymous`): a bearer credential for person calls,
 *   but never an authenticated person (the docs gate, `/oauth2/authorize`).
 * - `container`: the token container of `GET /token/v2`; only its `user_token` is a credential, never the container.
 * - `id`: an OpenID Connect id_token: identifies a person to one client, never a bearer credential.
 * - `access`: an OAuth2 access token of the hosted login or the management mint: a person's token issued to a client,
 *   accepted where user tokens are (the SDK's hosted login uses it as the user's token) but never by the docs gate.
 * - `client`: a client-credentials token: no person at all; introspection only.
 * Every token whose subject is a person carries `person_type`.
 */
export type TokenUse = 'user' | 'anonymous' | 'container' | 'id' | 'access' | 'client';
export const TOKEN_USES: readonly TokenUse[] = ['user', 'anonymous', 'container', 'id', 'access', 'client'];

/** Where a token is presented; each place accepts only some token uses (see {@link ACCEPTED}). */
export type TokenPurpose = 'person' | 'validate' | 'userinfo' | 'introspect' | 'revoke';

/** The one table of which token is accepted where. */
export const ACCEPTED: Record<TokenPurpose, readonly TokenUse[]> = {
  /**
   * Bearer credential of person calls: `/me`, attributes, consents, `/direct-id`, `/token`, `/token/v2`, step-up,
   * impersonation. OAuth2 access tokens are person tokens too: the SDK's hosted login adopts its access token as the
   * user's token (they never open the docs gate, which asks for a first-party `user` token).
   */
  person: ['user', 'anonymous', 'access'],
  /** `POST /token/validate`: is this a user token (resource servers also validate OAuth2 access tokens here). */
  validate: ['user', 'anonymous', 'access'],
  userinfo: ['user', 'anonymous', 'access'],
  /** RFC 7662 introspection by an authenticated client. */
  introspect: ['user', 'anonymous', 'access', 'client'],
  /** Anyone holding a token may revoke it (client tokens go through `/oauth2/tokens/revoke`, with client authentication). */
  revoke: ['user', 'anonymous', 'container', 'id', 'access'],
};

const NOT_ACCEPTED: Record<TokenUse, string> = {
  user: 'token is a user token, which is not accepted here',
  anonymous: "token is an anonymous person's token, which is not accepted here",
  container: 'token is a token container, not a user token: send the user_token it contains',
  id: 'token is an id_token, not a user token: an id_token is never a bearer credential',
  access: 'token is an OAuth2 access token, which is not accepted here',
  client: 'token is a client token, not a user token',
};

/** Claims of a Keyway token (spec §3 for user tokens). */
export interface UserTokenClaims {
  token_use: TokenUse;
  iss: string;
  sub: string;
  aud: string;
  iat: number;
  exp: number;
  jti: string;
  person_id: string;
  oid: string;
  first_token: boolean;
  authenticated_methods: string[];
  authentications: Authentication[];
  person_type: string;
  /** Absent when the organization renames the claim (`groups_claim_name`). */
  groups?: string[];
  /** OAuth2 client the token was issued to (hosted login, minted OAuth tokens, client credentials). */
  client_id?: string;
  /** Space-separated OAuth2 scopes. */
  scope?: string;
}

interface LoadedKey {
  kid: string;
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

export type ValidationResult =
  | { valid: true; claims: UserTokenClaims; expires_in_seconds: number; expires_at: string }
  | { valid: false; invalidity_reason: string };

/**
 * Signs and verifies user tokens with persisted, rotating ES256 keys. Old public keys stay in the JWKS until every
 * token they signed has expired. Revocations are kept in the database and mirrored in memory.
 */
export class TokenService {
  private keys: LoadedKey[] = [];
  private lastRefresh = 0;
  private refreshing: Promise<void> | undefined;
  private readonly revoked = new Set<string>();
  private readonly verified = new Map<string, UserTokenClaims>();

  constructor(
    private readonly db: Db,
    readonly opts: TokenServiceOptions,
  ) {}

  async init(): Promise<void> {
    await this.rotateIfDue();
  }

  /**
   * Generates a new key when the newest is older than the rotation period and drops keys nobody can need. Replicas on
   * one PostgreSQL database do this one at a time (advisory lock), each re-reading the keys under the lock: one rotates.
   */
  async rotateIfDue(now = Date.now()): Promise<void> {
    const keep = await exclusively(this.db, this.opts.dialect ?? 'sqlite', 'keyRotation', async (trx) => {
      const rows = await trx.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').execute();
      const newest = rows[0];
      if (!newest || now - Date.parse(newest.created_at) >= this.opts.rotationSeconds * 1000) {
        const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
        const kid = randomUUID();
        const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
        const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG };
        const row = { kid, alg: SIGNING_ALG, private_jwk: JSON.stringify(privateJwk), public_jwk: JSON.stringify(publicJwk), created_at: new Date(now).toISOString() };
        await trx.insertInto('signing_keys').values(row).execute();
        rows.unshift(row);
      }
      // A key retired at time R (when its successor appeared) may have signed tokens until R; keep it until R + ttl.
      const kept: typeof rows = [];
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        const successor = rows[i - 1];
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
        await this.load(await this.db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').execute());
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

  /** Signs a JWT that is not a user token (id_tokens, token containers, client tokens) with the current key. */
  async signJwt(
    payload: Record<string, unknown>,
    opts: { use: Exclude<TokenUse, 'user' | 'anonymous' | 'access'>; subject: string; audience: string; ttlSeconds?: number },
  ): Promise<string> {
    const key = this.keys[0];
    if (!key) throw new Error('no signing key loaded');
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ ...payload, token_use: opts.use })
      .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: 'JWT' })
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
    const key = this.keys[0];
    if (!key) throw new Error('no signing key loaded');
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
      // A key id this replica does not know may be one another replica made since it last read the keys.
      const key = this.keys.find((k) => k.kid === kid) ?? ((await this.refreshKeys()) ? this.keys.find((k) => k.kid === kid) : undefined);
      if (!key) return { valid: false, invalidity_reason: 'token was not signed by a known key' };
      try {
        const { payload } = await jwtVerify(token, key.publicKey, { issuer: this.opts.issuer, algorithms: [SIGNING_ALG] });
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
    if (this.revoked.has(claims.jti) || (await this.revokedInStore(claims))) return { valid: false, invalidity_reason: 'token has been revoked' };
    if (!ACCEPTED[purpose].includes(claims.token_use)) return { valid: false, invalidity_reason: NOT_ACCEPTED[claims.token_use] };
    return {
      valid: true,
      claims,
      expires_in_seconds: Math.max(0, Math.floor(claims.exp - nowMs / 1000)),
      expires_at: new Date(claims.exp * 1000).toISOString(),
    };
  }

  /**
   * Whether the database holds a revocation of this token (or of all its client's tokens for its subject). Asked on
   * every validation, so a revocation made by any server sharing the database holds everywhere at once; a revocation
   * seen is remembered in this process (it never ends before the token expires).
   */
  private async revokedInStore(claims: UserTokenClaims): Promise<boolean> {
    const row = await this.db.selectFrom('revoked_tokens').select('jti').where('jti', '=', claims.jti).executeTakeFirst();
    if (row) {
      this.revoked.add(claims.jti);
      return true;
    }
    if (!claims.client_id) return false;
    const subject = await this.db
      .selectFrom('subject_revocations')
      .select('revoked_before')
      .where('client_id', '=', claims.client_id)
      .where('subject', '=', claims.sub)
      .executeTakeFirst();
    return subject !== undefined && claims.iat <= Number(subject.revoked_before);
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
    let level: Array<{ jti: string; expires_at: string }> = [{ jti: claims.jti, expires_at: new Date(claims.exp * 1000).toISOString() }];
    const seen = new Set<string>();
    while (level.length) {
      level = level.filter((t) => !seen.has(t.jti));
      if (!level.length) break;
      for (const t of level) {
        seen.add(t.jti);
        this.revoked.add(t.jti);
      }
      await this.db
        .insertInto('revoked_tokens')
        .values(level.map((t) => ({ jti: t.jti, expires_at: t.expires_at, revoked_at })))
        .onConflict((oc) => oc.column('jti').doNothing())
        .execute();
      level = await this.db
        .selectFrom('token_parents')
        .select(['jti', 'expires_at'])
        .where('parent_jti', 'in', level.map((t) => t.jti))
        .where('expires_at', '>', revoked_at)
        .execute();
    }
  }

  /** Revokes every token of the client for the subject (person id, or the client id for its own tokens) issued until now. */
  /** Revokes the tokens issued to `subject` for `clientId` before `before` (epoch seconds; default now). */
  async revokeAll(clientId: string, subject: string, before = Math.floor(Date.now() / 1000)): Promise<void> {
    await this.db
      .insertInto('subject_revocations')
      .values({ client_id: clientId, subject, revoked_before: before, revoked_at: new Date().toISOString() })
      // A later call with an earlier \`before\` never brings tokens back: the bound only grows.
      .onConflict((oc) =>
        oc.columns(['client_id', 'subject']).doUpdateSet({
          revoked_before: sql<number>`case when subject_revocations.revoked_before > excluded.revoked_before then subject_revocations.revoked_before else excluded.revoked_before end`,
          revoked_at: new Date().toISOString(),
        }),
      )
      .execute();
  }
}
