// Red team of the identity server's OpenID Provider (#37), black box: only the HTTP contract, the README and the guide.
// Each `it` titled "(was a finding, …)" failed when it was written, because of a defect (its comment says what an attacker
// gained), and passes since the fix; every other `it` is an attack that was tried and that the server refused.
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { Browser, formField, type FetchInit } from './browser-jar.js';
import { lastMessage, useTestServer } from './helpers.js';

const API_KEY = { 'keyway-api-key': 'kw_dev_api_key_not_secret' };
const APP_A = 'https://app-a.example/callback';


const APP_B = 'https://app-b.example/callback';
const APP_S = 'https://app-s.example/callback';
const EVIL_CB = 'https://evil.example/callback';
const OUT_A = 'https://app-a.example/signed-out';
const OUT_B = 'https://app-b.example/signed-out';
const EVIL_OUT = 'https://evil.example/signed-out';
/** What a real browser adds to a form a third-party page auto-submits (Fetch Metadata, Origin). */
const CROSS_SITE = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };

interface Client { client_id: string; client_secret: string; redirect_uri: string; public: boolean; org: string; key: string }
interface Pending { url: URL; verifier: string; state: string; nonce: string; client: Client }

describe('red team: the OpenID Provider (sqlite)', () => {
  const t = useTestServer('sqlite');
  let n = 0;
  const email = (tag: string) => `rt-${tag}-${++n}@example.com`;
  const c = {} as Record<'pubA' | 'confB' | 'subS' | 'evilX', Client>;
  let sub: { id: string; key: string };
  let evilOrg: { id: string; key: string };

  async function mkSub(name: string, extra: Record<string, unknown> = {}) {
    const res = await fetch(`${t.server.url}/organizations/suborganizations`, { method: 'POST', headers: { ...API_KEY, 'content-type': 'application/json', 'keyway-orgid': t.server.orgId }, body: JSON.stringify({ sub_org_name: name, ...extra }) });
    const body = (await res.json()) as any;
    if (res.status !== 200) throw new Error(`suborganization: ${res.status} ${JSON.stringify(body)}`);
    return { id: body.result.id as string, key: body.result.api_key as string };
  }
  async function register(fields: Record<string, unknown> & { redirect_uris: string[] }, pub: boolean, org = { id: t.server.orgId, key: API_KEY['keyway-api-key'] }): Promise<Client> {
    const res = await fetch(`${t.server.url}/oauth2/clients`, {
      method: 'POST',
      headers: { 'keyway-api-key': org.key, 'keyway-orgid': org.id, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'RT app', scopes: ['openid', 'email'], grant_types: ['authorization_code', 'refresh_token'], public: pub, ...fields }),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST /oauth2/clients answered ${res.status}: ${text}`);
    const made = JSON.parse(text).result;
    return { client_id: made.client_id, client_secret: made.client_secret, redirect_uri: fields.redirect_uris[0]!, public: pub, org: org.id, key: org.key };
  }
  async function pending(client: Client, extra: Record<string, string> = {}, pkce = true): Promise<Pending> {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const q = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uri, scope: 'openid email', state, nonce });
    if (pkce) { q.set('code_challenge', await oidc.calculatePKCECodeChallenge(verifier)); q.set('code_challenge_method', 'S256'); }
    for (const [k, v] of Object.entries(extra)) q.set(k, v);
    return { url: new URL(`${t.server.url}/oauth2/authorize?${q}`), verifier, state, nonce, client };
  }
  /** The hosted page as a person uses it; answers the redirect (with the code) and the pending request. */
  async function signIn(b: Browser, client: Client, mail: string, extra: Record<string, string> = {}, pkce = true) {
    const p = await pending(client, extra, pkce);
    const page = await b.fetch(p.url);
    const html = await page.text();
    if (page.status !== 200) throw new Error(`authorize: ${page.status} ${page.headers.get('location')} ${html.slice(0, 300)}`);
    const ch = await (await b.post('/oauth2/login', { request_id: formField(html, 'request_id'), email: mail }, 'same-site')).text();
    const { code } = await lastMessage(t.server, mail);
    const done = await b.post('/oauth2/login/code', { request_id: formField(ch, 'request_id'), challenge_id: formField(ch, 'challenge_id'), email: formField(ch, 'email'), code: code! }, 'same-site');
    if (done.status !== 303) throw new Error(`login/code: ${done.status} ${(await done.text()).slice(0, 300)}`);
    return { callback: new URL(done.headers.get('location')!), p };
  }
  async function token(body: Record<string, string>, client?: Client, how: 'basic' | 'post' | 'none' = 'basic') {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    const fields = { ...body };
    if (client) {
      if (client.public || how === 'none') fields.client_id = client.client_id;
      else if (how === 'basic') headers.authorization = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
      else Object.assign(fields, { client_id: client.client_id, client_secret: client.client_secret });
    }
    const res = await fetch(`${t.server.url}/oauth2/tokens`, { method: 'POST', headers, body: new URLSearchParams(fields).toString() });
    const text = await res.text();
    let json: any;
    try { json = JSON.parse(text); } catch { json = { text }; }
    return { status: res.status, json, headers: res.headers };
  }
  async function redeem(cb: URL, p: Pending, client = p.client, extra: Record<string, string> = {}) {
    return token({ grant_type: 'authorization_code', code: cb.searchParams.get('code')!, redirect_uri: p.client.redirect_uri, code_verifier: p.verifier, ...extra }, client);
  }
  /** A full sign-in and exchange: tokens, the id_token's claims and the signed-in browser. */
  async function session(client: Client, tag: string, b = new Browser(t.server.url)) {
    const mail = email(tag);
    const { callback, p } = await signIn(b, client, mail);
    const tok = await redeem(callback, p);
    if (tok.status !== 200) throw new Error(`exchange: ${tok.status} ${JSON.stringify(tok.json)}`);
    return { b, tokens: tok.json, claims: decode(tok.json.id_token), mail };
  }
  /** What `/oauth2/authorize` answers a browser, without following it: the redirect's URL (or null) and the status. */
  async function authorize(b: Browser, client: Client, extra: Record<string, string> = { prompt: 'none' }) {
    const p = await pending(client, extra);
    const res = await b.fetch(p.url);
    const body = await res.text();
    const loc = res.headers.get('location');
    return { status: res.status, location: loc ? new URL(loc, t.server.url) : null, body, p };
  }
  /** Whether this browser still gets codes for `client` without a page. */
  async function signedIn(b: Browser, client: Client): Promise<boolean> {
    const r = await authorize(b, client);
    return !!r.location?.searchParams.get('code');
  }
  function decode(jwt: string): Record<string, any> {
    return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());
  }
  function forge(claims: Record<string, unknown>, header: Record<string, unknown> = { alg: 'RS256', kid: 'x' }) {
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    return `${b64(header)}.${b64(claims)}.${Buffer.from('not a signature').toString('base64url')}`;
  }
  function plant(b: Browser, org: string, value: string) {
    b.jar.set(`kw_session_${org}`, { value, path: '/oauth2', sameSite: 'lax' });
  }
  const admin = (org = { id: t.server.orgId, key: API_KEY['keyway-api-key'] }) => ({ 'keyway-api-key': org.key, 'keyway-orgid': org.id, 'content-type': 'application/json' });

  beforeAll(async () => {
    c.pubA = await register({ client_name: 'App A', redirect_uris: [APP_A], post_logout_redirect_uris: [OUT_A] }, true);
    c.confB = await register({ client_name: 'App B', redirect_uris: [APP_B], post_logout_redirect_uris: [OUT_B] }, false);
    sub = await mkSub('RT child', { persons_org_id: t.server.orgId });
    c.subS = await register({ client_name: 'Child app', redirect_uris: [APP_S] }, true, sub);
    evilOrg = await mkSub('RT attacker');
    c.evilX = await register({ client_name: 'Evil app', redirect_uris: [EVIL_CB], post_logout_redirect_uris: [EVIL_OUT] }, false, evilOrg);
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('session fixation and login CSRF', () => {
    it('(was a finding, high) login CSRF: a third-party page auto-posting the attacker\'s code form signs the victim\'s browser in as the attacker', async () => {
      // Attacker gains: the victim's browser holds a session of the attacker's account at the provider (checked in a real
      // Chromium too: the cross-site POST sets kw_session_<org>); every app of the organization then signs the victim in as the
      // attacker without a page (prompt=none), so what the victim enters lands in the attacker's account. The code form
      // checks neither Origin/Sec-Fetch-Site nor a cookie binding the request_id to the browser that started it.
      // The attacker starts a sign-in in their own browser and reads their own code.
      const attacker = new Browser(t.server.url);
      const mail = email('csrf-attacker');
      const p = await pending(c.pubA);
      const html = await (await attacker.fetch(p.url)).text();
      const ch = await (await attacker.post('/oauth2/login', { request_id: formField(html, 'request_id'), email: mail }, 'same-site')).text();
      const { code } = await lastMessage(t.server, mail);
      const fields = { request_id: formField(ch, 'request_id'), challenge_id: formField(ch, 'challenge_id'), email: formField(ch, 'email'), code: code! };
      // evil.example auto-submits that form in the victim's browser (a cross-site top-level POST).
      const victim = new Browser(t.server.url);
      const res = await victim.fetch('/oauth2/login/code', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...CROSS_SITE }, body: new URLSearchParams(fields).toString() });
      await res.text();
      // The victim now visits App B: it must not be silently signed in as the attacker.
      const b = await authorize(victim, c.confB);
      expect(b.location?.searchParams.get('code') ?? null, `victim signed in as the attacker; Set-Cookie: ${victim.setCookies.join(' | ')}`).toBeNull();
    });

    it('the code form refuses a challenge of one address submitted with another address (no sign-in as the victim)', async () => {
      const victimMail = email('victim');
      await session(c.pubA, 'victim-exists', new Browser(t.server.url)); // someone else exists too
      const b = new Browser(t.server.url);
      const mail = email('swap-attacker');
      const p = await pending(c.pubA);
      const html = await (await b.fetch(p.url)).text();
      const ch = await (await b.post('/oauth2/login', { request_id: formField(html, 'request_id'), email: mail }, 'same-site')).text();
      const { code } = await lastMessage(t.server, mail);
      const done = await b.post('/oauth2/login/code', { request_id: formField(ch, 'request_id'), challenge_id: formField(ch, 'challenge_id'), email: victimMail, code: code! }, 'same-site');
      await done.text();
      const loc = done.headers.get('location');
      if (loc && new URL(loc).searchParams.get('code')) {
        const tok = await redeem(new URL(loc), p);
        expect(decode(tok.json.id_token).email, 'signed in under the victim\'s address').not.toBe(victimMail);
      }
    });

    it('the code form locks the challenge after repeated wrong codes (no brute force of the 6 digits)', async () => {
      const b = new Browser(t.server.url);
      const mail = email('brute');
      const p = await pending(c.pubA);
      const html = await (await b.fetch(p.url)).text();
      const ch = await (await b.post('/oauth2/login', { request_id: formField(html, 'request_id'), email: mail }, 'same-site')).text();
      const { code } = await lastMessage(t.server, mail);
      const base = { request_id: formField(ch, 'request_id'), challenge_id: formField(ch, 'challenge_id'), email: formField(ch, 'email') };
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const wrong = String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');
        const r = await b.post('/oauth2/login/code', { ...base, code: wrong }, 'same-site');
        statuses.push(r.status);
        await r.text();
      }
      const right = await b.post('/oauth2/login/code', { ...base, code: code! }, 'same-site');
      await right.text();
      expect(right.headers.get('location')?.includes('code=') ?? false, `30 wrong codes then the right one still signs in (${statuses.join(',')})`).toBe(false);
    });

    it('a cookie holding another organization\'s user token (attacker-made person with the victim\'s address) gets no code for this organization', async () => {
      // The attacker administers their own organization: a person with the victim's address, a minted token.
      const made = await fetch(`${t.server.url}/persons`, { method: 'POST', headers: admin(evilOrg), body: JSON.stringify({ handles: [{ type: 'email_address', value: 'ceo@victim-corp.example', verified: true }] }) });
      const person = ((await made.json()) as any).result;
      const minted = ((await (await fetch(`${t.server.url}/persons/${person.person_id}/mint-token`, { method: 'POST', headers: { 'keyway-api-key': evilOrg.key, 'keyway-orgid': evilOrg.id } })).json()) as any).result as string;
      expect(typeof minted).toBe('string');
      const b = new Browser(t.server.url);
      plant(b, t.server.orgId, minted);
      const r = await authorize(b, c.pubA);
      expect(r.location?.searchParams.get('code') ?? null).toBeNull();
      // and the dev-only token parameter neither
      const q = await authorize(new Browser(t.server.url), c.pubA, { token: minted });
      expect(q.location?.searchParams.get('code') ?? null).toBeNull();
    });

    it('an OAuth access token, an id_token, a refresh token or an anonymous token planted as the session cookie gets no code', async () => {
      const s = await session(c.confB, 'plant');
      const anon = ((await (await fetch(`${t.server.url}/persons/anonymous`, { method: 'POST', headers: { 'content-type': 'application/json', 'keyway-orgid': t.server.orgId }, body: '{}' })).json()) as any).result as string;
      for (const [what, value] of [['access token', s.tokens.access_token], ['id_token', s.tokens.id_token], ['refresh token', s.tokens.refresh_token], ['anonymous token', anon]] as const) {
        const b = new Browser(t.server.url);
        plant(b, t.server.orgId, value);
        const r = await authorize(b, c.pubA);
        expect(r.location?.searchParams.get('code') ?? null, `${what} as the session cookie gave a code`).toBeNull();
        const viaParam = await authorize(new Browser(t.server.url), c.pubA, { prompt: 'none', token: value });
        expect(viaParam.location?.searchParams.get('code') ?? null, `${what} as the token parameter gave a code`).toBeNull();
        expect(viaParam.status).toBeLessThan(500);
      }
    });

    it('a session of the parent organization gets no code for a client of its suborganization (shared person pool), nor the reverse', async () => {
      const parent = await session(c.pubA, 'parent-session');
      expect(await signedIn(parent.b, c.pubA)).toBe(true);
      const r = await authorize(parent.b, c.subS);
      expect(r.location?.searchParams.get('code') ?? null, 'parent session -> child client code').toBeNull();
      expect(r.location?.searchParams.get('error')).toBe('login_required');
      // The child's session (same person pool) for the parent's client
      const child = await session(c.subS, 'child-session');
      const r2 = await authorize(child.b, c.pubA);
      expect(r2.location?.searchParams.get('code') ?? null, 'child session -> parent client code').toBeNull();
      // Renaming the cookie in one's own browser does not help either.
      const renamed = new Browser(t.server.url);
      plant(renamed, t.server.orgId, child.b.jar.get(`kw_session_${sub.id}`)!.value);
      expect(await signedIn(renamed, c.pubA), 'child token under the parent\'s cookie name').toBe(false);
      const renamed2 = new Browser(t.server.url);
      plant(renamed2, sub.id, parent.b.jar.get(`kw_session_${t.server.orgId}`)!.value);
      expect(await signedIn(renamed2, c.subS), 'parent token under the child\'s cookie name').toBe(false);
    });

    it('a session whose token was revoked (POST /token/revoke) gets no code', async () => {
      const revoked = await session(c.pubA, 'revoked');
      const tok = revoked.b.jar.get(`kw_session_${t.server.orgId}`)!.value;
      const rv = await fetch(`${t.server.url}/token/revoke`, { method: 'POST', headers: { 'content-type': 'application/json', 'keyway-orgid': t.server.orgId, authorization: `Bearer ${tok}` }, body: JSON.stringify({ token: tok }) });
      expect(rv.status).toBe(204);
      expect(await signedIn(revoked.b, c.pubA), 'revoked session token').toBe(false);
    });

    it('(was a finding, medium) a session whose person was deactivated (PATCH /persons/{id} active=false) still gets codes, and the codes give tokens', async () => {
      // Attacker gains: a person the organization locked out keeps signing in to every app of the organization with the
      // browser session they already had (up to the token's lifetime), with fresh access and refresh tokens.
      const inactive = await session(c.pubA, 'inactive');
      const pid = inactive.claims.sub as string;
      const patch = await fetch(`${t.server.url}/persons/${pid}`, { method: 'PATCH', headers: admin(), body: JSON.stringify({ active: false }) });
      expect(patch.status, await patch.clone().text()).toBeLessThan(300);
      expect(((await (await fetch(`${t.server.url}/persons/${pid}`, { headers: admin() })).json()) as any).result.active).toBe(false);
      // The lock-out works where the person signs in afresh or refreshes:
      const refresh = await token({ grant_type: 'refresh_token', refresh_token: inactive.tokens.refresh_token }, c.pubA);
      const r = await authorize(inactive.b, c.confB);
      const code = r.location?.searchParams.get('code') ?? null;
      let exchanged: any = {};
      if (code) exchanged = (await redeem(r.location!, r.p)).json;
      const userinfo = exchanged.access_token ? (await fetch(`${t.server.url}/oauth2/userinfo`, { headers: { authorization: `Bearer ${exchanged.access_token}` } })).status : 0;
      expect({ refreshWorks: refresh.status === 200, silentCode: code !== null, tokensFromIt: typeof exchanged.access_token === 'string', userinfoAccepts: userinfo === 200 }).toEqual({ refreshWorks: false, silentCode: false, tokensFromIt: false, userinfoAccepts: false });
    });

    it('(was a finding, low) a session whose person was deleted (DELETE /persons/{id}) still gets authorization codes without a page', async () => {
      // Attacker gains: little today (the token endpoint then refuses the code), but the provider still treats the deleted
      // person as signed in: prompt=none answers a code instead of login_required, so a relying party that only checks for a
      // code (or an error) believes the person is still signed in, and any other use of the session token is unguarded.
      const deleted = await session(c.pubA, 'deleted');
      const del = await fetch(`${t.server.url}/persons/${deleted.claims.sub}`, { method: 'DELETE', headers: { 'keyway-api-key': API_KEY['keyway-api-key'], 'keyway-orgid': t.server.orgId } });
      expect(del.status, await del.clone().text()).toBeLessThan(300);
      expect((await fetch(`${t.server.url}/persons/${deleted.claims.sub}`, { headers: admin() })).status).toBe(404);
      const refresh = await token({ grant_type: 'refresh_token', refresh_token: deleted.tokens.refresh_token }, c.pubA);
      const r = await authorize(deleted.b, c.confB);
      const code = r.location?.searchParams.get('code') ?? null;
      let exchanged: any = {};
      if (code) exchanged = (await redeem(r.location!, r.p)).json;
      expect({ refreshWorks: refresh.status === 200, silentCode: code !== null, tokensFromIt: typeof exchanged.access_token === 'string' }, `exchange answered ${JSON.stringify(exchanged).slice(0, 160)}`).toEqual({ refreshWorks: false, silentCode: false, tokensFromIt: false });
    });

    it('the hosted code form cannot be replayed (a second session from one challenge) nor redirected elsewhere by an extra field', async () => {
      const b = new Browser(t.server.url);
      const mail = email('replay-form');
      const p = await pending(c.pubA);
      const html = await (await b.fetch(p.url)).text();
      const ch = await (await b.post('/oauth2/login', { request_id: formField(html, 'request_id'), email: mail }, 'same-site')).text();
      const { code } = await lastMessage(t.server, mail);
      const fields = { request_id: formField(ch, 'request_id'), challenge_id: formField(ch, 'challenge_id'), email: formField(ch, 'email'), code: code! };
      // Extra fields naming another client, redirect URI or response mode: refused (400), never followed.
      const steered = await b.post('/oauth2/login/code', { ...fields, redirect_uri: EVIL_CB, client_id: c.evilX.client_id, response_mode: 'form_post' }, 'same-site');
      const steeredBody = await steered.text();
      expect(steered.headers.get('location') ?? '').not.toMatch(/evil/);
      expect(steeredBody).not.toMatch(/action="https:\/\/evil/);
      const first = await b.post('/oauth2/login/code', fields, 'same-site');
      await first.text();
      expect(first.headers.get('location')).toMatch(new RegExp(`^${APP_A}\\?`));
      const again = await new Browser(t.server.url).post('/oauth2/login/code', fields, 'same-site');
      await again.text();
      expect(again.status).toBeLessThan(500);
      expect(again.headers.get('location')?.includes('code=') ?? false, 'the same challenge signed a second browser in').toBe(false);
      for (const junk of [{ request_id: 'nope', challenge_id: 'nope', email: mail, code: '000000' }, { request_id: fields.request_id }, {}]) {
        const r = await new Browser(t.server.url).post('/oauth2/login/code', junk as Record<string, string>, 'same-site');
        await r.text();
        expect(r.status, JSON.stringify(junk)).toBeLessThan(500);
        expect(r.status, JSON.stringify(junk)).not.toBe(303);
      }
    });

    it('cookie attributes: HttpOnly, SameSite=Lax, Path=/oauth2, no longer than the token, Secure behind https', async () => {
      const s = await session(c.pubA, 'cookie');
      const line = s.b.setCookies.find((l) => l.startsWith(`kw_session_${t.server.orgId}=`))!;
      expect(line).toMatch(/;\s*HttpOnly/i);
      expect(line).toMatch(/;\s*SameSite=Lax/i);
      expect(line).toMatch(/;\s*Path=\/oauth2(;|$)/);
      expect(line).not.toMatch(/;\s*Domain=/i);
      const maxAge = Number(/Max-Age=(\d+)/i.exec(line)?.[1]);
      const exp = decode(line.split(';')[0]!.split('=').slice(1).join('='));
      expect(maxAge).toBeLessThanOrEqual(exp.exp - Math.floor(Date.now() / 1000) + 2);
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('prompt=none, id_token_hint, max_age', () => {
    let s: Awaited<ReturnType<typeof session>>;
    let other: Awaited<ReturnType<typeof session>>;
    beforeAll(async () => {
      s = await session(c.pubA, 'hint');
      other = await session(c.pubA, 'hint-other');
    });

    it('prompt=none with an id_token_hint naming someone else answers login_required', async () => {
      const r = await authorize(s.b, c.pubA, { prompt: 'none', id_token_hint: other.tokens.id_token });
      expect(r.location?.searchParams.get('error')).toBe('login_required');
    });

    it('prompt=none with a forged id_token_hint (bad signature, alg none, garbage) issues no code', async () => {
      const claims = { ...s.claims };
      for (const hint of [forge(claims), forge(claims, { alg: 'none' }).replace(/\.[^.]*$/, '.'), 'garbage', forge({ ...claims, sub: other.claims.sub })]) {
        const r = await authorize(s.b, c.pubA, { prompt: 'none', id_token_hint: hint });
        expect(r.status).toBeLessThan(500);
        expect(r.location?.searchParams.get('code') ?? null, `hint ${hint.slice(0, 40)} gave a code`).toBeNull();
      }
    });

    it('prompt=none with an id_token_hint another organization issued (same claims shape) issues no code', async () => {
      const x = await session(c.evilX, 'hint-x');
      const r = await authorize(s.b, c.pubA, { prompt: 'none', id_token_hint: x.tokens.id_token });
      expect(r.location?.searchParams.get('code') ?? null).toBeNull();
    });

    it('max_age: negative, non-numeric, fractional, exponent, empty or huge values are an error redirect, never a 500 and never a code', async () => {
      for (const v of ['-1', 'abc', '1.5', '1e3', '', '0x10', '99999999999999999999999', '-0']) {
        const r = await authorize(s.b, c.pubA, { max_age: v });
        expect(r.status, `max_age=${JSON.stringify(v)}: ${r.body.slice(0, 200)}`).toBeLessThan(500);
        if (r.location?.searchParams.get('code')) {
          // Only a value that is a valid non-negative integer may give a code.
          expect(/^\d+$/.test(v), `max_age=${JSON.stringify(v)} was accepted and gave a code`).toBe(true);
        }
      }
      // POST form too
      const p = await pending(c.pubA, { max_age: '-5' });
      const res = await s.b.post('/oauth2/authorize', Object.fromEntries(p.url.searchParams), 'same-site');
      expect(res.status).toBeLessThan(500);
      expect(new URL(res.headers.get('location') ?? 'http://x/').searchParams.get('code')).toBeNull();
    });

    it('(was a finding, low) a non-numeric max_age (abc, 1.5, 1e3, empty, too large) is a JSON 400 at the provider, not an error redirect to the client', async () => {
      // Attacker gains: nothing directly; the client never hears of the error (no error/state/iss back), contrary to
      // RFC 6749 §4.1.2.1 and the README's "invalid requests of a known client with a registered redirect URI go back to it".
      const wrong: string[] = [];
      for (const v of ['abc', '1.5', '1e3', '', '0x10', '99999999999999999999999']) {
        const r = await authorize(s.b, c.pubA, { max_age: v });
        if (r.location?.origin !== new URL(APP_A).origin || r.location?.searchParams.get('error') !== 'invalid_request') wrong.push(`max_age=${JSON.stringify(v)}: ${r.status} ${r.body.slice(0, 90)}`);
      }
      expect(wrong).toEqual([]);
    });

    it('max_age=0 right after signing in still requires a new sign-in (OIDC Core: max_age=0 is prompt=login)', async () => {
      const b = new Browser(t.server.url);
      const mail = email('maxage0');
      const p = await pending(c.pubA);
      const html = await (await b.fetch(p.url)).text();
      const ch = await (await b.post('/oauth2/login', { request_id: formField(html, 'request_id'), email: mail }, 'same-site')).text();
      const { code } = await lastMessage(t.server, mail);
      // Start of a second, so that the check below runs in the second of the sign-in.
      while (Date.now() % 1000 > 150) await new Promise((r) => setTimeout(r, 20));
      await b.post('/oauth2/login/code', { request_id: formField(ch, 'request_id'), challenge_id: formField(ch, 'challenge_id'), email: formField(ch, 'email'), code: code! }, 'same-site');
      const r = await authorize(b, c.confB, { prompt: 'none', max_age: '0' });
      expect(r.location?.searchParams.get('code') ?? null, 'max_age=0 reused the session').toBeNull();
      expect(r.location?.searchParams.get('error')).toBe('login_required');
    });

    it('prompt=none combined with another prompt value is invalid_request, never a code', async () => {
      for (const prompt of ['none login', 'login none', 'none consent']) {
        const r = await authorize(s.b, c.pubA, { prompt });
        expect(r.location?.searchParams.get('code') ?? null, `prompt=${prompt}`).toBeNull();
        expect(r.status, `prompt=${prompt} shows no page either`).toBe(302);
      }
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('RP-Initiated Logout', () => {
    it('(was a finding, medium) a third-party link (top-level GET, no hint) with confirm=yes signs the victim out without asking', async () => {
      // Attacker gains: any site can end a victim's session at the provider (and revoke its token) with one link or
      // redirect to /oauth2/logout?confirm=yes: the confirmation page is skipped on GET, where the SameSite=Lax cookie goes.
      const v = await session(c.pubA, 'lo-getconfirm');
      for (const q of [`client_id=${c.pubA.client_id}&confirm=yes`, 'confirm=yes', `client_id=${c.pubA.client_id}&confirm=yes&post_logout_redirect_uri=${encodeURIComponent(OUT_A)}`]) {
        const res = await v.b.fetch(`/oauth2/logout?${q}`);
        await res.text();
        expect(await signedIn(v.b, c.pubA), `GET /oauth2/logout?${q} signed the victim out (${res.status})`).toBe(true);
      }
    });

    it('a cross-site POST with confirm=yes (no cookie goes with it) leaves the session', async () => {
      const v = await session(c.pubA, 'lo-postconfirm');
      const res = await v.b.fetch('/oauth2/logout', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...CROSS_SITE }, body: `client_id=${c.pubA.client_id}&confirm=yes` });
      await res.text();
      expect(await signedIn(v.b, c.pubA)).toBe(true);
    });

    it('the attacker\'s own id_token_hint (same organization) with the victim\'s cookie does not end the victim\'s session', async () => {
      const attacker = await session(c.pubA, 'lo-attacker');
      const v = await session(c.pubA, 'lo-victim');
      const res = await v.b.fetch(`/oauth2/logout?id_token_hint=${attacker.tokens.id_token}&post_logout_redirect_uri=${encodeURIComponent(OUT_A)}`);
      await res.text();
      expect(await signedIn(v.b, c.pubA), `ended by a hint naming someone else (${res.status} ${res.headers.get('location')})`).toBe(true);
      // Cross-site POST of the same
      const res2 = await v.b.fetch('/oauth2/logout', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...CROSS_SITE }, body: new URLSearchParams({ id_token_hint: attacker.tokens.id_token }).toString() });
      await res2.text();
      expect(await signedIn(v.b, c.pubA)).toBe(true);
    });

    it('a forged id_token_hint copying the victim\'s claims (bad signature, alg none) does not end the session', async () => {
      const v = await session(c.pubA, 'lo-forged');
      for (const hint of [forge(v.claims), forge(v.claims, { alg: 'none' }).replace(/\.[^.]*$/, '.'), forge(v.claims, { alg: 'HS256', kid: 'x' })]) {
        const res = await v.b.fetch('/oauth2/logout', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...CROSS_SITE }, body: new URLSearchParams({ id_token_hint: hint, post_logout_redirect_uri: OUT_A }).toString() });
        await res.text();
        expect(res.status).toBeLessThan(500);
        expect(await signedIn(v.b, c.pubA), `forged hint (${JSON.stringify(hint.split('.')[0])}) ended the session`).toBe(true);
      }
      // GET too
      const res = await v.b.fetch(`/oauth2/logout?id_token_hint=${forge(v.claims)}&post_logout_redirect_uri=${encodeURIComponent(OUT_A)}`);
      await res.text();
      expect(res.headers.get('location')).toBeNull();
      expect(await signedIn(v.b, c.pubA)).toBe(true);
    });

    it('a hint of another organization\'s client does not end this organization\'s session', async () => {
      const v = await session(c.pubA, 'lo-cross-org');
      const x = await session(c.evilX, 'lo-cross-org-x', v.b); // same browser, also signed in at the attacker's org
      const res = await v.b.fetch(`/oauth2/logout?id_token_hint=${x.tokens.id_token}&post_logout_redirect_uri=${encodeURIComponent(EVIL_OUT)}`);
      await res.text();
      expect(await signedIn(v.b, c.pubA), `logout of org X ended org A's session (${res.status} ${res.headers.get('location')})`).toBe(true);
    });

    it('post_logout_redirect_uri: no prefix, suffix, encoding, userinfo, other-client or javascript: trick is followed', async () => {
      const v = await session(c.pubA, 'lo-redirect');
      const targets = [
        `${OUT_A}/../../evil`, `${OUT_A}.evil.example`, `${OUT_A}?next=https://evil.example`, `${OUT_A}#@evil.example`, `${OUT_A}%2F..%2F..%2Fevil`,
        'https://app-a.example.evil.example/signed-out', 'https://app-a.example@evil.example/signed-out', 'https://evil.example/app-a.example/signed-out',
        OUT_B, EVIL_OUT, 'javascript:alert(document.domain)//https://app-a.example/signed-out', 'JaVaScRiPt:alert(1)', 'data:text/html,<script>alert(1)</script>',
        '//evil.example/signed-out', '/\\evil.example', 'https:evil.example', 'http://localhost:3000@evil.example/', 'http://localhost:3000.evil.example/',
        'http://localhost:30000/', 'http://127.0.0.1:3000@evil.example/', 'https://app-a.example\\@evil.example/signed-out', ` ${OUT_A}`, `${OUT_A}\t`, 'HTTPS://EVIL.EXAMPLE/signed-out',
      ];
      const bad: string[] = [];
      for (const target of targets) {
        for (const how of ['client_id', 'hint', 'nothing'] as const) {
          const q = new URLSearchParams({ post_logout_redirect_uri: target, state: 's' });
          if (how === 'client_id') q.set('client_id', c.pubA.client_id);
          if (how === 'hint') q.set('id_token_hint', v.tokens.id_token);
          const res = await new Browser(t.server.url).fetch(`/oauth2/logout?${q}`);
          const body = await res.text();
          const loc = res.headers.get('location');
          if (res.status >= 500) bad.push(`${how} ${target}: ${res.status}`);
          if (loc && !loc.startsWith(OUT_A + '?') && !loc.startsWith('/')) bad.push(`${how} ${target} -> ${loc}`);
          if (res.status === 200 && /action="(?!\/oauth2\/logout)/.test(body)) bad.push(`${how} ${target}: a form elsewhere`);
          // The refusal page must not link to it either.
          if (/href="(javascript|data|https:\/\/evil|\/\/evil)/i.test(body)) bad.push(`${how} ${target}: linked on the page`);
        }
      }
      expect(bad).toEqual([]);
    });

    it('a client_id and an id_token_hint of different clients: the other client\'s post_logout_redirect_uri is not followed', async () => {
      const v = await session(c.pubA, 'lo-mismatch');
      const res = await new Browser(t.server.url).fetch(`/oauth2/logout?${new URLSearchParams({ id_token_hint: v.tokens.id_token, client_id: c.evilX.client_id, post_logout_redirect_uri: EVIL_OUT })}`);
      await res.text();
      expect(res.headers.get('location'), 'a hint of app A with client_id of the attacker\'s client redirected to the attacker').toBeNull();
    });

    it('every value the logout pages reflect is HTML-escaped (state, client_id, post_logout_redirect_uri, ui_locales, logout_hint)', async () => {
      const xss = `"'><script>alert(1)</script><img src=x onerror=alert(1)>`;
      const queries: Array<Record<string, string>> = [
        { client_id: c.pubA.client_id, state: xss },
        { client_id: xss, state: xss },
        { client_id: c.pubA.client_id, post_logout_redirect_uri: `https://x.example/${xss}`, state: xss },
        { client_id: c.pubA.client_id, post_logout_redirect_uri: OUT_A, state: xss, ui_locales: xss, logout_hint: xss },
        { id_token_hint: xss, state: xss },
      ];
      for (const q of queries) {
        for (const method of ['GET', 'POST']) {
          const res = method === 'GET' ? await fetch(`${t.server.url}/oauth2/logout?${new URLSearchParams(q)}`, { redirect: 'manual' }) : await fetch(`${t.server.url}/oauth2/logout`, { method, redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(q).toString() });
          const body = await res.text();
          expect(res.status).toBeLessThan(500);
          expect(body, `${method} ${JSON.stringify(q)}`).not.toContain('<script>');
          expect(body).not.toContain('<img src=x');
        }
      }
    });

    it('the logout confirmation page cannot be framed (no clickjacking of its button)', async () => {
      const res = await fetch(`${t.server.url}/oauth2/logout?client_id=${c.pubA.client_id}`);
      await res.text();
      const framing = `${res.headers.get('x-frame-options') ?? ''} ${res.headers.get('content-security-policy') ?? ''}`;
      expect(framing).toMatch(/DENY|frame-ancestors 'none'/);
    });

    it('state is returned percent-encoded in the logout redirect: no header or parameter injection', async () => {
      const v = await session(c.pubA, 'lo-state');
      const state = 'a&post_logout_redirect_uri=https://evil.example\r\nSet-Cookie: x=1';
      const res = await v.b.fetch(`/oauth2/logout?${new URLSearchParams({ id_token_hint: v.tokens.id_token, post_logout_redirect_uri: OUT_A, state })}`);
      await res.text();
      expect(res.status).toBeLessThan(500);
      const loc = res.headers.get('location');
      if (loc) {
        const u = new URL(loc);
        expect(u.origin + u.pathname).toBe(OUT_A);
        expect(u.searchParams.get('state')).toBe(state);
        expect([...u.searchParams.keys()]).toEqual(['state']);
      }
      expect(res.headers.getSetCookie().some((l) => l.startsWith('x=1'))).toBe(false);
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('authorization errors and parameters', () => {
    it('no invalid request is redirected to an unregistered redirect_uri (open redirect)', async () => {
      const bad: string[] = [];
      const uris = [EVIL_CB, `${APP_A}/../../evil`, `${APP_A}?x=1`, `${APP_A}#x`, `${APP_A}/`, `${APP_A}x`, `${APP_A}%2F..`, 'https://app-a.example.evil.example/callback', 'https://app-a.example@evil.example/callback', 'https://evil.example#https://app-a.example/callback', 'http://localhost:3000@evil.example/cb', 'http://localhost:3000.evil.example/cb', 'javascript:alert(1)//', '//evil.example/callback', 'https://app-a.example\\@evil.example/callback', OUT_A, APP_B];
      const variants: Array<Record<string, string>> = [{}, { response_type: 'token' }, { scope: 'profile' }, { code_challenge_method: 'plain' }, { prompt: 'none' }, { max_age: '-1' }, { request: 'x' }, { response_mode: 'form_post' }, { response_mode: 'fragment', prompt: 'none' }];
      for (const uri of uris) {
        for (const v of variants) {
          const p = await pending(c.pubA, { redirect_uri: uri, ...v });
          const res = await fetch(p.url, { redirect: 'manual' });
          const body = await res.text();
          const loc = res.headers.get('location');
          if (res.status >= 500) bad.push(`${uri} ${JSON.stringify(v)}: ${res.status}`);
          if (loc && !loc.startsWith('/')) bad.push(`${uri} ${JSON.stringify(v)} -> ${loc}`);
          if (/<form[^>]*action="(?!\/)/.test(body)) bad.push(`${uri} ${JSON.stringify(v)}: form_post to ${/action="([^"]*)"/.exec(body)?.[1]}`);
        }
      }
      expect(bad).toEqual([]);
    });

    it('parameters repeated twice (redirect_uri, client_id, response_mode, state) never send the answer to an unregistered address', async () => {
      const p = await pending(c.pubA);
      const bad: string[] = [];
      for (const dup of [`redirect_uri=${encodeURIComponent(EVIL_CB)}`, `client_id=${c.evilX.client_id}`, `client_id=${c.evilX.client_id}&redirect_uri=${encodeURIComponent(EVIL_CB)}`, 'response_mode=form_post', 'state=second', 'code_challenge_method=plain', 'prompt=login']) {
        for (const order of ['after', 'before']) {
          const url = order === 'after' ? `${p.url}&${dup}` : `${t.server.url}/oauth2/authorize?${dup}&${p.url.searchParams}`;
          const res = await fetch(url, { redirect: 'manual' });
          const body = await res.text();
          const loc = res.headers.get('location');
          if (res.status >= 500) bad.push(`${dup} (${order}): ${res.status}`);
          if (loc && /evil/.test(loc)) bad.push(`${dup} (${order}) -> ${loc}`);
          if (/action="https:\/\/evil/.test(body)) bad.push(`${dup} (${order}): form to evil`);
        }
      }
      expect(bad).toEqual([]);
    });

    it('a parameter sent twice is an error (RFC 6749 §3.1: must not be included more than once), not silently read one way', async () => {
      const s = await session(c.pubA, 'dup');
      const p = await pending(c.pubA, { prompt: 'none' });
      for (const dup of ['state=second', `redirect_uri=${encodeURIComponent(APP_A)}`, 'prompt=login', `code_challenge=${'A'.repeat(43)}`, 'scope=openid', 'nonce=other']) {
        const res = await s.b.fetch(`${p.url}&${dup}`);
        await res.text();
        const loc = res.headers.get('location');
        expect(loc ? new URL(loc).searchParams.get('code') : null, `duplicated ${dup.split('=')[0]} still gave a code`).toBeNull();
      }
    });

    it('state with CR/LF, quotes and HTML is percent-encoded in Location and escaped in form_post pages (success and error)', async () => {
      const s = await session(c.pubA, 'state-inject');
      const state = `"><script>alert(1)</script>\r\nSet-Cookie: pwn=1&code=attacker`;
      for (const extra of <Array<Record<string, string>>>[{}, { response_mode: 'form_post' }, { response_mode: 'fragment' }, { response_mode: 'form_post', scope: 'nope openid' }, { response_mode: 'form_post', code_challenge_method: 'plain' }]) {
        const r = await authorize(s.b, c.pubA, { state, ...extra });
        expect(r.status, JSON.stringify(extra)).toBeLessThan(500);
        expect(r.body).not.toContain('<script>alert');
        if (r.location) {
          const params = r.location.hash.length > 1 ? new URLSearchParams(r.location.hash.slice(1)) : r.location.searchParams;
          expect(params.get('state')).toBe(state);
          expect(params.getAll('code').length).toBeLessThanOrEqual(1);
          expect(params.get('code')).not.toBe('attacker');
        }
        if (r.status === 200 && /method="post"/.test(r.body)) expect(formField(r.body, 'state')).toBe(state);
      }
      // The unauthenticated error path too
      const anon = await authorize(new Browser(t.server.url), c.pubA, { prompt: 'none', state, response_mode: 'form_post' });
      expect(anon.body).not.toContain('<script>alert');
    });

    it('error_description and every reflected value on the 400 page are escaped; client_name and ui configuration cannot inject HTML', async () => {
      const xss = `"'><script>alert(1)</script><img src=x onerror=alert(1)>`;
      const evilName = await register({ client_name: xss, redirect_uris: [EVIL_CB] }, true, evilOrg);
      await fetch(`${t.server.url}/oauth2/clients/${evilName.client_id}/ui-configuration`, { method: 'PUT', headers: admin(evilOrg), body: JSON.stringify({ pageTitle: xss, supportURL: `https://x.example/"><script>alert(1)</script>`, themeVars: { 'kw-accent': 'red;}</style><script>alert(1)</script>' } }) });
      const urls = [
        `/oauth2/authorize?client_id=${encodeURIComponent(xss)}&redirect_uri=${encodeURIComponent(xss)}&response_type=code&scope=openid`,
        `/oauth2/authorize?client_id=${c.pubA.client_id}&redirect_uri=${encodeURIComponent(`https://e.example/${xss}`)}&response_type=code&scope=openid`,
        (await pending(evilName, { login_hint: xss, state: xss, nonce: xss })).url.toString(),
      ];
      for (const u of urls) {
        const res = await fetch(new URL(u, t.server.url), { redirect: 'manual' });
        const body = await res.text();
        expect(res.status).toBeLessThan(500);
        expect(body, u).not.toContain('<script>');
        expect(body, u).not.toContain('<img src=x');
      }
    });

    it('POST /oauth2/authorize with non-string, nested, JSON or huge fields answers 4xx or an error redirect, never 500 or a code', async () => {
      const s = await session(c.pubA, 'post-fuzz');
      const p = await pending(c.pubA, { prompt: 'none' });
      const base = Object.fromEntries(p.url.searchParams);
      const bodies: Array<[string, string]> = [
        ['application/json', JSON.stringify({ ...base, client_id: [c.pubA.client_id] })],
        ['application/json', JSON.stringify({ ...base, redirect_uri: { href: APP_A } })],
        ['application/json', JSON.stringify({ ...base, max_age: -1 })],
        ['application/json', JSON.stringify({ ...base, max_age: 5, state: 7 })],
        ['application/x-www-form-urlencoded', `${new URLSearchParams(base)}&client_id[]=x`],
        ['application/x-www-form-urlencoded', `${new URLSearchParams(base)}&state[a]=1`],
        ['application/x-www-form-urlencoded', new URLSearchParams({ ...base, state: 'x'.repeat(600) }).toString()],
        ['application/x-www-form-urlencoded', new URLSearchParams({ ...base, nonce: 'x'.repeat(100_000) }).toString()],
        ['application/x-www-form-urlencoded', new URLSearchParams({ ...base, max_age: '1'.repeat(400) }).toString()],
        ['application/x-www-form-urlencoded', new URLSearchParams({ ...base, id_token_hint: 'x'.repeat(20000) }).toString()],
        ['application/x-www-form-urlencoded', '%%%'],
        ['text/plain', 'hello'],
        ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="client_id"\r\n\r\nx\r\n--x--'],
      ];
      const bad: string[] = [];
      for (const [ct, body] of bodies) {
        const res = await s.b.fetch('/oauth2/authorize', { method: 'POST', headers: { 'content-type': ct }, body }, 'same-site');
        const text = await res.text();
        const loc = res.headers.get('location');
        if (res.status >= 500) bad.push(`${ct} ${body.slice(0, 80)}: ${res.status} ${text.slice(0, 120)}`);
        if (loc && new URL(loc, t.server.url).searchParams.get('code') && (ct === 'application/json' || /max_age/.test(body.slice(0, 400)) || body.includes('%5B'))) bad.push(`${ct} ${body.slice(0, 80)}: a code`);
      }
      // GET with huge state
      for (const extra of <Array<Record<string, string>>>[{ state: 'x'.repeat(600) }, { state: 'x'.repeat(12000) }, { login_hint: 'x'.repeat(5000) }]) {
        const r = await authorize(s.b, c.pubA, extra);
        if (r.status >= 500) bad.push(`GET ${Object.keys(extra)[0]} ${Object.values(extra)[0]!.length}: ${r.status}`);
      }
      expect(bad).toEqual([]);
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('token endpoint, revocation, introspection', () => {
    it('code injection: a code of app A redeemed by app B (or by another organization\'s client) is invalid_grant', async () => {
      const { callback, p } = await signIn(new Browser(t.server.url), c.pubA, email('inject'));
      for (const [who, client] of [['confB', c.confB], ['evilX', c.evilX], ['subS', c.subS]] as const) {
        const r = await redeem(callback, p, client);
        expect(r.status, `${who}: ${JSON.stringify(r.json)}`).toBeGreaterThanOrEqual(400);
        expect(r.json.access_token).toBeUndefined();
      }
    });

    it('a code redeemed with another redirect_uri, or none, or a wrong verifier, or no verifier, is refused', async () => {
      for (const [what, extra] of [['other redirect_uri', { redirect_uri: `${APP_A}?x=1` }], ['no redirect_uri', { redirect_uri: '' }], ['wrong verifier', { code_verifier: oidc.randomPKCECodeVerifier() }], ['no verifier', { code_verifier: '' }]] as const) {
        const { callback, p } = await signIn(new Browser(t.server.url), c.pubA, email('cb-mismatch'));
        const base: Record<string, string> = { grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: APP_A, code_verifier: p.verifier, client_id: c.pubA.client_id };
        const body: Record<string, string> = { ...base, ...extra };
        for (const k of Object.keys(body)) if (body[k] === '') delete body[k];
        const r = await token(body);
        expect(r.json.access_token, `${what}: ${r.status} ${JSON.stringify(r.json).slice(0, 100)}`).toBeUndefined();
        expect(r.status).toBe(400);
      }
    });

    it('PKCE downgrade (RFC 9700 §2.1.1): a code requested without code_challenge is refused when the token request sends a code_verifier', async () => {
      const { callback, p } = await signIn(new Browser(t.server.url), c.confB, email('downgrade'), {}, false);
      const r = await redeem(callback, p, c.confB);
      expect(r.status, `token endpoint accepted a code_verifier for a code without code_challenge: ${JSON.stringify(r.json).slice(0, 80)}`).toBe(400);
      expect(r.json.error).toBe('invalid_grant');
    });

    it('a confidential client\'s code is refused without its secret (client_id alone, or a wrong secret)', async () => {
      const { callback, p } = await signIn(new Browser(t.server.url), c.confB, email('conf-nosecret'));
      const r = await token({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: APP_B, code_verifier: p.verifier, client_id: c.confB.client_id });
      expect(r.status).toBe(401);
      const r2 = await token({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: APP_B, code_verifier: p.verifier }, { ...c.confB, client_secret: 'kwcs_wrong' });
      expect(r2.status).toBe(401);
    });

    it('(was a finding, low) two client authentication methods in one request (Basic and client_secret in the body) are accepted (RFC 6749 §2.3: MUST NOT)', async () => {
      // Attacker gains: little; a deviation a strict client-authentication policy relies on (which credential was checked is ambiguous).
      const { callback, p } = await signIn(new Browser(t.server.url), c.confB, email('two-auth'));
      const r = await token({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: APP_B, code_verifier: p.verifier, client_id: c.confB.client_id, client_secret: c.confB.client_secret }, c.confB, 'basic');
      expect(r.status, JSON.stringify(r.json).slice(0, 80)).toBe(400);
    });

    it('Basic credentials of one client with client_id of another in the body: refused, no tokens for either', async () => {
      const { callback, p } = await signIn(new Browser(t.server.url), c.pubA, email('mixed-id'));
      const r = await token({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: APP_A, code_verifier: p.verifier, client_id: c.pubA.client_id }, c.confB, 'basic');
      expect(r.json.access_token, JSON.stringify(r.json).slice(0, 120)).toBeUndefined();
    });

    it('token responses are not cacheable (Cache-Control: no-store, RFC 6749 §5.1)', async () => {
      const { callback, p } = await signIn(new Browser(t.server.url), c.pubA, email('nostore'));
      const r = await redeem(callback, p);
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toMatch(/no-store/);
    });

    it('a refresh token of app A is refused to app B, to another organization\'s client, and with a wider scope', async () => {
      const s = await session(c.pubA, 'rt-steal');
      const rt = s.tokens.refresh_token as string;
      expect(rt).toBeTruthy();
      for (const client of [c.confB, c.evilX, c.subS]) {
        const r = await token({ grant_type: 'refresh_token', refresh_token: rt }, client);
        expect(r.json.access_token, `${client.client_id}: ${JSON.stringify(r.json).slice(0, 100)}`).toBeUndefined();
      }
      const wider = await token({ grant_type: 'refresh_token', refresh_token: rt, scope: 'openid email admin' }, c.pubA);
      expect(wider.json.access_token).toBeUndefined();
    });

    it('grant_type tricks: repeated, case-changed, unknown URNs, client_credentials of a public client: 4xx, never 500 or tokens', async () => {
      const bodies = ['grant_type=authorization_code&grant_type=client_credentials', 'grant_type=CLIENT_CREDENTIALS', 'grant_type=urn:ietf:params:oauth:grant-type:token-exchange&subject_token=x&subject_token_type=urn:ietf:params:oauth:token-type:access_token', 'grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=x', 'grant_type=password&username=a&password=b', 'grant_type=', 'grant_type[]=client_credentials', 'grant_type=client_credentials&scope=openid'];
      const bad: string[] = [];
      for (const b of bodies) {
        for (const client of [c.pubA, c.confB]) {
          const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
          let body = b;
          if (client.public) body += `&client_id=${client.client_id}`;
          else headers.authorization = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
          const res = await fetch(`${t.server.url}/oauth2/tokens`, { method: 'POST', headers, body });
          const json = (await res.json().catch(() => ({}))) as any;
          if (res.status >= 500) bad.push(`${b} (${client.public ? 'public' : 'confidential'}): ${res.status}`);
          if (json.access_token) bad.push(`${b} (${client.public ? 'public' : 'confidential'}): tokens`);
        }
      }
      const json = await fetch(`${t.server.url}/oauth2/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: ['client_credentials'], client_id: { $ne: '' }, client_secret: { $ne: '' } }) });
      if (json.status >= 500) bad.push(`JSON body: ${json.status}`);
      expect(bad).toEqual([]);
    });

    it('another organization\'s confidential client cannot revoke or introspect this organization\'s tokens; nor can another client of the organization revoke them', async () => {
      const s = await session(c.pubA, 'rv-cross');
      const at = s.tokens.access_token as string;
      const basic = (cl: Client) => ({ authorization: `Basic ${Buffer.from(`${cl.client_id}:${cl.client_secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' });
      const intro = await (await fetch(`${t.server.url}/oauth2/tokens/introspect`, { method: 'POST', headers: basic(c.evilX), body: `token=${at}` })).json() as any;
      expect(intro.active ?? false, JSON.stringify(intro).slice(0, 200)).toBe(false);
      expect(intro.sub).toBeUndefined();
      for (const tk of [at, s.tokens.refresh_token]) {
        const r = await fetch(`${t.server.url}/oauth2/tokens/revoke`, { method: 'POST', headers: basic(c.evilX), body: `token=${tk}` });
        await r.text();
        const r2 = await fetch(`${t.server.url}/oauth2/tokens/revoke`, { method: 'POST', headers: basic(c.confB), body: `token=${tk}` });
        await r2.text();
      }
      const own = await (await fetch(`${t.server.url}/oauth2/tokens/introspect`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${at}&client_id=${c.pubA.client_id}` })).json() as any;
      expect(own.active, 'revoked by another client').toBe(true);
      const refreshed = await token({ grant_type: 'refresh_token', refresh_token: s.tokens.refresh_token }, c.pubA);
      expect(refreshed.status, 'refresh token revoked by another client').toBe(200);
    });

    it('the session cookie\'s user token cannot be introspected or revoked by another organization\'s client', async () => {
      const s = await session(c.pubA, 'rv-session');
      const ut = s.b.jar.get(`kw_session_${t.server.orgId}`)!.value;
      const basic = { authorization: `Basic ${Buffer.from(`${c.evilX.client_id}:${c.evilX.client_secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' };
      const intro = await (await fetch(`${t.server.url}/oauth2/tokens/introspect`, { method: 'POST', headers: basic, body: `token=${ut}` })).json() as any;
      expect(intro.active ?? false).toBe(false);
      await (await fetch(`${t.server.url}/oauth2/tokens/revoke`, { method: 'POST', headers: basic, body: `token=${ut}` })).text();
      expect(await signedIn(s.b, c.pubA)).toBe(true);
    });

    it('a public client (client_id alone, which anyone can send) cannot introspect the person\'s user token or another client\'s access token', async () => {
      const s = await session(c.confB, 'intro-public');
      const ut = s.b.jar.get(`kw_session_${t.server.orgId}`)!.value;
      for (const tk of [ut, s.tokens.access_token, s.tokens.refresh_token]) {
        const res = await fetch(`${t.server.url}/oauth2/tokens/introspect`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${tk}&client_id=${c.pubA.client_id}` });
        const json = (await res.json().catch(() => ({}))) as any;
        expect(json.active ?? false, JSON.stringify(json).slice(0, 150)).toBe(false);
      }
    });

    it('a deleted client\'s refresh token and unused codes stop working', async () => {
      const doomed = await register({ client_name: 'Doomed', redirect_uris: [APP_A] }, true);
      const s = await session(doomed, 'doomed');
      const pendingCode = await authorize(s.b, doomed);
      expect(pendingCode.location?.searchParams.get('code')).toBeTruthy();
      const del = await fetch(`${t.server.url}/oauth2/clients/${doomed.client_id}`, { method: 'DELETE', headers: { 'keyway-api-key': API_KEY['keyway-api-key'], 'keyway-orgid': t.server.orgId } });
      expect(del.status).toBeLessThan(300);
      const r = await token({ grant_type: 'refresh_token', refresh_token: s.tokens.refresh_token }, doomed);
      expect(r.json.access_token, 'refresh after the client was deleted').toBeUndefined();
      const x = await redeem(pendingCode.location!, pendingCode.p);
      expect(x.json.access_token, 'code after the client was deleted').toBeUndefined();
    });

    it('(was a finding, medium) a client registered with grant_types [client_credentials] only gets codes and user tokens through /oauth2/authorize', async () => {
      // Attacker gains: whoever holds a machine-to-machine client's secret (registered never to act for people) can send
      // people through the authorization endpoint and obtain their access, refresh and id tokens; the registered grant
      // types are not enforced (RFC 6749 §4.1.2.1 / §5.2: unauthorized_client).
      const s = await session(c.pubA, 'm2m-session');
      const m2m = await register({ client_name: 'M2M', redirect_uris: [APP_B], grant_types: ['client_credentials'], scopes: ['openid', 'email'] }, false);
      const r2 = await authorize(s.b, m2m, { prompt: 'none' });
      const code = r2.location?.searchParams.get('code') ?? null;
      let tokens: any = {};
      if (code) tokens = (await redeem(r2.location!, r2.p, m2m)).json;
      expect({ code: code !== null, userTokens: typeof tokens.access_token === 'string', refresh: typeof tokens.refresh_token === 'string' }).toEqual({ code: false, userTokens: false, refresh: false });
    });

    it('an authorization code is single-use even when the two redemptions race', async () => {
      const { callback, p } = await signIn(new Browser(t.server.url), c.pubA, email('race'));
      const results = await Promise.all(Array.from({ length: 6 }, () => redeem(callback, p)));
      const ok = results.filter((r) => r.status === 200);
      expect(ok.length, `${ok.length} of 6 parallel redemptions of one code succeeded`).toBeLessThanOrEqual(1);
    });

    it('a refresh token is single-use even when two refreshes race', async () => {
      const s = await session(c.pubA, 'rt-race');
      const results = await Promise.all(Array.from({ length: 6 }, () => token({ grant_type: 'refresh_token', refresh_token: s.tokens.refresh_token }, c.pubA)));
      const ok = results.filter((r) => r.status === 200);
      expect(ok.length, `${ok.length} of 6 parallel refreshes succeeded`).toBeLessThanOrEqual(1);
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('client registration hygiene (what a client admin of another organization could plant on the shared origin)', () => {
    it('(was a finding, low) redirect URIs and post_logout_redirect_uris with javascript:, vbscript:, a fragment or a wildcard are accepted at registration', async () => {
      // Attacker gains (a client admin of any organization on the shared origin): a form_post page with
      // action="javascript:..." on the provider's origin and a Location: javascript:... redirect. Today only the CSP
      // (script-src nonce, form-action) stops it in a browser (checked in Chromium: "form-action ... blocked"); RFC 9700 §4.1
      // / OAuth 2.1 want such URIs refused (no fragment, no javascript:/data:).
      const bad: string[] = [];
      for (const uri of ['javascript:alert(document.cookie)//', 'data:text/html,<script>alert(1)</script>', 'https://app.example/cb#frag', 'https://*.example/cb', 'vbscript:msgbox(1)']) {
        for (const field of ['redirect_uris', 'post_logout_redirect_uris']) {
          const res = await fetch(`${t.server.url}/oauth2/clients`, { method: 'POST', headers: admin(evilOrg), body: JSON.stringify({ client_name: 'x', scopes: ['openid'], grant_types: ['authorization_code'], public: true, redirect_uris: field === 'redirect_uris' ? [uri] : [EVIL_CB], ...(field === 'post_logout_redirect_uris' ? { post_logout_redirect_uris: [uri] } : {}) }) });
          await res.text();
          if (res.status < 400) bad.push(`${field}: ${uri}`);
        }
      }
      expect(bad).toEqual([]);
    });
  });
});
