import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startTestIdentityServer } from '@keyway/identity-server/testing';
import { createDocsServer } from '../src/server.js';
import { SESSION_COOKIE } from '../src/gate/cookie.js';
import { TokenValidator } from '../src/gate/validator.js';
import { signInAt, writeSite } from './gate-fixture.js';

// A miniature build with a gate manifest, the way the site's gate plugin writes one, and a real identity server.
const SECRET = 'Only signed-in readers may see this detection rule sentence.';
const CHUNK_SECRET = 'gated chunk body: the sidebar of detections';
const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title} | Keyway Docs</title><script src="/assets/js/main.1.js" defer></script></head><body><h1>${title}</h1><p>${body}</p></body></html>`;
const fixture: Record<string, string> = {
  'index.html': page('Home', 'Welcome.'),
  '404.html': page('Page Not Found', 'Nothing here.'),
  'login.html': page('Sign in', 'Sign in form.'),
  'docs/intro.html': page('Introduction', 'Public text.'),
  'docs/identity-protection/detections.html': page('Detections', SECRET),
  'docs/identity-protection/detections/webhooks.html': page('Detection webhooks', SECRET),
  'docs/identity-protection/queries/explorer/okta.html': page('Okta data model', SECRET),
  'assets/js/main.1.js': 'console.log("public runtime")',
  'assets/js/gated.2.js': `console.log(${JSON.stringify(CHUNK_SECRET)})`,
  // A build made with source maps (bench:site does): a map holds the sources of its chunk, gated text included.
  'assets/js/gated.2.js.map': JSON.stringify({ version: 3, sources: ['detections.mdx'], sourcesContent: [SECRET], mappings: '' }),
  'assets/js/main.1.js.map': JSON.stringify({ version: 3, sources: ['content.mdx'], sourcesContent: [SECRET], mappings: '' }),
  '.gate-manifest.json': JSON.stringify({
    version: 1,
    prefixes: ['/docs/identity-protection/detections', '/docs/identity-protection/queries'],
    pages: ['docs/identity-protection/detections.html', 'docs/identity-protection/detections/webhooks.html', 'docs/identity-protection/queries/explorer/okta.html'],
    assets: ['assets/js/gated.2.js'],
  }),
};

let dir: string;
let identity: Awaited<ReturnType<typeof startTestIdentityServer>>;
let app: FastifyInstance;

const signIn = (email: string, orgId = identity.orgId) => signInAt(identity, email, orgId);

const get = (a: FastifyInstance, url: string, cookie?: string) => a.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
const openSession = (a: FastifyInstance, token: unknown, headers: Record<string, string> = {}) =>
  a.inject({ method: 'POST', url: '/api/session', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify({ token }) });
const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie'] ?? '').split(';')[0]!;

async function docsServer(gate: Parameters<typeof createDocsServer>[0]['gate']): Promise<FastifyInstance> {
  const a = await createDocsServer({ siteDir: dir, gate, assistant: false } as Parameters<typeof createDocsServer>[0]);
  a.get('/test/signed-in', async (request) => ({ signedIn: request.docsSignedIn }));
  return a;
}

beforeAll(async () => {
  dir = writeSite('docs-gate-', fixture);
  identity = await startTestIdentityServer();
  app = await docsServer({ identityUrl: identity.url, orgId: identity.orgId, revalidateSeconds: 0 });
});
afterAll(async () => {
  await app?.close();
  await identity?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('without a session', () => {
  it('answers a gated page with 401 and a sign-in page that keeps the full URL, and none of the page', async () => {
    const res = await get(app, '/docs/identity-protection/detections/webhooks?tab=curl');
    expect(res.statusCode).toBe(401);
    expect(res.body).not.toContain(SECRET);
    expect(res.body).not.toContain('Detection webhooks');
    expect(res.body).toContain('href="/login?redirect_to=%2Fdocs%2Fidentity-protection%2Fdetections%2Fwebhooks%3Ftab%3Dcurl"');
    expect(res.headers['cache-control']).toBe('no-store');
    // The redirect script (which adds the hash) is allowed by its hash, not by 'unsafe-inline'.
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp.split('; ').find((d) => d.startsWith('script-src'))).not.toContain('unsafe-inline');
    expect(csp).toContain(`connect-src 'self' ${new URL(identity.url).origin}`);
  });

  it('refuses every gated page and the chunks only gated pages use, also under their other spellings', async () => {
    for (const url of ['/docs/identity-protection/detections', '/docs/identity-protection/queries/explorer/okta']) {
      expect((await get(app, url)).statusCode, url).toBe(401);
    }
    const chunk = await get(app, '/assets/js/gated.2.js');
    expect(chunk.statusCode).toBe(404);
    expect(chunk.body).not.toContain(CHUNK_SECRET);
    for (const url of ['/assets/js/gated.2.js.br', '/assets/js/gated.2.js.gz', '/.gate-manifest.json', '/%2Egate-manifest.json']) {
      expect((await get(app, url)).statusCode, url).toBe(404);
    }
    const html = await get(app, '/docs/identity-protection/detections.html');
    expect(html.statusCode).toBe(301);
    expect(html.body).not.toContain(SECRET);
  });

  it('never serves a source map, whose sources may hold gated text (with a session neither)', async () => {
    const cookie = cookieOf(await openSession(app, await signIn('maps@example.com')));
    for (const url of ['/assets/js/main.1.js.map', '/assets/js/gated.2.js.map', '/assets/js/main.1.js.map.br']) {
      for (const c of [undefined, cookie]) {
        const res = await get(app, url, c);
        expect(res.statusCode, url).toBe(404);
        expect(res.body).not.toContain(SECRET);
      }
    }
  });

  it('serves public pages and assets as before', async () => {
    expect((await get(app, '/docs/intro')).statusCode).toBe(200);
    const main = await get(app, '/assets/js/main.1.js');
    expect(main.statusCode).toBe(200);
    expect(main.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('tells the browser where to sign in, and that it is not signed in', async () => {
    expect((await get(app, '/api/config')).json()).toEqual({ identityUrl: identity.url, orgId: identity.orgId });
    expect((await get(app, '/api/session')).json()).toEqual({ signedIn: false });
    expect((await get(app, '/test/signed-in')).json()).toEqual({ signedIn: false });
  });
});

describe('opening a session', () => {
  it('rejects bad input with a message naming what is wrong', async () => {
    const noJson = await app.inject({ method: 'POST', url: '/api/session', headers: { 'content-type': 'text/plain' }, payload: 'x' });
    expect(noJson.statusCode).toBe(415);
    expect(noJson.json().error).toMatch(/Content-Type: application\/json/);
    expect((await openSession(app, undefined)).json().error).toMatch(/needs "token"/);
    expect((await openSession(app, 42)).statusCode).toBe(400);
    const notJwt = await openSession(app, 'not a token');
    expect(notJwt.statusCode).toBe(400);
    expect(notJwt.json().error).toMatch(/not a Keyway user token/);
    const broken = await app.inject({ method: 'POST', url: '/api/session', headers: { 'content-type': 'application/json' }, payload: '{"token":' });
    expect(broken.statusCode).toBe(400);
  });

  it('refuses a cross-site request (login CSRF)', async () => {
    const token = await signIn('csrf@example.com');
    const res = await openSession(app, token, { origin: 'https://evil.example', host: 'docs.example' });
    expect(res.statusCode).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a tampered token, a token of another organization and a revoked token', async () => {
    const token = await signIn('tamper@example.com');
    const [h, p, s] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = [h, Buffer.from(JSON.stringify({ ...claims, person_id: 'someone-else' })).toString('base64url'), s].join('.');
    const tampered = await openSession(app, forged);
    expect(tampered.statusCode).toBe(401);
    expect(tampered.headers['set-cookie']).toBeUndefined();
    const foreign = [h, Buffer.from(JSON.stringify({ ...claims, oid: 'org_other' })).toString('base64url'), s].join('.');
    expect((await openSession(app, foreign)).json().error).toMatch(/another organization/);
    await fetch(`${identity.url}/token/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    expect((await openSession(app, token)).json().error).toMatch(/revoked/);
  });

  it('sets an HttpOnly, SameSite=Lax cookie for a valid token; gated pages and chunks are served with it', async () => {
    const token = await signIn('reader@example.com');
    const res = await openSession(app, token, { origin: 'http://localhost', host: 'localhost:80' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ signedIn: true, expiresAt: expect.any(String) });
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=`));
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Lax/);
    expect(setCookie).not.toMatch(/Secure/); // development: no NODE_ENV=production
    expect(Number(setCookie.match(/Max-Age=(\d+)/)?.[1])).toBeGreaterThan(60);
    const cookie = cookieOf(res);

    const html = await get(app, '/docs/identity-protection/detections/webhooks', cookie);
    expect(html.statusCode).toBe(200);
    expect(html.body).toContain(SECRET);
    expect(html.headers['cache-control']).toBe('private, no-store');
    const chunk = await get(app, '/assets/js/gated.2.js', cookie);
    expect(chunk.statusCode).toBe(200);
    expect(chunk.body).toContain(CHUNK_SECRET);
    expect(chunk.headers['cache-control']).toBe('private, no-store');
    expect((await get(app, '/test/signed-in', cookie)).json()).toEqual({ signedIn: true });
    expect((await get(app, '/api/session', cookie)).json()).toMatchObject({ signedIn: true });
  });

  it('drops the session at once when the token is revoked elsewhere (revalidation)', async () => {
    const token = await signIn('revoked-later@example.com');
    const cookie = cookieOf(await openSession(app, token));
    expect((await get(app, '/docs/identity-protection/detections', cookie)).statusCode).toBe(200);
    await fetch(`${identity.url}/token/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    const after = await get(app, '/docs/identity-protection/detections', cookie);
    expect(after.statusCode).toBe(401);
    expect(String(after.headers['set-cookie'])).toMatch(/Max-Age=0/);
  });

  it('replaces an invalid session cookie with the new one in a single Set-Cookie', async () => {
    const res = await openSession(app, await signIn('again@example.com'), { cookie: `${SESSION_COOKIE}=a.b.c` });
    expect(res.statusCode).toBe(200);
    const setCookie = res.headers['set-cookie'];
    expect(typeof setCookie).toBe('string');
    expect(String(setCookie)).not.toMatch(/Max-Age=0/);
  });

  it('marks the cookie Secure when configured for production', async () => {
    const secure = await docsServer({ identityUrl: identity.url, orgId: identity.orgId, secureCookie: true });
    const res = await openSession(secure, await signIn('secure@example.com'));
    expect(String(res.headers['set-cookie'])).toMatch(/; Secure/);
    await secure.close();
  });
});

