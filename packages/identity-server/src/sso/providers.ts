import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { importPKCS8, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import type { Ctx, Org } from '../context.js';
import { externalCredentialSecret } from '../organizations/external-credentials.js';
import { sha256 } from '../crypto/secrets.js';
import { badRequest } from '../http/errors.js';
import { outboundFetch } from '../http/outbound.js';

// The identity providers of an organization (kept in its settings) and the protocol clients that talk to them.

/** The document's per-provider options (`options.<provider>`). */
export interface OidcProviderOptions {
  authorize_scopes?: string[];
  /** azuread */
  tenant?: string;
  /** okta */
  organization_url?: string;
  /** apple: the client secret is an ES256 JWT signed with this key. */
  private_key?: string;
  team_id?: string;
  key_id?: string;
  secret_lifetime?: string;
}

/** OIDC identity provider credentials of an organization (`settings.oidc_providers`). */
export interface OidcProviderConfig {
  provider: string;
  client_id: string;
  client_secret: string;
  issuer: string;
  scopes?: string[];
  /** Under the name of the provider only (`options.google` for a google provider). */
  options?: Record<string, OidcProviderOptions>;
  /** External credential of the organization whose `client_secret` (Apple: `private_key`) is read at each sign-in. */
  external_cred_id?: string;
  enable_in_slashid_oidc_authz_server?: boolean;
  /** Whether its `email_verified: true` proves an address (default true; #36). */
  trust_email_verification?: boolean;
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
  /** Whether the organization trusts the addresses it asserts (default false: SAML says nothing of verification; #36). */
  trust_email_verification?: boolean;
}

/**
 * Whether a provider's word proves an e-mail address (#36): an OIDC provider's `email_verified: true` unless the
 * organization said not to trust it; a SAML provider's address only when the organization said it trusts it.
 */
export function trustsEmails(kind: 'oidc' | 'saml', p: { trust_email_verification?: boolean | undefined }): boolean {
  return p.trust_email_verification ?? kind === 'oidc';
}

export const DEFAULT_OIDC_SCOPES = ['openid', 'email', 'profile'];
const configs = new Map<string, Promise<oidc.Configuration>>();

/** The options of a configuration for its own provider. */
export const optionsOf = (p: OidcProviderConfig): OidcProviderOptions => p.options?.[canonicalProvider(p.provider)] ?? {};

/** The scopes asked of the provider: the configuration's (default `openid email profile`), then `authorize_scopes`. */
export function requestedScopes(p: OidcProviderConfig): string[] {
  return [...new Set([...(p.scopes ?? DEFAULT_OIDC_SCOPES), ...(optionsOf(p).authorize_scopes ?? [])])];
}

/** Apple's longest client secret lifetime (six months), in seconds. */
export const APPLE_MAX_SECRET_LIFETIME = 15_777_000;
/** `secret_lifetime` in seconds: `"3600"`, `"3600s"` or `"24h"`. */
export function secretLifetimeSeconds(text: string): number {
  const m = /^([0-9]+)(s|h)?$/.exec(text);
  return m ? Number(m[1]) * (m[2] === 'h' ? 3600 : 1) : NaN;
}
const appleSecrets = new Map<string, { jwt: string; renewAt: number }>();

/**
 * Apple's client secret: an ES256 JWT from the team (`iss`) for the client (`sub`) to Apple (`aud`), signed with the
 * key `key_id`. Reused until half its lifetime has passed.
 */
export async function appleClientSecret(clientId: string, o: OidcProviderOptions, privateKeyPem: string): Promise<string> {
  const lifetime = secretLifetimeSeconds(o.secret_lifetime ?? '');
  const memo = sha256(JSON.stringify([clientId, o.team_id, o.key_id, lifetime, privateKeyPem]));
  const hit = appleSecrets.get(memo);
  if (hit && hit.renewAt > Date.now()) return hit.jwt;
  const now = Math.floor(Date.now() / 1000);
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: o.key_id! })
    .setIssuer(o.team_id!)
    .setSubject(clientId)
    .setAudience('https://appleid.apple.com')
    .setIssuedAt(now)
    .setExpirationTime(now + lifetime)
    .sign(await importPKCS8(privateKeyPem, 'ES256'));
  appleSecrets.set(memo, { jwt, renewAt: Date.now() + lifetime * 500 });
  return jwt;
}

/**
 * The client secret sent to the provider at this moment: Apple's signed JWT, else the `client_secret` of the external
 * credential the configuration names, else its own `client_secret`. A named external credential that is gone is a 400.
 */
export async function clientSecretOf(ctx: Ctx, orgId: string, p: OidcProviderConfig): Promise<string> {
  let material: Record<string, unknown> | undefined;
  if (p.external_cred_id) {
    material = await externalCredentialSecret(ctx, orgId, p.external_cred_id);
    if (!material) throw badRequest(`the external credential "${p.external_cred_id}" of OIDC provider "${p.client_id}" no longer exists`);
  }
  if (canonicalProvider(p.provider) === 'apple' && p.options?.apple) {
    const key = typeof material?.private_key === 'string' ? material.private_key : p.options.apple.private_key;
    if (!key) throw badRequest(`OIDC provider "${p.client_id}" has no Apple private key`);
    return appleClientSecret(p.client_id, p.options.apple, key);
  }
  return typeof material?.client_secret === 'string' ? material.client_secret : p.client_secret;
}

/**
 * Discovery document of the provider, fetched once per issuer, client and secret (plain http only in development). The
 * secret is read at each call (external credential, Apple JWT), so a rotated secret is used at once.
 */
export async function providerConfig(ctx: Ctx, orgId: string, p: OidcProviderConfig): Promise<oidc.Configuration> {
  const secret = await clientSecretOf(ctx, orgId, p);
  // Keyed by the secret too: after a PATCH of client_secret the new secret is used at once.
  const key = `${p.issuer}\u0000${p.client_id}\u0000${sha256(secret)}`;
  let cfg = configs.get(key);
  if (!cfg) {
    const insecure = new URL(p.issuer).protocol === 'http:';
    if (insecure && !ctx.devMode) throw badRequest(`OIDC issuer ${p.issuer} must use https`);
    // Discovery and every later call to the provider go through the outbound guard (internal addresses refused in
    // production, checked at connect time).
    const guarded = outboundFetch(!ctx.devMode) as unknown as oidc.CustomFetch;
    cfg = oidc.discovery(new URL(p.issuer), p.client_id, secret, undefined, {
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
