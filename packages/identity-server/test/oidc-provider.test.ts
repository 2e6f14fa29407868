// The identity server as an OpenID Provider, driven the way an integrator drives it: with certified relying-party
// libraries (openid-client v6, oauth4webapi v3) doing the protocol, and a tiny browser (a cookie jar and the hosted
// login's HTML forms) doing what a person does. Expectations follow the standards (RFC 6749, 7009, 7636, 7662, 9207,
// OpenID Connect Core, Discovery, Registration and RP-Initiated Logout 1.0), not any one version of the server.
import { setTimeout as sleep } from 'node:timers/promises';
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { Browser, formField } from './browser-jar.js';
import { BACKENDS, lastMessage, startTestServer, useTestServer } from './helpers.js';

const API_KEY = { 'keyway-api-key': 'kw_dev_api_key_not_secret' };
const APP_A = 'https://app-a.example/callback';
const APP_B = 'https://app-b.example/callback';
const APP_C = 'https://app-c.example/callback';
const SIGNED_OUT_A = 'https://app-a.example/signed-out';
const SIGNED_OUT_B = 'https://app-b.example/signed-out';

type AuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

/** A client registered with the management API, and how it authenticates at the token endpoint. */
interface Registered {
  client_id: string;
  client_secret: string;
  redirect_uri: string;
  auth: AuthMethod;
}

/** A pending authorization request: its URL and what the relying party keeps to check the answer. */
interface Pending {
  url: URL;
  verifier: string;
  state: string;
  nonce: string;
}


/** A JWT's protected header. */
function jwtHeader(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** The authorization answer's parameters: the redirect's query, or its fragment when it has one. */
function answerParams(location: URL): URLSearchParams {
  return location.hash.length > 1 ? new URLSearchParams(location.hash.slice(1)) : location.searchParams;
}

/** The rejection of a promise that must fail. */
async function rejection(promise: Promise<unknown>, what = 'the call'): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error(`${what}: expected a failure, it succeeded`);
}



