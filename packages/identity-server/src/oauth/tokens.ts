import type { Ctx, OAuthClient, Org } from '../context.js';
import type { PersonRow } from '../persons/persons.js';
import { verifiedHandles } from '../persons/proofs.js';
import type { UserTokenClaims } from '../tokens/token-service.js';
import { noteClientUse } from './client-usage.js';
import { issueRefreshToken, refreshEnabled } from './refresh-tokens.js';

/** Access token (a user token naming the client) and, when asked, an OpenID Connect id_token for the client. */
export async function issueOAuthTokens(
  ctx: Ctx,
  client: OAuthClient,
  person: PersonRow,
  authentications: UserTokenClaims['authentications'],
  opts: {
    scope: string;
    nonce?: string | undefined;
    idToken: boolean;
    /** When the person signed in (epoch seconds): `auth_time` of the id_token, kept across refreshes. Default: now. */
    authTime?: number | undefined;
    /** The session at the provider (its token's jti): `sid` of the id_token, which RP-Initiated Logout ends. */
    sessionId?: string | undefined;
    refresh?: { org: Org; familyId?: string; grantScope: string };
    customClaims?: Record<string, unknown>;
  },
) {
  const authTime = opts.authTime ?? Math.floor(Date.now() / 1000);
  const methods = [...new Set(authentications.map((a) => a.method))];
  await noteClientUse(ctx, person.org_id, client.client_id);
  const access_token = await ctx.tokens.sign(
    {
      // Checked by the caller: never a reserved claim.
      ...opts.customClaims,
      token_use: 'access',
      person_id: person.id,
      oid: person.org_id,
      first_token: false,
      authenticated_methods: methods,
      authentications,
      person_type: person.person_type,
      groups: JSON.parse(person.groups) as string[],
      client_id: client.client_id,
      scope: opts.scope,
    },
    client.access_token_duration,
  );
  const { email } = await verifiedHandles(ctx, person.id);
  const id_token = opts.idToken
    ? await ctx.tokens.signJwt(
        {
          auth_time: authTime,
          amr: methods,
          ...(opts.sessionId ? { sid: opts.sessionId } : {}),
          ...(opts.nonce ? { nonce: opts.nonce } : {}),
          // email_verified says whether the address was proved (#36), never more.
          ...(email ? { email: email.value, email_verified: email.verified } : {}),
          person_id: person.id,
          oid: person.org_id,
          person_type: person.person_type,
        },
        { use: 'id', subject: person.id, audience: client.client_id, alg: client.id_token_signed_response_alg ?? 'RS256' },
      )
    : undefined;
  const refresh_token =
    opts.refresh && refreshEnabled(client)
      ? await issueRefreshToken(ctx, { org: opts.refresh.org, client, personId: person.id, scope: opts.refresh.grantScope, authentications, authTime, sessionId: opts.sessionId, accessToken: access_token, ...(opts.refresh.familyId ? { familyId: opts.refresh.familyId } : {}) })
      : undefined;
  return {
    access_token,
    ...(id_token ? { id_token } : {}),
    ...(refresh_token ? { refresh_token } : {}),
    token_type: 'bearer',
    expires_in: client.access_token_duration ?? ctx.tokens.opts.ttlSeconds,
    scope: opts.scope,
  };
}
