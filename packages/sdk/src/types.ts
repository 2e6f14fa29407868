/**
 * Data shapes exchanged with the Keyway API and carried by SDK events.
 * Field names follow the wire format (snake_case) exactly.
 * @module Types
 */

/** Kind of a person handle. */
export type HandleType = 'email_address' | 'phone_number' | 'username';

/** A handle (email address, phone number or username) of a person. */
export interface PersonHandle {
  /** Kind of handle. */
  type: HandleType;
  /** The handle itself, e.g. `ada@example.com` or `+15551234567`. */
  value: string;
}

/** Ways a person can authenticate. */
export type AuthenticationMethod =
  | 'webauthn'
  | 'email_link'
  | 'sms_link'
  | 'otp_via_sms'
  | 'otp_via_email'
  | 'totp'
  | 'oidc'
  | 'saml'
  | 'api'
  | 'direct_id'
  | 'password'
  | 'impersonate'
  | 'anonymous';

/** Every challenge type the server may send. */
export type ChallengeType =
  | 'ui_customization'
  | 'authn_context_update'
  | 'proxy'
  | 'webauthn_create'
  | 'webauthn_get'
  | 'nonce'
  | 'otp'
  | 'oidc'
  | 'saml'
  | 'password_set'
  | 'password_verify'
  | 'password_reset'
  | 'totp_register'
  | 'totp_verify';

/** Fields shared by every challenge. */
export interface ChallengeBase<T extends string = ChallengeType, O = Record<string, unknown>> {
  /** Challenge id, echoed in the attestation. */
  id: string;
  /** Challenge type. */
  type: T;
  /** Authentication method the challenge belongs to. */
  authentication_method?: AuthenticationMethod;
  /** Type-specific options. */
  options: O;
}

