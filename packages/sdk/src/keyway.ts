import { sendEvent, track } from './analytics.js';
import { basicChallenges } from './challenges.js';
import { KeywayClient, type KeywayConfig } from './client.js';
import { InvalidActionError } from './errors.js';
import type { Listener } from './events.js';
import { authenticate, recover, startFlow, type ChallengeHandlers, type Flow, type FlowRequest } from './flow.js';
import { hostedLogin, type HostedLoginOptions } from './hosted.js';
import { signInWithSSO, ssoChallenges } from './sso.js';
import type { AnalyticsEventName, AuthenticationMethod, Factor, SDKEventName, WebAuthnFactorOptions } from './types.js';
import { handleURL } from './url.js';
import { ACCESS_TOKEN_REFUSED, createAnonymousUser, HostedLoginUser, userFromToken, type AnonymousUser, type LogoutOptions, type User } from './user.js';
import { signInWithPasskey, webauthnChallenges } from './webauthn.js';

/**
 * The whole SDK behind one object: every challenge type, SSO, passkeys, hosted login, URL
 * parameters, users and analytics. Pages that need only part of it can use {@link KeywayClient}
 * with the feature functions instead and bundle less.
 *
 * ```ts
 * const keyway = new Keyway({ oid: 'org_123', environment: 'production' });
 * keyway.on('codeRequested', (e) => e.submit(window.prompt('Code from the e-mail') ?? ''));
 * const token = await keyway.authenticate('ada@example.com', { method: 'otp_via_email' }).result;
 * ```
 */
export class Keyway {
  /** The underlying client (configuration, token, events, HTTP). */
  readonly client: KeywayClient;
  /** Handlers of every challenge type. */
  readonly handlers: ChallengeHandlers = { ...basicChallenges, ...ssoChallenges, ...webauthnChallenges };
  /** The current user, when a token is held. */
  user?: User;
  private readonly userListeners = new Set<(user: User | undefined) => void>();

  /**
   * @throws {@link errors.InvalidKeywayConfigurationError} when the options break a configuration rule.
   */
  constructor(config: KeywayConfig) {
    this.client = new KeywayClient(config);
    void track(this.client, 'KeywaySDKLoaded_v1', {});
  }

  /** Subscribes to an SDK event; returns the unsubscribe function. */
  on<K extends SDKEventName>(name: K, listener: Listener<K>): () => void {
    return this.client.events.on(name, listener);
  }

  /**
   * Calls `listener` whenever {@link Keyway.user} changes (sign-in, step-up, organization switch,
   * anonymous person, logout). UI bindings use it to re-render.
   * @returns a function that unsubscribes.
   */
  onUserChange(listener: (user: User | undefined) => void): () => void {
    this.userListeners.add(listener);
    return () => this.userListeners.delete(listener);
  }

  private setUser(user: User | undefined): void {
    this.user = user;
    this.client.token = user?.token;
    this.client.idToken = user instanceof HostedLoginUser ? user.idToken : undefined;
    for (const l of this.userListeners) l(user);
  }

  /**
   * Holds a token (from storage, a cookie or a flow) and re-initialises {@link Keyway.user}.
   * @throws {@link errors.InvalidActionError} `token must be a string`; {@link errors.UnexpectedError} when undecodable.
   */
  setToken(token: unknown): User {
    const user = userFromToken(this.client, token, this.client.idToken);
    this.setUser(user);
    void track(this.client, 'PersonIdentified_v1', { person_id: user.personId });
    return user;
  }

  /** Forgets the token without revoking it. */
  clearToken(): void {
    this.setUser(undefined);
  }

  private watch(flow: Flow): Flow {
    flow.result.then(
      (t) => this.setToken(t),
      () => {},
    );
    return flow;
  }

  /**
   * Starts a sign-in with a handle and a factor. Answer prompt events (`codeRequested`,
   * `passwordVerifyReady`, …) with their `submit`. An anonymous user's token is sent along so the
   * same person is upgraded.
   */
  authenticate(handle: string | undefined, factor: Factor, options: Partial<FlowRequest> = {}): Flow {
    const m = factor.method;
    if (m === 'oidc' || m === 'saml') return this.watch(signInWithSSO(this.client, factor, this.handlers, handle));
    if (m === 'webauthn')
      return this.watch(signInWithPasskey(this.client, { ...(factor.options as WebAuthnFactorOptions), handle, previousToken: options.previousToken ?? this.anonymousToken() }, this.handlers));
    return this.watch(
      authenticate(this.client, { handle, factor, previousToken: this.anonymousToken(), ...options }, this.handlers),
    );
  }

