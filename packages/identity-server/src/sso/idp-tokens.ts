import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context.js';
import type { SsoOidcTokenTable } from '../db/schema.js';
import { sha256 } from '../crypto/secrets.js';

/** What an OIDC provider's token endpoint gave at a sign-in. */
export interface IdpTokens {
  access_token: string;
  refresh_token?: string | undefined;
  id_token?: string | undefined;
  token_type: string;
  /** Seconds, as the provider said. */
  expires_in?: number | undefined;
  scopes: string[];
}

/** What the OIDC callback keeps in the challenge until the sign-in completes (the person is known only then). */
export interface PendingIdpTokens {
  provider: string;
  client_id: string;
  issuer: string;
  subject: string;
  /** {@link IdpTokens} sealed for the challenge ({@link challengeContext}). */
  sealed: string;
  /** When the provider answered (expiry counts from then). */
  obtained_at: string;
}

const challengeContext = (challengeId: string) => `sso-challenge:${challengeId}`;
/** Sealed values are bound to the row's identity (organization, person, client), which never changes. */
const rowContext = (row: Pick<SsoOidcTokenTable, 'org_id' | 'person_id' | 'client_id'>) => `sso-oidc-token:${row.org_id}:${row.person_id}:${row.client_id}`;

/** Seals the provider's tokens for the challenge that obtained them. */
export function pendingIdpTokens(ctx: Ctx, challengeId: string, fields: Omit<PendingIdpTokens, 'sealed' | 'obtained_at'>, tokens: IdpTokens): PendingIdpTokens {
  return { ...fields, sealed: ctx.sealer.seal(tokens, challengeContext(challengeId)), obtained_at: new Date().toISOString() };
}

/**
 * Stores the tokens an SSO challenge obtained for the person it signed in: one row per organization, person and OIDC
 * client, replaced at each sign-in (a revoked row comes back to life with the new tokens).
 */
export async function storeIdpTokens(ctx: Ctx, orgId: string, challengeId: string, personId: string, pending: PendingIdpTokens): Promise<void> {
  const tokens = ctx.sealer.open<IdpTokens>(pending.sealed, challengeContext(challengeId));
  const now = new Date().toISOString();
  const fields = {
    provider: pending.provider,
    issuer: pending.issuer,
    subject: pending.subject,
    scopes: JSON.stringify(tokens.scopes),
    token_type: tokens.token_type,
    sealed_tokens: ctx.sealer.seal(tokens, rowContext({ org_id: orgId, person_id: personId, client_id: pending.client_id })),
    access_token_sha256: sha256(tokens.access_token),
    refresh_token_sha256: tokens.refresh_token ? sha256(tokens.refresh_token) : null,
    expires_at: tokens.expires_in !== undefined ? new Date(Date.parse(pending.obtained_at) + tokens.expires_in * 1000).toISOString() : null,
    updated_at: now,
    revoked_at: null,
  };
  await ctx.db
    .insertInto('sso_oidc_tokens')
    .values({ id: randomUUID(), org_id: orgId, person_id: personId, client_id: pending.client_id, created_at: now, ...fields })
    .onConflict((oc) => oc.columns(['org_id', 'person_id', 'client_id']).doUpdateSet(fields))
    .execute();
}

/** The token values of a stored row (undefined once revoked). */
export function openIdpTokens(ctx: Ctx, row: SsoOidcTokenTable): IdpTokens | undefined {
  return row.sealed_tokens ? ctx.sealer.open<IdpTokens>(row.sealed_tokens, rowContext(row)) : undefined;
}

/** A stored row as the API shows it: token values while it is live, `revoked_at` once revoked. */
export function ssoTokenOut(ctx: Ctx, row: SsoOidcTokenTable) {
  const tokens = openIdpTokens(ctx, row);
  return {
    id: row.id,
    person_id: row.person_id,
    client_id: row.client_id,
    provider: row.provider,
    issuer: row.issuer,
    subject: row.subject,
    scopes: JSON.parse(row.scopes) as string[],
    token_type: row.token_type,
    ...(tokens
      ? {
          access_token: tokens.access_token,
          ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
          ...(tokens.id_token ? { id_token: tokens.id_token } : {}),
        }
      : {}),
    expires_at: row.expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    revoked_at: row.revoked_at,
  };
}
