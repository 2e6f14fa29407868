import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.js';
import { nowIso } from '../context.js';
import { badRequest, conflict } from '../http/errors.js';
import { requireApiKey } from '../http/guards.js';
import { isOutboundRefused, outboundFetch } from '../http/outbound.js';
import { settingsCollection } from '../organizations/settings.js';
import { importPKCS8 } from 'jose';
import { externalCredentialSecret } from '../organizations/external-credentials.js';
import { APPLE_MAX_SECRET_LIFETIME, canonicalProvider, optionsOf, secretLifetimeSeconds, trustsEmails, type OidcProviderConfig, type SamlProviderConfig } from './providers.js';
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
  // Apple's private key is a secret: never read back.
  ...(p.options ? { options: Object.fromEntries(Object.entries(p.options).map(([name, o]) => [name, Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'private_key'))])) } : {}),
  ...(p.external_cred_id ? { external_cred_id: p.external_cred_id } : {}),
  enable_in_slashid_oidc_authz_server: p.enable_in_slashid_oidc_authz_server ?? false,
  trust_email_verification: trustsEmails('oidc', p),
  ...(p.created_at ? { created_at: p.created_at } : {}),
});

/** The switches of a provider a create or a change gives (the ones left out keep their value). */
const providerFlags = (b: { enable_in_slashid_oidc_authz_server?: boolean | undefined; trust_email_verification?: boolean | undefined }) => ({
  ...(b.enable_in_slashid_oidc_authz_server !== undefined ? { enable_in_slashid_oidc_authz_server: b.enable_in_slashid_oidc_authz_server } : {}),
  ...(b.trust_email_verification !== undefined ? { trust_email_verification: b.trust_email_verification } : {}),
});

/** Entra ID's pseudo tenants: ID tokens then carry the person's own tenant as issuer, which no fixed issuer matches. */
const PSEUDO_TENANTS = new Set(['common', 'organizations', 'consumers']);

/** The issuer the options name (Entra ID tenant, Okta organization URL), if any. */
function issuerFromOptions(p: OidcProviderConfig): string | undefined {
  const o = optionsOf(p);
  if (o.tenant !== undefined) return `https://login.microsoftonline.com/${o.tenant}/v2.0`;
  return o.organization_url?.replace(/\/+$/, '');
}

/**
 * Checks a configuration before it is stored: options only under its own provider's name, a real Entra tenant, an
 * Apple key that imports and a lifetime Apple accepts, an external credential of the organization that holds the
 * secret. Each refusal is a 400 naming the field.
 */
async function checkOidcConfig(ctx: Ctx, orgId: string, p: OidcProviderConfig): Promise<void> {
  const name = canonicalProvider(p.provider);
  for (const key of Object.keys(p.options ?? {})) if (key !== name) throw badRequest(`options.${key} does not apply to a "${name}" provider`);
  const o = optionsOf(p);
  if (o.tenant !== undefined && PSEUDO_TENANTS.has(o.tenant.toLowerCase())) {
    throw badRequest(`options.azuread.tenant "${o.tenant}" is a pseudo tenant: give the tenant id or domain (an ID token's issuer must be known in advance)`);
  }
  const secret = p.external_cred_id === undefined ? undefined : await externalCredentialSecret(ctx, orgId, p.external_cred_id);
  if (p.external_cred_id !== undefined && !secret) throw badRequest(`external_cred_id "${p.external_cred_id}" is not an external credential of this organization`);
  if (name === 'apple' && p.options?.apple) {
    const life = secretLifetimeSeconds(o.secret_lifetime ?? '');
    if (!(life >= 1 && life <= APPLE_MAX_SECRET_LIFETIME)) throw badRequest(`options.apple.secret_lifetime must be between 1 second and ${APPLE_MAX_SECRET_LIFETIME} seconds (six months)`);
    const key = typeof secret?.private_key === 'string' ? secret.private_key : o.private_key;
    if (!key) throw badRequest('options.apple.private_key is required (or a private_key in the external credential of external_cred_id)');
    await importPKCS8(key, 'ES256').catch(() => {
      throw badRequest(`${typeof secret?.private_key === 'string' ? `the private_key of external credential "${p.external_cred_id}"` : 'options.apple.private_key'} is not an ES256 private key in PKCS #8 PEM`);
    });
  } else if (secret && typeof secret.client_secret !== 'string') {
    throw badRequest(`external_cred_id "${p.external_cred_id}": its json_blob has no client_secret`);
  }
}

/** `external_cred_id`, or its former name `external_cred`; 400 when both are given and differ. */
function externalCredIdOf(b: { external_cred_id?: string; external_cred?: string }): string | undefined {
  if (b.external_cred_id !== undefined && b.external_cred !== undefined && b.external_cred_id !== b.external_cred) throw badRequest('external_cred and external_cred_id name different external credentials');
  return b.external_cred_id ?? b.external_cred;
}

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
    trust_email_verification: trustsEmails('saml', p),
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
        ...providerFlags(req.body),
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
      Object.assign(current, providerFlags(req.body));
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
      const provider = canonicalProvider(b.provider);
      const extId = externalCredIdOf(b);
      const entry: StoredOidc = {
        provider,
        client_id: b.client_id,
        client_secret: b.client_secret,
        issuer: '',
        label: b.label ?? b.client_id,
        created_at: nowIso(),
        ...(b.scopes ? { scopes: b.scopes } : {}),
        ...(b.options ? { options: b.options } : {}),
        ...(extId !== undefined ? { external_cred_id: extId } : {}),
        ...providerFlags(b),
      };
      const issuer = b.issuer ?? issuerFromOptions(entry) ?? KNOWN_ISSUERS[provider];
      if (!issuer) throw badRequest(`issuer is required for provider "${b.provider}"${provider === 'azuread' ? ' (or options.azuread.tenant)' : provider === 'okta' ? ' (or options.okta.organization_url)' : ''}`);
      entry.issuer = issuer;
      if (oidc.list(org).some((p) => p.client_id === b.client_id)) throw conflict(`OIDC provider credentials "${b.client_id}" already exist`);
      await checkOidcConfig(ctx, org.id, entry);
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
      const b = req.body;
      const current: StoredOidc = { ...oidc.one(org, req.params.oauth_client_id) };
      if (b.client_secret !== undefined) current.client_secret = b.client_secret;
      if (b.label !== undefined) current.label = b.label;
      if (b.scopes !== undefined) current.scopes = b.scopes;
      Object.assign(current, providerFlags(b));
      const extId = externalCredIdOf(b);
      if (extId === '') delete current.external_cred_id;
      else if (extId !== undefined) current.external_cred_id = extId;
      if (b.options !== undefined) {
        // Options replace the former ones; Apple's stored key is kept when the new options give none.
        const keptKey = current.options?.apple?.private_key;
        current.options = b.options;
        if (b.options.apple && b.options.apple.private_key === undefined && keptKey !== undefined) current.options = { ...b.options, apple: { ...b.options.apple, private_key: keptKey } };
        current.issuer = issuerFromOptions(current) ?? current.issuer;
      }
      await checkOidcConfig(ctx, org.id, current);
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
