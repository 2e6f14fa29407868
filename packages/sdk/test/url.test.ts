import { describe, expect, it, vi } from 'vitest';
import { basicChallenges } from '../src/challenges.js';
import * as errors from '../src/errors.js';
import type { Flow } from '../src/flow.js';
import { completeHostedLogin, hostedLogin } from '../src/hosted.js';
import { Keyway } from '../src/keyway.js';
import { b64url, pkceChallenge } from '../src/pkce.js';
import { handleURL } from '../src/url.js';
import { ACCESS_TOKEN_REFUSED, HostedLoginUser } from '../src/user.js';
import { BASE, client, jwt, route, SDK_HOST, TOKEN } from './fake.js';
import { fakeWindow } from './popup.js';

const PAGE = 'https://app.example.com/signin';
const h = basicChallenges;

describe('URL parameters', () => {
  it('needs all three SSO parameters', async () => {
    await expect(handleURL(client(), h, `${PAGE}?sso_challenge_id=a&sso_code=b`)).rejects.toBeInstanceOf(errors.InvalidKeywayURLParamsError);
    await expect(handleURL(client(), h, `${PAGE}?sso_code=b&csrf_token=c`)).rejects.toThrow(/all needed to complete SSO/);
  });

  it('completes an SSO redirect return and strips the parameters', async () => {
    localStorage.setItem('keyway.csrf_token', 'csrf-1');
    localStorage.setItem('keyway.pkce_code_verifier', 'ver-1');
    const resolve = route('POST', '/sso/resolve', () => new Response(null, { status: 204 }));
    route('GET', '/challenge/ch1/v2', { token: TOKEN });
    const replace = vi.spyOn(history, 'replaceState');
    const c = client();
    const fromURL = vi.fn();
    c.events.on('userAuthenticatedFromURL', fromURL);
    // The server also names the challenge to poll (`challenges`, for clients that complete returns from it): stripped too.
    const challenges = Buffer.from(JSON.stringify([{ id: 'ch1', type: 'proxy', authentication_method: 'oidc', options: { challenge_id: 'ch1' } }])).toString('base64url');
    const flow = (await handleURL(c, h, `${PAGE}?sso_challenge_id=ch1&sso_code=code1&csrf_token=csrf-1&challenges=${challenges}&keep=1`)) as Flow;
    await expect(flow.result).resolves.toBe(TOKEN);
    expect(resolve[0]!.body).toEqual({ challenge_id: 'ch1', code: 'code1', pkce_code_verifier: 'ver-1' });
    expect(replace).toHaveBeenCalledWith(null, '', `${PAGE}?keep=1`);
    await vi.waitFor(() => expect(fromURL).toHaveBeenCalledWith(expect.objectContaining({ token: TOKEN })));
  });

  it('refuses an SSO return whose csrf_token differs from the stored one', async () => {
    localStorage.setItem('keyway.csrf_token', 'csrf-1');
    const flow = (await handleURL(client(), h, `${PAGE}?sso_challenge_id=ch1&sso_code=c&csrf_token=evil`)) as Flow;
    await expect(flow.result).rejects.toThrow('CSRF token mismatch');
  });

  it('inside the SSO popup, hands the return to the opener and closes', async () => {
    const opener = fakeWindow();
    vi.spyOn(window, 'opener', 'get').mockReturnValue(opener as never);
    const close = vi.spyOn(window, 'close').mockImplementation(() => {});
    expect(await handleURL(client(), h, `${PAGE}?sso_challenge_id=ch1&sso_code=c&csrf_token=t`)).toBeUndefined();
    expect(opener.postMessage).toHaveBeenCalledWith(
      { type: 'sso_challenge', challenge_id: 'ch1', code: 'c', csrf_token: 't' },
      location.origin,
    );
    expect(close).toHaveBeenCalled();
  });

  it('iss=social:{provider}:{client_id} restarts that login in redirect mode when IdP-initiated SSO is on', async () => {
    const assign = vi.spyOn(location, 'assign').mockImplementation(() => {});
    const id = route('POST', '/id/v2', [{ id: 'o', type: 'oidc', options: { auth_code_url: 'https://accounts.google.com/o' } }]);
    const c = client({ idpInitiatedSso: true });
    const flow = (await handleURL(c, h, `${PAGE}?iss=social:google:cid-9`)) as Flow;
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('https://accounts.google.com/o'));
    expect(id[0]!.body.factor.options).toMatchObject({ provider: 'google', client_id: 'cid-9', ux_mode: 'redirect', redirect_target: PAGE });
    flow.cancel();
    expect(await handleURL(client(), h, `${PAGE}?iss=social:google:cid-9`)).toBeUndefined();
    await expect(handleURL(c, h, `${PAGE}?iss=bogus`)).rejects.toThrow(/iss must look like social/);
  });

  it('completes a challenge pack, or encoded challenges, but not both', async () => {
    const pack = route('GET', '/challenge_pack/cp_1', [{ id: 'n', type: 'nonce', options: { challenge: 'x' } }]);
    const att = route('POST', '/attestation/v3', { token: TOKEN });
    const flow = (await handleURL(client(), h, `${PAGE}?challenge_pack_id=cp_1`)) as Flow;
    await expect(flow.result).resolves.toBe(TOKEN);
    expect(pack[0]!.headers.get('keyway-orgid')).toBe('org1');
    expect(att[0]!.body).toEqual({ challenge_id: 'n', challenge_type: 'nonce', data: { challenge: 'x' } });
    const encoded = b64url(new TextEncoder().encode(JSON.stringify([{ id: 'n2', type: 'nonce', options: { challenge: 'y' } }])));
    await expect(((await handleURL(client(), h, `${PAGE}?challenges=${encoded}`)) as Flow).result).resolves.toBe(TOKEN);
    expect(att[1]!.body.challenge_id).toBe('n2');
    await expect(handleURL(client(), h, `${PAGE}?challenges=${encoded}&challenge_pack_id=cp_1`)).rejects.toThrow(
      'challenge_pack_id and challenges cannot be used together',
    );
    await expect(handleURL(client(), h, `${PAGE}?challenges=%%%`)).rejects.toThrow(/not a base64url JSON list/);
  });

  it('reports "error fetching challenges" when the pack cannot be fetched', async () => {
    route('GET', '/challenge_pack/gone', () => new Response('{"errors":[{"httpcode":404,"message":"not found"}]}', { status: 404 }));
    await expect(((await handleURL(client(), h, `${PAGE}?challenge_pack_id=gone`)) as Flow).result).rejects.toThrow('error fetching challenges');
  });

  it('does nothing without Keyway parameters', async () => {
    expect(await handleURL(client(), h, `${PAGE}?q=1`)).toBeUndefined();
  });
});

