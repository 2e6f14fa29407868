/* eslint-disable @typescript-eslint/no-explicit-any */
// The published sign-in client (@slashid/slashid 3.29, unmodified) in Debian Chromium, for the steps where it navigates
// (jsdom has no location.assign): SSO in redirect mode (a real OpenID Provider, back to the page with
// sso_challenge_id, sso_code and csrf_token, then POST /sso/resolve) and the hosted login (startHostedLoginFlow →
// /oauth2/authorize → back with code and state → resolveHostedLoginFlow → POST /oauth2/tokens). The client talks to the
// real identity server through the proxy that only renames its SlashID-* headers; nothing is routed or intercepted.
import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastMessage, startTestIdentityServer, type TestServer } from '@keyway/identity-server/testing';
import { launchChromium } from '@keyway/test-support';
import { startOidcIdp } from '@keyway/test-support';
import { BACKEND, checkContract } from '../test/harness.js';
import { startProxy, type Exchange } from '../test/proxy.js';

const KEY = 'kw_dev_api_key_not_secret';

let server: TestServer;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let web: Server;
let origin: string;
let browser: Browser;
let idp: Awaited<ReturnType<typeof startOidcIdp>>;

beforeAll(async () => {
  // The page: any path serves the same HTML, which loads the published package bundled as is.
  const bundle = await build({ stdin: { contents: "export * from '@slashid/slashid';", resolveDir: import.meta.dirname }, bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false });
  const js = bundle.outputFiles[0]!.text;
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>published client</title></head><body>
<script type="module">import * as S from '/slashid.js'; window.S = S; window.ready = true;</script></body></html>`;
  web = createServer((req, res) => {
    if (req.url === '/slashid.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  origin = `http://localhost:${(web.address() as AddressInfo).port}`;
  // The proxy is the server's public address (the client's baseURL): the OIDC callback and the hosted login are
  // reached through it, as they would be on the server's own host.
  proxy = await startProxy();
  server = await startTestIdentityServer({ backend: BACKEND, corsOrigins: [origin], publicUrl: proxy.url, limits: { perHandlePerMinute: 1000, perIpPerMinute: 10_000 } });
  proxy.setUpstream(server.url);
  idp = await startOidcIdp(`${proxy.url}/sso/oidc/callback`, { sub: 'ada-1', email: 'Ada@Corp.example' });
  const created = await manage('POST', '/organizations/sso/oidc/provider-credentials', { provider: 'generic', label: 'Corp', client_id: idp.client_id, client_secret: idp.client_secret, issuer: idp.issuer });
  expect(created.status).toBe(201);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await idp?.close();
  await proxy?.close();
  await server?.stop();
  await new Promise((r) => web?.close(r));
});

async function manage(method: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + path, { method, headers: { 'content-type': 'application/json', 'keyway-orgid': server.orgId, 'keyway-api-key': KEY }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function openPage(path: string): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('page error:', e));
  await page.goto(origin + path);
  await page.waitForFunction(() => (window as any).ready === true);
  return page;
}

/** Starts something on the page that navigates away (its promise never settles on this document). */
function navigateFrom(page: Page, fn: (args: any) => unknown, args: Record<string, unknown>): void {
  void page.evaluate(fn as any, args).catch(() => undefined);
}

const config = () => ({ baseURL: proxy.url, oid: server.orgId });
const calls = (method: string, path: RegExp, mark: number) => proxy.log.slice(mark).filter((e) => e.method === method && path.test(e.path.split('?')[0]!));