describe.each(BACKENDS)('OpenID Provider, driven by openid-client and oauth4webapi (%s)', (backend) => {
  const t = useTestServer(backend);
  const issuer = () => new URL(t.server.url);
  let mails = 0;
  /** A new address for each sign-in (the per-address sign-in limit is low). */
  const newEmail = (tag: string) => `${tag}-${++mails}@example.com`;

  /** Registers a client with the management API (`POST /oauth2/clients`). */
  async function register(fields: Record<string, unknown> & { redirect_uris: string[] }, auth: AuthMethod): Promise<Registered> {
    const res = await fetch(`${t.server.url}/oauth2/clients`, {
      method: 'POST',
      headers: { ...API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: `App ${auth}`, scopes: ['openid', 'email'], grant_types: ['authorization_code', 'refresh_token'], public: auth === 'none', ...fields }),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST /oauth2/clients answered ${res.status}: ${text}`);
    const made = (JSON.parse(text) as { result: { client_id: string; client_secret: string } }).result;
    return { client_id: made.client_id, client_secret: made.client_secret, redirect_uri: fields.redirect_uris[0]!, auth };
  }

  /** openid-client configured for a client from the provider's discovery document (http allowed, signatures checked). */
  function configure(c: Registered, metadata: Partial<oidc.ClientMetadata> = {}): Promise<oidc.Configuration> {
    const auth = c.auth === 'none' ? oidc.None() : c.auth === 'client_secret_basic' ? oidc.ClientSecretBasic(c.client_secret) : oidc.ClientSecretPost(c.client_secret);
    return oidc.discovery(issuer(), c.client_id, { require_auth_time: true, ...metadata }, auth, {
      execute: [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks],
    });
  }

  /** The provider's metadata for oauth4webapi. */
  async function authorizationServer(): Promise<oauth.AuthorizationServer> {
    return oauth.processDiscoveryResponse(issuer(), await oauth.discoveryRequest(issuer(), { [oauth.allowInsecureRequests]: true }));
  }

  /** An authorization request of the code flow with PKCE (S256), state and nonce. */
  async function authorizationRequest(config: oidc.Configuration, c: Registered, extra: Record<string, string> = {}): Promise<Pending> {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: c.redirect_uri,
      scope: 'openid email',
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...extra,
    });
    return { url, verifier, state, nonce };
  }

  /** The redirect of an answer (any 302/303), as the URL the browser goes to. */
  async function redirectOf(res: Response, what: string): Promise<URL> {
    if (res.status !== 302 && res.status !== 303) {
      const body = (await res.text()).replace(/\s+/g, ' ').slice(0, 300);
      throw new Error(`${what}: expected a redirect, got ${res.status}: ${body}`);
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`${what}: a ${res.status} without Location`);
    return new URL(location, t.server.url);
  }

  /**
   * A person on the hosted login: the page the authorization request answered (e-mail form), then the code form with the
   * code from the mailbox. Answers the redirect back to the client.
   */
  async function signInOnPage(browser: Browser, page: Response, email: string): Promise<URL> {
    const html = await page.text();
    expect(page.status, `the authorization request shows the sign-in page: ${html.slice(0, 200)}`).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const codePage = await browser.post('/oauth2/login', { request_id: formField(html, 'request_id'), email }, 'same-site');
    const codeHtml = await codePage.text();
    expect(codePage.status, codeHtml.slice(0, 300)).toBe(200);
    const { code } = await lastMessage(t.server, email);
    const done = await browser.post('/oauth2/login/code', {
      request_id: formField(codeHtml, 'request_id'),
      challenge_id: formField(codeHtml, 'challenge_id'),
      email: formField(codeHtml, 'email'),
      code: code!,
    }, 'same-site');
    expect(done.status).toBe(303);
    return redirectOf(done, 'the code form');
  }

  /** Exchanges the authorization answer at `callback` with every check of the library (state, iss, nonce, PKCE, id_token). */
  function exchange(config: oidc.Configuration, callback: URL, p: Pending, checks: { maxAge?: number } = {}, params?: Record<string, string>) {
    return oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: p.verifier, expectedState: p.state, expectedNonce: p.nonce, idTokenExpected: true, ...checks }, params);
  }

  /** The full code flow through the hosted login page; answers the tokens, the id_token's claims and the browser. */
  async function signIn(config: oidc.Configuration, c: Registered, email: string, browser = new Browser(t.server.url), extra: Record<string, string> = {}) {
    const p = await authorizationRequest(config, c, extra);
    const callback = await signInOnPage(browser, await browser.fetch(p.url), email);
    const tokens = await exchange(config, callback, p);
    return { tokens, claims: tokens.claims()!, browser, callback, pending: p };
  }

  /** An authorization request that a signed-in browser must get answered at once (no page). */
  async function silently(config: oidc.Configuration, c: Registered, browser: Browser, extra: Record<string, string> = {}) {
    const p = await authorizationRequest(config, c, extra);
    const callback = await redirectOf(await browser.fetch(p.url), 'a signed-in person asking again');
    const tokens = await exchange(config, callback, p, extra.max_age !== undefined ? { maxAge: Number(extra.max_age) } : {});
    return { tokens, claims: tokens.claims()!, callback };
  }

  /** The authorization error a prompt=none request gets, as openid-client surfaces it. */
  async function promptNoneError(config: oidc.Configuration, c: Registered, browser: Browser, extra: Record<string, string> = {}) {
    const p = await authorizationRequest(config, c, { prompt: 'none', ...extra });
    const callback = await redirectOf(await browser.fetch(p.url), 'prompt=none');
    expect(callback.searchParams.get('iss')).toBe(t.server.url);
    const err = await rejection(exchange(config, callback, p), `prompt=none${Object.entries(extra).map(([k, v]) => ` ${k}=${v}`).join('')} should answer an error, but the person is still signed in (a code was issued and exchanged)`);
    expect(err).toBeInstanceOf(oidc.AuthorizationResponseError);
    return err as oidc.AuthorizationResponseError;
  }

  /** The status userinfo answers an access token (via openid-client). */
  async function userinfoStatus(config: oidc.Configuration, accessToken: string, sub: string): Promise<number> {
    try {
      await oidc.fetchUserInfo(config, accessToken, sub);
      return 200;
    } catch (err) {
      if (err instanceof oidc.WWWAuthenticateChallengeError || err instanceof oidc.ResponseBodyError) return err.status;
      throw err;
    }
  }

  // ---------------------------------------------------------------------------------------------------------------

  describe('authorization code flow', () => {
    const clients = {} as Record<AuthMethod, Registered>;
    beforeAll(async () => {
      clients.none = await register({ redirect_uris: [APP_A] }, 'none');
      clients.client_secret_basic = await register({ redirect_uris: [APP_B] }, 'client_secret_basic');
      clients.client_secret_post = await register({ redirect_uris: [APP_C] }, 'client_secret_post');
    });

    it.each(['none', 'client_secret_basic', 'client_secret_post'] as const)(
      'code flow with PKCE, client authentication %s: iss in the answer (RFC 9207), id_token validated with kid and auth_time, userinfo',
      async (method) => {
        const c = clients[method];
        const config = await configure(c);
        expect(config.serverMetadata().authorization_response_iss_parameter_supported).toBe(true);
        const before = Math.floor(Date.now() / 1000);
        const email = newEmail(`flow-${method}`);
        const { tokens, claims, callback } = await signIn(config, c, email);
        // RFC 9207: the answer names its issuer (openid-client checked it equals the discovered issuer).
        expect(callback.searchParams.get('iss')).toBe(t.server.url);
        expect(callback.searchParams.get('code')).toBeTruthy();
        expect(tokens.token_type).toBe('bearer');
        expect(tokens.access_token).toBeTruthy();
        expect(claims).toMatchObject({ iss: t.server.url, aud: c.client_id, email, email_verified: true });
        expect(typeof claims.sub).toBe('string');
        expect(claims.auth_time).toBeGreaterThanOrEqual(before - 1);
        expect(claims.auth_time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
        const kid = jwtHeader(tokens.id_token!).kid;
        expect(typeof kid).toBe('string');
        const jwks = (await (await fetch(config.serverMetadata().jwks_uri!)).json()) as { keys: Array<{ kid?: string }> };
        expect(jwks.keys.map((k) => k.kid)).toContain(kid);

        const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        expect(info).toMatchObject({ sub: claims.sub, email, email_verified: true });
      },
    );
  });

  describe('id_token signing algorithms', () => {
    it('an RS256 client and an ES256 client each get id_tokens in their algorithm, verified against the JWKS', async () => {
      const metadata = (await (await fetch(`${t.server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
      expect(metadata.id_token_signing_alg_values_supported).toEqual(expect.arrayContaining(['RS256', 'ES256']));
      const jwks = (await (await fetch(metadata.jwks_uri as string)).json()) as { keys: Array<Record<string, string>> };
      const rsa = jwks.keys.filter((k) => k.kty === 'RSA');
      const ec = jwks.keys.filter((k) => k.kty === 'EC');
      expect(rsa.length, 'an RSA key in the JWKS').toBeGreaterThan(0);
      expect(ec.length, 'an EC key in the JWKS').toBeGreaterThan(0);
      for (const k of [...rsa, ...ec]) {
        expect(k.kid).toBeTruthy();
        expect(k.use).toBe('sig');
        expect(k.alg).toBe(k.kty === 'RSA' ? 'RS256' : 'ES256');
        // Public keys only.
        expect(k.d).toBeUndefined();
      }

      for (const [alg, kty] of [['RS256', 'RSA'], ['ES256', 'EC']] as const) {
        const c = await register({ redirect_uris: [APP_A], id_token_signed_response_alg: alg }, 'none');
        // openid-client refuses an id_token of another algorithm, and verifies its signature with the JWKS key of its kid.
        const config = await configure(c, { id_token_signed_response_alg: alg });
        const { tokens } = await signIn(config, c, newEmail(`alg-${alg}`));
        const header = jwtHeader(tokens.id_token!);
        expect(header.alg).toBe(alg);
        expect(jwks.keys.find((k) => k.kid === header.kid)?.kty).toBe(kty);
      }
    });

    it('a client registered without id_token_signed_response_alg gets RS256 id_tokens (OpenID Connect Registration default)', async () => {
      const c = await register({ redirect_uris: [APP_A] }, 'none');
      const config = await configure(c, { id_token_signed_response_alg: 'RS256' });
      const { tokens } = await signIn(config, c, newEmail('alg-default'));
      expect(jwtHeader(tokens.id_token!).alg).toBe('RS256');
    });
  });

  // ---------------------------------------------------------------------------------------------------------------

  describe('one sign-in, several apps (session of the identity server)', () => {
    let appA: Registered;
    let appB: Registered;
    let configA: oidc.Configuration;
    let configB: oidc.Configuration;
    /** Signed in once through app A's page, more than a second before the tests run. */
    let first: Awaited<ReturnType<typeof signIn>>;
    let signInAnswers: string[];
    const email = newEmail('sso');

    beforeAll(async () => {
      appA = await register({ client_name: 'App A', redirect_uris: [APP_A] }, 'none');
      appB = await register({ client_name: 'App B', redirect_uris: [APP_B] }, 'client_secret_basic');
      configA = await configure(appA);
      configB = await configure(appB);
      first = await signIn(configA, appA, email);
      signInAnswers = [...first.browser.setCookies];
      // The one wait of this file: an auth_time copied from "now" would differ from the sign-in's from here on.
      await sleep(1100);
    });

    it('signing in on the hosted page sets an HttpOnly, SameSite=Lax session cookie', () => {
      expect(signInAnswers.length, 'the hosted login set no cookie').toBeGreaterThan(0);
      const session = signInAnswers.filter((line) => /;\s*httponly/i.test(line) && /;\s*samesite=lax/i.test(line));
      expect(session.length, `no HttpOnly SameSite=Lax cookie among: ${signInAnswers.join(' | ')}`).toBeGreaterThan(0);
    });

    it('refresh (refreshTokenGrant) gives new tokens with the same auth_time; the old refresh token is then refused (invalid_grant)', async () => {
      const { tokens, claims } = first;
      expect(tokens.refresh_token).toBeTruthy();
      const refreshed = await oidc.refreshTokenGrant(configA, tokens.refresh_token!);
      expect(refreshed.access_token).not.toBe(tokens.access_token);
      expect(refreshed.refresh_token).toBeTruthy();
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      const again = refreshed.claims();
      expect(again, 'an id_token with the refresh (openid scope)').toBeDefined();
      // OpenID Connect Core §12.2: same iss, sub, aud; auth_time is the original authentication's.
      expect(again).toMatchObject({ iss: claims.iss, sub: claims.sub, aud: claims.aud, auth_time: claims.auth_time });
      expect(again!.iat).toBeGreaterThan(claims.iat);
      expect(await userinfoStatus(configA, refreshed.access_token, claims.sub)).toBe(200);

      const err = await rejection(oidc.refreshTokenGrant(configA, tokens.refresh_token!));
      expect(err).toBeInstanceOf(oidc.ResponseBodyError);
      expect(err).toMatchObject({ status: 400, error: 'invalid_grant' });
    });

    it('another app of the organization gets a code at once with prompt=none, and app A again without a page: same sub, same auth_time', async () => {
      const b = await silently(configB, appB, first.browser, { prompt: 'none' });
      expect(b.callback.origin + b.callback.pathname).toBe(APP_B);
      expect(b.claims).toMatchObject({ sub: first.claims.sub, aud: appB.client_id, auth_time: first.claims.auth_time, email });
      expect(await userinfoStatus(configB, b.tokens.access_token, first.claims.sub)).toBe(200);

      const a = await silently(configA, appA, first.browser);
      expect(a.claims).toMatchObject({ sub: first.claims.sub, aud: appA.client_id, auth_time: first.claims.auth_time });
    });

    it('without the session cookie, prompt=none answers login_required to the redirect URI (with state and iss)', async () => {
      const err = await promptNoneError(configB, appB, new Browser(t.server.url));
      expect(err.error).toBe('login_required');
    });

    it('max_age: a younger sign-in is reused, an older one shows the page (prompt=none: login_required); prompt=login shows the page', async () => {
      const recent = await silently(configB, appB, first.browser, { max_age: '3600' });
      expect(recent.claims.auth_time).toBe(first.claims.auth_time);

      // Signed in more than a second ago: max_age=1 and max_age=0 want a new sign-in.
      for (const maxAge of ['1', '0']) {
        const p = await authorizationRequest(configB, appB, { max_age: maxAge });
        const res = await first.browser.fetch(p.url);
        expect(res.status, `max_age=${maxAge} shows the sign-in page`).toBe(200);
        expect(await res.text()).toContain('name="email"');
      }
      expect((await promptNoneError(configB, appB, first.browser, { max_age: '1' })).error).toBe('login_required');
      const forced = await first.browser.fetch((await authorizationRequest(configA, appA, { prompt: 'login' })).url);
      expect(forced.status, 'prompt=login shows the sign-in page').toBe(200);
      await forced.text();

      // Signing in again on the page gives a newer auth_time, which later silent answers carry.
      const before = Math.floor(Date.now() / 1000);
      const p = await authorizationRequest(configB, appB, { max_age: '0' });
      const callback = await signInOnPage(first.browser, await first.browser.fetch(p.url), email);
      const fresh = (await exchange(configB, callback, p, { maxAge: 0 })).claims()!;
      expect(fresh.sub).toBe(first.claims.sub);
      expect(fresh.auth_time).toBeGreaterThanOrEqual(before);
      expect(fresh.auth_time).toBeGreaterThan(first.claims.auth_time!);
      const later = await silently(configA, appA, first.browser, { prompt: 'none' });
      expect(later.claims.auth_time).toBe(fresh.auth_time);
    });
  });

  describe('RP-Initiated Logout 1.0', () => {
    let appA: Registered;
    let appB: Registered;
    let configA: oidc.Configuration;
    let configB: oidc.Configuration;
    beforeAll(async () => {
      appA = await register({ client_name: 'Logout A', redirect_uris: [APP_A], post_logout_redirect_uris: [SIGNED_OUT_A] }, 'none');
      appB = await register({ client_name: 'Logout B', redirect_uris: [APP_B], post_logout_redirect_uris: [SIGNED_OUT_B] }, 'client_secret_post');
      configA = await configure(appA);
      configB = await configure(appB);
    });

    /** Signed in on app A's page, then app B silently: one session, two apps. */
    async function twoApps(tag: string) {
      const a = await signIn(configA, appA, newEmail(tag));
      await silently(configB, appB, a.browser, { prompt: 'none' });
      return a;
    }

    /**
     * The end_session_endpoint's answer followed as a person would: the provider may ask whether to sign out (RP-Initiated
     * Logout §2: a page whose form posts back to it, from its own page); the person confirms. Answers the redirect back.
     */
    async function endSession(browser: Browser, res: Response): Promise<URL> {
      if (res.status === 200) {
        const html = await res.text();
        const action = /<form[^>]*\baction="([^"]+)"/.exec(html)?.[1];
        expect(action, `the end_session_endpoint answered a page without a form: ${html.slice(0, 300)}`).toBeTruthy();
        const target = new URL(action!.replace(/&amp;/g, '&'), t.server.url);
        expect(target.pathname).toBe(new URL(configA.serverMetadata().end_session_endpoint!).pathname);
        const fields = Object.fromEntries([...html.matchAll(/<input[^>]*\bname="([^"]+)"[^>]*>/g)].map((m) => [m[1]!, formField(html, m[1]!)]));
        res = await browser.post(target, fields, 'same-site');
      }
      return redirectOf(res, 'the end_session_endpoint');
    }

    async function expectSignedOut(browser: Browser) {
      expect((await promptNoneError(configA, appA, browser)).error).toBe('login_required');
      expect((await promptNoneError(configB, appB, browser)).error).toBe('login_required');
    }

    it('GET end_session_endpoint with id_token_hint, post_logout_redirect_uri and state ends the session for both apps and returns with state', async () => {
      expect(configA.serverMetadata().end_session_endpoint).toMatch(new RegExp(`^${t.server.url}/`));
      const a = await twoApps('logout-get');
      const stolen = a.browser.copy();
      const state = oidc.randomState();
      const url = oidc.buildEndSessionUrl(configA, { id_token_hint: a.tokens.id_token!, post_logout_redirect_uri: SIGNED_OUT_A, state });
      const back = await endSession(a.browser, await a.browser.fetch(url));
      expect(back.origin + back.pathname).toBe(SIGNED_OUT_A);
      expect(back.searchParams.get('state')).toBe(state);
      await expectSignedOut(a.browser);
      // The session ended at the server, not only in this browser: its old cookie signs nobody in.
      await expectSignedOut(stolen);
    });

    it('POST end_session_endpoint (form-encoded) ends the session too', async () => {
      const a = await twoApps('logout-post');
      const state = oidc.randomState();
      const url = oidc.buildEndSessionUrl(configA, { id_token_hint: a.tokens.id_token!, post_logout_redirect_uri: SIGNED_OUT_A, state });
      // The client's page posts the form to the provider: a cross-site POST, which carries no SameSite=Lax cookie.
      const back = await endSession(a.browser, await a.browser.post(url.origin + url.pathname, Object.fromEntries(url.searchParams), 'cross-site'));
      expect(back.origin + back.pathname).toBe(SIGNED_OUT_A);
      expect(back.searchParams.get('state')).toBe(state);
      await expectSignedOut(a.browser);
    });

    it('an unregistered post_logout_redirect_uri (or another client\'s) is refused with a 400 page, never a redirect', async () => {
      const a = await signIn(configA, appA, newEmail('logout-bad'));
      for (const target of ['https://evil.example/signed-out', SIGNED_OUT_B, `${SIGNED_OUT_A}/more`]) {
        const url = oidc.buildEndSessionUrl(configA, { id_token_hint: a.tokens.id_token!, post_logout_redirect_uri: target, state: 'st' });
        const res = await a.browser.fetch(url);
        expect(res.status, `post_logout_redirect_uri ${target}`).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        await res.text();
      }
    });
  });

  // ---------------------------------------------------------------------------------------------------------------

  describe('errors at the authorization endpoint', () => {
    let app: Registered;
    let config: oidc.Configuration;
    let as: oauth.AuthorizationServer;
    beforeAll(async () => {
      app = await register({ client_name: 'Strict app', redirect_uris: [APP_A] }, 'none');
      config = await configure(app);
      as = await authorizationServer();
    });

    const cases: Array<[string, (u: URL) => void, string]> = [
      ['response_type=token', (u) => u.searchParams.set('response_type', 'token'), 'unsupported_response_type'],
      ['no response_type', (u) => u.searchParams.delete('response_type'), 'invalid_request'],
      ['a scope without openid', (u) => u.searchParams.set('scope', 'email'), 'invalid_scope'],
      ['code_challenge_method=plain', (u) => u.searchParams.set('code_challenge_method', 'plain'), 'invalid_request'],
      ['a scope the client is not registered for', (u) => u.searchParams.set('scope', 'openid email phone'), 'invalid_scope'],
    ];
    it.each(cases)('%s: redirect back with the error, the state and iss', async (_name, change, error) => {
      const p = await authorizationRequest(config, app);
      change(p.url);
      const res = await fetch(p.url, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const back = new URL(res.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(APP_A);
      const params = answerParams(back);
      expect(params.get('iss')).toBe(t.server.url);
      expect(params.get('state')).toBe(p.state);
      expect(params.get('code')).toBeNull();
      // oauth4webapi checks iss and state before surfacing the error.
      const err = await rejection(Promise.resolve().then(() => oauth.validateAuthResponse(as, { client_id: app.client_id }, params, p.state)));
      expect(err).toBeInstanceOf(oauth.AuthorizationResponseError);
      expect((err as oauth.AuthorizationResponseError).error).toBe(error);
    });

    it('an unknown client or an unregistered redirect_uri gets a 400 page, never a redirect', async () => {
      const unknown = await authorizationRequest(config, app);
      unknown.url.searchParams.set('client_id', 'kwc_nobody');
      const wrong = await authorizationRequest(config, app, { redirect_uri: 'https://evil.example/callback' });
      const prefix = await authorizationRequest(config, app, { redirect_uri: `${APP_A}/more` });
      for (const p of [unknown, wrong, prefix]) {
        const res = await fetch(p.url, { redirect: 'manual' });
        expect(res.status, p.url.toString()).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        await res.text();
      }
    });

    it('POST /oauth2/authorize (form-encoded) works like GET (OpenID Connect Core §3.1.2.1)', async () => {
      const p = await authorizationRequest(config, app);
      const browser = new Browser(t.server.url);
      const page = await browser.post(p.url.origin + p.url.pathname, Object.fromEntries(p.url.searchParams), 'cross-site');
      const callback = await signInOnPage(browser, page, newEmail('post-authorize'));
      const tokens = await exchange(config, callback, p);
      expect(tokens.claims()?.aud).toBe(app.client_id);

      // Its errors go back to the redirect URI the same way.
      const bad = await authorizationRequest(config, app, { code_challenge_method: 'plain' });
      const res = await new Browser(t.server.url).post(bad.url.origin + bad.url.pathname, Object.fromEntries(bad.url.searchParams), 'cross-site');
      const back = await redirectOf(res, 'POST /oauth2/authorize with an error');
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('state')).toBe(bad.state);
    });

    it('request and request_uri are refused with request_not_supported / request_uri_not_supported, as discovery says', async () => {
      const meta = config.serverMetadata();
      expect(meta.request_parameter_supported).toBe(false);
      expect(meta.request_uri_parameter_supported).toBe(false);
      const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify({ client_id: app.client_id, scope: 'openid' })).toString('base64url')}.`;
      for (const [param, value, error] of [
        ['request', unsigned, 'request_not_supported'],
        ['request_uri', 'https://app-a.example/request.jwt', 'request_uri_not_supported'],
      ] as const) {
        const p = await authorizationRequest(config, app, { response_type: 'code', [param]: value });
        const res = await fetch(p.url, { redirect: 'manual' });
        const back = await redirectOf(res, `${param}=`);
        expect(back.origin + back.pathname).toBe(APP_A);
        expect(Object.fromEntries(back.searchParams)).toMatchObject({ error, state: p.state, iss: t.server.url });
        expect(back.searchParams.get('code')).toBeNull();
      }
    });
  });

  describe('the token endpoint, revocation and introspection', () => {
    let pub: Registered;
    let conf: Registered;
    let pubConfig: oidc.Configuration;
    let confConfig: oidc.Configuration;
    let as: oauth.AuthorizationServer;
    beforeAll(async () => {
      pub = await register({ client_name: 'Public app', redirect_uris: [APP_A] }, 'none');
      conf = await register({ client_name: 'Server app', redirect_uris: [APP_B] }, 'client_secret_basic');
      pubConfig = await configure(pub);
      confConfig = await configure(conf);
      as = await authorizationServer();
    });

    it('an unknown extra parameter at the token endpoint is ignored (RFC 6749 §3.2): the code exchange succeeds', async () => {
      const p = await authorizationRequest(confConfig, conf);
      const browser = new Browser(t.server.url);
      const callback = await signInOnPage(browser, await browser.fetch(p.url), newEmail('extra-param'));
      const tokens = await exchange(confConfig, callback, p, {}, { some_extension: 'ignored' });
      expect(tokens.claims()?.aud).toBe(conf.client_id);
    });

    it('grant_type=password is refused: 400 unsupported_grant_type', async () => {
      const res = await oauth.genericTokenEndpointRequest(as, { client_id: conf.client_id }, oauth.ClientSecretBasic(conf.client_secret), 'password', { username: 'someone@example.com', password: 'secret' }, { [oauth.allowInsecureRequests]: true });
      expect(res.status).toBe(400);
      const err = await rejection(oauth.processGenericTokenEndpointResponse(as, { client_id: conf.client_id }, res));
      expect(err).toBeInstanceOf(oauth.ResponseBodyError);
      expect((err as oauth.ResponseBodyError).error).toBe('unsupported_grant_type');
    });

    it('a wrong secret over HTTP Basic: 401 invalid_client with a WWW-Authenticate header (RFC 6749 §5.2)', async () => {
      const res = await oauth.refreshTokenGrantRequest(as, { client_id: conf.client_id }, oauth.ClientSecretBasic(`${conf.client_secret}x`), 'kwrt_any', { [oauth.allowInsecureRequests]: true });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic\b/i);
      expect(((await res.clone().json()) as { error?: string }).error).toBe('invalid_client');
      const err = await rejection(oauth.processRefreshTokenResponse(as, { client_id: conf.client_id }, res));
      expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
      expect((err as oauth.WWWAuthenticateChallengeError).cause[0]?.scheme).toBe('basic');
    });

    it('a replayed authorization code is refused (invalid_grant) and the tokens of the first exchange stop working (RFC 6749 §4.1.2)', async () => {
      const p = await authorizationRequest(confConfig, conf);
      const browser = new Browser(t.server.url);
      const callback = await signInOnPage(browser, await browser.fetch(p.url), newEmail('replay'));
      const tokens = await exchange(confConfig, callback, p);
      const sub = tokens.claims()!.sub;
      expect(tokens.refresh_token).toBeTruthy();
      expect((await oidc.tokenIntrospection(confConfig, tokens.access_token)).active).toBe(true);

      const err = await rejection(exchange(confConfig, callback, p));
      expect(err).toBeInstanceOf(oidc.ResponseBodyError);
      expect(err).toMatchObject({ status: 400, error: 'invalid_grant' });

      expect(await oidc.tokenIntrospection(confConfig, tokens.access_token)).toEqual({ active: false });
      expect(await oidc.tokenIntrospection(confConfig, tokens.refresh_token!)).toEqual({ active: false });
      expect(await userinfoStatus(confConfig, tokens.access_token, sub)).toBe(401);
      const refresh = await rejection(oidc.refreshTokenGrant(confConfig, tokens.refresh_token!));
      expect(refresh).toMatchObject({ error: 'invalid_grant' });
    });

    it('revocation (RFC 7009): another client cannot revoke a token; the client it was issued to can', async () => {
      const { tokens, claims } = await signIn(confConfig, conf, newEmail('revoke'));
      // The public app (authenticating with its client_id, as public clients do) tries to revoke the server app's token.
      const foreign = await oauth.revocationRequest(as, { client_id: pub.client_id }, oauth.None(), tokens.access_token, { [oauth.allowInsecureRequests]: true });
      await foreign.body?.cancel();
      expect((await oidc.tokenIntrospection(confConfig, tokens.access_token)).active, 'still active after another client asked to revoke it').toBe(true);
      expect(await userinfoStatus(confConfig, tokens.access_token, claims.sub)).toBe(200);

      const own = await oauth.revocationRequest(as, { client_id: conf.client_id }, oauth.ClientSecretBasic(conf.client_secret), tokens.access_token, { [oauth.allowInsecureRequests]: true });
      expect(await oauth.processRevocationResponse(own)).toBeUndefined();
      expect((await oidc.tokenIntrospection(confConfig, tokens.access_token)).active).toBe(false);
      expect(await userinfoStatus(confConfig, tokens.access_token, claims.sub)).toBe(401);
    });

    it("introspection (RFC 7662): a public client cannot read another client's token", async () => {
      const { tokens } = await signIn(confConfig, conf, newEmail('introspect'));
      const res = await oauth.introspectionRequest(as, { client_id: pub.client_id }, oauth.None(), tokens.access_token, { [oauth.allowInsecureRequests]: true });
      let answer: unknown;
      try {
        answer = await oauth.processIntrospectionResponse(as, { client_id: pub.client_id }, res);
      } catch (err) {
        // An error answer (invalid_client, 401/403) is right too.
        expect(err instanceof oauth.ResponseBodyError || err instanceof oauth.WWWAuthenticateChallengeError, String(err)).toBe(true);
        return;
      }
      expect(answer).toEqual({ active: false });
    });
  });

  // ---------------------------------------------------------------------------------------------------------------

  describe('discovery', () => {
    /** Claims describing the JWT itself, not the person or the authentication (OpenID Connect Discovery §3, claims_supported). */
    const PLUMBING = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'nonce', 'at_hash', 'c_hash', 's_hash', 'azp', 'sid', 'token_use']);

    it('response_mode=form_post: a page posts code, state and iss to the redirect URI; openid-client takes the POST', async () => {
      const c = await register({ client_name: 'Form post app', redirect_uris: [APP_A] }, 'none');
      const config = await configure(c);
      const p = await authorizationRequest(config, c, { response_mode: 'form_post' });
      const browser = new Browser(t.server.url);
      const page = await browser.fetch(p.url);
      const html = await page.text();
      expect(page.status).toBe(200);
      const email = newEmail('form-post');
      const codeHtml = await (await browser.post('/oauth2/login', { request_id: formField(html, 'request_id'), email }, 'same-site')).text();
      const { code } = await lastMessage(t.server, email);
      const fields = { request_id: formField(codeHtml, 'request_id'), challenge_id: formField(codeHtml, 'challenge_id'), email: formField(codeHtml, 'email'), code: code! };
      const answer = await browser.post('/oauth2/login/code', fields, 'same-site');
      const post = await answer.text();
      expect(answer.status, post.slice(0, 300)).toBe(200);
      expect(/<form[^>]*\bmethod="post"[^>]*\baction="([^"]+)"/i.exec(post)?.[1]).toBe(APP_A);
      const body = new URLSearchParams(['code', 'state', 'iss'].map((name) => [name, formField(post, name)]));
      expect(body.get('iss')).toBe(t.server.url);
      const callback = new Request(APP_A, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
      const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: p.verifier, expectedState: p.state, expectedNonce: p.nonce });
      expect(tokens.claims()).toMatchObject({ aud: c.client_id, email });
    });

    it('tells the truth: form_post, every claim of an id_token and of userinfo, end_session_endpoint, PKCE S256 only', async () => {
      const c = await register({ client_name: 'Discovery app', redirect_uris: [APP_A] }, 'none');
      const config = await configure(c);
      const meta = config.serverMetadata();
      expect(meta.response_modes_supported).toEqual(expect.arrayContaining(['query', 'form_post']));
      expect(meta.code_challenge_methods_supported).toEqual(['S256']);
      expect(meta.end_session_endpoint).toMatch(new RegExp(`^${t.server.url}/`));

      const { tokens, claims } = await signIn(config, c, newEmail('discovery'));
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      const seen = [...new Set([...Object.keys(claims), ...Object.keys(info)])].filter((name) => !PLUMBING.has(name)).sort();
      expect(seen).toEqual(expect.arrayContaining(['sub', 'email', 'email_verified', 'amr', 'auth_time']));
      const missing = seen.filter((name) => !(meta.claims_supported ?? []).includes(name));
      expect(missing, `claims_supported lacks claims the provider supplies: ${missing.join(', ')}`).toEqual([]);
    });

    it('advertises no claim it never supplies: a person with every kind of handle, through a session, shows each one', async () => {
      // A person the organization created with an e-mail address, a phone number and a username, in a group.
      const email = newEmail('every-claim');
      const made = await fetch(`${t.server.url}/persons`, {
        method: 'POST',
        headers: { ...API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ handles: [{ type: 'email_address', value: email }, { type: 'phone_number', value: '+447700900123' }, { type: 'username', value: `user${mails}` }], groups: ['editors'] }),
      });
      expect(made.status, await made.clone().text()).toBe(201);
      const c = await register({ client_name: 'Every claim', redirect_uris: [APP_A] }, 'none');
      const config = await configure(c);
      const first = await signIn(config, c, email);
      // A second code of the same session: its id_token names the session (sid) and carries the nonce.
      const { claims } = await silently(config, c, first.browser);
      const info = await oidc.fetchUserInfo(config, first.tokens.access_token, claims.sub);
      const seen = new Set([...Object.keys(claims), ...Object.keys(first.claims), ...Object.keys(info)]);
      const advertised = config.serverMetadata().claims_supported ?? [];
      const neverSeen = advertised.filter((name) => !seen.has(name));
      expect(neverSeen, `claims_supported names claims no answer carried: ${neverSeen.join(', ')}`).toEqual([]);
      expect(info).toMatchObject({ email, phone_number: '+447700900123', preferred_username: `user${mails}`, groups: ['editors'] });
    });
  });
});

describe.each(BACKENDS)('the token parameter of /oauth2/authorize is a development convenience (%s)', (backend) => {
  it('a production server ignores it: a bearer token in a URL never skips the sign-in page', async () => {
    const key = 'kw_prod_key_for_the_token_param';
    const prod = await startTestServer(backend, { devMode: false, apiKey: key, publicUrl: 'https://id.example.com' });
    try {
      const admin = { 'keyway-api-key': key, 'content-type': 'application/json' };
      const client = (await (await fetch(`${prod.url}/oauth2/clients`, { method: 'POST', headers: admin, body: JSON.stringify({ client_name: 'Prod app', scopes: ['openid'], grant_types: ['authorization_code'], redirect_uris: [APP_A], public: true }) })).json()) as { result: { client_id: string } };
      const person = (await (await fetch(`${prod.url}/persons`, { method: 'POST', headers: admin, body: JSON.stringify({ handles: [{ type: 'email_address', value: 'prod@example.com' }] }) })).json()) as { result: { person_id: string } };
      const minted = (await (await fetch(`${prod.url}/persons/${person.result.person_id}/mint-token`, { method: 'POST', headers: { 'keyway-api-key': key } })).json()) as { result: string };
      const verifier = oidc.randomPKCECodeVerifier();
      const q = new URLSearchParams({ response_type: 'code', client_id: client.result.client_id, redirect_uri: APP_A, scope: 'openid', state: 'prod-state', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
      const withToken = await fetch(`${prod.url}/oauth2/authorize?${q}&token=${minted.result}`, { redirect: 'manual' });
      expect(withToken.status, 'the sign-in page, not a redirect with a code').toBe(200);
      expect(await withToken.text()).toContain('name="email"');
      // prompt=none with the token: nobody is signed in as far as a production server is concerned.
      const none = await fetch(`${prod.url}/oauth2/authorize?${q}&prompt=none&token=${minted.result}`, { redirect: 'manual' });
      expect(new URL(none.headers.get('location')!).searchParams.get('error')).toBe('login_required');
    } finally {
      await prod.stop();
    }
  });
});