describe('signing out', () => {
  it('clears the cookie and revokes the token at the identity server', async () => {
    const token = await signIn('leaving@example.com');
    const cookie = cookieOf(await openSession(app, token));
    const out = await app.inject({ method: 'DELETE', url: '/api/session', headers: { cookie } });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(new RegExp(`^${SESSION_COOKIE}=;.*Max-Age=0`));
    const check = await fetch(`${identity.url}/token/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    expect(((await check.json()) as { result: { valid: boolean } }).result.valid).toBe(false);
    expect((await get(app, '/docs/identity-protection/detections', cookie)).statusCode).toBe(401);
  });
});

describe('without sign-in configured', () => {
  it('never serves gated content and says sign-in is not configured', async () => {
    const bare = await docsServer(undefined);
    expect((await get(bare, '/api/config')).json()).toEqual({ identityUrl: null, orgId: null });
    expect((await openSession(bare, 'a.b.c')).statusCode).toBe(503);
    expect((await get(bare, '/docs/identity-protection/detections', `${SESSION_COOKIE}=a.b.c`)).statusCode).toBe(401);
    await bare.close();
  });

  it('rejects half a configuration and a bad identity URL at start', async () => {
    await expect(createDocsServer({ siteDir: dir, gate: { identityUrl: identity.url } })).rejects.toThrow(/identityUrl and orgId/);
    await expect(createDocsServer({ siteDir: dir, gate: { identityUrl: 'ftp://x', orgId: 'o' } })).rejects.toThrow(/http or https URL/);
  });
});

describe('cookie and validator details', () => {
  it('reads the session cookie among others; a malformed value opens nothing', async () => {
    const token = await signIn('cookies@example.com');
    const opened = await openSession(app, token);
    const session = cookieOf(opened);
    expect(session.startsWith(`${SESSION_COOKIE}=`)).toBe(true);
    expect((await get(app, '/docs/identity-protection/detections', `a=1; ${session}; b=2`)).statusCode).toBe(200);
    expect((await get(app, '/docs/identity-protection/detections', `a=1; ${SESSION_COOKIE}=%E0%A4%A; b=2`)).statusCode).toBe(401);
    expect((await get(app, '/docs/identity-protection/detections', `${SESSION_COOKIE}=`)).statusCode).toBe(401);
  });

  it('keeps a validated session through an identity server outage, but opens no new one', async () => {
    let down = false;
    const flaky: typeof fetch = (input, init) => (down ? Promise.reject(new Error('connect ECONNREFUSED')) : fetch(input, init));
    const validator = new TokenValidator({ identityUrl: identity.url, orgId: identity.orgId, revalidateSeconds: 0, fetch: flaky });
    const known = await signIn('outage@example.com');
    const unknown = await signIn('outage2@example.com');
    expect((await validator.validate(known)).valid).toBe(true);
    down = true;
    expect((await validator.validate(known)).valid).toBe(true);
    await expect(validator.validate(unknown)).rejects.toThrow(/cannot be reached/);
  });
});
