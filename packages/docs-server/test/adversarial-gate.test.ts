import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startTestIdentityServer } from '@keyway/identity-server/testing';
import { createDocsServer } from '../src/server.js';
import { SESSION_COOKIE } from '../src/gate/cookie.js';
import { signInAt, writeSite } from './gate-fixture.js';

// #15 §1 and §6, tried by an attacker with no account against a real identity server: which tokens open the gated docs.
// Only an authenticated, non-anonymous person of the docs organization does, as the identity server says.
const SECRET = 'Gated detection rule: only signed-in readers see this sentence.';
const fixture: Record<string, string> = {
  'index.html': '<!doctype html><html><head><title>Home</title></head><body>Home</body></html>',
  '404.html': '<!doctype html><html><head><title>Not found</title></head><body>Nothing</body></html>',
  'docs/identity-protection/detections.html': `<!doctype html><html><head><title>Detections</title></head><body><p>${SECRET}</p></body></html>`,
  'assets/js/gated.9.js': `console.log(${JSON.stringify(SECRET)})`,
  '.gate-manifest.json': JSON.stringify({
    version: 1,
    prefixes: ['/docs/identity-protection/detections'],
    pages: ['docs/identity-protection/detections.html'],
    assets: ['assets/js/gated.9.js'],
  }),
};
const API_KEY = 'kw_dev_api_key_not_secret';

let dir: string;
let identity: Awaited<ReturnType<typeof startTestIdentityServer>>;
let app: FastifyInstance;

async function id(method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`${identity.url}${route}`, {
    method,
    headers: { 'keyway-orgid': identity.orgId, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // 204 (a revocation) has no body.
  return res.status === 204 ? undefined : res.json();
}

const signIn = (email: string) => signInAt(identity, email);

const openSession = (token: string) =>
  app.inject({ method: 'POST', url: '/api/session', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ token }) });
const gated = (token: string, url = '/docs/identity-protection/detections') => app.inject({ method: 'GET', url, headers: { cookie: `${SESSION_COOKIE}=${token}` } });

