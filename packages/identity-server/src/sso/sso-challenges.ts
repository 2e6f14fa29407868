import type { Ctx } from '../context.js';
import { sameDigest, sha256 } from '../crypto/secrets.js';
import { badRequest } from '../http/errors.js';
import { challengeData, redirectTarget, type ChallengeData, type StartRequest } from '../signin/challenges.js';

// What an SSO sign-in (OIDC or SAML) keeps in its challenge between the start (/id), the identity provider's return
// and /sso/resolve.

export const SSO_TTL_SECONDS = 600;

/** What every SSO challenge keeps: how to return to the SDK and what to check in /sso/resolve. */
export interface SsoReturnFields {
  ux_mode: 'popup' | 'redirect';
  origin?: string;
  csrf_token?: string;
  sdk_pkce: string;
  redirect_target?: string;
  previous?: ChallengeData['previous'];
}

export interface SsoCommon extends ChallengeData, SsoReturnFields {
  state_sha256: string;
}

export interface SsoData extends SsoCommon {
  provider: string;
  client_id: string;
  nonce: string;
  idp_verifier: string;
}

/** The SDK-facing part of an OIDC or SAML factor: ux_mode, redirect target, the SDK's PKCE challenge and CSRF token. */
export function ssoCommon(ctx: Ctx, r: StartRequest): SsoReturnFields {
  const uxMode = r.options.ux_mode === 'redirect' ? 'redirect' : 'popup';
  const target = redirectTarget(ctx, r.org, r.options);
  if (uxMode === 'redirect' && !target) throw badRequest('factor.options.redirect_target is required in redirect mode');
  const sdkPkce = (r.options.pkce_code_challenge ?? r.metadata?.pkce_code_challenge) as string | undefined;
  if (!sdkPkce) throw badRequest('factor.options.pkce_code_challenge is required');
  const csrf = (r.options.csrf_token ?? r.metadata?.csrf_token) as string | undefined;
  if (uxMode === 'popup' && !r.origin) throw badRequest('popup mode needs the Origin header of the page');
  return {
    ux_mode: uxMode,
    sdk_pkce: sdkPkce,
    ...(r.origin ? { origin: r.origin } : {}),
    ...(csrf ? { csrf_token: csrf } : {}),
    ...(target ? { redirect_target: target } : {}),
    ...(r.previous ? { previous: r.previous } : {}),
  };
}

/**
 * The `proxy` challenge that follows an SSO challenge (in `/id/v2` answers and in a redirect return's `challenges`):
 * the published client gets the token by polling it once the return is resolved.
 */
export function ssoProxy(method: 'oidc' | 'saml', challengeId: string) {
  return { id: challengeId, type: 'proxy' as const, authentication_method: method, options: { challenge_id: challengeId } };
}

export interface SamlData extends SsoCommon {
  provider_credentials_id: string;
  request_id: string;
  request_instant: string;
}

/** The pending SSO challenge named by an OIDC `state` / SAML `RelayState` (`<challenge id>.<secret>`), or why not. */
export async function openSsoChallenge(ctx: Ctx, type: 'oidc' | 'saml', state: string) {
  const [id, secret] = state.split('.', 2);
  const row = id ? await ctx.db.selectFrom('challenges').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
  const data = row ? (challengeData(row) as SsoCommon) : undefined;
  if (!row || !data || row.type !== type || !secret || !sameDigest(sha256(secret), data.state_sha256)) return 'This sign-in response does not belong to a sign-in started here.';
  if (row.status !== 'pending' || Date.parse(row.expires_at) <= Date.now()) return 'This sign-in has expired or was already used. Start again.';
  return { row, data };
}