/** A nonce challenge: the SDK answers it automatically. */
export interface NonceChallenge extends ChallengeBase<'nonce', { challenge: string }> {}
/** An OTP challenge: a code was sent by email or SMS and must be typed in. */
export interface OTPChallenge extends ChallengeBase<'otp', { delivery_delayed?: true }> {}
/** Options of a TOTP registration challenge. */
export interface TOTPRegisterOptions {
  /** `otpauth://` URI to put into an authenticator app. */
  key_uri: string;
  /** PNG QR code of `key_uri`, base64-encoded. */
  qr_code_data_b64: string;
  /** One-time recovery codes to show to the person once. */
  recovery_codes: string[];
}
/** A TOTP registration challenge: show the key, then ask for a first code. */
export interface TOTPRegisterChallenge extends ChallengeBase<'totp_register', TOTPRegisterOptions> {}
/** A TOTP verification challenge: ask for the current code of the authenticator app. */
export interface TOTPVerifyChallenge extends ChallengeBase<'totp_verify', Record<string, unknown>> {}
/** One server-sent password rule. */
export interface PasswordValidationRule {
  /** Name reported when the rule fails, e.g. `min_length`. */
  name: string;
  /** Regular expression source. */
  pattern: string;
  /** Whether the password must match the pattern or must not. */
  match_type: 'must_match' | 'must_not_match';
  /** Optional qualifiers; `case_insensitive` adds the `i` flag. */
  qualifiers?: Array<'case_insensitive'>;
}
/** One password rule as the server sends it (`validation_rules.regular_expressions[]`). */
export interface PasswordRuleExpression {
  name: string;
  pattern: string;
  match_type: 'must_match' | 'must_not_match';
  /** `case_insensitive` adds the `i` flag. */
  pattern_qualifiers?: Array<'case_insensitive'>;
}
/** Options of password set and reset challenges. */
export interface PasswordRulesOptions {
  /**
   * Rules the new password must satisfy: `{ regular_expressions }` (what the server sends), or a bare list of rules
   * (servers before 2026-11-28); the SDK reads both and hands the rules to the app as {@link PasswordValidationRule}s.
   */
  validation_rules?: { regular_expressions: PasswordRuleExpression[] } | PasswordValidationRule[];
}
/** A password-set challenge (sign-up or first password). */
export interface PasswordSetChallenge extends ChallengeBase<'password_set', PasswordRulesOptions> {}
/** A password-verify challenge (sign-in with a password). */
export interface PasswordVerifyChallenge extends ChallengeBase<'password_verify', Record<string, unknown>> {}
/** A password-reset challenge (recovery). */
export interface PasswordResetChallenge extends ChallengeBase<'password_reset', PasswordRulesOptions> {}
/** WebAuthn creation options as sent by the server (binary fields base64url-encoded). */
export interface WebAuthnCreateOptions {
  /** Random challenge, base64url. */
  challenge: string;
  /** Relying party; `id` is the passkey scope. */
  rp: { id?: string; name?: string };
  /** The person; `id` is base64url. */
  user: { id: string; name: string; displayName: string };
  /** Accepted algorithms. */
  pubKeyCredParams: Array<{ type: 'public-key'; alg: number }>;
  /** Authenticator requirements. */
  authenticatorSelection?: {
    authenticatorAttachment?: 'platform' | 'cross-platform';
    userVerification?: 'required' | 'preferred' | 'discouraged';
    residentKey?: 'required' | 'preferred' | 'discouraged';
    requireResidentKey?: boolean;
  };
  /** Milliseconds before the prompt gives up. */
  timeout?: number;
  /** WebAuthn extensions. */
  extensions?: Record<string, unknown>;
  /** Attestation conveyance. */
  attestation?: 'none' | 'indirect' | 'direct' | 'enterprise';
  /** Credentials that must not be created again (ids base64url). */
  excludeCredentials?: WebAuthnCredentialDescriptor[];
}
/** A credential reference (id base64url). */
export interface WebAuthnCredentialDescriptor {
  /** Credential id, base64url. */
  id: string;
  /** Always `public-key`. */
  type: 'public-key';
  /** Transports hints. */
  transports?: string[];
}
/** WebAuthn assertion options as sent by the server (binary fields base64url-encoded). */
export interface WebAuthnGetOptions {
  /** Random challenge, base64url. */
  challenge: string;
  /** Passkey scope. */
  rpId?: string;
  /** Milliseconds before the prompt gives up. */
  timeout?: number;
  /** User verification requirement. */
  userVerification?: 'required' | 'preferred' | 'discouraged';
  /** Credentials that may answer. */
  allowCredentials?: WebAuthnCredentialDescriptor[];
  /** WebAuthn extensions. */
  extensions?: Record<string, unknown>;
}
/** A passkey registration challenge. */
export interface WebAuthnCreateChallenge extends ChallengeBase<'webauthn_create', WebAuthnCreateOptions> {}
/** A passkey sign-in challenge. */
export interface WebAuthnGetChallenge extends ChallengeBase<'webauthn_get', WebAuthnGetOptions> {}
/** An OIDC challenge: the person signs in at the identity provider. */
export interface OIDCChallenge extends ChallengeBase<'oidc', { auth_code_url: string }> {}
/** A SAML challenge: the person signs in at the SAML identity provider. */
export interface SAMLChallenge extends ChallengeBase<'saml', { start_authentication_url: string }> {}
/** A proxy challenge: the SDK polls until another device or tab completes it (e.g. a magic link). */
export interface ProxyChallenge extends ChallengeBase<'proxy', { challenge_id: string; delivery_delayed?: true }> {}
/** Options of a UI customization challenge. */
export interface UICustomizationOptions {
  /** Branding of the hosted sign-in page (colours, logo, texts). */
  authn_redirect_page_ui_config?: Record<string, unknown>;
}
/** A UI customization challenge: branding for the sign-in UI. */
export interface UICustomizationChallenge extends ChallengeBase<'ui_customization', UICustomizationOptions> {}
/** An authentication-context update: continue with another factor in another organization. */
export interface AuthnContextUpdateChallenge
  extends ChallengeBase<'authn_context_update', { target_org_id: string; factor: Factor }> {}

