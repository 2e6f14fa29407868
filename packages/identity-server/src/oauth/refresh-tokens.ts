import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Ctx, OAuthClient, Org } from '../context.js';
import type { OAuthRefreshTokenTable } from '../db/schema.js';
import { newSecret, sameDigest, sha256 } from '../crypto/secrets.js';
import type { Authentication } from '../tokens/token-service.js';

/** Refresh tokens are opaque: `kwrt_<row id>.<secret>`; only the secret's SHA-256 is stored. */
const PREFIX = 'kwrt_';

/** Whether the client gets refresh tokens: it is allowed the grant and its refresh token lifetime is not 0. */
export const refreshEnabled = (client: OAuthClient) => (client.grant_types ?? []).includes('refresh_token') && (client.refresh_token_duration ?? 0) > 0;

/**
 * Stores a new refresh token of the family (a new family for a fresh grant) next to the access token issued with it, and
 * returns its value. It lives `refresh_token_duration` seconds from now: each rotation starts the period again.
 */
export async function issueRefreshToken(
  ctx: Ctx,
  fields: { org: Org; client: OAuthClient; personId: string; scope: string; authentications: Authentication[]; authTime: number; sessionId?: string | undefined; accessToken: string; familyId?: string },
): Promise<string> {
  const id = randomUUID();
  const secret = newSecret(32);
  const access = decodeJwt(fields.accessToken);
  const now = Date.now();
  await ctx.db
    .insertInto('oauth_refresh_tokens')
    .values({
      id,
      family_id: fields.familyId ?? id,
      org_id: fields.org.id,
      client_id: fields.client.client_id,
      person_id: fields.personId,
      scope: fields.scope,
      authentications: JSON.stringify(fields.authentications),
      auth_time: fields.authTime,
      session_id: fields.sessionId ?? null,
      secret_sha256: sha256(secret),
      status: 'active',
      access_jti: String(access.jti),
      access_expires_at: new Date((access.exp ?? 0) * 1000).toISOString(),
      expires_at: new Date(now + (fields.client.refresh_token_duration ?? 0) * 1000).toISOString(),
      created_at: new Date(now).toISOString(),
      used_at: null,
    })
    .execute();
  return `${PREFIX}${id}.${secret}`;
}

/** The stored row of a refresh token value, when the value is one of ours (any status). */
export async function findRefreshToken(ctx: Ctx, value: string): Promise<OAuthRefreshTokenTable | undefined> {
  if (!value.startsWith(PREFIX)) return undefined;
  const [id, secret] = value.slice(PREFIX.length).split('.', 2);
  if (!id || !secret || id.length > 64) return undefined;
  const row = await ctx.db.selectFrom('oauth_refresh_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  return row && sameDigest(sha256(secret), row.secret_sha256) ? row : undefined;
}

/** Marks every refresh token of the family revoked and revokes the access tokens issued with them that are still valid. */
export async function revokeFamily(ctx: Ctx, familyId: string): Promise<void> {
  await ctx.db.updateTable('oauth_refresh_tokens').set({ status: 'revoked' }).where('family_id', '=', familyId).execute();
  const live = await ctx.db
    .selectFrom('oauth_refresh_tokens')
    .select(['access_jti', 'access_expires_at'])
    .where('family_id', '=', familyId)
    .where('access_expires_at', '>', new Date().toISOString())
    .execute();
  for (const r of live) await ctx.tokens.revoke({ jti: r.access_jti, exp: Math.floor(Date.parse(r.access_expires_at) / 1000) });
}

/** Whether any token of the family was revoked (a reuse may have revoked it while a rotation was under way). */
export async function familyRevoked(ctx: Ctx, familyId: string): Promise<boolean> {
  return !!(await ctx.db.selectFrom('oauth_refresh_tokens').select('id').where('family_id', '=', familyId).where('status', '=', 'revoked').executeTakeFirst());
}

/**
 * Consumes an active refresh token (atomically: of two concurrent uses only one wins). Returns false when it was not
 * active any more, which the caller treats as reuse.
 */
export async function consumeRefreshToken(ctx: Ctx, id: string): Promise<boolean> {
  const res = await ctx.db
    .updateTable('oauth_refresh_tokens')
    .set({ status: 'used', used_at: new Date().toISOString() })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
