import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Ctx, OAuthClient, Org } from '../context.js';
import { hashSecret, newSecret, sameDigest, sha256 } from '../crypto/secrets.js';
import { loadOrg } from '../organizations/settings.js';
import { createChallenge } from '../signin/challenges.js';
import type { UserTokenClaims } from '../tokens/token-service.js';

// OAuth 2.0 building blocks shared by the hosted login and the token endpoints: clients, redirect URIs, codes.

/** A string form or query field. */
export const str = { type: 'string', maxLength: 2048 };

/** A pending authorization request as the server keeps it between the form and the code (not a wire type). */
export interface OAuthRequest {
  client_id: string;
  redirect_uri: string;
  state?: string;
  scope: string;
  /** Absent only for confidential clients, which authenticate at the token endpoint instead. */
  code_challenge?: string;
  nonce?: string;
  response_mode?: 'query' | 'fragment' | 'form_post';
}

/** The client and its organization. */
export async function findClient(ctx: Ctx, clientId: string): Promise<{ org: Org; client: OAuthClient } | undefined> {
  const rows = await ctx.db.selectFrom('organizations').select('id').execute();
  for (const r of rows) {
    const org = await loadOrg(ctx, r.id);
    const client = org?.settings.oauth_clients?.find((c) => c.client_id === clientId);
    if (org && client) return { org, client };
  }
  return undefined;
}

/** A registered redirect URI (in development also one on a configured CORS origin). */
export function redirectAllowed(ctx: Ctx, registered: string[], uri: string): boolean {
  if (registered.includes(uri)) return true;
  if (!ctx.devMode) return false;
  try {
    return ctx.corsOrigins.includes(new URL(uri).origin);
  } catch {
    return false;
  }
}

/** `uri` with the defined parameters set. */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

/** Whether the request authenticates its client twice (HTTP Basic and a secret in the form): RFC 6749 §2.3 forbids it (`invalid_request`). */
export const twoClientAuthentications = (req: FastifyRequest, form: Record<string, string | undefined>) => /^Basic\s/i.test(req.headers.authorization ?? '') && form.client_secret !== undefined;

/**
 * The calling client of a protocol endpoint: HTTP Basic (`client_secret_basic`) or `client_id` + `client_secret` in the
 * form. Public clients authenticate with their id alone; confidential ones need the secret (compared as digests).
 */
export async function authenticateClient(ctx: Ctx, req: FastifyRequest, form: Record<string, string | undefined>): Promise<{ org: Org; client: OAuthClient } | undefined> {
  let id = form.client_id;
  let secret = form.client_secret;
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (basic) {
    // RFC 6749 §2.3: one authentication method per request; Basic and a secret in the form is none of them.
    if (form.client_secret !== undefined) return undefined;
    const [u, p] = Buffer.from(basic, 'base64').toString('utf8').split(':', 2);
    try {
      // RFC 6749 §2.3.1: both parts are form-encoded; a malformed one (`%` alone) authenticates nobody.
      id = decodeURIComponent(u ?? '');
      secret = decodeURIComponent(p ?? '');
    } catch {
      return undefined;
    }
  }
  if (!id) return undefined;
  const found = await findClient(ctx, id);
  if (!found) return undefined;
  // A client without a stored secret (such as the seeded development client) is public.
  if (found.client.public || !found.client.secret_sha256) return found;
  if (!secret || !sameDigest(sha256(secret), found.client.secret_sha256)) return undefined;
  return found;
}

/** PKCE S256 of a verifier. */
export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * A one-time authorization code (60 s) bound to the client, redirect URI and PKCE challenge, and to the session it was
 * authorized with (`authTime`: when the person signed in, epoch seconds).
 */
export async function issueCode(ctx: Ctx, org: Org, req: OAuthRequest, claims: Pick<UserTokenClaims, 'person_id' | 'authentications'> & { jti?: string }, authTime: number): Promise<string> {
  const secret = newSecret();
  const row = await createChallenge(ctx, {
    org,
    type: 'oauth_code',
    method: 'oauth2',
    personId: claims.person_id,
    secret,
    // The session the code was authorized with: a code of a session that has ended is not exchanged (#36).
    data: { ...req, authentications: claims.authentications, auth_time: authTime, ...(claims.jti ? { parent_jti: claims.jti } : {}) },
    ttlSeconds: 60,
  });
  return `${row.id}.${secret}`;
}