/** Any challenge the server may send. */
export type Challenge =
  | NonceChallenge
  | OTPChallenge
  | TOTPRegisterChallenge
  | TOTPVerifyChallenge
  | PasswordSetChallenge
  | PasswordVerifyChallenge
  | PasswordResetChallenge
  | WebAuthnCreateChallenge
  | WebAuthnGetChallenge
  | OIDCChallenge
  | SAMLChallenge
  | ProxyChallenge
  | UICustomizationChallenge
  | AuthnContextUpdateChallenge;

/** Answer to a challenge, posted to `/attestation/v3`. */
export interface Attestation<T extends ChallengeType = ChallengeType, D = Record<string, unknown>> {
  /** Id of the challenge being answered. */
  challenge_id: string;
  /** Type of the challenge being answered. */
  challenge_type: T;
  /** The answer. */
  data: D;
}
/** Answer to a nonce challenge. */
export interface NonceAttestation extends Attestation<'nonce', { challenge: string }> {}
/** Answer to an OTP challenge. */
export interface OTPAttestation extends Attestation<'otp', { otp: string }> {}
/** Answer to a TOTP challenge. */
export interface TOTPAttestation extends Attestation<'totp_register' | 'totp_verify', { otp: string }> {}
/** Answer to a password challenge. */
export interface PasswordAttestation
  extends Attestation<'password_set' | 'password_verify' | 'password_reset', { password: string }> {}
/** Answer to a WebAuthn challenge: the serialized credential (binary fields base64url). */
export interface WebAuthnAttestation
  extends Attestation<'webauthn_create' | 'webauthn_get', Record<string, unknown>> {}
/** Answer to an OIDC challenge after the provider returned. */
export interface OIDCAttestation extends Attestation<'oidc', { code?: string }> {}
/** Answer to a SAML challenge after the provider returned. */
export interface SAMLAttestation extends Attestation<'saml', { code?: string }> {}
/** Answer to a proxy challenge (the SDK only polls; kept for completeness). */
export interface ProxyAttestation extends Attestation<'proxy', Record<string, unknown>> {}

