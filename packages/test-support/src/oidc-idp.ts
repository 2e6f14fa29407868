/// <reference path="./oidc-provider.d.ts" />
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID Provider (node-oidc-provider with its development login pages) on loopback, for SSO tests. `emailVerified`
 * is what it says of the address (`true` by default; `null` leaves the claim out, as providers that do not verify do).
 */
export async function startOidcIdp(redirectUri: string, account: { sub: string; email: string }, opts: { clientId?: string; revocation?: boolean; emailOf?: (sub: string) => string; emailVerified?: boolean | null } = {}) {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = { client_id: opts.clientId ?? 'keyway-sso', client_secret: 'sso-client-secret-for-tests-0123456789' };
  const provider = new Provider(issuer, {
    clients: [{ ...client, redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' }],
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub, email: opts.emailOf?.(sub) ?? account.email, ...(opts.emailVerified === null ? {} : { email_verified: opts.emailVerified ?? true }) }) }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    features: { devInteractions: { enabled: true }, revocation: { enabled: opts.revocation ?? true } },
    // A refresh token at every code exchange of a client allowed the grant (no offline_access consent dance needed).
    issueRefreshToken: async (_ctx: unknown, c: { grantTypeAllowed(t: string): boolean }) => c.grantTypeAllowed('refresh_token'),
    cookies: { keys: ['oidc-test-cookie-key'] },
  });
  server.on('request', provider.callback());
  const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
  return {
    issuer,
    ...client,
    /** Whether the provider still accepts the access token (its userinfo endpoint answers 200). */
    accessTokenWorks: async (accessToken: string) => (await fetch(`${issuer}/me`, { headers: { authorization: `Bearer ${accessToken}` } })).status === 200,
    /** Whether the provider still accepts the refresh token (a refresh grant succeeds). */
    refreshTokenWorks: async (refreshToken: string) =>
      (await fetch(`${issuer}/token`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }) })).status === 200,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * Plays the person's browser at the provider: follows redirects, keeps cookies, submits the login form (any password
 * works on the development pages) and the consent form, and stops at the first redirect to `stopAt`.
 */
export async function browseUntil(start: string, stopAt: string, login: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = start;
  let init: RequestInit = {};
  for (let i = 0; i < 20; i++) {
    if (url.startsWith(stopAt)) return url;
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [k, ...v] = pair!.split('=');
      jar.set(k!.trim(), v.join('='));
    }
    init = {};
    const location = res.headers.get('location');
    if (location) {
      url = new URL(location, url).href;
      continue;
    }
    const html = await res.text();
    const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
    if (!form) throw new Error(`no form and no redirect at ${url}: ${res.status} ${html.slice(0, 200)}`);
    const fields = new URLSearchParams();
    for (const [tag] of form[2]!.matchAll(/<input[^>]*>/gi)) {
      const name = /name="([^"]+)"/.exec(tag)?.[1];
      if (name) fields.set(name, /value="([^"]*)"/.exec(tag)?.[1] ?? '');
    }
    if (fields.has('login')) fields.set('login', login);
    if (fields.has('password')) fields.set('password', 'any');
    url = new URL(form[1]!, url).href;
    init = { method: 'POST', body: fields.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error('too many steps at the identity provider');
}
