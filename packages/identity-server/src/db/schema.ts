import type { ColumnType, Generated } from 'kysely';

/** Table shapes shared by the SQLite and PostgreSQL dialects (dates are ISO-8601 UTC strings, JSON is text). */
export interface OrganizationTable {
  id: string;
  parent_id: string | null;
  org_name: string;
  tenant_name: string;
  /** JSON: {@link OrgSettings}. */
  settings: string;
  created_at: string;
}

export interface PersonTable {
  id: string;
  org_id: string;
  person_type: string;
  active: number;
  region: string;
  groups: string;
  created_at: string;
}

export interface HandleTable {
  id: string;
  org_id: string;
  person_id: string;
  type: string;
  value: string;
  created_at: string;
  /** When the handle was proved (#36): null while it is only assigned by the organization, or stored before proofs. */
  verified_at?: string | null;
  /** How: a code or link sent to it (its method), `idp:<provider>`, or `management` (the source system verified it). */
  verified_by?: string | null;
}

/** A person's identity at an SSO provider (`oidc:<client id>` or `saml:<provider credentials id>`, and its subject). */
export interface FederatedIdentityTable {
  org_id: string;
  provider: string;
  subject: string;
  person_id: string;
  created_at: string;
}

export interface CredentialTable {
  id: string;
  person_id: string;
  type: string;
  label: string;
  /** JSON: public parameters shown to the person. */
  params: string;
  /** JSON: server-only secret material (hashes, TOTP secret, recovery code hashes). */
  secret: string;
  created_at: string;
  last_used: string | null;
  /** Who made it: `sign_in` (a factor), `management` (an import); null for credentials stored before #36. */
  source?: string | null;
}

export interface ChallengeTable {
  id: string;
  org_id: string;
  type: string;
  method: string;
  handle_type: string | null;
  handle_value: string | null;
  person_id: string | null;
  secret_hash: string | null;
  attempts: number;
  status: string;
  /** JSON: context of the sign-in (previous token claims, redirect target, …). */
  data: string;
  expires_at: string;
  created_at: string;
}

export interface RevokedTokenTable {
  jti: string;
  expires_at: string;
  revoked_at: string;
  /** The revocation feed's number of the write that stored it (0 for rows older than the feed): replicas read what is new by it. */
  seq: ColumnType<string | number, number | undefined, number>;
}

/** A token derived from another (organization token, token container): revoking the parent revokes it. */
export interface TokenParentTable {
  jti: string;
  parent_jti: string;
  expires_at: string;
}

export interface SigningKeyTable {
  kid: string;
  alg: string;
  private_jwk: string;
  public_jwk: string;
  created_at: string;
}

export interface AttributeTable {
  person_id: string;
  bucket: string;
  name: string;
  value: string;
  updated_at: string;
}

export interface ConsentTable {
  person_id: string;
  consent_level: string;
  created_at: string;
}

export interface EventTable {
  id: Generated<number>;
  org_id: string;
  source: string;
  name: string;
  person_id: string | null;
  payload: string;
  created_at: string;
}

export interface MailboxTable {
  id: string;
  org_id: string;
  channel: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  code: string | null;
  link: string | null;
  created_at: string;
  /** Outbox state (0022): `pending` until sent, `sent`, or `failed` once given up. */
  status: Generated<string>;
  /** Sending attempts made (or claimed) so far. */
  attempts: Generated<number>;
  /** When a pending message is due for its next attempt. */
  next_attempt_at: string | null;
  /** After this, sending is pointless (the code or link has expired): a pending message is given up. */
  expires_at: string | null;
  last_error: string | null;
  sent_at: string | null;
  /** From name of the organization's template, kept for the retries. */
  sender_name: string | null;
}

export interface GroupTable {
  org_id: string;
  name: string;
  description: string | null;
  created_at: string;
}

export interface RbacPermissionTable {
  org_id: string;
  name: string;
  description: string | null;
  created_at: string;
}

export interface RbacRoleTable {
  org_id: string;
  name: string;
  description: string | null;
  /** JSON: permission names. */
  permissions: string;
  created_at: string;
}

/** Roles (`kind` = `role`) and additional permissions (`kind` = `permission`) held by a person. */
export interface PersonGrantTable {
  person_id: string;
  kind: 'role' | 'permission';
  name: string;
}

export interface OrgAttributeTable {
  org_id: string;
  bucket: string;
  name: string;
  value: string;
  updated_at: string;
}

export interface WebhookTable {
  id: string;
  org_id: string;
  name: string;
  description: string | null;
  target_url: string;
  /** JSON: header name → values. */
  custom_headers: string;
  /** Seconds. */
  timeout: number;
  created_at: string;
}

export interface WebhookTriggerTable {
  webhook_id: string;
  trigger_type: string;
  trigger_name: string;
  created_at: string;
}