/** How a popup-capable factor opens the provider. */
export type UXMode = 'popup' | 'redirect';
/** Options of the `oidc` factor. */
export interface OIDCFactorOptions {
  /** OAuth client id registered at the provider. */
  client_id?: string;
  /** Provider name, e.g. `google`. */
  provider?: string;
  /** `popup` (default) or `redirect`. */
  ux_mode?: UXMode;
  /** http(s) URL to come back to in redirect mode; defaults to the current page. */
  redirect_target?: string;
  /** Ask the provider for the person's groups. */
  requires_groups?: boolean;
  /** Set by the SDK. */
  pkce_code_challenge?: string;
  /** Set by the SDK. */
  csrf_token?: string;
}
/** Options of the `saml` factor. */
export interface SAMLFactorOptions {
  /** Id of the SAML provider credentials of the organization. */
  provider_credentials_id?: string;
  /** `popup` (default) or `redirect`. */
  ux_mode?: UXMode;
  /** http(s) URL to come back to in redirect mode; defaults to the current page. */
  redirect_target?: string;
  /** Set by the SDK. */
  pkce_code_challenge?: string;
  /** Set by the SDK. */
  csrf_token?: string;
}
/** Options of the `email_link` and `sms_link` factors. */
export interface LinkFactorOptions {
  /** Page the link in the message opens. */
  redirect_target?: string;
}
/** Options of the `webauthn` factor. */
export interface WebAuthnFactorOptions {
  /** Passkey scope (relying party id); defaults to the current hostname. */
  scope?: string;
  /** Credential ids the browser may offer; defaults to the ones remembered for the scope. */
  available_credential_ids?: string[];
  /** `platform` requires a built-in authenticator. */
  attachment?: 'any' | 'platform';
  /** User verification requirement. */
  user_verification?: 'required' | 'preferred' | 'discouraged';
  /** Discoverable credential requirement. */
  resident_key?: 'required' | 'preferred' | 'discouraged';
  /** Attestation conveyance. */
  attestation?: 'none';
  /**
   * Sign up with a passkey: for an e-mail address or phone number the server first sends a sign-in link to the handle
   * (a `proxy` challenge the SDK polls: `linkSent`, then `linkConfirmed` once its owner opened and confirmed it), then
   * asks for the new passkey (`webauthn_create`); a username gets `webauthn_create` at once (409 `person exists` when
   * taken). Without it, a handle signs in with a passkey it already has (the server answers every handle alike).
   */
  sign_up?: boolean;
}
/** Options of the `password` factor. */
export interface PasswordFactorOptions {
  /**
   * Sign up with a password: for an e-mail address or phone number the server first sends a sign-in link to the handle
   * (a `proxy` challenge the SDK polls: `linkSent`, then `linkConfirmed` once its owner opened and confirmed it), then
   * asks for the new password (`password_set`); a username gets `password_set` at once (409 `person exists` when
   * taken). Without it, a handle signs in with its password: the server answers every handle alike, and a wrong
   * password, or an address without one, is `incorrectPasswordSubmitted`.
   */
  sign_up?: boolean;
}
/** An authentication factor: a method and its options. */
export interface Factor {
  /** The authentication method. */
  method: AuthenticationMethod;
  /** Method-specific options. */
  options?: OIDCFactorOptions | SAMLFactorOptions | LinkFactorOptions | WebAuthnFactorOptions | PasswordFactorOptions | Record<string, unknown>;
}
/** Body of `POST /id/v2`. */
export interface IDRequest {
  /** The person's handle; omitted for OIDC, SAML and WebAuthn discovery. */
  handle?: string;
  /** The factor to authenticate with. */
  factor: Factor;
  /** Binds SSO returns and hosted login to this browser. */
  metadata?: { csrf_token?: string; pkce_code_challenge?: string };
}
/** Body of `POST /recover`. */
export interface RecoverRequest {
  /** Email address or phone number of the person. */
  handle: string;
  /** How the recovery code or link is delivered. */
  factor: { method: AuthenticationMethod };
}
/** Body of `POST /sso/resolve`. */
export interface SSOResolveRequest {
  /** `sso_challenge_id` of the return URL. */
  challenge_id: string;
  /** `sso_code` of the return URL. */
  code: string;
  /** The PKCE verifier kept in local storage. */
  pkce_code_verifier: string;
}

