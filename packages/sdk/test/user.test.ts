import { describe, expect, it, vi } from 'vitest';
import { correlationId, isFirefoxLike, sendEvent } from '../src/analytics.js';
import * as errors from '../src/errors.js';
import { rememberHandle, rememberedHandles } from '../src/storage.js';
import { decodeToken } from '../src/token.js';
import { AnonymousUser, createAnonymousUser, User, userFromToken } from '../src/user.js';
import { analytics, client, fail, jwt, route, TOKEN } from './fake.js';

describe('tokens', () => {
  it('unwraps JSON-quoted tokens and token containers', () => {
    expect(decodeToken(JSON.stringify(TOKEN)).person_id).toBe('p1');
    const container = jwt({ user_token: TOKEN, sid: 's' });
    const d = decodeToken(container);
    expect(d.token).toBe(TOKEN);
    expect(d.oid).toBe('org1');
  });
  it('reads groups from the configured claim', () => {
    const t = jwt({ person_id: 'p', oid: 'o', roles_claim: ['a', 'b'], groups: ['ignored'] });
    expect(new User(client({ groupsClaimName: 'roles_claim' }), t).groups).toEqual(['a', 'b']);
    expect(new User(client(), t).groups).toEqual(['ignored']);
  });
  it('refuses non-strings and undecodable tokens', () => {
    expect(() => new User(client(), 42)).toThrow('token must be a string');
    expect(() => new User(client(), 'not-a-jwt')).toThrow(errors.UnexpectedError);
    expect(() => new User(client(), 'a.!!!.c')).toThrow(/could not be decoded/);
  });
});