  private anonymousToken(): string | undefined {
    return this.user?.isAnonymous ? this.user.token : undefined;
  }

  /** Starts an OIDC or SAML sign-in (call from a click handler for popup mode). */
  signInWithSSO(factor: Factor): Flow {
    return this.watch(signInWithSSO(this.client, factor, this.handlers));
  }

  /** Signs in or registers with a passkey. */
  signInWithPasskey(options: WebAuthnFactorOptions & { handle?: string } = {}): Flow {
    return this.watch(signInWithPasskey(this.client, { previousToken: this.anonymousToken(), ...options }, this.handlers));
  }

  /**
   * Adds a factor to the signed-in person (step-up); the new token replaces the current one.
   * @throws {@link errors.InvalidActionError} when nobody is signed in, or the user holds a hosted login's access token.
   */
  stepUp(factor: Factor, handle?: string): Flow {
    const u = this.user;
    if (!u?.isAuthenticated) throw new InvalidActionError('Cannot call methods on unauthenticated user');
    if (u.tokenUse === 'access') throw new InvalidActionError(ACCESS_TOKEN_REFUSED);
    if (factor.method === 'webauthn')
      return this.watch(signInWithPasskey(this.client, { ...(factor.options as WebAuthnFactorOptions), handle, previousToken: u.token }, this.handlers));
    return this.watch(authenticate(this.client, { handle, factor, previousToken: u.token }, this.handlers));
  }

  /**
   * Switches to another organization of the person pool (`GET /token/v2`): takes the token directly,
   * or runs the challenges that organization requires first (for example SSO through
   * `authn_context_update`). The new token replaces the current one.
   * @throws {@link errors.InvalidActionError} when nobody is signed in.
   */
  switchOrganization(orgId: string): Flow {
    const u = this.user;
    if (!u?.isAuthenticated) throw new InvalidActionError('Cannot call methods on unauthenticated user');
    const request = { factor: { method: 'api' as const }, previousToken: u.token, org: orgId };
    return this.watch(
      startFlow(this.client, 'auth', request, this.handlers, async (flow) => {
        const r = await u.tokenForOrganization(orgId);
        return r.token ?? flow.process(r.challenges ?? []);
      }),
    );
  }

  /** Starts account recovery for an email address or phone number. */
  recover(handle: string, method: AuthenticationMethod = 'email_link'): Flow {
    return this.watch(recover(this.client, { handle, factor: { method } }, this.handlers));
  }

  /** Creates an anonymous person and makes it the current user. */
  async createAnonymousUser(region?: string): Promise<AnonymousUser> {
    const user = await createAnonymousUser(this.client, region);
    this.setUser(user);
    return user;
  }

  /**
   * Sends the browser to the hosted login. Back on the redirect page, {@link Keyway.handleURL} exchanges the code:
   * {@link Keyway.user} becomes a {@link HostedLoginUser} holding the access token (see there what it can do).
   */
  hostedLogin(options: HostedLoginOptions): Promise<string> {
    return hostedLogin(this.client, options);
  }

  /**
   * Acts on Keyway URL parameters (SSO return, IdP-initiated SSO, challenge packs, hosted login
   * return); the resulting token becomes the current user's (a hosted login's: a {@link HostedLoginUser}).
   */
  async handleURL(href?: string): Promise<Flow | string | undefined> {
    const r = await handleURL(this.client, this.handlers, href);
    if (typeof r === 'string') this.setToken(r);
    else if (r) this.watch(r);
    return r;
  }

  /** Logs the current user out (revoke, then forget). */
  async logout(options?: LogoutOptions): Promise<void> {
    await this.user?.logout(options);
    this.clearToken();
  }

  /** Sends `VirtualPageLoaded_v1` (client-side navigation). */
  trackPageView(data: Record<string, unknown> = {}): Promise<void> {
    return sendEvent(this.client, 'VirtualPageLoaded_v1', data);
  }

  /** Sends an analytics event. @throws when analytics are off. */
  sendEvent(name: AnalyticsEventName, data?: Record<string, unknown>): Promise<void> {
    return sendEvent(this.client, name, data);
  }
}