beforeAll(async () => {
  dir = writeSite('docs-adv-', fixture);
  identity = await startTestIdentityServer();
  app = await createDocsServer({ siteDir: dir, gate: { identityUrl: identity.url, orgId: identity.orgId, revalidateSeconds: 0 }, assistant: false } as Parameters<typeof createDocsServer>[0]);
});
afterAll(async () => {
  await app?.close();
  await identity?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('adversarial: the gate against every token an outsider can get', () => {
  /** Expects the token to open no session and, presented as the cookie, to get the sign-in page and no gated byte. */
  async function refused(token: string, why: RegExp) {
    const session = await openSession(token);
    expect(session.statusCode).toBe(401);
    expect(session.json().error).toMatch(why);
    expect(session.headers['set-cookie']).toBeUndefined();
    const page = await gated(token);
    expect(page.statusCode).toBe(401);
    expect(page.body).not.toContain(SECRET);
    expect(page.body).toMatch(/sign in/i);
    expect((await gated(token, '/assets/js/gated.9.js')).statusCode).toBe(404);
  }

  it("an anonymous person's token container (POST /persons/anonymous, then GET /token/v2) does not open the gate", async () => {
    const anon = (await id('POST', '/persons/anonymous', {})).result as string;
    const container = (await id('GET', '/token/v2', undefined, { authorization: `Bearer ${anon}` })).result.token as string;
    await refused(container, /not a user token|container|anonymous/);
  });

  it("an anonymous person's user token does not open the gate", async () => {
    const anon = (await id('POST', '/persons/anonymous', {})).result as string;
    await refused(anon, /anonymous/);
  });

  it("a signed-in person's token container does not open the gate (only the user token inside it would)", async () => {
    const user = await signIn('container-reader@example.com');
    const container = (await id('GET', '/token/v2', undefined, { authorization: `Bearer ${user}` })).result.token as string;
    await refused(container, /container/);
  });

  it('an id_token and an OAuth2 access token of the hosted login do not open the gate', async () => {
    const user = await signIn('idtoken-reader@example.com');
    const personId = JSON.parse(Buffer.from(user.split('.')[1]!, 'base64url').toString()).person_id as string;
    const key = { 'keyway-api-key': API_KEY };
    const client = (await id('POST', '/oauth2/clients', { client_name: 'Reader app', scopes: ['openid', 'email'], grant_types: ['authorization_code'], redirect_uris: ['https://app.example.com/cb'] }, key)).result;
    const minted = (await id('POST', '/oauth2/tokens/mint', { client_id: client.client_id, person_id: personId }, key)).result;
    await refused(minted.id_token, /id_token/);
    await refused(minted.access_token, /access token/);
    // Nor does the first-party token the access token would have been exchanged for (#36): the exchange is refused.
    const exchanged = await fetch(`${identity.url}/token`, { headers: { authorization: `Bearer ${minted.access_token}`, 'keyway-orgid': identity.orgId } });
    expect(exchanged.status).toBe(401);
    expect(((await exchanged.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toBe('token is an OAuth2 access token, which is not accepted here');
  });

  it('a client token (client credentials) does not open the gate', async () => {
    const client = (await id('POST', '/oauth2/clients', { client_name: 'Job', scopes: ['jobs'], grant_types: ['client_credentials'] }, { 'keyway-api-key': API_KEY })).result;
    const res = await fetch(`${identity.url}/oauth2/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
      body: 'grant_type=client_credentials',
    });
    await refused(((await res.json()) as { access_token: string }).access_token, /client token/);
  });

  it("an anonymous token whose person_type is edited to look signed in does not open the gate", async () => {
    const anon = (await id('POST', '/persons/anonymous', {})).result as string;
    const [h, p, s] = anon.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const edited = [h, Buffer.from(JSON.stringify({ ...claims, person_type: 'regular', token_use: 'user' })).toString('base64url'), s].join('.');
    await refused(edited, /signature|not valid|invalid/);
  });

  it("a signed-in person's user token opens it, and signing out (revoking it) closes what was derived from it", async () => {
    const user = await signIn('real-reader@example.com');
    const page = await gated(user);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(SECRET);
    const container = (await id('GET', '/token/v2', undefined, { authorization: `Bearer ${user}` })).result.token as string;
    const inner = JSON.parse(Buffer.from(container.split('.')[1]!, 'base64url').toString()).user_token as string;
    expect((await gated(inner)).statusCode).toBe(200);
    await id('POST', '/token/revoke', { token: user });
    expect((await gated(user)).statusCode).toBe(401);
    expect((await gated(inner)).statusCode).toBe(401);
  });

  it('serves gated chunks with Cache-Control: private, no-store (never kept by any cache)', async () => {
    const user = await signIn('chunk-reader@example.com');
    const chunk = await gated(user, '/assets/js/gated.9.js');
    expect(chunk.statusCode).toBe(200);
    expect(chunk.headers['cache-control']).toBe('private, no-store');
  });

  it('production answers carry HSTS (pages, gated refusals, the session API); development answers do not', async () => {
    const prod = await createDocsServer({ siteDir: dir, hsts: true, gate: { identityUrl: identity.url, orgId: identity.orgId }, assistant: false } as Parameters<typeof createDocsServer>[0]);
    try {
      for (const url of ['/', '/docs/identity-protection/detections', '/api/session', '/no-such-page']) {
        expect((await prod.inject({ method: 'GET', url })).headers['strict-transport-security'], url).toBe('max-age=31536000; includeSubDomains');
      }
    } finally {
      await prod.close();
    }
    expect((await app.inject({ method: 'GET', url: '/' })).headers['strict-transport-security']).toBeUndefined();
  });
});