describe('users', () => {
  it('distinguishes authenticated, anonymous, expired and logged-out', async () => {
    const c = client();
    const u = new User(c, TOKEN);
    expect(u).toMatchObject({ personId: 'p1', orgId: 'org1', isAuthenticated: true, isAnonymous: false });
    expect(u.authenticatedMethods).toEqual(['otp_via_email']);
    expect(new User(c, jwt({ person_id: 'p', oid: 'o', exp: 1 })).isAuthenticated).toBe(false);
    const anon = userFromToken(c, jwt({ person_id: 'p', oid: 'o', person_type: 'anonymous' }));
    expect(anon).toBeInstanceOf(AnonymousUser);
    expect(anon.isAuthenticated).toBe(false);
    expect(() => new AnonymousUser(c, TOKEN)).toThrow(/person_type anonymous/);
  });

  it('logout revokes the token, then clears it; later calls fail', async () => {
    const revoke = route('POST', '/token/revoke', () => new Response(null, { status: 204 }));
    const c = client();
    c.token = TOKEN;
    const u = new User(c, TOKEN);
    await u.logout();
    expect(revoke[0]!.body).toEqual({ token: TOKEN });
    expect(revoke[0]!.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(c.token).toBeUndefined();
    expect(u.isAuthenticated).toBe(false);
    await expect(u.me()).rejects.toThrow('Cannot call methods on unauthenticated user');
  });

  it('keeps the token when revocation fails', async () => {
    route('POST', '/token/revoke', () => fail(500, 'down'));
    const c = client();
    c.token = TOKEN;
    await expect(new User(c, TOKEN).logout()).rejects.toThrow('down');
    expect(c.token).toBe(TOKEN);
  });

  it('reads /me, /me/orgs, a token for another org, validates', async () => {
    const me = route('GET', '/me', { person: { person_id: 'p1' }, organizations: [], handles: [], credentials: [] });
    route('GET', '/me/orgs', { org_hierarchy: [{ id: 'org1', name: 'Acme' }] });
    const tok = route('GET', '/token/v2', { type: 'token', token: 'other' });
    const val = route('POST', '/token/validate', { valid: false, invalidity_reason: 'expired' });
    const u = new User(client(), TOKEN);
    expect((await u.me()).person.person_id).toBe('p1');
    expect(me[0]!.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect((await u.organizations()).org_hierarchy[0]!.name).toBe('Acme');
    expect(await u.tokenForOrganization('org2')).toEqual({ type: 'token', token: 'other' });
    expect(tok[0]!.headers.get('keyway-orgid')).toBe('org2');
    expect(await u.validate()).toEqual({ valid: false, invalidity_reason: 'expired' });
    expect(val[0]!.body).toEqual({ token: TOKEN });
    expect(val[0]!.headers.get('keyway-orgid')).toBe('org1');
  });

  it('uses attribute buckets, end_user_read_write by default', async () => {
    const all = route('GET', '/attributes', { end_user_read_write: { theme: 'dark' } });
    const one = route('GET', '/attributes/end_user_read_only', { plan: 'pro' });
    const put = route('PUT', '/attributes/end_user_read_write', { theme: 'light' });
    const patch = route('PATCH', '/attributes/person_pool-end_user_read_write', { a: 1 });
    const del = route('DELETE', '/attributes/end_user_read_write', () => new Response(null, { status: 204 }));
    const many = route('PUT', '/attributes', {});
    const u = new User(client(), TOKEN);
    await u.getAttributes(['end_user_read_write', 'end_user_read_only']);
    expect(all[0]!.query.get('buckets')).toBe('end_user_read_write,end_user_read_only');
    expect(await u.getBucketAttributes('end_user_read_only', ['plan'])).toEqual({ plan: 'pro' });
    expect(one[0]!.query.get('attributes')).toBe('plan');
    await u.setAttributes({ theme: 'light' });
    expect(put[0]!.body).toEqual({ theme: 'light' });
    await u.updateAttributes({ a: 1 }, 'person_pool-end_user_read_write');
    expect(patch).toHaveLength(1);
    await u.deleteAttributes(['theme', 'locale']);
    expect(del[0]!.query.get('attributes')).toBe('theme,locale');
    await u.setBucketsAttributes({ end_user_read_write: { x: 1 } });
    expect(many[0]!.body).toEqual({ end_user_read_write: { x: 1 } });
  });

  it('gets, sets, adds, removes and removes all GDPR consents', async () => {
    const consents = [{ consent_level: 'analytics', created_at: '2026-01-01T00:00:00Z' }];
    route('GET', '/consent/gdpr', { consents });
    const put = route('PUT', '/consent/gdpr', { consents });
    const post = route('POST', '/consent/gdpr', { consents });
    const del = route('DELETE', '/consent/gdpr', () => new Response(null, { status: 204 }));
    const u = new User(client(), TOKEN);
    expect(await u.consents()).toEqual(consents);
    await u.setConsents(['analytics']);
    await u.addConsents(['marketing']);
    expect(put[0]!.body).toEqual({ consent_levels: ['analytics'] });
    expect(post[0]!.body).toEqual({ consent_levels: ['marketing'] });
    await u.removeConsents(['analytics', 'marketing']);
    await u.removeAllConsents();
    expect(del[0]!.query.get('consent_levels')).toBe('analytics,marketing');
    expect(del[1]!.query.get('deleteAll')).toBe('true');
  });

  it('impersonates with the org header and gets a direct ID', async () => {
    const imp = route('POST', '/persons/p%202/impersonate/v2', { target_url: 'https://app/?x', token: 't' });
    route('POST', '/direct-id', 'd1');
    const u = new User(client(), TOKEN);
    expect(await u.impersonate('p 2', 'https://app/')).toMatchObject({ token: 't' });
    expect(imp[0]!.body).toEqual({ target_url: 'https://app/' });
    expect(imp[0]!.headers.get('keyway-orgid')).toBe('org1');
    expect(await u.directId()).toEqual({ direct_id: 'd1' });
  });

  it('creates anonymous persons', async () => {
    const anonToken = jwt({ person_id: 'anon', oid: 'org1', person_type: 'anonymous' });
    const calls = route('POST', '/persons/anonymous', { token: anonToken });
    const c = client();
    const u = await createAnonymousUser(c, 'europe-belgium');
    expect(u).toBeInstanceOf(AnonymousUser);
    expect(c.token).toBe(anonToken);
    expect(calls[0]!.body).toEqual({ region: 'europe-belgium' });
    expect(calls[0]!.headers.get('keyway-orgid')).toBe('org1');
    route('POST', '/persons/anonymous', { token: TOKEN });
    await expect(createAnonymousUser(c)).rejects.toThrow(/person_type anonymous/);
  });
});

describe('analytics', () => {
  it('sends events with org, correlation id, location and a 500-character user agent, keep-alive', async () => {
    const ev = analytics();
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue('Chrome/120 ' + 'x'.repeat(900));
    const c = client({ analytics: true });
    await sendEvent(c, 'VirtualPageLoaded_v1', { page: '/a' });
    const b = ev[0]!.body;
    expect(b).toMatchObject({ event_name: 'VirtualPageLoaded_v1', organization_id: 'org1', window_location: location.href, event_data: { page: '/a' } });
    expect(b.user_agent).toHaveLength(500);
    expect(b.analytics_correlation_id).toBe(sessionStorage.getItem('keyway.analytics_correlation_id'));
    expect(correlationId()).toBe(b.analytics_correlation_id);
    expect(fetchSpy.mock.calls[0]![1]!.keepalive).toBe(true);
  });
  it('does not use keep-alive on Firefox-like browsers', async () => {
    analytics();
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0');
    await sendEvent(client({ analytics: true }), 'VirtualPageLoaded_v1');
    expect(fetchSpy.mock.calls[0]![1]!.keepalive).toBe(false);
    expect(isFirefoxLike('Mozilla/5.0 (iPhone) FxiOS/120')).toBe(true);
  });
  it('off means no call, and explicit events are refused', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const c = client({ analytics: false });
    expect(() => sendEvent(c, 'VirtualPageLoaded_v1')).toThrow(/analytics must be enabled/);
    route('POST', '/id/v2', { token: TOKEN });
    const { authenticate } = await import('../src/flow.js');
    await authenticate(c, { handle: 'u', factor: { method: 'password' } }, {}).result;
    expect(fetchSpy.mock.calls.map((a) => String(a[0]))).not.toContainEqual(expect.stringContaining('/actions/sdk'));
  });
  it('falls back to random bytes for the correlation id outside secure contexts', () => {
    vi.stubGlobal('crypto', { getRandomValues: (a: Uint8Array) => a.fill(7) });
    expect(correlationId()).toBe('BwcHBwcHBwcHBwcHBwcHBw');
  });

  it('analytics failures never break the caller', async () => {
    route('POST', '/actions/sdk', () => fail(500, 'down'));
    await expect(sendEvent(client({ analytics: true }), 'VirtualPageLoaded_v1')).resolves.toBeUndefined();
  });
});

describe('storage', () => {
  it('remembers handles, most recent first', () => {
    rememberHandle('a@example.com');
    rememberHandle('b@example.com');
    rememberHandle('a@example.com');
    expect(rememberedHandles()).toEqual(['a@example.com', 'b@example.com']);
  });
  it('unavailable storage warns once and the feature does nothing', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const denied = () => {
      throw new DOMException('denied', 'SecurityError');
    };
    vi.stubGlobal('localStorage', { setItem: denied, getItem: denied, removeItem: denied });
    rememberHandle('a@example.com');
    rememberHandle('b@example.com');
    expect(rememberedHandles()).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/localStorage is unavailable, remembered handles is disabled/);
  });
});
