import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import * as oidc from 'openid-client';
import type { Ctx, Org } from '../context.js';
import { nowIso } from '../context.js';
import type { SsoOidcTokenTable } from '../db/schema.js';
import { ApiError, badRequest, notFound, unauthorized } from '../http/errors.js';
import { offsetPage, readOffsetPage } from '../http/pagination.js';
import { sha256 } from '../crypto/secrets.js';
import { IDP_TOKEN_TYPES, openIdpTokens, resealIdpTokens, ssoTokenEntries, withoutTokens, type IdpTokenType } from './idp-tokens.js';
import { personOfToken, requireApiKey } from '../http/guards.js';
import { providerConfig, type OidcProviderConfig } from './providers.js';
import type { Wire } from '../http/wire.js';

interface Selection {
  person_id: string;
  client_id?: string | undefined;
  provider?: string | undefined;
  authentication_ids?: string[] | undefined;
  /** Rows whose tokens were all revoked (they hold no token). */
  include_revoked?: boolean;
}

/**
 * Revokes some of the stored tokens of one row (all kinds by default) at the provider (RFC 7009: the refresh token,
 * then the access token) when the provider publishes a revocation endpoint, then forgets their values; a row left
 * with no token is marked revoked. ID tokens are only forgotten. Nothing is changed when the provider cannot be
 * reached or refuses: the caller gets 502 and can try again.
 */
async function revokeRow(ctx: Ctx, org: Org, row: SsoOidcTokenTable, types: readonly IdpTokenType[] = IDP_TOKEN_TYPES): Promise<void> {
  const tokens = openIdpTokens(ctx, row);
  if (!tokens) return;
  const refresh = types.includes('refresh') ? tokens.refresh_token : undefined;
  const access = types.includes('access') ? tokens.access_token : undefined;
  const provider = (org.settings.oidc_providers ?? []).find((p) => p.client_id === row.client_id) as OidcProviderConfig | undefined;
  if (provider && (refresh || access)) {
    const fail = (why: string) => new ApiError(502, `the identity provider ${provider.issuer} could not revoke the token: ${why}`);
    const config = await providerConfig(ctx, org.id, provider).catch((err: unknown) => {
      throw err instanceof ApiError ? err : fail('it cannot be reached');
    });
    if (config.serverMetadata().revocation_endpoint) {
      const send = async (token: string, hint: 'refresh_token' | 'access_token') => {
        try {
          await oidc.tokenRevocation(config, token, { token_type_hint: hint });
        } catch (err) {
          const e = err as { status?: number; error?: string; message?: string };
          throw fail(e.error ? `${e.error}${e.status ? ` (HTTP ${e.status})` : ''}` : (e.message ?? 'unknown error'));
        }
      };
      if (refresh) await send(refresh, 'refresh_token');
      if (access) await send(access, 'access_token');
    }
  }
  const left = withoutTokens(tokens, types);
  const sealed = resealIdpTokens(ctx, row, left);
  await ctx.db
    .updateTable('sso_oidc_tokens')
    .set({
      sealed_tokens: sealed,
      access_token_sha256: left.access_token ? row.access_token_sha256 : null,
      refresh_token_sha256: left.refresh_token ? row.refresh_token_sha256 : null,
      revoked_at: sealed ? null : nowIso(),
      updated_at: nowIso(),
    })
    .where('id', '=', row.id)
    .execute();
}

