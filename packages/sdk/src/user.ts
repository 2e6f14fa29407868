import { track } from './analytics.js';
import type { KeywayClient, RequestOptions } from './client.js';
import { InvalidActionError, mapServerError } from './errors.js';
import { jwtClaims } from './jwt.js';
import { decodeToken } from './token.js';
import type {
  AttributeBucket,
  Attributes,
  BucketAttributes,
  DirectIDResponse,
  GDPRConsent,
  IdTokenClaims,
  ImpersonationResponse,
  MeResponse,
  OrganizationsResponse,
  TokenResponse,
  TokenValidationResponse,
  UserInfo,
  UserTokenClaims,
} from './types.js';

/** Bucket used when none is given. */
export const DEFAULT_BUCKET: AttributeBucket = 'end_user_read_write';

/** Options of {@link User.logout}. */
export interface LogoutOptions {
  /** Wait until the revocation reached this region only, or every region (`Keyway-Required-Consistency`). */
  consistency?: 'local_region' | 'all_regions';
  /** Seconds the server may wait for that consistency (`Keyway-Required-Consistency-Timeout`). */
  consistencyTimeout?: number;
}

const list = (names?: string[]) => names?.join(',');

/** Why a hosted login's user cannot make Keyway's first-party person calls. */
export const ACCESS_TOKEN_REFUSED =
  'this user holds an OAuth2 access token of the hosted login, which Keyway accepts only at userinfo and introspection: use userInfo(), or sign in with the SDK for a first-party session';

/**
 * A person holding a user token. Authenticated when the token is not expired, not anonymous and not
 * logged out. Every call sends the token as bearer.
 *
 * ```ts
 * const user = new User(client, token);
 * if (user.isAuthenticated) await user.setAttributes({ theme: 'dark' });
 * ```
 */
export class User {
  /** The user token (the inner token for token containers). */
  readonly token: string;
  /** Decoded claims; `groups` comes from the configured groups claim. */
  readonly claims: UserTokenClaims;
  /** Set by {@link User.logout}. */
  loggedOut = false;

  /**
   * @param client - the client the calls go through.
   * @param token - a user token, a JSON-quoted token, or a token container.
   * @throws {@link errors.InvalidActionError} `token must be a string`; {@link errors.UnexpectedError} when undecodable.
   */
  constructor(
    readonly client: KeywayClient,
    token: unknown,
  ) {
    const { token: inner, ...claims } = decodeToken(token, client.config.groupsClaimName);
    this.token = inner;
    this.claims = claims as UserTokenClaims;
  }

  /** Person id. */
  get personId(): string {
    return this.claims.person_id;
  }
  /** Organization id of the token. */
  get orgId(): string {
    return this.claims.oid;
  }
  /** Groups of the person. */
  get groups(): string[] {
    return this.claims.groups ?? [];
  }
  /** Methods used to obtain the token. */
  get authenticatedMethods(): string[] {
    return this.claims.authenticated_methods ?? [];
  }
  /** Whether the person is anonymous (never counts as authenticated). */
  get isAnonymous(): boolean {
    return this.claims.person_type === 'anonymous';
  }
  /** Whether the token has expired (by its `exp` claim). */
  get isExpired(): boolean {
    const { exp } = this.claims;
    return typeof exp === 'number' && exp * 1000 <= Date.now();
  }
  /** Token held, not expired, not anonymous, not logged out. */
  get isAuthenticated(): boolean {
    return !this.isAnonymous && !this.isExpired && !this.loggedOut;
  }
  /**
   * What the token is (its `token_use` claim): `user`, `anonymous`, or `access`, an OAuth2 access token of the hosted
   * login ({@link HostedLoginUser}), which first-party person calls refuse.
   */
  get tokenUse(): string {
    return this.claims.token_use ?? (this.isAnonymous ? 'anonymous' : 'user');
  }