/** One authentication recorded in a token. */
export interface TokenAuthentication {
  /** Method used. */
  method: AuthenticationMethod;
  /** Handle used, when any. */
  handle?: string;
}
/** Claims of a Keyway user token. */
export interface UserTokenClaims {
  /** Person id. */
  person_id: string;
  /** Organization id. */
  oid: string;
  /** Whether this is the person's first token. */
  first_token?: boolean;
  /** Methods used so far. */
  authenticated_methods?: AuthenticationMethod[];
  /** Authentications with their handles. */
  authentications?: TokenAuthentication[];
  /** `anonymous` for anonymous persons. */
  person_type?: string;
  /** Groups (claim name configurable, default `groups`). */
  groups?: string[];
  /** What the token is: `user`, `anonymous`, or `access` (an OAuth2 access token of the hosted login). */
  token_use?: string;
  /** OAuth2 client an access token was issued to. */
  client_id?: string;
  /** Space-separated scopes of an access token. */
  scope?: string;
  /** Expiry (seconds since epoch). */
  exp?: number;
  /** Other claims. */
  [claim: string]: unknown;
}
/** Claims of a token container: a token that wraps the user token. */
export interface TokenContainer {
  /** The wrapped user token. */
  user_token: string;
  /** Other claims. */
  [claim: string]: unknown;
}
/** Result of `GET /token/v2` (token for another organization). */
export interface TokenResponse {
  /** `token` when the person may enter directly, `challenge_list` when the organization asks for more first. */
  type: 'token' | 'challenge_list';
  /** The token (a token container or user token), with `type: 'token'`. */
  token?: string;
  /** Challenges to complete, with `type: 'challenge_list'`. */
  challenges?: Challenge[];
}
/** Body of `POST /token/validate`. */
export interface TokenValidationRequest {
  /** The token to check. */
  token: string;
}
/** Result of `POST /token/validate`. */
export interface TokenValidationResponse {
  /** Whether the token is valid. */
  valid: boolean;
  /** Why it is not. */
  invalidity_reason?: string;
  /** Seconds left. */
  expires_in_seconds?: number;
  /** Expiry time (ISO 8601). */
  expires_at?: string;
}
/** A person as returned by `/me`. */
export interface Person {
  /** Whether the person may sign in. */
  active: boolean;
  /** Person id. */
  person_id: string;
  /** `regular` or `anonymous`. */
  person_type: string;
  /** Data region. */
  region?: string;
  /** Handles. */
  handles?: PersonHandle[];
  /** Groups. */
  groups?: string[];
  /** Attributes by bucket. */
  attributes?: Record<string, Record<string, unknown>>;
}
/** An organization. */
export interface Organization {
  /** Organization id. */
  id: string;
  /** Parent organization id. */
  parent_id?: string | null;
  /** Display name. */
  org_name: string;
  /** Tenant name. */
  tenant_name?: string;
  /** Organizations managed by this one. */
  managed_organizations?: Organization[];
}
/** One entry of `/me/orgs`. */
export interface OrganizationHierarchyEntry {
  /** Organization id. */
  id: string;
  /** Parent organization id. */
  parent_id?: string | null;
  /** Display name. */
  name: string;
  /** Tenant name. */
  tenant_name?: string;
  /** Direct children. */
  children_ids?: string[];
  /** Organizations whose persons are pooled into this one. */
  person_pool_orgs_ids?: string[];
  /** Organizations whose groups are pooled into this one. */
  group_pool_orgs_ids?: string[];
  /** Managing organization. */
  manager_org_id?: string | null;
  /** Whether the person belongs to the manager organization. */
  person_in_manager_org?: boolean;
  /** Whether RBAC pools are inherited. */
  inherits_rbac_pools?: boolean;
}
/** Result of `/me/orgs`. */
export interface OrganizationsResponse {
  /** The hierarchy visible to the person. */
  org_hierarchy: OrganizationHierarchyEntry[];
}
/** A credential of the person. */
export interface Credential {
  /** Credential id. */
  id: string;
  /** Last use (ISO 8601); `null` when it was never used. */
  last_used?: string | null;
  /** Credential kind. */
  type: 'password' | 'public-key' | 'totp';
  /** Label shown to the person. */
  label?: string;
  /** Kind-specific parameters. */
  params?: Record<string, unknown>;
}
/** Result of `GET /me`. */
export interface MeResponse {
  /** The person. */
  person: Person;
  /** The person's organizations. */
  organizations: Organization[];
  /** The person's handles. */
  handles: PersonHandle[];
  /** The person's credentials. */
  credentials: Credential[];
}
/** Attribute buckets and who may access them. */
export type AttributeBucket =
  | 'end_user_read_write'
  | 'end_user_read_only'
  | 'end_user_no_access'
  | 'person_pool-end_user_read_write'
  | 'person_pool-end_user_read_only'
  | 'person_pool-end_user_no_access';
