import type { Sealer } from './crypto/sealed.js';
import type { WebhookService } from './webhooks/service.js';
import type { Db } from './db/index.js';
import type { DialectName } from './db/migrations.js';
import type { Mailer } from './email/mailer.js';
import type { RateLimiter } from './http/rate-limit.js';
import type { TokenService } from './tokens/token-service.js';
import type { Schema } from './http/wire.js';

// What every feature is handed: the server's services (`Ctx`) and the stored shape of an organization (`Org`,
// `OrgSettings`). Reading and changing organizations: organizations/settings.ts.

export interface OrgSettings {
  /** Whether unknown handles may sign up by signing in (default true). */
  self_registration?: boolean;
  /**
   * Whether the password and passkey factors sign up a handle without that credential even when `/id` does not ask to
   * (`factor.options.sign_up`); off by default, because the answers then tell whether a handle has one (#36).
   */
  implicit_credential_sign_up?: boolean;
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
  /** Message templates the organization replaced, by name (see email/templates.ts; legacy names are read too). */
  email_templates?: Record<string, import('./email/templates.js').StoredTemplate>;
  /** Identity-verification settings (stored and served; no KYC provider is called by this server). */
  kyc?: { mobile_redirect_base_url?: string; enabled: boolean; provider?: 'none' | 'document_check' | 'bank_id'; required_for_registration?: boolean; allowed_document_countries?: string[] };
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
  /** OIDC identity providers (see sso/providers.ts). */
  oidc_providers?: Array<{
    provider: string;
    client_id: string;
    client_secret: string;
    issuer: string;
    scopes?: string[];
    label?: string;
    created_at?: string;
    options?: Record<string, Record<string, unknown>>;
    external_cred_id?: string;
    enable_in_slashid_oidc_authz_server?: boolean;
  }>;
  /** JSON object template of extra token claims (`{{ person.attributes.<bucket>.<name> }}` placeholders). */
  token_template?: string;
  /** Domains accepted as redirect targets, passkey origins and browser (CORS) origins of this organization. */
  allowed_domains?: string[];
  /** SAML identity providers (see sso/providers.ts). */
  saml_providers?: Array<{ provider_credentials_id: string; entry_point: string; idp_cert: string | string[]; idp_issuer?: string; label?: string; idp_metadata_url?: string; attribute_mapping?: Record<string, string>; created_at?: string }>;
  /** Redirect targets of sign-in links accepted besides the allowed domains (same origin, path equal or below). */
  authn_link_allowed_redirect_uris?: string[];
  /** Branding of the page a sign-in link opens: sent as a `ui_customization` challenge with each link or code. */
  authn_redirect_page_ui_config?: { logo_url?: string; title?: string; background_color?: string; text_color?: string };
  /** Seconds of the public reference's sudo mode (stored and served; no sudo mode here yet). */
  sudo_mode_duration?: number;
  /** Stored and served; this server does no identity matching. */
  canonical_identity_ai_matching_enabled?: boolean;
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
  /** Where RP-Initiated Logout may send the browser back (exact match). */
  post_logout_redirect_uris?: string[];
  /** Algorithm of the client's id_tokens (absent: RS256, the OpenID Connect Registration default). */
  id_token_signed_response_alg?: 'RS256' | 'ES256';
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

/** The look of a client's hosted sign-in page (`PUT /oauth2/clients/{id}/ui-configuration`), as the contract defines it. */
export type UiConfiguration = Schema<'UiConfiguration'>;

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
  /** Failed answers per account and factor before the factor locks (0: no account-level lock); see signin/guessing.ts. */
  lockoutThreshold: number;
  /** First lock, in seconds; each further failure doubles it. */
  lockoutBaseSeconds: number;
  /** Longest lock, in seconds. */
  lockoutMaxSeconds: number;
  /** How long a passkey prompt (and its challenge) waits for the authenticator, in seconds (WebAuthn `timeout`). */
  passkeyTimeoutSeconds: number;
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

export const nowIso = () => new Date().toISOString();

/** What app.ts hands every feature plugin: the services, and whether the management API is served (it needs the contract). */
export interface FeatureOptions {
  ctx: Ctx;
  management: boolean;
}
