import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx, OAuthClient, UiConfiguration } from '../context.js';
import { nowIso } from '../context.js';
import { sha256 } from '../crypto/secrets.js';
import { badRequest } from '../http/errors.js';
import { requireApiKey } from '../http/guards.js';
import { settingsCollection } from '../organizations/settings.js';
import { orgPerson } from '../persons/person-store.js';
import { lastUsedOf } from './client-usage.js';
import { revokeFamily } from './refresh-tokens.js';
import { checkCustomClaims } from '../tokens/token-template.js';
import { issueOAuthTokens } from './tokens.js';
import type { Wire } from '../http/wire.js';

// Management API: the OAuth2 clients of the hosted login (kept in the organization's settings) and tokens minted for them.

const clientsOf = (ctx: Ctx) => settingsCollection<OAuthClient>(ctx, 'oauth_clients', (c) => c.client_id, 'OAuth2 client');
const clientOut = (c: OAuthClient, lastUsed?: string) => ({
  client_id: c.client_id,
  client_name: c.name,
  scopes: c.scopes ?? ['openid'],
  grant_types: c.grant_types ?? ['authorization_code'],
  // Each entry is one combination a client may ask for (the public reference contract's shape): only `code`.
  response_types: [['code']],
  redirect_uris: c.redirect_uris,
  post_logout_redirect_uris: c.post_logout_redirect_uris ?? [],
  id_token_signed_response_alg: c.id_token_signed_response_alg ?? 'RS256',
  public: c.public ?? false,
  access_token_duration: c.access_token_duration ?? 3600,
  refresh_token_duration: c.refresh_token_duration ?? 0,
  ...(c.secret_last4 ? { client_secret_last4: c.secret_last4 } : {}),
  ...(c.created_at ? { created_at: c.created_at } : {}),
  ...(lastUsed ? { last_used: lastUsed } : {}),
});
/**
 * Redirect URIs a browser may safely be sent to with a code or after sign-out: absolute, no fragment (RFC 6749 §3.1.2),
 * no wildcard, and `https`, `http` (development and loopback apps) or a native app's private-use scheme named after a
 * domain it owns (`com.example.app:/callback`, RFC 8252 §7.1) — never `javascript:`, `data:`, `file:` or the like.
 */
function checkRedirectUris(field: string, uris: string[] | undefined): void {
  for (const uri of uris ?? []) {
    let u: URL;
    try {
      u = new URL(uri);
    } catch {
      throw badRequest(`${field}: "${uri}" is not an absolute URI`);
    }
    const scheme = u.protocol.slice(0, -1);
    if (uri.includes('#')) throw badRequest(`${field}: "${uri}" has a fragment, which a redirect URI must not have (RFC 6749 §3.1.2)`);
    if (uri.includes('*')) throw badRequest(`${field}: "${uri}" has a wildcard: register each address exactly`);
    if (!['https', 'http'].includes(scheme) && !/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/.test(scheme)) {
      throw badRequest(`${field}: "${uri}" must be https, http, or a private-use scheme named after a domain (com.example.app:/callback, RFC 8252)`);
    }
  }
}

const unsupportedGrants = (grants: string[] | undefined, isPublic: boolean | undefined) => {
  if (grants?.includes('refresh_token') && !grants.includes('authorization_code')) throw badRequest('grant_types: refresh_token needs authorization_code (refresh tokens are issued with the authorization code grant)');
  if (isPublic && grants?.includes('client_credentials')) throw badRequest('grant_types: client_credentials needs a confidential client (public: false)');
};