/** Signs in at the provider's development pages: login form, then consent, until the browser leaves the provider. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.waitForURL((u) => u.href.startsWith(idp.issuer));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any');
  await page.locator('button[type="submit"]').click();
  for (let i = 0; i < 5; i++) {
    await page.waitForLoadState();
    if (!page.url().startsWith(idp.issuer)) return;
    await page.locator('button[type="submit"]').click();
  }
}

describe('published client in Chromium: navigating flows', () => {
  it('SSO in redirect mode: the provider sends the person back with sso_challenge_id, sso_code and csrf_token; getUserFromURL resolves it', async () => {
    const mark = proxy.log.length;
    const page = await openPage('/app');
    navigateFrom(
      page,
      ({ baseURL, oid, back }) => {
        const sid = new (window as any).S.SlashID({ environment: { baseURL, sdkURL: `${baseURL}/sdk.html` }, oid, analyticsEnabled: false });
        return sid.id(oid, undefined, { method: 'oidc', options: { provider: 'generic', ux_mode: 'redirect', redirect_target: back } });
      },
      { ...config(), back: `${origin}/sso-return` },
    );
    await signInAtProvider(page, 'ada-1');
    await page.waitForURL((u) => u.pathname === '/sso-return');
    const back = new URL(page.url());
    expect([...back.searchParams.keys()]).toEqual(expect.arrayContaining(['sso_challenge_id', 'sso_code', 'csrf_token']));
    await page.waitForFunction(() => (window as any).ready === true);
    const user = await page.evaluate(async ({ baseURL, oid }) => {
      const sid = new (window as any).S.SlashID({ environment: { baseURL, sdkURL: `${baseURL}/sdk.html` }, oid, analyticsEnabled: false });
      const u = await sid.getUserFromURL();
      if (!u) return null;
      const handles = await u.getHandles();
      return { id: u.ID, oid: u.oid, methods: u.authentications.map((a: any) => a.method), handles: handles.map((h: any) => h.value) };
    }, config());
    expect(user).not.toBeNull();
    expect(user!.oid).toBe(server.orgId);
    expect(user!.methods).toEqual(['oidc']);
    expect(user!.handles).toEqual(['ada@corp.example']);

    // On the wire: the published client started with /id/v2 (oidc, redirect), then resolved the return with PKCE.
    const start = calls('POST', /^\/id\/v2$/, mark);
    expect(JSON.parse(start[0]!.body).factor).toMatchObject({ method: 'oidc', options: { method: 'oidc', provider: 'generic', ux_mode: 'redirect' } });
    const resolve = calls('POST', /^\/sso\/resolve$/, mark);
    expect(resolve).toHaveLength(1);
    expect(JSON.parse(resolve[0]!.body)).toEqual({ challenge_id: back.searchParams.get('sso_challenge_id'), code: back.searchParams.get('sso_code'), pkce_code_verifier: expect.stringMatching(/^[0-9a-f-]{72}$/) });
    expect(resolve[0]!.status).toBe(204);
    const person = (await (await fetch(`${server.url}/persons/${user!.id}`, { headers: { 'keyway-orgid': server.orgId, 'keyway-api-key': KEY } })).json()) as any;
    expect(person.result.handles.map((h: any) => h.value)).toEqual(['ada@corp.example']);
    checkContract(sdkCalls(mark));
    await page.close();
  });

  it("SSO in popup mode (the client's default): the provider's return page hands the parameters to the opener, which resolves them and polls for the token", async () => {
    const mark = proxy.log.length;
    const page = await openPage('/app');
    const popupPromise = page.waitForEvent('popup');
    const run = page.evaluate(async ({ baseURL, oid }) => {
      const sid = new (window as any).S.SlashID({ environment: { baseURL, sdkURL: `${baseURL}/sdk.html` }, oid, analyticsEnabled: false });
      const u = await sid.id(oid, undefined, { method: 'oidc', options: { provider: 'generic' } });
      const handles = await u.getHandles();
      return { id: u.ID, oid: u.oid, methods: u.authentications.map((a: any) => a.method), handles: handles.map((h: any) => h.value) };
    }, config()).catch((e: Error) => e);
    const popup = await popupPromise;
    await signInAtProvider(popup, 'grace-2');
    const user = await run;
    if (user instanceof Error) throw user;
    expect(user.oid).toBe(server.orgId);
    expect(user.methods).toEqual(['oidc']);
    expect(user.handles).toEqual(['ada@corp.example']);
    const resolve = calls('POST', /^\/sso\/resolve$/, mark);
    expect(resolve).toHaveLength(1);
    expect(resolve[0]!.status).toBe(204);
    const challengeId = JSON.parse(resolve[0]!.body).challenge_id as string;
    expect(calls('GET', new RegExp(`^/challenge/${challengeId}/v2$`), mark).at(-1)!.status).toBe(200);
    checkContract(sdkCalls(mark));
    await page.close();
  });

  it('hosted login: startHostedLoginFlow, the hosted page, resolveHostedLoginFlow gives the person; the id_token is no bearer credential, the access token is only for its client (userinfo, not /me)', async () => {
    const mark = proxy.log.length;
    const redirectUri = `${origin}/callback`;
    const client = await manage('POST', '/oauth2/clients', { client_name: 'Published client app', scopes: ['openid', 'email'], grant_types: ['authorization_code'], redirect_uris: [redirectUri], public: true });
    expect(client.status).toBe(201);
    const clientId = client.body.result.client_id as string;
    const to = `hosted-${Date.now()}@interop.example.com`;
    const page = await openPage('/app');
    navigateFrom(
      page,
      ({ baseURL, oid, clientId, redirectUri }) => {
        const sid = new (window as any).S.SlashID({ environment: { baseURL, sdkURL: `${baseURL}/sdk.html` }, oid, analyticsEnabled: false });
        return sid.startHostedLoginFlow({ clientId, redirectUri });
      },
      { ...config(), clientId, redirectUri },
    );
    await page.waitForURL((u) => u.href.startsWith(`${proxy.url}/oauth2/authorize`));
    const authorize = new URL(page.url()).searchParams;
    expect(Object.fromEntries(authorize)).toMatchObject({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'openid', code_challenge_method: 'S256' });
    await page.locator('input[name="email"]').fill(to);
    await page.locator('button[type="submit"]').click();
    await page.locator('input[name="code"]').waitFor();
    await page.locator('input[name="code"]').fill((await lastMessage(server, to)).code!);
    await page.locator('button[type="submit"]').click();
    await page.waitForURL((u) => u.href.startsWith(redirectUri));
    expect(new URL(page.url()).searchParams.get('state')).toBe(authorize.get('state'));
    await page.waitForFunction(() => (window as any).ready === true);

    const result = await page.evaluate(async ({ baseURL, oid }) => {
      const sid = new (window as any).S.SlashID({ environment: { baseURL, sdkURL: `${baseURL}/sdk.html` }, oid, analyticsEnabled: false });
      const u = await sid.resolveHostedLoginFlow();
      let refusal: string | undefined;
      try {
        await u.getHandles();
      } catch (e: any) {
        refusal = String(e?.message ?? e);
      }
      return { id: u.ID, oid: u.oid, token: u.token as string, refusal };
    }, config());

    // The person is right: the same person the management API finds by the e-mail address.
    const found = (await (await fetch(`${server.url}/persons?filter=${encodeURIComponent(`handles.value eq "${to}"`)}`, { headers: { 'keyway-orgid': server.orgId, 'keyway-api-key': KEY } })).json()) as any;
    expect(found.result).toHaveLength(1);
    expect(result.id).toBe(found.result[0].person_id);
    expect(result.oid).toBe(server.orgId);

    // On the wire: the code exchange as the published client sends it (form, public client, PKCE verifier).
    const exchange = calls('POST', /^\/oauth2\/tokens$/, mark);
    expect(exchange).toHaveLength(1);
    expect(exchange[0]!.status).toBe(200);
    const form = new URLSearchParams(exchange[0]!.body);
    expect(Object.fromEntries(form)).toMatchObject({ client_id: clientId, grant_type: 'authorization_code', redirect_uri: redirectUri, code: expect.any(String), code_verifier: expect.stringMatching(/^[0-9a-f-]{72}$/) });
    const tokens = JSON.parse(exchange[0]!.response);
    expect(result.token).toBe(tokens.id_token);

    // The client holds the id_token as the user's token; person calls refuse it on purpose (README, "Token model"):
    // a 401 that names the id_token, which the client reports as an error.
    const me = calls('GET', /^\/me$/, mark);
    expect(me).toHaveLength(1);
    expect(me[0]!.status).toBe(401);
    expect(JSON.parse(me[0]!.response).errors[0]).toEqual({ httpcode: 401, message: expect.stringMatching(/id_token/) });
    expect(result.refusal).toBeTruthy();
    // The access token of the same exchange is the client's (#36): userinfo and validation take it, person calls do not.
    const userinfo = await fetch(`${proxy.url}/oauth2/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toMatchObject({ sub: result.id, email: to, email_verified: true });
    const withAccess = await fetch(`${proxy.url}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(withAccess.status).toBe(401);
    expect(((await withAccess.json()) as any).errors[0].message).toBe('token is an OAuth2 access token, which is not accepted here');
    checkContract(sdkCalls(mark));
    await page.close();
  });
});

/**
 * The SDK's API calls since `mark`: not the HTML pages of the provider round trip and the hosted login (nor the favicon
 * the popup asks for), nor the client's helper page (`sdkURL`, an iframe it loads for passkeys on other hosts: not
 * part of this server's API).
 */
function sdkCalls(mark: number): Exchange[] {
  return proxy.log.slice(mark).filter((e) => !/^\/(oauth2\/(authorize|login)|sso\/oidc\/callback|sdk\.html|favicon\.ico)/.test(e.path) && e.method !== 'OPTIONS');
}
