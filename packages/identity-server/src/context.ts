import { allowedRedirectURL } from '@keyway/sdk/redirect';
import type { Sealer } from './crypto/sealed.js';
import type { WebhookService } from './webhooks/service.js';
import type { FastifyRequest } from 'fastify';
import type { Db } from './db/index.js';
import type { DialectName } from './db/migrations.js';
import { ApiError, badRequest, forbidden, notFound, unauthorized } from './http/errors.js';
import type { Mailer } from './email/mailer.js';
import type { RateLimiter } from './http/rate-limit.js';
import type { TokenService, UserTokenClaims } from './tokens/token-service.js';

export interface OrgSettings {
  /** Whether unknown handles may sign up by signing in (default true). */
  self_registration?: boolean;
  /** Whether new persons start active (default true); inactive persons get 403 `person is not active`. */
  auto_activate?: boolean;
  /** sha256 of the management API key. */
  api_key_sha256?: string;
  /** Organizations whose persons may sign in here. */
  person_pool_orgs_ids?: string[];
  /** The organization whose roles and permissions this one inherits (suborganizations created with `inherits_rbac_pools`). */
  rbac_pool_org_id?: string;
  /** Name of the organization's pricing tier (`free` when unset); reported by the quota endpoints, not enforced. */
  pricing_tier?: string;
  /** E-mail templates the organization replaced (see email-templates.ts). */
  email_templates?: Partial<Record<import('./email/templates.js').TemplateName, import('./email/templates.js').EmailTemplate>>;
  /** Identity-verification settings (stored and served; no KYC provider is called by this server). */
  kyc?: { enabled: boolean; provider?: 'none' | 'document_check' | 'bank_id'; required_for_registration?: boolean; allowed_document_countries?: string[] };
  /** A factor a token must carry before a token of this organization is given (`/token`): else `authn_context_update`. */
  required_factor?: { method: string; options?: Record<string, unknown> };
  /** Handles must match one of these patterns to register (else 403 `person cannot be registered`). */
  handle_patterns?: string[];
  /** Lifetime of user tokens of this organization. */
  token_duration_seconds?: number;
  /** Factors `/id` accepts (all when empty or absent). */
  allowed_factors?: string[];
  /** Password rules sent with password_set / password_reset and enforced (default: the server's rules). */
  password_validation_rules?: Array<{ name: string; pattern: string; match_type: 'must_match' | 'must_not_match'; qualifiers?: Array<'case_insensitive'> }>;
  /** OIDC identity providers (see routes/sso.ts). */
  oidc_providers?: Array<{ provider: string; client_id: string; client_secret: string; issuer: string; scopes?: string[]; label?: string; created_at?: string }>;
  /** JSON object template of extra token claims (`{{ person.attributes.<bucket>.<name> }}` placeholders). */
  token_template?: string;
  /** Domains accepted as redirect targets, passkey origins and browser (CORS) origins of this organization. */
  allowed_domains?: string[];
  /** SAML identity providers (see routes/sso.ts). */
  saml_providers?: Array<{ provider_credentials_id: string; entry_point: string; idp_cert: string | string[]; idp_issuer?: string; label?: string; idp_metadata_url?: string; attribute_mapping?: Record<string, string>; created_at?: string }>;
  /** Name of the token claim carrying the person's groups (default `groups`). */
  groups_claim_name?: string;
  /** OAuth2 clients of the hosted login. */
  oauth_clients?: OAuthClient[];
}

/** An OAuth2 client of the hosted login. Public clients hold no secret and must use PKCE. */
export interface OAuthClient {
  client_id: string;
  name: string;
  redirect_uris: string[];
  public?: boolean;
  scopes?: string[];
  grant_types?: string[];
  access_token_duration?: number;
  refresh_token_duration?: number;
  /** sha256 of the client secret (confidential clients). */
  secret_sha256?: string;
  /** Last 4 characters of the secret, shown in reads to tell secrets apart (the secret itself is never read back). */
  secret_last4?: string;
  created_at?: string;
  /** Look of the hosted login page for this client. */
  ui_configuration?: UiConfiguration;
}

export interface UiConfiguration {
  logo_url?: string | null;
  primary_color?: string;
  title?: string;
  factors?: string[];
  show_keyway_branding?: boolean;
}

export interface Org {
  id: string;
  parent_id: string | null;
  org_name: string;
  tenant_name: string;
  settings: OrgSettings;
}

export interface Limits {
  /** Sign-in starts (`/id`, `/recover`, anonymous persons) per client IP per minute. */
  perIpPerMinute: number;
  /** Sign-in starts per handle per minute. */
  perHandlePerMinute: number;
  /** Wrong answers allowed per challenge. */
  maxAttempts: number;
  /** Lifetime of OTP codes and links. */
  codeTtlSeconds: number;
  /** Failed answers per account and factor before the factor locks (0: no account-level lock); see src/guessing.ts. */
  lockoutThreshold: number;
  /** First lock, in seconds; each further failure doubles it. */
  lockoutBaseSeconds: number;
  /** Longest lock, in seconds. */
  lockoutMaxSeconds: number;
}