describe('hosted login', () => {
  it('redirects to /oauth2/authorize with PKCE S256 and state, keeping what the return needs', async () => {
    const assign = vi.spyOn(location, 'assign').mockImplementation(() => {});
    const url = new URL(await hostedLogin(client(), { clientId: 'app-1', redirectUri: 'https://app.example.com/cb' }));
    expect(assign).toHaveBeenCalledWith(url.href);
    expect(url.origin + url.pathname).toBe(`${BASE}/oauth2/authorize`);
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({ client_id: 'app-1', redirect_uri: 'https://app.example.com/cb', response_type: 'code', scope: 'openid', code_challenge_method: 'S256' });
    expect(q.state).toBe(localStorage.getItem('keyway.csrf_token'));
    expect(q.code_challenge).toBe(await pkceChallenge(localStorage.getItem('keyway.pkce_code_verifier')!));
    expect(sessionStorage.getItem('keyway.oauth_client_id')).toBe('app-1');
    expect(sessionStorage.getItem('keyway.oauth_redirect_uri')).toBe('https://app.example.com/cb');
  });

  function stored() {
    sessionStorage.setItem('keyway.oauth_client_id', 'app-1');
    sessionStorage.setItem('keyway.oauth_redirect_uri', 'https://app.example.com/cb');
    localStorage.setItem('keyway.csrf_token', 'st-1');
    localStorage.setItem('keyway.pkce_code_verifier', 'v-1');
  }

  it('exchanges the code (form-encoded) after checking state', async () => {
    stored();
    const tok = route('POST', '/oauth2/tokens', () => Response.json({ access_token: TOKEN, id_token: 'idt', token_type: 'bearer' }));
    const c = client();
    const r = await completeHostedLogin(c, new URLSearchParams('code=c-1&state=st-1'));
    expect(r.id_token).toBe('idt');
    expect(tok[0]!.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(tok[0]!.body).toEqual({ client_id: 'app-1', code: 'c-1', code_verifier: 'v-1', grant_type: 'authorization_code', redirect_uri: 'https://app.example.com/cb' });
    expect(c.token).toBe(TOKEN);
    expect(localStorage.getItem('keyway.pkce_code_verifier')).toBeNull();
  });

  it('refuses a mismatching state and reports missing storage', async () => {
    stored();
    await expect(completeHostedLogin(client(), new URLSearchParams('code=c&state=evil'))).rejects.toThrow('CSRF token mismatch');
    sessionStorage.clear();
    await expect(completeHostedLogin(client(), new URLSearchParams('code=c&state=st-1'))).rejects.toThrow(
      'Client ID or redirect URI not found in session storage',
    );
    stored();
    localStorage.removeItem('keyway.pkce_code_verifier');
    await expect(completeHostedLogin(client(), new URLSearchParams('code=c&state=st-1'))).rejects.toThrow(
      'CSRF token or PKCE code verifier not found',
    );
  });

  it('reports an error return of the authorization server', async () => {
    await expect(handleURL(client(), h, `${PAGE}?error=access_denied&error_description=person%20refused&state=x`)).rejects.toThrow(
      'Failed to obtain access token: person refused',
    );
  });

  it('reports "Failed to obtain access token" when the exchange fails', async () => {
    stored();
    route('POST', '/oauth2/tokens', () => Response.json({ error: 'invalid_grant' }, { status: 400 }));
    await expect(completeHostedLogin(client(), new URLSearchParams('code=c&state=st-1'))).rejects.toThrow('Failed to obtain access token');
  });

  it('the facade completes the return from the URL: its user holds the access token, names the person from the id_token, and refuses first-party calls without calling', async () => {
    stored();
    const access = jwt({ token_use: 'access', person_id: 'p1', oid: 'org1', person_type: 'regular', authenticated_methods: ['otp_via_email'], groups: [], client_id: 'app-1', scope: 'openid email' });
    const idToken = jwt({ token_use: 'id', sub: 'p1', person_id: 'p1', aud: 'app-1', email: 'ada@example.com', email_verified: true });
    route('POST', '/oauth2/tokens', () => Response.json({ access_token: access, id_token: idToken, token_type: 'bearer' }));
    const info = route('GET', '/oauth2/userinfo', () => Response.json({ sub: 'p1', email: 'ada@example.com', email_verified: true }));
    const me = route('GET', '/me', {});
    const k = new Keyway({ oid: 'org1', environment: { baseURL: BASE, sdkURL: SDK_HOST }, analytics: false });
    expect(await k.handleURL(`${PAGE}?code=c&state=st-1`)).toBe(access);
    const user = k.user as HostedLoginUser;
    expect(user).toBeInstanceOf(HostedLoginUser);
    expect({ person: user.personId, org: user.orgId, token: user.token, id: user.idToken, email: user.email, client: user.clientId, scopes: user.scopes, use: user.tokenUse, signedIn: user.isAuthenticated }).toEqual({
      person: 'p1', org: 'org1', token: access, id: idToken, email: 'ada@example.com', client: 'app-1', scopes: ['openid', 'email'], use: 'access', signedIn: true,
    });
    await expect(user.me()).rejects.toThrow(ACCESS_TOKEN_REFUSED);
    await expect(user.setAttributes({ a: 1 })).rejects.toBeInstanceOf(errors.InvalidActionError);
    expect(me).toHaveLength(0);
    expect(() => k.stepUp({ method: 'totp' })).toThrow(ACCESS_TOKEN_REFUSED);
    expect(await user.userInfo()).toEqual({ sub: 'p1', email: 'ada@example.com', email_verified: true });
    expect(info[0]!.headers.get('authorization')).toBe(`Bearer ${access}`);
    // Restored from storage (no id_token any more): the same user, named by the access token alone.
    const again = new Keyway({ oid: 'org1', environment: { baseURL: BASE, sdkURL: SDK_HOST }, analytics: false }).setToken(access);
    expect(again).toBeInstanceOf(HostedLoginUser);
    expect((again as HostedLoginUser).email).toBeUndefined();
    // An id_token of another person is not attached.
    expect(new HostedLoginUser(client(), access, jwt({ sub: 'p2', email: 'eve@example.com' })).email).toBeUndefined();
  });
});

describe('Keyway facade', () => {
  const mk = (extra = {}) => new Keyway({ oid: 'org1', environment: { baseURL: BASE, sdkURL: SDK_HOST }, analytics: false, ...extra });

  it('sends KeywaySDKLoaded_v1 on start when analytics are on', async () => {
    const ev = route('POST', '/actions/sdk', {});
    mk({ analytics: true });
    await vi.waitFor(() => expect(ev[0]?.body.event_name).toBe('KeywaySDKLoaded_v1'));
  });

  it('signs in with email OTP and re-initialises the user on the new token', async () => {
    route('POST', '/id/v2', [{ id: 'o', type: 'otp', options: {} }]);
    route('POST', '/attestation/v3', { token: TOKEN });
    const k = mk();
    k.on('codeRequested', (e) => e.submit('123456'));
    await k.authenticate('ada@example.com', { method: 'otp_via_email' }).result;
    await vi.waitFor(() => expect(k.user?.isAuthenticated).toBe(true));
    expect(k.client.token).toBe(TOKEN);
  });

  it('upgrades an anonymous user by sending its token along', async () => {
    const anon = jwt({ person_id: 'a1', oid: 'org1', person_type: 'anonymous' });
    route('POST', '/persons/anonymous', { token: anon });
    const id = route('POST', '/id/v2', { token: TOKEN });
    const k = mk();
    await k.createAnonymousUser();
    expect(k.user?.isAnonymous).toBe(true);
    await k.authenticate('ada@example.com', { method: 'otp_via_email' }).result;
    expect(id[0]!.headers.get('authorization')).toBe(`Bearer ${anon}`);
  });

  it('steps up an authenticated user, replacing the token; refuses when signed out', async () => {
    const stepped = jwt({ person_id: 'p1', oid: 'org1', authenticated_methods: ['otp_via_email', 'totp'] });
    const id = route('POST', '/id/v2', { token: stepped });
    const k = mk();
    expect(() => k.stepUp({ method: 'totp' })).toThrow('Cannot call methods on unauthenticated user');
    k.setToken(TOKEN);
    await k.stepUp({ method: 'totp' }).result;
    expect(id[0]!.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    await vi.waitFor(() => expect(k.user?.authenticatedMethods).toEqual(['otp_via_email', 'totp']));
  });

  it('switches organization: a direct token, or the challenges the organization asks for', async () => {
    const other = jwt({ person_id: 'p1', oid: 'org2' });
    const tok = route('GET', '/token/v2', { type: 'token', token: other }, { type: 'challenge_list', challenges: [{ id: 'n', type: 'nonce', options: { challenge: 'z' } }] });
    const att = route('POST', '/attestation/v3', { token: other });
    const k = mk();
    expect(() => k.switchOrganization('org2')).toThrow('Cannot call methods on unauthenticated user');
    k.setToken(TOKEN);
    await k.switchOrganization('org2').result;
    expect(tok[0]!.headers.get('keyway-orgid')).toBe('org2');
    await vi.waitFor(() => expect(k.user?.orgId).toBe('org2'));
    k.setToken(TOKEN);
    await expect(k.switchOrganization('org2').result).resolves.toBe(other);
    expect(att[0]!.headers.get('keyway-orgid')).toBe('org2');
    expect(att[0]!.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
  });

  it('tells listeners about every user change', async () => {
    route('POST', '/token/revoke', () => new Response(null, { status: 204 }));
    const k = mk();
    const seen: Array<string | undefined> = [];
    const off = k.onUserChange((u) => seen.push(u?.personId));
    k.setToken(TOKEN);
    await k.logout();
    off();
    k.setToken(TOKEN);
    expect(seen).toEqual(['p1', undefined]);
  });

  it('logs out: revoke (with the consistency headers asked for), then no user', async () => {
    const rev = route('POST', '/token/revoke', () => new Response(null, { status: 204 }));
    const k = mk();
    k.setToken(JSON.stringify(TOKEN));
    await k.logout({ consistency: 'all_regions', consistencyTimeout: 5 });
    expect(rev[0]!.headers.get('keyway-required-consistency')).toBe('all_regions');
    expect(rev[0]!.headers.get('keyway-required-consistency-timeout')).toBe('5');
    expect(k.user).toBeUndefined();
    expect(k.client.token).toBeUndefined();
  });

  it('rejects unknown events on subscribe and publish', () => {
    const k = mk();
    expect(() => k.on('nope' as never, () => {})).toThrow(errors.UnknownError);
    expect(() => k.client.events.emit('nope' as never, {} as never)).toThrow(/unsupported event "nope"/);
  });

  it('recovers by phone', async () => {
    const rec = route('POST', '/recover', { token: TOKEN });
    await mk().recover('+15551234567', 'sms_link').result;
    expect(rec[0]!.body).toEqual({ handle: '+15551234567', factor: { method: 'sms_link' } });
  });
});