  /**
   * Calls the API with this user's token. First-party person calls with an access token reject with
   * {@link errors.InvalidActionError} ({@link ACCESS_TOKEN_REFUSED}) without calling the server. @internal
   */
  call<T>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    if (this.loggedOut) return Promise.reject(new InvalidActionError('Cannot call methods on unauthenticated user'));
    if (this.tokenUse === 'access' && path !== '/token/revoke') return Promise.reject(new InvalidActionError(ACCESS_TOKEN_REFUSED));
    return this.client.request<T>(method, path, { token: this.token, ...o });
  }

  /**
   * OpenID Connect userinfo (`GET /oauth2/userinfo`): the person's id, organization, handles (each with whether it was
   * proved) and groups. Works with every token of the person, the hosted login's access token included.
   * @throws {@link errors.APIResponseError} (401) when the token is no longer valid.
   */
  async userInfo(): Promise<UserInfo> {
    if (this.loggedOut) throw new InvalidActionError('Cannot call methods on unauthenticated user');
    const r = await this.client.call<UserInfo>('GET', '/oauth2/userinfo', { token: this.token });
    if (r.status >= 400) throw mapServerError(r.status, String(r.body.error_description ?? r.body.error ?? `HTTP ${r.status}`));
    return r.body as unknown as UserInfo;
  }

  /** Asks the server whether the token is valid (`POST /token/validate`). */
  validate(): Promise<TokenValidationResponse> {
    return this.client.request('POST', '/token/validate', { body: { token: this.token }, org: this.orgId, token: null });
  }

  /** The person, organizations, handles and credentials (`GET /me`). */
  me(): Promise<MeResponse> {
    return this.call('GET', '/me');
  }

  /** The organizations the person can reach (`GET /me/orgs`). */
  organizations(): Promise<OrganizationsResponse> {
    return this.call('GET', '/me/orgs');
  }

  /**
   * Asks for a token of another organization of the person pool (`GET /token/v2`). The answer is
   * either a token or the challenges that organization requires first.
   */
  tokenForOrganization(orgId: string): Promise<TokenResponse> {
    return this.call('GET', '/token/v2', { org: orgId });
  }

  /** Attributes of several buckets (`GET /attributes`); all readable buckets when none are named. */
  getAttributes(buckets?: AttributeBucket[]): Promise<BucketAttributes> {
    return this.call('GET', '/attributes', { query: { buckets: list(buckets) } });
  }
  /** Attributes of one bucket (default `end_user_read_write`), optionally only the named ones. */
  getBucketAttributes(bucket: AttributeBucket = DEFAULT_BUCKET, names?: string[]): Promise<Attributes> {
    return this.call('GET', `/attributes/${bucket}`, { query: { attributes: list(names) } });
  }
  /** Replaces the given attributes in one bucket (`PUT`; default `end_user_read_write`). */
  setAttributes(attributes: Attributes, bucket: AttributeBucket = DEFAULT_BUCKET): Promise<Attributes> {
    return this.call('PUT', `/attributes/${bucket}`, { body: attributes });
  }
  /** Merges the given attributes into one bucket (`PATCH`; `null` removes). */
  updateAttributes(attributes: Attributes, bucket: AttributeBucket = DEFAULT_BUCKET): Promise<Attributes> {
    return this.call('PATCH', `/attributes/${bucket}`, { body: attributes });
  }
  /** Replaces attributes in several buckets at once (`PUT /attributes`). */
  setBucketsAttributes(attributes: BucketAttributes): Promise<BucketAttributes> {
    return this.call('PUT', '/attributes', { body: attributes });
  }
  /** Merges attributes into several buckets at once (`PATCH /attributes`). */
  updateBucketsAttributes(attributes: BucketAttributes): Promise<BucketAttributes> {
    return this.call('PATCH', '/attributes', { body: attributes });
  }
  /** Deletes the named attributes from one bucket. */
  async deleteAttributes(names: string[], bucket: AttributeBucket = DEFAULT_BUCKET): Promise<void> {
    await this.call('DELETE', `/attributes/${bucket}`, { query: { attributes: list(names) } });
  }

  /** GDPR consents given so far. */
  async consents(): Promise<GDPRConsent[]> {
    return (await this.call<{ consents: GDPRConsent[] }>('GET', '/consent/gdpr')).consents;
  }
  /** Replaces the consents with exactly `levels`. */
  async setConsents(levels: string[]): Promise<GDPRConsent[]> {
    return (await this.call<{ consents: GDPRConsent[] }>('PUT', '/consent/gdpr', { body: { consent_levels: levels } })).consents;
  }
  /** Adds `levels` to the consents. */
  async addConsents(levels: string[]): Promise<GDPRConsent[]> {
    return (await this.call<{ consents: GDPRConsent[] }>('POST', '/consent/gdpr', { body: { consent_levels: levels } })).consents;
  }
  /** Removes `levels` from the consents. */
  async removeConsents(levels: string[]): Promise<void> {
    await this.call('DELETE', '/consent/gdpr', { query: { consent_levels: list(levels) } });
  }
  /** Removes every consent. */
  async removeAllConsents(): Promise<void> {
    await this.call('DELETE', '/consent/gdpr', { query: { deleteAll: 'true' } });
  }

  /**
   * Acts as another person of the organization (`POST /persons/{person_id}/impersonate/v2`).
   * Needs the impersonation permission.
   */
  impersonate(personId: string, targetUrl: string, orgId: string = this.orgId): Promise<ImpersonationResponse> {
    return this.call('POST', `/persons/${encodeURIComponent(personId)}/impersonate/v2`, {
      body: { target_url: targetUrl },
      org: orgId,
    });
  }

  /** A single-use Direct-ID that signs the same person in elsewhere (`POST /direct-id`). */
  async directId(): Promise<DirectIDResponse> {
    // The server answers the id itself (spec §7 "result: a direct id"); older servers wrapped it.
    const r = await this.call<string | DirectIDResponse>('POST', '/direct-id');
    return typeof r === 'string' ? { direct_id: r } : r;
  }

  /**
   * Logs out: revokes the token (`POST /token/revoke`), then forgets it. Further calls fail with
   * `Cannot call methods on unauthenticated user`.
   */
  async logout(options: LogoutOptions = {}): Promise<void> {
    const headers: Record<string, string> = {};
    if (options.consistency) headers['Keyway-Required-Consistency'] = options.consistency;
    if (options.consistencyTimeout !== undefined) headers['Keyway-Required-Consistency-Timeout'] = String(options.consistencyTimeout);
    await this.call('POST', '/token/revoke', { body: { token: this.token }, headers });
    this.loggedOut = true;
    if (this.client.token === this.token) this.client.token = undefined;
    void track(this.client, 'PersonLoggedOut_v1', { person_id: this.personId });
  }
}