/** Attributes of one bucket, by name. */
export interface Attributes {
  /** Value of the attribute (any JSON value). */
  [name: string]: unknown;
}
/** Attributes keyed by bucket (`GET /attributes`). */
export interface BucketAttributes {
  /** Attributes of each bucket. */
  [bucket: string]: Attributes;
}
/** A recorded GDPR consent. */
export interface GDPRConsent {
  /** The consent level, e.g. `marketing`. */
  consent_level: string;
  /** When it was given (ISO 8601). */
  created_at: string;
}
/** Body of `POST`/`PUT /consent/gdpr`. */
export interface GDPRConsentRequest {
  /** Levels to add or set. */
  consent_levels: string[];
}
/** Result of the GDPR consent calls. */
export interface GDPRConsentResponse {
  /** Consents now recorded. */
  consents: GDPRConsent[];
}
/** Body of `POST /persons/anonymous`. */
export interface AnonymousPersonRequest {
  /** Data region of the new person. */
  region?: string;
}
/** Body of `POST /persons/{person_id}/impersonate/v2`. */
export interface ImpersonationRequest {
  /** Page to open as the impersonated person. */
  target_url: string;
}
/** Result of an impersonation. */
export interface ImpersonationResponse {
  /** URL that signs the caller in as the person. */
  url?: string;
  /** Token of the impersonated person, when returned directly. */
  token?: string;
  /** Other fields. */
  [key: string]: unknown;
}
/** Result of `POST /direct-id`. */
export interface DirectIDResponse {
  /** Opaque value that signs the person in once. */
  direct_id: string;
}
/** Pagination block of a list answer. */
export interface Pagination {
  /** Page size. */
  limit: number;
  /** Items skipped. */
  offset: number;
  /** Items in total. */
  total_count: number;
}
/** Envelope of every API answer. */
export interface Envelope<T = unknown> {
  /** The payload. */
  result?: T;
  /** Errors; the first one's message is what the SDK reports. */
  errors?: Array<{ httpcode: number; message: string }>;
  /** Pagination of list answers. */
  meta?: { pagination?: Pagination };
}
/** OAuth token answer of the hosted login (`POST /oauth2/tokens`). */
export interface OAuthTokenResponse {
  /** Access token. */
  access_token: string;
  /** OpenID Connect ID token. */
  id_token?: string;
  /** Usually `Bearer`. */
  token_type?: string;
  /** Lifetime in seconds. */
  expires_in?: number;
  /** Refresh token, when issued. */
  refresh_token?: string;
}

/** Claims of an OpenID Connect id_token of the hosted login: who the person is, for display (never a bearer credential). */
export interface IdTokenClaims {
  /** Person id. */
  sub?: string;
  /** The client the id_token was issued to. */
  aud?: string;
  /** The person's e-mail address, when they have one. */
  email?: string;
  /** Whether the address was proved (a code or link answered, a trusted provider, or the organization's import). */
  email_verified?: boolean;
  /** Methods of the sign-in. */
  amr?: string[];
  /** Other claims. */
  [claim: string]: unknown;
}
/** Answer of OpenID Connect userinfo (`GET /oauth2/userinfo`). */
export interface UserInfo {
  /** Person id. */
  sub: string;
  /** Organization id. */
  org_id?: string;
  /** E-mail address, with whether it was proved. */
  email?: string;
  email_verified?: boolean;
  /** Phone number, with whether it was proved. */
  phone_number?: string;
  phone_number_verified?: boolean;
  /** Username. */
  preferred_username?: string;
  /** Groups of the person. */
  groups?: string[];
  /** Other claims. */
  [claim: string]: unknown;
}

/** Names of the analytics events the SDK sends to `/actions/sdk`. */
export type AnalyticsEventName =
  | 'AuthenticationSucceeded_v1'
  | 'AuthenticationFailed_v1'
  | 'PersonIdentified_v1'
  | 'PersonLoggedOut_v1'
  | 'KeywaySDKLoaded_v1'
  | 'VirtualPageLoaded_v1';
/** Body of `POST /actions/sdk`. */
export interface AnalyticsEvent {
  /** Event name. */
  event_name: AnalyticsEventName;
  /** Organization id. */
  organization_id: string;
  /** Per-tab id kept in session storage. */
  analytics_correlation_id: string;
  /** Page URL. */
  window_location: string;
  /** Browser user agent, at most 500 characters. */
  user_agent: string;
  /** Event-specific data. */
  event_data: Record<string, unknown>;
}