/** `/oauth2/clients` and their secrets and hosted-login look. */
export function registerOAuthClientRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  const clients = clientsOf(ctx);
  app.get('/oauth2/clients', async (req) => {
    const org = await admin(req);
    const used = await lastUsedOf(ctx, org.id);
    return { result: clients.list(org).map((c) => clientOut(c, used.get(c.client_id))) };
  });
  const oneOut = async (orgId: string, c: OAuthClient) => clientOut(c, (await lastUsedOf(ctx, orgId)).get(c.client_id));
  app.post<Wire<'/oauth2/clients', 'post'>>(
    '/oauth2/clients',
    async (req, reply) => {
      const org = await admin(req);
      const b = req.body;
      unsupportedGrants(b.grant_types, b.public);
      checkRedirectUris('redirect_uris', b.redirect_uris);
      checkRedirectUris('post_logout_redirect_uris', b.post_logout_redirect_uris);
      const secret = `kwcs_${randomBytes(24).toString('base64url')}`;
      const client: OAuthClient = {
        client_id: `kwc_${randomBytes(10).toString('hex')}`,
        name: b.client_name,
        redirect_uris: b.redirect_uris ?? [],
        ...(b.post_logout_redirect_uris ? { post_logout_redirect_uris: b.post_logout_redirect_uris } : {}),
        ...(b.id_token_signed_response_alg ? { id_token_signed_response_alg: b.id_token_signed_response_alg } : {}),
        public: b.public ?? false,
        scopes: b.scopes,
        grant_types: b.grant_types,
        access_token_duration: b.access_token_duration ?? 3600,
        // Refresh tokens live 30 days unless told otherwise; 0 turns them off.
        refresh_token_duration: b.refresh_token_duration ?? (b.grant_types.includes('refresh_token') ? 30 * 24 * 3600 : 0),
        secret_sha256: sha256(secret),
        secret_last4: secret.slice(-4),
        created_at: nowIso(),
      };
      await clients.add(org, client);
      reply.code(201);
      return { result: { ...clientOut(client), client_secret: secret } };
    },
  );
  app.get<Wire<'/oauth2/clients/{oauth_client_id}', 'get'>>('/oauth2/clients/:oauth_client_id', async (req) => {
    const org = await admin(req);
    return { result: await oneOut(org.id, clients.one(org, req.params.oauth_client_id)) };
  });
  app.patch<Wire<'/oauth2/clients/{oauth_client_id}', 'patch'>>(
    '/oauth2/clients/:oauth_client_id',
    async (req) => {
      const org = await admin(req);
      const { client_name, ...rest } = req.body;
      const current: OAuthClient = { ...clients.one(org, req.params.oauth_client_id), ...rest, ...(client_name ? { name: client_name } : {}) };
      unsupportedGrants(current.grant_types, current.public);
      checkRedirectUris('redirect_uris', rest.redirect_uris);
      checkRedirectUris('post_logout_redirect_uris', rest.post_logout_redirect_uris);
      await clients.replace(org, current);
      return { result: await oneOut(org.id, current) };
    },
  );
  app.delete<Wire<'/oauth2/clients/{oauth_client_id}', 'delete'>>('/oauth2/clients/:oauth_client_id', async (req, reply) => {
    const org = await admin(req);
    await clients.remove(org, req.params.oauth_client_id);
    const families = await ctx.db.selectFrom('oauth_refresh_tokens').select('family_id').distinct().where('org_id', '=', org.id).where('client_id', '=', req.params.oauth_client_id).where('status', '!=', 'revoked').execute();
    for (const f of families) await revokeFamily(ctx, f.family_id);
    return reply.code(204).send();
  });
  app.put<Wire<'/oauth2/clients/{oauth_client_id}/secret', 'put'>>('/oauth2/clients/:oauth_client_id/secret', async (req) => {
    const org = await admin(req);
    const secret = `kwcs_${randomBytes(24).toString('base64url')}`;
    const current: OAuthClient = { ...clients.one(org, req.params.oauth_client_id), secret_sha256: sha256(secret), secret_last4: secret.slice(-4) };
    await clients.replace(org, current);
    return { result: { ...clientOut(current), client_secret: secret } };
  });
}

/** The fields the public reference contract renamed: its name, then ours. */
const UI_RENAMED = [['logoUrl', 'logo_url'], ['pageTitle', 'title'], ['showBadge', 'show_keyway_branding']] as const;

/** A UI configuration carrying both spellings of each renamed field; 400 when the two given disagree. */
function withBothSpellings(input: UiConfiguration): UiConfiguration {
  const ui: Record<string, unknown> = { ...input };
  for (const [theirs, ours] of UI_RENAMED) {
    const [a, b] = [ui[theirs], ui[ours]];
    if (a !== undefined && b !== undefined && a !== b) throw badRequest(`${theirs} and ${ours} are two names of one field and differ: give one of them`);
    const value = a ?? b;
    if (value === undefined) continue;
    ui[ours] = value;
    if (value === null) delete ui[theirs];
    else ui[theirs] = value;
  }
  return ui as UiConfiguration;
}

/** The hosted-login look of a client, and tokens minted for a person through a client. */
export function registerOAuthClientExtraRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  const clients = clientsOf(ctx);
  app.get<Wire<'/oauth2/clients/{oauth_client_id}/ui-configuration', 'get'>>('/oauth2/clients/:oauth_client_id/ui-configuration', async (req) => {
    const c = clients.one(await admin(req), req.params.oauth_client_id);
    const title = `Sign in to ${c.name}`;
    return { result: { logo_url: null, pageTitle: title, title, factors: ['otp_via_email'], showBadge: true, show_keyway_branding: true, ...c.ui_configuration } };
  });
  app.put<Wire<'/oauth2/clients/{oauth_client_id}/ui-configuration', 'put'>>('/oauth2/clients/:oauth_client_id/ui-configuration', async (req, reply) => {
    const org = await admin(req);
    const c = clients.one(org, req.params.oauth_client_id);
    const allowed = org.settings.allowed_factors ?? [];
    const refused = (req.body.factors ?? []).filter((f) => allowed.length && !allowed.includes(f));
    if (refused.length) throw badRequest(`factors not allowed by the organization config (allowed_factors): ${refused.join(', ')}`);
    if (req.body.handleTypes && !req.body.handleTypes.includes('email_address')) throw badRequest('handleTypes must include email_address: the hosted sign-in page signs in by email address');
    const ui = withBothSpellings(req.body as UiConfiguration);
    await clients.replace(org, { ...c, ui_configuration: ui });
    reply.code(201);
    return { result: ui };
  });
  app.post<Wire<'/oauth2/tokens/mint', 'post'>>('/oauth2/tokens/mint', async (req) => {
    const org = await admin(req);
    const client = clients.one(org, req.body.client_id);
    const person = await orgPerson(ctx, org, req.body.person_id);
    const scopes = req.body.scopes ?? client.scopes ?? ['openid'];
    const outside = scopes.filter((x) => !(client.scopes ?? ['openid']).includes(x));
    if (outside.length) throw badRequest(`scopes not granted to client "${client.client_id}": ${outside.join(', ')}`);
    const customClaims = checkCustomClaims(req.body.custom_claims ?? {}, org.settings.groups_claim_name);
    return { result: await issueOAuthTokens(ctx, client, person, [{ method: 'api' }], { scope: scopes.join(' '), idToken: req.body.include_id_token !== false && scopes.includes('openid'), customClaims }) };
  });
}
