import { describe, expect, it } from 'vitest';
import { isUsableToken, loginMiddleware, loginRedirectURL, safeRedirect } from '../src/index.js';

const b64 = (o: object) => btoa(JSON.stringify(o)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
const jwt = (claims: object) => `${b64({ alg: 'ES256' })}.${b64(claims)}.sig`;
const future = Math.floor(Date.now() / 1000) + 600;
const valid = jwt({ person_id: 'p1', oid: 'o1', exp: future, authenticated_methods: ['otp_via_email'] });

describe('loginMiddleware', () => {
  it('redirects a request without a token to the sign-in page with the path, search and hash in redirect_to', async () => {
    const guard = loginMiddleware({ tokenStorageKey: 'keyway.docs.token' });
    const res = await guard({ request: new Request('https://docs.example/docs/identity-protection/detections?x=1#rules') });
    expect(res?.status).toBe(302);
    expect(res?.headers.get('Location')).toBe('/login?redirect_to=%2Fdocs%2Fidentity-protection%2Fdetections%3Fx%3D1%23rules');
  });

  it('lets a request with a usable stored token through, and not an expired, anonymous or garbage one', async () => {
    const guard = loginMiddleware({ tokenStorageKey: 'keyway.docs.token' });
    const request = new Request('https://docs.example/docs/x');
    localStorage.setItem('keyway.docs.token', valid);
    expect(await guard({ request })).toBeNull();
    for (const bad of [jwt({ person_id: 'p', oid: 'o', exp: 1 }), jwt({ person_id: 'p', oid: 'o', person_type: 'anonymous' }), 'garbage']) {
      localStorage.setItem('keyway.docs.token', bad);
      expect((await guard({ request }))?.status).toBe(302);
    }
    localStorage.clear();
  });

  it('reads the token with getToken on a server (e.g. a cookie) and can require more factors', async () => {
    const guard = loginMiddleware({ loginPath: '/signin', getToken: (r) => r.headers.get('x-token'), requiredFactors: ['totp'] });
    const request = new Request('https://docs.example/a', { headers: { 'x-token': valid } });
    expect((await guard({ request }))?.headers.get('Location')).toBe('/signin?redirect_to=%2Fa');
    const mfa = jwt({ person_id: 'p1', oid: 'o1', exp: future, authenticated_methods: ['otp_via_email', 'totp'] });
    expect(await guard({ request: new Request('https://docs.example/a', { headers: { 'x-token': mfa } }) })).toBeNull();
  });

  it('refuses a sign-in page on another site', () => {
    expect(() => loginMiddleware({ loginPath: 'https://evil.example/login' })).toThrow('loginPath must be a path on this site starting with "/", got "https://evil.example/login"');
    expect(() => loginMiddleware({ loginPath: '//evil.example' })).toThrow(TypeError);
  });
});

describe('safeRedirect', () => {
  it('follows same-site paths only', () => {
    expect(safeRedirect('?redirect_to=%2Fdocs%2Fa%3Fb%3D1%23c')).toBe('/docs/a?b=1#c');
    for (const evil of ['//evil.example', 'https://evil.example/', 'javascript:alert(1)', '/\\evil.example', '%2F%2Fevil.example', '/%0a/evil', ''])
      expect(safeRedirect('?redirect_to=' + encodeURIComponent(decodeURIComponent(evil)), '/home')).toBe('/home');
    expect(safeRedirect(new URLSearchParams(), '/x')).toBe('/x');
  });

  it('round-trips with loginRedirectURL', () => {
    const url = loginRedirectURL('https://docs.example/docs/q?z=2#h');
    expect(safeRedirect(new URL(url, 'https://docs.example').search)).toBe('/docs/q?z=2#h');
  });

  it('isUsableToken checks expiry, anonymity and factors', () => {
    expect(isUsableToken(valid)).toBe(true);
    expect(isUsableToken(valid, ['password'])).toBe(false);
    expect(isUsableToken(null)).toBe(false);
  });
});
