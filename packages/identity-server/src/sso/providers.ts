import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import * as oidc from 'openid-client';
import type { Ctx, Org } from '../context.js';
import { sha256 } from '../crypto/secrets.js';
import { badRequest } from '../http/errors.js';
import { outboundFetch } from '../http/outbound.js';

// The identity providers of an organization (kept in its settings) and the protocol clients that talk to them.

/** OIDC identity provider credentials of an organization (`settings.oidc_providers`). */
export interface OidcProviderConfig {
  provider: string;
  client_id: string;
  client_secret: string;
  issuer: string;
  scopes?: string[];
}

/** The public reference's name of a provider: Microsoft Entra ID is `azuread` (this server called it `azure` before). */
export function canonicalProvider(provider: string): string {
  return provider === 'azure' ? 'azuread' : provider;
}

/** SAML identity provider credentials of an organization (`settings.saml_providers`). */
export interface SamlProviderConfig {
  provider_credentials_id: string;
  /** Single sign-on URL of the identity provider (HTTP-Redirect binding). */
  entry_point: string;
  /** PEM certificate(s) the identity provider signs assertions with. */
  idp_cert: string | string[];
  /** Expected Issuer of the responses, when given. */
  idp_issuer?: string;
  /** Assertion attributes read first, in order, for the e-mail address (then email, mail, the LDAP mail OID, an e-mail NameID). */
  email_claims?: string[];
}

export const DEFAULT_OIDC_SCOPES = ['openid', 'email', 'profile'];
const configs = new Map<string, Promise<oidc.Configuration>>();

/** Discovery document of the provider, fetched once per issuer, client and secret (plain http only in development). */
export function providerConfig(ctx: Ctx, p: OidcProviderConfig): Promise<oidc.Configuration> {
  // Keyed by the secret too: after a PATCH of client_secret the new secret is used at once.
  const key = `${p.issuer}\u0000${p.client_id}\u0000${sha256(p.client_secret)}`;
  let cfg = configs.get(key);
  if (!cfg) {
    const insecure = new URL(p.issuer).protocol === 'http:';
    if (insecure && !ctx.devMode) return Promise.reject(badRequest(`OIDC issuer ${p.issuer} must use https`));
    // Discovery and every later call to the provider go through the outbound guard (internal addresses refused in
    // production, checked at connect time).
    const guarded = outboundFetch(!ctx.devMode) as unknown as oidc.CustomFetch;
    cfg = oidc.discovery(new URL(p.issuer), p.client_id, p.client_secret, undefined, {
      ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
      [oidc.customFetch]: guarded,
    });
    cfg.catch(() => configs.delete(key));
    configs.set(key, cfg);
  }
  return cfg;
}

/** Where OIDC providers send the browser back. */
export function ssoCallbackUrl(ctx: Ctx): string {
  return `${ctx.publicUrl}/sso/oidc/callback`;
}

/** The OIDC provider a factor names (`client_id`, else `provider`); 400 when none is configured. */
export function pickProvider(org: Org, options: Record<string, unknown>): OidcProviderConfig {
  const list = (org.settings as { oidc_providers?: OidcProviderConfig[] }).oidc_providers ?? [];
  const found = list.find((p) => (options.client_id ? p.client_id === options.client_id : canonicalProvider(p.provider) === canonicalProvider(String(options.provider))));
  if (!found) {
    throw badRequest(`no OIDC provider "${String(options.client_id ?? options.provider)}" is configured for organization "${org.id}"`);
  }
  return found;
}

/** The SAML provider a factor names (the only one when there is one and none is named); 400 otherwise. */
export function pickSamlProvider(org: Org, id: unknown): SamlProviderConfig {
  const list = (org.settings as { saml_providers?: SamlProviderConfig[] }).saml_providers ?? [];
  const found = id === undefined && list.length === 1 ? list[0] : list.find((p) => p.provider_credentials_id === id);
  if (!found) throw badRequest(`no SAML provider "${String(id)}" is configured for organization "${org.id}"`);
  return found;
}

/** node-saml for one provider; the AuthnRequest id of the challenge is the only InResponseTo it accepts. */
export function samlClient(ctx: Ctx, p: SamlProviderConfig, request: { request_id: string; request_instant: string }) {
  return new SAML({
    callbackUrl: `${ctx.publicUrl}/sso/saml/acs`,
    entryPoint: p.entry_point,
    issuer: `${ctx.publicUrl}/sso/saml/metadata`,
    audience: `${ctx.publicUrl}/sso/saml/metadata`,
    idpCert: p.idp_cert,
    ...(p.idp_issuer ? { idpIssuer: p.idp_issuer } : {}),
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    validateInResponseTo: ValidateInResponseTo.always,
    generateUniqueId: () => request.request_id,
    cacheProvider: {
      saveAsync: async (key, value) => ({ value, createdAt: Date.now() }),
      getAsync: async (key) => (key === request.request_id ? request.request_instant : null),
      removeAsync: async (key) => key,
    },
  });
}