/** Fields every SDK event carries. */
export interface SDKEventBase {
  /** Id of the flow that emitted the event (events of a replaced flow are dropped). */
  flowId?: number;
}
/** `idFlowStarted` and `recoveryFlowStarted`. */
export interface FlowStartedEvent extends SDKEventBase {
  /** Handle the flow runs for, when any. */
  handle?: string;
  /** Factor of the flow. */
  factor: Factor;
}
/** `idFlowSucceeded` and `recoveryFlowSucceeded`. */
export interface FlowSucceededEvent extends SDKEventBase {
  /** The new user token. */
  token: string;
  /** Factor of the flow. */
  factor: Factor;
  /** Handle the flow ran for, when any. */
  handle?: string;
}
/** `idFlowFailed` and `recoveryFlowFailed`. */
export interface FlowFailedEvent extends SDKEventBase {
  /** Error message (`recovery_failed` for recovery flows). */
  errorText: string;
  /** Factor of the flow. */
  factor: Factor;
  /** Handle the flow ran for, when any. */
  handle?: string;
  /** Token held before the flow (MFA, step-up, anonymous upgrade). */
  previousToken?: string;
  /** Challenge being processed when the flow failed. */
  challengeId?: string;
  /** Slug of the failure (the `slug` of the error, or `client_side_error`). */
  failureDetail: string;
  /** The error itself. */
  error: unknown;
}
/** Prompt events: the flow waits until `submit` is called (or the flow is cancelled). */
export interface PromptEvent<V = string> extends SDKEventBase {
  /** Challenge waiting for the answer. */
  challengeId: string;
  /** Answers the prompt. */
  submit: (value: V) => void;
}
/** `codeSent`: a one-time code was sent to the person. */
export interface CodeSentEvent extends SDKEventBase {
  /** Challenge the code belongs to. */
  challengeId: string;
  /** Method used to send it. */
  method?: AuthenticationMethod;
  /** Where it was sent. */
  handle?: string;
  /**
   * The mail server did not take the message yet (the challenge's `delivery_delayed`): the server keeps it and
   * retries, so it arrives late rather than never. Tell the person it is delayed.
   */
  delayed?: boolean;
}
/** `linkSent`: a sign-in link was sent; the flow polls until its owner opens it and confirms on its page. */
export interface LinkSentEvent extends SDKEventBase {
  /** The proxy challenge being polled. */
  challengeId: string;
  /** `email_link` or `sms_link`. */
  method: AuthenticationMethod;
  /** Where it was sent. */
  handle?: string;
  /**
   * Whether the link proves the handle before another step of the same flow (a password or passkey sign-up, or a
   * handle added to the signed-in person) rather than completing the sign-in itself.
   */
  proof: boolean;
  /** The mail server did not take the message yet; it arrives as soon as it answers (see {@link CodeSentEvent.delayed}). */
  delayed?: boolean;
}
/** `linkConfirmed`: the owner confirmed the link; the flow goes on (or ends with the token). */
export interface LinkConfirmedEvent extends SDKEventBase {
  /** The proxy challenge that was completed. */
  challengeId: string;
}
/** `codeRequested`: the flow waits for an OTP or TOTP code. */
export interface CodeRequestedEvent extends PromptEvent {
  /** `otp` for codes sent by email/SMS, `totp` for authenticator apps. */
  kind: 'otp' | 'totp';
}
/** `totpKeyGenerated`: show the key to the person before asking for a code. */
export interface TOTPKeyGeneratedEvent extends SDKEventBase, TOTPRegisterOptions {
  /** Challenge being registered. */
  challengeId: string;
}
/** `passwordSetReady`, `passwordResetReady`: ask for a new password. */
export interface PasswordRulesEvent extends PromptEvent {
  /** Rules the password must satisfy. */
  rules: PasswordValidationRule[];
}
/** `invalidPasswordSubmitted`: the new password broke rules; the flow asks again. */
export interface InvalidPasswordEvent extends SDKEventBase {
  /** Names of the failing rules (empty when the server refused it). */
  failedRules: string[];
}
/** `incorrectCodeSubmitted` and `incorrectPasswordSubmitted`: the flow asks again. */
export interface IncorrectAnswerEvent extends SDKEventBase {
  /** Challenge that was answered wrongly. */
  challengeId: string;
  /** Analytics slug of the failure. */
  failureDetail: string;
}
/** `webAuthnChallengeProcessed`. */
export interface WebAuthnProcessedEvent extends SDKEventBase {
  /** Challenge that was processed. */
  challengeId: string;
  /** `webauthn_create` or `webauthn_get`. */
  type: 'webauthn_create' | 'webauthn_get';
  /** Credential id (base64url). */
  credentialId: string;
}
/** `oauthFlowStarted`. */
export interface OAuthFlowStartedEvent extends SDKEventBase {
  /** `oidc` or `saml`. */
  method: 'oidc' | 'saml';
  /** Popup or redirect. */
  uxMode: UXMode;
  /** URL of the provider. */
  url: string;
}
/** `oauthFlowFailed`, `popupFailed` and `clientSideError`. */
export interface ErrorEvent extends SDKEventBase {
  /** Error message. */
  errorText: string;
  /** The error itself. */
  error: unknown;
}
/** `uiCustomizationReceived`. */
export interface UICustomizationEvent extends SDKEventBase {
  /** Branding properties. */
  config: Record<string, unknown>;
}
/** `redirectDiscovered`: the handle belongs to an organization that signs in elsewhere. */
export interface RedirectDiscoveredEvent extends SDKEventBase {
  /** Organization to continue in. */
  targetOrgId: string;
  /** Factor to continue with. */
  factor: Factor;
}
/** `userAuthenticatedFromURL`: the page was opened with parameters that yielded a token. */
export interface URLAuthenticatedEvent extends SDKEventBase {
  /** The new user token. */
  token: string;
}
/** Every event and its payload. */
export interface SDKEvents {
  /** A sign-in flow started. */
  idFlowStarted: FlowStartedEvent;
  /** A sign-in flow produced a token. */
  idFlowSucceeded: FlowSucceededEvent;
  /** A sign-in flow failed. */
  idFlowFailed: FlowFailedEvent;
  /** A recovery flow started. */
  recoveryFlowStarted: FlowStartedEvent;
  /** A recovery flow produced a token. */
  recoveryFlowSucceeded: FlowSucceededEvent;
  /** A recovery flow failed. */
  recoveryFlowFailed: FlowFailedEvent;
  /** A one-time code was sent. */
  codeSent: CodeSentEvent;
  /** A code must be typed in. */
  codeRequested: CodeRequestedEvent;
  /** A sign-in link was sent; the flow waits until its owner confirms it. */
  linkSent: LinkSentEvent;
  /** The sign-in link was confirmed. */
  linkConfirmed: LinkConfirmedEvent;
  /** A TOTP key was generated. */
  totpKeyGenerated: TOTPKeyGeneratedEvent;
  /** The code was wrong. */
  incorrectCodeSubmitted: IncorrectAnswerEvent;
  /** A new password must be chosen. */
  passwordSetReady: PasswordRulesEvent;
  /** The password must be typed in. */
  passwordVerifyReady: PromptEvent;
  /** A new password must be chosen during recovery. */
  passwordResetReady: PasswordRulesEvent;
  /** The new password was refused. */
  invalidPasswordSubmitted: InvalidPasswordEvent;
  /** The password was wrong. */
  incorrectPasswordSubmitted: IncorrectAnswerEvent;
  /** A passkey was created or used. */
  webAuthnChallengeProcessed: WebAuthnProcessedEvent;
  /** The identity provider was opened. */
  oauthFlowStarted: OAuthFlowStartedEvent;
  /** The identity provider flow failed. */
  oauthFlowFailed: ErrorEvent;
  /** The popup could not be opened. */
  popupFailed: ErrorEvent;
  /** Branding arrived. */
  uiCustomizationReceived: UICustomizationEvent;
  /** The flow continues in another organization. */
  redirectDiscovered: RedirectDiscoveredEvent;
  /** URL parameters yielded a token. */
  userAuthenticatedFromURL: URLAuthenticatedEvent;
  /** Something failed in the browser. */
  clientSideError: ErrorEvent;
}
/** Name of an SDK event. */
export type SDKEventName = keyof SDKEvents;