export interface Ctx {
  db: Db;
  dialect: DialectName;
  tokens: TokenService;
  mailer: Mailer;
  limiter: RateLimiter;
  limits: Limits;
  publicUrl: string;
  devMode: boolean;
  /** Browser origins allowed by CORS; in dev mode also accepted as hosted-login redirect origins. */
  corsOrigins: string[];
  orgs: Map<string, Org>;
  /** Union of every organization's allowed_domains (browser origins on these hosts pass CORS). */
  allowedDomains: Set<string>;
  webhooks: WebhookService;
  /** Encrypts secrets stored in the database. */
  sealer: Sealer;
}

/** Whether a browser origin may call the API: a configured CORS origin, or https on an organization's allowed domain. */
export function originAllowed(ctx: Ctx, origin: string, org?: Org): boolean {
  if (ctx.corsOrigins.includes(origin) || origin === new URL(ctx.publicUrl).origin) return true;
  try {
    const u = new URL(origin);
    const domains = org ? new Set(org.settings.allowed_domains ?? []) : ctx.allowedDomains;
    return (u.protocol === 'https:' || ctx.devMode) && domains.has(u.hostname);
  } catch {
    return false;
  }
}

/**
 * The one redirect rule on the server (shared with the site and @keyway/react through `@keyway/sdk/redirect`): `value`
 * is normalized against the server's public URL, then must be http(s) on the server itself, a configured app origin
 * (CORS) or one of the organization's allowed domains. Answers the normalized URL, or a 400 naming `field`.
 */
export function checkRedirect(ctx: Ctx, org: Org, value: unknown, field: string): string {
  const url = allowedRedirectURL(value, ctx.publicUrl, (origin) => originAllowed(ctx, origin, org));
  if (url) return url.href;
  let host = '';
  try {
    host = typeof value === 'string' ? new URL(value, ctx.publicUrl).hostname : '';
  } catch {
    host = '';
  }
  throw badRequest(
    host && /^https?:/i.test(String(value)) && !/[\u0000-\u001f\u007f\\]/.test(String(value))
      ? `${field}: domain "${host}" is not allowed for this organization`
      : `${field} must be an http or https URL on this organization's domains`,
  );
}

/** Reloads the union of allowed domains (after an organization changed its list). */
export async function reloadAllowedDomains(ctx: Ctx): Promise<void> {
  const rows = await ctx.db.selectFrom('organizations').select('settings').execute();
  ctx.allowedDomains.clear();
  for (const r of rows) for (const d of (JSON.parse(r.settings) as OrgSettings).allowed_domains ?? []) ctx.allowedDomains.add(d);
}

export const ORG_HEADER = 'keyway-orgid';

export async function loadOrg(ctx: Ctx, id: string): Promise<Org | undefined> {
  const cached = ctx.orgs.get(id);
  if (cached) return cached;
  const row = await ctx.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const org: Org = { id: row.id, parent_id: row.parent_id, org_name: row.org_name, tenant_name: row.tenant_name, settings: JSON.parse(row.settings) as OrgSettings };
  ctx.orgs.set(id, org);
  return org;
}

/** The organization named by the `Keyway-OrgID` header; 400 when missing, 404 when unknown. */
export async function requireOrg(ctx: Ctx, req: FastifyRequest): Promise<Org> {
  const raw = req.headers[ORG_HEADER];
  const id = Array.isArray(raw) ? raw[0] : raw;
  if (!id) throw badRequest('missing Keyway-OrgID header');
  if (id.length > 128) throw badRequest('Keyway-OrgID header is longer than 128 characters');
  const org = await loadOrg(ctx, id);
  if (!org) throw notFound(`organization "${id}" does not exist`);
  return org;
}

export function bearerToken(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  if (!m) throw unauthorized('Authorization header must be "Bearer <token>"');
  return m[1];
}

/**
 * Claims of the bearer user token of a person call; 401 when missing, invalid or not a user token (with the reason):
 * containers, id_tokens, OAuth2 access tokens and client tokens never act as a person.
 */
export async function requireUser(ctx: Ctx, req: FastifyRequest): Promise<UserTokenClaims> {
  const token = bearerToken(req);
  if (!token) throw unauthorized('missing bearer token: send Authorization: Bearer <user token>');
  const res = await ctx.tokens.validate(token, 'person');
  if (!res.valid) throw unauthorized(res.invalidity_reason);
  const org = await loadOrg(ctx, res.claims.oid);
  if (!org) throw unauthorized('token organization no longer exists');
  const person = await ctx.db.selectFrom('persons').select(['active']).where('id', '=', res.claims.person_id).executeTakeFirst();
  if (!person) throw unauthorized('token person no longer exists');
  if (!person.active) throw forbidden(`Person ${res.claims.person_id} is inactive`);
  return res.claims;
}

export function clientIp(req: FastifyRequest): string {
  return req.ip;
}


export const nowIso = () => new Date().toISOString();