export interface WebhookDeliveryTable {
  id: string;
  webhook_id: string;
  org_id: string;
  event_type: string;
  /** JSON: the event sent. */
  event: string;
  /** `pending` (queued or waiting for a retry), `delivered`, `failed` (attempts exhausted). */
  status: string;
  attempts: number;
  next_attempt_at: string;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface WebhookSigningKeyTable {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_at: string;
}

export interface SubjectRevocationTable {
  client_id: string;
  subject: string;
  /** Unix seconds: tokens of the client for the subject issued at or before it are revoked. */
  revoked_before: number;
  revoked_at: string;
  /** The revocation feed's number of the write that stored it (see RevokedTokenTable.seq). */
  seq: ColumnType<string | number, number | undefined, number>;
}

export interface ExternalCredentialTable {
  id: string;
  org_id: string;
  label: string;
  /** Keyway's kind (smtp, sms_gateway, oidc_client, apple_signin); empty for credentials created with the public reference's fields. */
  type: string;
  /** The public reference's `extcred_provider`: generic, google, onfido, shopify. */
  provider: string;
  /** The public reference's `extcred_type`: access_token, api_id_access, api_key, client_credentials, json_credentials, user_pass. */
  cred_type: string;
  /** JSON: non-secret settings. */
  public_fields: string;
  /** AES-256-GCM sealed JSON of the secret fields (see Sealer); never returned. */
  secret_fields: string;
  created_at: string;
}

/** A person who received a token from an organization in a month (`YYYY-MM`, UTC): monthly active persons. */
export interface MonthlyActiveTable {
  org_id: string;
  month: string;
  person_id: string;
}

/** Tokens an OIDC identity provider issued to a person at an SSO sign-in (one row per organization, person and client). */
export interface SsoOidcTokenTable {
  id: string;
  org_id: string;
  person_id: string;
  provider: string;
  client_id: string;
  issuer: string;
  /** `sub` of the person at the provider. */
  subject: string;
  /** JSON array of the granted scopes. */
  scopes: string;
  token_type: string;
  /** AES-256-GCM sealed JSON `{access_token, refresh_token?, id_token?}` (see Sealer); null once revoked. */
  sealed_tokens: string | null;
  /** sha256 of the access and refresh tokens, to find a token by value (deprecated revoke). */
  access_token_sha256: string | null;
  refresh_token_sha256: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
  /** The SSO sign-in (challenge id) that stored the current tokens; replaced with them (migration 0018). */
  authentication_id: string | null;
}

/**
 * Refresh tokens of the hosted login's OAuth2 clients. Each use rotates the token: the used one is kept (status `used`)
 * so that a second use is recognized as reuse, which revokes the whole family (every token descending from one grant).
 */
export interface OAuthRefreshTokenTable {
  id: string;
  family_id: string;
  org_id: string;
  client_id: string;
  person_id: string;
  scope: string;
  /** JSON: the authentications of the original grant. */
  authentications: string;
  /** When the person signed in for the original grant (epoch seconds; `auth_time` of the id_tokens of every refresh). Null for rows written before it was kept. */
  auth_time: number | null;
  /** The session at the provider the grant was made in (its token's jti; the `sid` of the id_tokens). */
  session_id: string | null;
  /** sha256 of the secret part of the token. */
  secret_sha256: string;
  /** `active`, `used` (rotated) or `revoked`. */
  status: string;
  /** The access token issued together with this refresh token (revoked when the family is). */
  access_jti: string;
  access_expires_at: string;
  expires_at: string;
  created_at: string;
  used_at: string | null;
}

/** Failed answers per organization, account and factor (account-level guessing defence, src/signin/guessing.ts). */
export interface GuessFailureTable {
  key: string;
  failures: number;
  locked_until: string | null;
  updated_at: string;
}

/** The one row (`id` 1) every organization write bumps; replicas poll it (organizations/settings.ts). */
/** One row: the number of the last revocation write. Every revocation bumps it in its own transaction (which also orders them). */
export interface RevocationFeedTable {
  id: number;
  seq: ColumnType<string | number, number, number>;
}

export interface SettingsVersionTable {
  id: number;
  version: ColumnType<string | number, number, number>;
}

/** A fixed-window rate-limit counter (http/rate-limit.ts); `window_start` in epoch milliseconds. */
export interface RateWindowTable {
  key: string;
  window_start: ColumnType<string | number, number, number>;
  count: number;
}

/** Persons per organization, kept by triggers on `persons` (0013): the exact `total_count` of an unfiltered listing. */
export interface OrgPersonCountTable {
  org_id: string;
  persons: ColumnType<string | number, never, never>;
}

/** When an OAuth2 client last obtained tokens (0016; oauth/client-usage.ts). */
export interface OAuthClientUsageTable {
  org_id: string;
  client_id: string;
  last_used: string;
}

export interface Database {
  oauth_client_usage: OAuthClientUsageTable;
  org_person_counts: OrgPersonCountTable;
  settings_version: SettingsVersionTable;
  revocation_feed: RevocationFeedTable;
  rate_windows: RateWindowTable;
  guess_failures: GuessFailureTable;
  sso_oidc_tokens: SsoOidcTokenTable;
  oauth_refresh_tokens: OAuthRefreshTokenTable;
  monthly_active: MonthlyActiveTable;
  external_credentials: ExternalCredentialTable;
  subject_revocations: SubjectRevocationTable;
  webhooks: WebhookTable;
  webhook_triggers: WebhookTriggerTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_signing_keys: WebhookSigningKeyTable;
  groups: GroupTable;
  rbac_permissions: RbacPermissionTable;
  rbac_roles: RbacRoleTable;
  person_grants: PersonGrantTable;
  org_attributes: OrgAttributeTable;
  organizations: OrganizationTable;
  persons: PersonTable;
  handles: HandleTable;
  federated_identities: FederatedIdentityTable;
  credentials: CredentialTable;
  challenges: ChallengeTable;
  revoked_tokens: RevokedTokenTable;
  token_parents: TokenParentTable;
  signing_keys: SigningKeyTable;
  attributes: AttributeTable;
  consents: ConsentTable;
  events: EventTable;
  mailbox: MailboxTable;
}
