import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.js';
import { nowIso } from '../context.js';
import { badRequest, conflict } from '../http/errors.js';
import { requireApiKey } from '../http/guards.js';
import { isOutboundRefused, outboundFetch } from '../http/outbound.js';
import { settingsCollection } from '../organizations/settings.js';
import { canonicalProvider, type OidcProviderConfig, type SamlProviderConfig } from './providers.js';
import { parseIdpMetadata } from './saml-metadata.js';
import type { Wire } from '../http/wire.js';

// Management API: the identity providers of the `oidc` and `saml` sign-in factors, kept in the organization's settings.

/** Well-known issuers of providers that speak OpenID Connect. */
const KNOWN_ISSUERS: Record<string, string> = {
  google: 'https://accounts.google.com',
  apple: 'https://appleid.apple.com',
  gitlab: 'https://gitlab.com',
  line: 'https://access.line.me',
};

const oidcOut = (p: OidcProviderConfig & { label?: string; created_at?: string }) => ({
  client_id: p.client_id,
  label: p.label ?? p.client_id,
  provider: canonicalProvider(p.provider),
  issuer: p.issuer,
  ...(p.scopes ? { scopes: p.scopes } : {}),
  ...(p.created_at ? { created_at: p.created_at } : {}),
});

/** SAML identity providers used by the `saml` factor, configured from their metadata. */
export function registerSamlProviderRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  type StoredSaml = SamlProviderConfig & { label: string; idp_metadata_url?: string; attribute_mapping?: Record<string, string>; enable_in_slashid_oidc_authz_server?: boolean; created_at: string };
  const saml = settingsCollection<StoredSaml>(ctx, 'saml_providers', (p) => p.provider_credentials_id, 'SAML provider credentials');
  const samlOut = (p: StoredSaml) => ({
    id: p.provider_credentials_id,
    label: p.label,
    ...(p.idp_metadata_url ? { idp_metadata_url: p.idp_metadata_url } : {}),
    idp_entity_id: p.idp_issuer ?? '',
    sp_entity_id: `${ctx.publicUrl}/sso/saml/metadata`,
    sp_acs_url: `${ctx.publicUrl}/sso/saml/acs`,
    attribute_mapping: p.attribute_mapping ?? {},
    email_claims: p.email_claims ?? [],
    enable_in_slashid_oidc_authz_server: p.enable_in_slashid_oidc_authz_server ?? false,
    created_at: p.created_at,
  });
  /** Metadata from the request: inline XML, or fetched from its URL (plain http only in development). */
  const metadataOf = async (b: { idp_metadata_url?: string; idp_metadata_xml?: string }) => {
    if (b.idp_metadata_xml) return parseIdpMetadata(b.idp_metadata_xml);
    if (!b.idp_metadata_url) throw badRequest('give idp_metadata_xml or idp_metadata_url');
    if (new URL(b.idp_metadata_url).protocol !== 'https:' && !ctx.devMode) throw badRequest('idp_metadata_url must use https');
    // Internal addresses are refused in production (checked at connect time); the error never repeats what an
    // address answered.
    const res = await outboundFetch(!ctx.devMode)(b.idp_metadata_url, { signal: AbortSignal.timeout(10_000) }).catch((err: unknown) => {
      if (isOutboundRefused(err)) throw badRequest(`idp_metadata_url: ${(err as Error).message}`);
      return undefined;
    });
    if (!res?.ok) throw badRequest(`IdP metadata could not be fetched from ${b.idp_metadata_url}`);
    return parseIdpMetadata(await res.text());
  };
  app.get('/organizations/sso/saml/provider-credentials', async (req) => ({ result: saml.list(await admin(req)).map(samlOut) }));
  app.post<Wire<'/organizations/sso/saml/provider-credentials', 'post'>>(
    '/organizations/sso/saml/provider-credentials',
    async (req, reply) => {
      const org = await admin(req);
      const md = await metadataOf(req.body);
      const entry: StoredSaml = {
        provider_credentials_id: `saml_${randomBytes(8).toString('hex')}`,
        entry_point: md.ssoUrl,
        idp_cert: md.certificates,
        idp_issuer: md.entityId,
        label: req.body.label ?? md.entityId,
        created_at: nowIso(),
        ...(req.body.email_claims ? { email_claims: req.body.email_claims } : {}),
        ...(req.body.enable_in_slashid_oidc_authz_server !== undefined ? { enable_in_slashid_oidc_authz_server: req.body.enable_in_slashid_oidc_authz_server } : {}),
        ...(req.body.idp_metadata_url ? { idp_metadata_url: req.body.idp_metadata_url } : {}),
        ...(req.body.attribute_mapping ? { attribute_mapping: req.body.attribute_mapping } : {}),
      };
      await saml.add(org, entry);
      reply.code(201);
      return { result: samlOut(entry) };
    },
  );
  app.get<Wire<'/organizations/sso/saml/provider-credentials/{saml_provider_credentials_id}', 'get'>>('/organizations/sso/saml/provider-credentials/:saml_provider_credentials_id', async (req) => ({
    result: samlOut(saml.one(await admin(req), req.params.saml_provider_credentials_id)),
  }));
  app.patch<Wire<'/organizations/sso/saml/provider-credentials/{saml_provider_credentials_id}', 'patch'>>(
    '/organizations/sso/saml/provider-credentials/:saml_provider_credentials_id',
    async (req, reply) => {
      const org = await admin(req);
      const current: StoredSaml = { ...saml.one(org, req.params.saml_provider_credentials_id) };
      if (req.body.idp_metadata_xml || req.body.idp_metadata_url) {
        const md = await metadataOf(req.body);
        Object.assign(current, { entry_point: md.ssoUrl, idp_cert: md.certificates, idp_issuer: md.entityId });
        if (req.body.idp_metadata_url) current.idp_metadata_url = req.body.idp_metadata_url;
      }
      if (req.body.label) current.label = req.body.label;
      if (req.body.attribute_mapping) current.attribute_mapping = req.body.attribute_mapping;
      if (req.body.email_claims) current.email_claims = req.body.email_claims;
      if (req.body.enable_in_slashid_oidc_authz_server !== undefined) current.enable_in_slashid_oidc_authz_server = req.body.enable_in_slashid_oidc_authz_server;
      await saml.replace(org, current);
      return reply.code(204).send();
    },
  );
  app.delete<Wire<'/organizations/sso/saml/provider-credentials/{saml_provider_credentials_id}', 'delete'>>('/organizations/sso/saml/provider-credentials/:saml_provider_credentials_id', async (req, reply) => {
    await saml.remove(await admin(req), req.params.saml_provider_credentials_id);
    return reply.code(204).send();
  });
}