/**
 * A person without handles, created with {@link createAnonymousUser}. Never authenticated; a sign-in
 * with its token as `previousToken` upgrades the same person.
 */
export class AnonymousUser extends User {
  /** @throws {@link errors.InvalidActionError} when the token's `person_type` is not `anonymous`. */
  constructor(client: KeywayClient, token: unknown) {
    super(client, token);
    if (!this.isAnonymous) throw new InvalidActionError('an anonymous user token must have person_type anonymous');
  }
}

/**
 * The person of a hosted login as the application (the OAuth2 client) knows them. `token` is the access token: the
 * application sends it to its own API (resource servers check it by introspection, with its scopes), and
 * {@link User.userInfo} and {@link User.logout} take it. {@link HostedLoginUser.validate} asks userinfo, since
 * `/token/validate` answers for user tokens only. `idToken` and `idClaims` (e-mail address and whether it was
 * proved) identify the person for display; person id, organization, groups and methods come from the access token.
 * Keyway's first-party person calls (`me()`, attributes, consents, organizations, Direct-ID, impersonation, step-up)
 * do not accept an access token: they reject with {@link errors.InvalidActionError} without calling the server.
 */
export class HostedLoginUser extends User {
  /** The id_token of the hosted login, when one came with the access token (scope `openid`). */
  readonly idToken?: string;
  /** Claims of the id_token (empty without one). */
  readonly idClaims: IdTokenClaims;

  /** @throws {@link errors.InvalidActionError} when the token is not an access token. */
  constructor(client: KeywayClient, accessToken: unknown, idToken?: string) {
    super(client, accessToken);
    if (this.tokenUse !== 'access') throw new InvalidActionError('a hosted login user needs an OAuth2 access token (token_use access)');
    const claims = idToken ? (jwtClaims(idToken) as IdTokenClaims | undefined) : undefined;
    // An id_token of another person is not this user's.
    if (idToken && claims && (claims.sub ?? claims.person_id) === this.personId) this.idToken = idToken;
    this.idClaims = this.idToken ? claims! : {};
  }

  /** OAuth2 client the access token was issued to. */
  get clientId(): string | undefined {
    return this.claims.client_id;
  }
  /** Scopes of the access token. */
  get scopes(): string[] {
    return (this.claims.scope ?? '').split(' ').filter(Boolean);
  }
  /** E-mail address from the id_token, when it carries one. */
  get email(): string | undefined {
    return this.idClaims.email;
  }

  /**
   * Whether the access token is still good, asked where the server accepts it: `/oauth2/userinfo` (`/token/validate`
   * answers for user tokens only, so it would call every access token invalid). A refusal (401) is `valid: false`
   * with the server's reason; any other failure rejects, as for a user token.
   */
  override async validate(): Promise<TokenValidationResponse> {
    const r = await this.client.call<UserInfo>('GET', '/oauth2/userinfo', { token: this.token });
    if (r.status === 401) return { valid: false, invalidity_reason: String(r.body.error_description ?? r.body.error ?? 'token is not valid') };
    if (r.status >= 400) throw mapServerError(r.status, String(r.body.error_description ?? r.body.error ?? `HTTP ${r.status}`));
    const exp = typeof this.claims.exp === 'number' ? this.claims.exp : undefined;
    return exp === undefined
      ? { valid: true }
      : { valid: true, expires_in_seconds: Math.max(0, exp - Math.floor(Date.now() / 1000)), expires_at: new Date(exp * 1000).toISOString() };
  }
}

/**
 * A {@link User}, an {@link AnonymousUser} or a {@link HostedLoginUser}, depending on the token (`person_type`,
 * `token_use`). `idToken` is attached to a hosted login's user when it names the same person.
 */
export const userFromToken = (client: KeywayClient, token: unknown, idToken?: string): User => {
  const u = new User(client, token);
  if (u.tokenUse === 'access') return new HostedLoginUser(client, u.token, idToken);
  return u.isAnonymous ? new AnonymousUser(client, u.token) : u;
};

/** Creates an anonymous person (`POST /persons/anonymous`) and holds its token on the client. */
export async function createAnonymousUser(client: KeywayClient, region?: string): Promise<AnonymousUser> {
  const r = await client.request<{ token: string } | string>('POST', '/persons/anonymous', {
    body: region ? { region } : {},
    org: true,
    token: null,
  });
  const user = new AnonymousUser(client, typeof r === 'string' ? r : r.token);
  client.token = user.token;
  return user;
}
