import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as oidc from 'openid-client';
import type { Ctx, Org } from '../context.js';
import { nowIso } from '../context.js';
import type { SsoOidcTokenTable } from '../db/schema.js';
import { ApiError, notFound } from '../http/errors.js';
import { offsetPage, readOffsetPage } from '../http/pagination.js';
import { sha256 } from '../crypto/secrets.js';
import { openIdpTokens, ssoTokenOut } from './idp-tokens.js';
import { requireApiKey } from '../http/guards.js';
import { providerConfig, type OidcProviderConfig } from './providers.js';
import type { Wire } from '../http/wire.js';

interface Selection {
  person_id: string;
  client_id?: string;
  provider?: string;
  include_revoked?: boolean;
}

/**
 * Revokes the stored tokens of one row at the provider (RFC 7009: the refresh token, then the access token) when the
 * provider publishes a revocation endpoint, then forgets their values and marks the row revoked. Nothing is changed when
 * the provider cannot be reached or refuses: the caller gets 502 and can try again.
 */
async function revokeRow(ctx: Ctx, org: Org, row: SsoOidcTokenTable): Promise<{ at_provider: boolean }> {
  const tokens = openIdpTokens(ctx, row);
  if (!tokens) return { at_provider: false };
  const provider = (org.settings.oidc_providers ?? []).find((p) => p.client_id === row.client_id) as OidcProviderConfig | undefined;
  let atProvider = false;
  if (provider) {
    const fail = (why: string) => new ApiError(502, `the identity provider ${provider.issuer} could not revoke the token: ${why}`);
    const config = await providerConfig(ctx, provider).catch((err: unknown) => {
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
      if (tokens.refresh_token) await send(tokens.refresh_token, 'refresh_token');
      await send(tokens.access_token, 'access_token');
      atProvider = true;
    }
  }
  await ctx.db
    .updateTable('sso_oidc_tokens')
    .set({ sealed_tokens: null, access_token_sha256: null, refresh_token_sha256: null, revoked_at: nowIso(), updated_at: nowIso() })
    .where('id', '=', row.id)
    .execute();
  return { at_provider: atProvider };
}

/** Tokens that OIDC identity providers issued to persons at SSO sign-ins: list, query and revoke (management API). */
export function registerSsoTokenRoutes(app: FastifyInstance, ctx: Ctx): void {
  /** The organization's rows for a person; 404 unless the person is the organization's or has tokens stored here. */
  const select = async (org: Org, s: Selection) => {
    let q = ctx.db.selectFrom('sso_oidc_tokens').selectAll().where('org_id', '=', org.id).where('person_id', '=', s.person_id);
    if (s.client_id !== undefined) q = q.where('client_id', '=', s.client_id);
    if (s.provider !== undefined) q = q.where('provider', '=', s.provider);
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

  app.get<Wire<'/sso/oidc/tokens', 'get'>>('/sso/oidc/tokens', async (req) => {
    const org = await admin(req);
    const { limit, offset } = readOffsetPage(req.query);
    const rows = await select(org, { person_id: req.query.person_id, include_revoked: req.query.include_revoked === true });
    return offsetPage(rows.slice(offset, offset + limit).map((r) => ssoTokenOut(ctx, r)), limit, offset, rows.length);
  });

  app.post<Wire<'/sso/oidc/tokens/query', 'post'>>('/sso/oidc/tokens/query', async (req) => {
    const org = await admin(req);
    return { result: (await select(org, req.body)).map((r) => ssoTokenOut(ctx, r)) };
  });

  app.post<Wire<'/sso/oidc/tokens/revoke/v2', 'post'>>('/sso/oidc/tokens/revoke/v2', async (req, reply) => {
    const org = await admin(req);
    const rows = await select(org, { person_id: req.body.person_id, client_id: req.body.client_id });
    const configured = (org.settings.oidc_providers ?? []).some((p) => p.client_id === req.body.client_id);
    if (!rows.length && !configured) throw notFound(`no OIDC provider "${req.body.client_id}" is configured and no token of it is stored`);
    for (const row of rows) await revokeRow(ctx, org, row);
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