/** OIDC provider credentials used by the `oidc` factor. */
export function registerOidcProviderRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  type StoredOidc = OidcProviderConfig & { label?: string; created_at?: string };
  const oidc = settingsCollection<StoredOidc>(ctx, 'oidc_providers', (p) => p.client_id, 'OIDC provider credentials');
  app.get<Wire<'/organizations/sso/oidc/provider-credentials', 'get'>>('/organizations/sso/oidc/provider-credentials', async (req) => {
    const wanted = req.query.oauth_provider === undefined ? undefined : canonicalProvider(req.query.oauth_provider);
    return { result: oidc.list(await admin(req)).filter((c) => wanted === undefined || canonicalProvider(c.provider) === wanted).map(oidcOut) };
  });
  app.post<Wire<'/organizations/sso/oidc/provider-credentials', 'post'>>(
    '/organizations/sso/oidc/provider-credentials',
    async (req, reply) => {
      const org = await admin(req);
      const b = req.body;
      const issuer = b.issuer ?? KNOWN_ISSUERS[b.provider];
      if (!issuer) throw badRequest(`issuer is required for provider "${b.provider}"`);
      if (oidc.list(org).some((p) => p.client_id === b.client_id)) throw conflict(`OIDC provider credentials "${b.client_id}" already exist`);
      const entry: StoredOidc = { provider: canonicalProvider(b.provider), client_id: b.client_id, client_secret: b.client_secret, issuer, label: b.label ?? b.client_id, created_at: nowIso(), ...(b.scopes ? { scopes: b.scopes } : {}) };
      await oidc.add(org, entry);
      reply.code(201);
      return { result: oidcOut(entry) };
    },
  );
  app.get<Wire<'/organizations/sso/oidc/provider-credentials/{oauth_client_id}', 'get'>>('/organizations/sso/oidc/provider-credentials/:oauth_client_id', async (req) => ({
    result: oidcOut(oidc.one(await admin(req), req.params.oauth_client_id)),
  }));
  app.patch<Wire<'/organizations/sso/oidc/provider-credentials/{oauth_client_id}', 'patch'>>(
    '/organizations/sso/oidc/provider-credentials/:oauth_client_id',
    async (req) => {
      const org = await admin(req);
      const current = { ...oidc.one(org, req.params.oauth_client_id), ...req.body };
      await oidc.replace(org, current);
      return { result: oidcOut(current) };
    },
  );
  // The public reference answers 200 with a body: the configuration as it was (without its secret).
  app.delete<Wire<'/organizations/sso/oidc/provider-credentials/{oauth_client_id}', 'delete'>>('/organizations/sso/oidc/provider-credentials/:oauth_client_id', async (req) => {
    const org = await admin(req);
    const gone = oidc.one(org, req.params.oauth_client_id);
    await oidc.remove(org, req.params.oauth_client_id);
    return { result: oidcOut(gone) };
  });
}
