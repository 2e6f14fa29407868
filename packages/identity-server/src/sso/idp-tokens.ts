import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Ctx } from '../context.js';
import type { SsoOidcTokenTable } from '../db/schema.js';
import { sha256 } from '../crypto/secrets.js';

/** What an OIDC provider's token endpoint gave at a sign-in. */
export interface IdpTokens {
  /** Absent once revoked alone (revoke v2 with `token_types`). */
  access_token?: string | undefined;
  refresh_token?: string | undefined;
  id_token?: string | undefined;
  token_type: string;
  /** Seconds, as the provider said. */
  expires_in?: number | undefined;
  /** Seconds the refresh token lasts, when the provider says (a non-standard field some providers send). */
  refresh_expires_in?: number | undefined;
  scopes: string[];
  /** The other parameters of the provider's callback besides `code` and `state` (e.g. `iss`, `session_state`). */
  extra_callback_values?: Record<string, string> | undefined;
  /** When the provider answered (set when stored). */
  obtained_at?: string | undefined;
}

/** The kinds of token a sign-in stores, as the public reference names them. */
export type IdpTokenType = 'access' | 'id' | 'refresh';
export const IDP_TOKEN_TYPES: readonly IdpTokenType[] = ['access', 'id', 'refresh'];
const FIELD: Record<IdpTokenType, 'access_token' | 'id_token' | 'refresh_token'> = { access: 'access_token', id: 'id_token', refresh: 'refresh_token' };
/** The expiry of a token whose lifetime the provider did not state (Go's zero time, which OAuth 2.0 clients read as "no expiry"). */
export const NO_EXPIRY = '0001-01-01T00:00:00Z';

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
  const tokens = { ...ctx.sealer.open<IdpTokens>(pending.sealed, challengeContext(challengeId)), obtained_at: pending.obtained_at };
  const now = new Date().toISOString();
  const fields = {
    provider: pending.provider,
    issuer: pending.issuer,
    subject: pending.subject,
    scopes: JSON.stringify(tokens.scopes),
    token_type: tokens.token_type,
    sealed_tokens: ctx.sealer.seal(tokens, rowContext({ org_id: orgId, person_id: personId, client_id: pending.client_id })),
    access_token_sha256: tokens.access_token ? sha256(tokens.access_token) : null,
    refresh_token_sha256: tokens.refresh_token ? sha256(tokens.refresh_token) : null,
    expires_at: tokens.expires_in !== undefined ? new Date(Date.parse(pending.obtained_at) + tokens.expires_in * 1000).toISOString() : null,
    updated_at: now,
    revoked_at: null,
    // The sign-in that obtained these tokens names them (revoke v2); a new sign-in replaces both.
    authentication_id: challengeId,
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

/** Seals what is left of a row's tokens after some were revoked (null when nothing is left). */
export function resealIdpTokens(ctx: Ctx, row: SsoOidcTokenTable, tokens: IdpTokens): string | null {
  return tokens.access_token || tokens.refresh_token || tokens.id_token ? ctx.sealer.seal(tokens, rowContext(row)) : null;
}

/** The same tokens without the given kinds. */
export function withoutTokens(tokens: IdpTokens, types: readonly IdpTokenType[]): IdpTokens {
  const left = { ...tokens };
  for (const t of types) delete left[FIELD[t]];
  return left;
}

/** When a token expires, as `expiry` says it (see {@link NO_EXPIRY}). */
function expiryOf(row: SsoOidcTokenTable, tokens: IdpTokens, type: IdpTokenType, value: string): string {
  if (type === 'access') return row.expires_at ?? NO_EXPIRY;
  if (type === 'refresh') return tokens.refresh_expires_in !== undefined ? new Date(Date.parse(tokens.obtained_at ?? row.updated_at) + tokens.refresh_expires_in * 1000).toISOString() : NO_EXPIRY;
  const exp = decodeJwt(value).exp;
  return exp !== undefined ? new Date(exp * 1000).toISOString() : NO_EXPIRY;
}

/** The live tokens of a stored row as the API shows them: one entry per token, optionally only some kinds. */
export function ssoTokenEntries(ctx: Ctx, row: SsoOidcTokenTable, types: readonly IdpTokenType[] = IDP_TOKEN_TYPES) {
  const tokens = openIdpTokens(ctx, row);
  if (!tokens) return [];
  return IDP_TOKEN_TYPES.filter((t) => types.includes(t) && tokens[FIELD[t]]).map((type) => {
    const token = tokens[FIELD[type]]!;
    return {
      token,
      token_type: type,
      expiry: expiryOf(row, tokens, type, token),
      provider: row.provider,
      client_id: row.client_id,
      authentication_id: row.authentication_id ?? row.id,
      person_id: row.person_id,
      organization_id: row.org_id,
      ...(tokens.extra_callback_values && Object.keys(tokens.extra_callback_values).length ? { extra_callback_values: tokens.extra_callback_values } : {}),
      issuer: row.issuer,
      subject: row.subject,
      scopes: JSON.parse(row.scopes) as string[],
      created_at: tokens.obtained_at ?? row.updated_at,
    };
  });
}