/** Tokens that OIDC identity providers issued to persons at SSO sign-ins: list, query and revoke (management API). */
export function registerSsoTokenRoutes(app: FastifyInstance, ctx: Ctx): void {
  /** The organization's rows for a person; 404 unless the person is the organization's or has tokens stored here. */
  const select = async (org: Org, s: Selection) => {
    let q = ctx.db.selectFrom('sso_oidc_tokens').selectAll().where('org_id', '=', org.id).where('person_id', '=', s.person_id);
    if (s.client_id !== undefined) q = q.where('client_id', '=', s.client_id);
    if (s.provider !== undefined) q = q.where('provider', '=', s.provider);
    if (s.authentication_ids !== undefined) q = s.authentication_ids.length ? q.where('authentication_id', 'in', s.authentication_ids) : q.where(sql<boolean>`false`);
    if (!s.include_revoked) q = q.where('revoked_at', 'is', null);
    const rows = await q.orderBy('created_at').orderBy('id').execute();
    if (!rows.length) {
      const person = await ctx.db.selectFrom('persons').select('org_id').where('id', '=', s.person_id).executeTakeFirst();
      const storedHere = person && (await ctx.db.selectFrom('sso_oidc_tokens').select('id').where('org_id', '=', org.id).where('person_id', '=', s.person_id).executeTakeFirst());
      if (!person || (person.org_id !== org.id && !storedHere)) throw notFound(`person "${s.person_id}" does not exist`);
    }
    return rows;
  };
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);

  /**
   * The person whose tokens are asked for: the `Keyway-Token` header (a person token of this organization, checked as
   * every person call checks it) or `person_id`; both must then name the same person.
   */
  const personNamed = async (org: Org, req: FastifyRequest<Wire<'/sso/oidc/tokens', 'get'>>) => {
    const raw = req.headers['keyway-token'];
    const token = Array.isArray(raw) ? raw[0] : raw;
    const personId = req.query.person_id;
    if (token === undefined || token === '') {
      if (personId === undefined) throw badRequest('name the person: send their token in the Keyway-Token header or give person_id');
      return personId;
    }
    const claims = await personOfToken(ctx, token).catch((err: unknown) => {
      throw err instanceof ApiError && err.status === 401 ? unauthorized(`Keyway-Token: ${err.message}`) : err;
    });
    if (claims.oid !== org.id) throw unauthorized('Keyway-Token: the token was not issued by this organization');
    if (personId !== undefined && personId !== claims.person_id) throw badRequest('person_id names another person than Keyway-Token');
    return claims.person_id;
  };

  app.get<Wire<'/sso/oidc/tokens', 'get'>>('/sso/oidc/tokens', async (req) => {
    const org = await admin(req);
    const { limit, offset } = readOffsetPage(req.query);
    const entries = (await select(org, { person_id: await personNamed(org, req) })).flatMap((r) => ssoTokenEntries(ctx, r));
    return offsetPage(entries.slice(offset, offset + limit), limit, offset, entries.length);
  });

  app.post<Wire<'/sso/oidc/tokens/query', 'post'>>('/sso/oidc/tokens/query', async (req) => {
    const org = await admin(req);
    return { result: (await select(org, req.body)).flatMap((r) => ssoTokenEntries(ctx, r, req.body.token_types)) };
  });

  app.post<Wire<'/sso/oidc/tokens/revoke/v2', 'post'>>('/sso/oidc/tokens/revoke/v2', async (req, reply) => {
    const org = await admin(req);
    const b = req.body;
    const [row] = await select(org, { person_id: b.person_id, authentication_ids: [b.authentication_id], include_revoked: true });
    if (!row || (b.client_id !== undefined && row.client_id !== b.client_id)) {
      throw notFound(`no SSO authentication "${b.authentication_id}"${b.client_id !== undefined ? ` through OIDC client "${b.client_id}"` : ''} is stored for person "${b.person_id}"`);
    }
    await revokeRow(ctx, org, row, b.token_types);
    return reply.code(204).send();
  });

  // Deprecated: the token is named by its value (access or refresh token); the whole set it belongs to is revoked.
  app.post<Wire<'/sso/oidc/tokens/revoke', 'post'>>('/sso/oidc/tokens/revoke', async (req, reply) => {
    const org = await admin(req);
    const digest = sha256(req.body.token);
    const row = await ctx.db
      .selectFrom('sso_oidc_tokens')
      .selectAll()
      .where('org_id', '=', org.id)
      .where('client_id', '=', req.body.client_id)
      .where((eb) =>
        req.body.token_type === 'access_token' ? eb('access_token_sha256', '=', digest)
        : req.body.token_type === 'refresh_token' ? eb('refresh_token_sha256', '=', digest)
        : eb.or([eb('access_token_sha256', '=', digest), eb('refresh_token_sha256', '=', digest)]))
      .executeTakeFirst();
    if (!row) throw notFound(`no live token of OIDC client "${req.body.client_id}" has this value`);
    await revokeRow(ctx, org, row);
    return reply.code(204).send();
  });
}
