import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from './authenticator.js';
import { BACKENDS, cookiesOf, decodeClaims, lastMessage, signInWithEmail, useTestServer, type Answer } from './helpers.js';
import { browseUntil, startOidcIdp } from './oidc-idp.js';

// #36: account pre-hijacking, tried as an attacker would against the real server. A handle belongs to a person only once
// its owner has proved it; no token is wider than it was issued. The attacker has no account, or an ordinary account, or
// a client's scoped token; mail is read from the dev mailbox only where the *owner* of the address would read it. The
// five classes of Sudhodanan and Paverd (USENIX Security 2022) each have a test at the end.

const ORIGIN = 'http://localhost:3000';
const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
const ATTACKER_PASSWORD = 'Attacker-Pa55word!';
/** What an attacker sends as `factor.options`: nothing, and the sign-up intent a client may send. */
const INTENTS: Array<Record<string, unknown>> = [{}, { sign_up: true }];

type Call = (method: string, path: string, body?: unknown, opts?: { token?: string; org?: string | null; headers?: Record<string, string> }) => Promise<Answer>;

/**
 * Plays every challenge of an `/id` answer the way an attacker who does not hold the address can: passwords and passkeys
 * are answered (that is all they need), codes are guessed, links polled. Returns every token obtained.
 */
async function attackerCompletes(call: Call, challenges: Array<{ id: string; type: string; options?: any }>, device = new SoftAuthenticator()): Promise<string[]> {
  const tokens: string[] = [];
  const attest = async (ch: { id: string; type: string }, data: unknown) => {
    const res = await call('POST', '/attestation/v3', { challenge_id: ch.id, challenge_type: ch.type, data });
    if (res.status === 200 && typeof res.body.result?.token === 'string') tokens.push(res.body.result.token);
  };
  for (const ch of challenges ?? []) {
    if (ch.type === 'password_set' || ch.type === 'password_verify' || ch.type === 'password_reset') await attest(ch, { password: ATTACKER_PASSWORD });
    else if (ch.type === 'otp') await attest(ch, { otp: '000000' });
    else if (ch.type === 'webauthn_create') await attest(ch, device.create(ch.options, ORIGIN));
    else if (ch.type === 'webauthn_get') {
      try {
        await attest(ch, device.get(ch.options, ORIGIN));
      } catch {
        // the attacker's authenticator holds no passkey the options allow
      }
    } else if (ch.type === 'proxy') {
      const res = await call('GET', `/challenge/${ch.id}/v2`);
      if (res.status === 200 && typeof res.body.result === 'string') tokens.push(res.body.result);
    }
  }
  return tokens;
}

describe.each(BACKENDS)('adversarial: account pre-hijacking (%s)', (backend) => {
  const t = useTestServer(backend);
  let n = 0;
  const victim = (tag: string) => `victim-${tag}-${++n}@example.com`;
  const personOf = (token: string) => decodeClaims(token).person_id as string;

  /** Signs in with a password by handle; the token, or undefined when refused. */
  async function passwordSignIn(handle: string, password: string): Promise<string | undefined> {
    const id = await t.call('POST', '/id/v2', { handle, factor: { method: 'password' } });
    const ch = id.body.result?.find((c: { type: string }) => c.type === 'password_verify');
    if (!ch) return undefined;
    const res = await t.call('POST', '/attestation/v3', { challenge_id: ch.id, challenge_type: 'password_verify', data: { password } });
    return res.status === 200 ? (res.body.result.token as string) : undefined;
  }

  /** Signs in with any passkey the device holds for localhost (discoverable); the token, or undefined when refused. */
  async function passkeySignIn(device: SoftAuthenticator): Promise<string | undefined> {
    const id = await t.call('POST', '/id/v2', { factor: { method: 'webauthn' } }, { headers: { origin: ORIGIN } });
    const [ch] = id.body.result;
    let data;
    try {
      data = device.get(ch.options, ORIGIN);
    } catch {
      return undefined;
    }
    const res = await t.call('POST', '/attestation/v3', { challenge_id: ch.id, challenge_type: 'webauthn_get', data });
    return res.status === 200 ? (res.body.result.token as string) : undefined;
  }

  const me = async (token: string) => (await t.call('GET', '/me', undefined, { token })).body.result;
  const credentialTypes = async (token: string) => ((await me(token)).credentials as Array<{ type: string }>).map((c) => c.type).sort();

  it.each(INTENTS)('1. password sign-up with an address the attacker does not hold gives nothing, before or after the owner signs up (options %j)', async (options) => {
    // Before the owner: the attacker answers whatever /id asks.
    const address = victim('pw');
    const early = await t.call('POST', '/id/v2', { handle: address, factor: { method: 'password', options } });
    expect(await attackerCompletes(t.call, early.body.result)).toEqual([]);
    // Opened before the owner signs up, answered after.
    const pending = await t.call('POST', '/id/v2', { handle: address, factor: { method: 'password', options } });
    const owner = await signInWithEmail(t.server, address);
    expect(await attackerCompletes(t.call, pending.body.result)).toEqual([]);
    expect(decodeClaims(owner).first_token).toBe(true);
    expect(await credentialTypes(owner)).toEqual([]);
    expect(await passwordSignIn(address, ATTACKER_PASSWORD)).toBeUndefined();
  });

  it.each(INTENTS)('2. passkey sign-up with an address the attacker does not hold registers no passkey on the owner (options %j)', async (options) => {
    const address = victim('pk');
    const device = new SoftAuthenticator();
    const early = await t.call('POST', '/id/v2', { handle: address, factor: { method: 'webauthn', options } }, { headers: { origin: ORIGIN } });
    const pending = await t.call('POST', '/id/v2', { handle: address, factor: { method: 'webauthn', options } }, { headers: { origin: ORIGIN } });
    expect(await attackerCompletes(t.call, early.body.result, device)).toEqual([]);
    const owner = await signInWithEmail(t.server, address);
    expect(await attackerCompletes(t.call, pending.body.result, device)).toEqual([]);
    expect(decodeClaims(owner).first_token).toBe(true);
    expect(await credentialTypes(owner)).toEqual([]);
    const attacker = await passkeySignIn(device);
    if (attacker) expect(personOf(attacker)).not.toBe(personOf(owner));
  });

  it.each([
    ['password', {}],
    ['password', { sign_up: true }],
    ['webauthn', {}],
    ['webauthn', { sign_up: true }],
  ] as const)('3. a signed-in attacker cannot attach an address they do not hold to their account (%s, options %j)', async (method, options) => {
    const attackerAddress = victim('attacker');
    const attacker = await signInWithEmail(t.server, attackerAddress);
    const address = victim('trojan');
    const device = new SoftAuthenticator();
    const id = await t.call('POST', '/id/v2', { handle: address, factor: { method, options } }, { token: attacker, headers: { origin: ORIGIN } });
    const tokens = await attackerCompletes(t.call, id.body.result, device);
    for (const token of tokens) expect(personOf(token)).toBe(personOf(attacker));
    const handles = ((await me(attacker)).handles as Array<{ value: string }>).map((h) => h.value);
    expect(handles).not.toContain(address);
    // What reached the owner is a link whose page says it would add their address to someone else's account.
    const { link } = await lastMessage(t.server, address);
    const page = await (await fetch(link!)).text();
    expect(page).toContain(`adds this address to the account of ${attackerAddress}`);
    // The owner signs in to an account of their own, which holds nothing of the attacker's.
    const owner = await signInWithEmail(t.server, address);
    expect(personOf(owner)).not.toBe(personOf(attacker));
    expect(decodeClaims(owner).first_token).toBe(true);
    expect(await credentialTypes(owner)).toEqual([]);
  });

  it("3. the organization's handle patterns hold when a signed-in person adds a handle, even one they prove", async () => {
    const config = (body: unknown) => t.call('PATCH', '/organizations/config', body, KEY);
    const attacker = await signInWithEmail(t.server, 'mallory@corp.example');
    expect((await config({ new_person_handle_patterns: ['^[^@]+@corp\\.example$'] })).status).toBeLessThan(300);
    try {
      // An address the attacker does hold (they read its mail), outside the organization's patterns.
      const outside = 'mallory@elsewhere.example';
      const id = await t.call('POST', '/id/v2', { handle: outside, factor: { method: 'otp_via_email' } }, { token: attacker });
      if (id.status === 200) {
        const { code } = await lastMessage(t.server, outside);
        const res = await t.call('POST', '/attestation/v3', { challenge_id: id.body.result[0].id, challenge_type: 'otp', data: { otp: code } });
        expect(res.status).toBe(403);
        expect(res.body.errors[0].message).toBe('person cannot be registered');
      } else {
        expect(id.status).toBe(403);
      }
      const handles = ((await me(attacker)).handles as Array<{ value: string }>).map((h) => h.value);
      expect(handles).toEqual(['mallory@corp.example']);
    } finally {
      await config({ new_person_handle_patterns: [] });
    }
  });

  it('4. email_verified says whether the address was proved: a code sign-in proves it, a management import without the source saying so does not', async () => {
    const client = (await t.call('POST', '/oauth2/clients', { client_name: 'Verify', scopes: ['openid', 'email'], grant_types: ['authorization_code'], redirect_uris: ['https://app.example.com/cb'] }, KEY)).body.result;
    const claimsFor = async (personId: string) => {
      const minted = (await t.call('POST', '/oauth2/tokens/mint', { client_id: client.client_id, person_id: personId, scopes: ['openid', 'email'] }, KEY)).body.result;
      const info = await fetch(`${t.server.url}/oauth2/userinfo`, { headers: { authorization: `Bearer ${minted.access_token}` } });
      return { id: decodeClaims(minted.id_token), userinfo: (await info.json()) as Record<string, unknown> };
    };
    const imported = victim('imported');
    const created = await t.call('POST', '/persons', { active: true, handles: [{ type: 'email_address', value: imported }] }, KEY);
    expect(created.status).toBeLessThan(300);
    const unproved = await claimsFor(created.body.result.person_id);
    expect(unproved.id).toMatchObject({ email: imported, email_verified: false });
    expect(unproved.userinfo).toMatchObject({ email: imported, email_verified: false });
    // Once the owner proves the address with a code, the same person's tokens say so.
    const owner = await signInWithEmail(t.server, imported);
    expect(personOf(owner)).toBe(created.body.result.person_id);
    const proved = await claimsFor(personOf(owner));
    expect(proved.id).toMatchObject({ email: imported, email_verified: true });
    expect(proved.userinfo).toMatchObject({ email_verified: true });
    // An import whose source system verified the address says so, and the tokens say it too.
    const vouched = victim('vouched');
    const imported2 = await t.call('POST', '/persons', { active: true, handles: [{ type: 'email_address', value: vouched, verified: true }] }, KEY);
    expect((await claimsFor(imported2.body.result.person_id)).id).toMatchObject({ email: vouched, email_verified: true });
    expect((await t.call('GET', `/persons/${imported2.body.result.person_id}`, undefined, KEY)).body.result.handles).toEqual([{ type: 'email_address', value: vouched, verified: true }]);
  });

  it("5. a client's access token is limited to its client: no first-party token, no credential, no handle", async () => {
    const owner = await signInWithEmail(t.server, victim('scoped'));
    const client = (await t.call('POST', '/oauth2/clients', { client_name: 'Scoped', scopes: ['openid'], grant_types: ['authorization_code'], redirect_uris: ['https://app.example.com/cb'] }, KEY)).body.result;
    const access = (await t.call('POST', '/oauth2/tokens/mint', { client_id: client.client_id, person_id: personOf(owner), scopes: ['openid'] }, KEY)).body.result.access_token as string;
    for (const [method, path] of [['GET', '/token'], ['GET', '/token/v2'], ['POST', '/token/v2'], ['POST', '/direct-id']] as const) {
      const res = await t.call(method, path, method === 'POST' && path === '/token/v2' ? {} : undefined, { token: access });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
    const device = new SoftAuthenticator();
    for (const [handle, factor] of [[undefined, 'webauthn'], [undefined, 'password'], ['x-' + victim('scoped'), 'otp_via_email']] as const) {
      const res = await t.call('POST', '/id/v2', { ...(handle ? { handle } : {}), factor: { method: factor } }, { token: access, headers: { origin: ORIGIN } });
      expect(res.status, `/id with ${factor}`).toBe(401);
      expect(res.body.errors[0].message).toMatch(/access token/);
    }
    expect(await credentialTypes(owner)).toEqual([]);
    expect(await passkeySignIn(device)).toBeUndefined();
    // What it is for still works: userinfo. It is no user token for /token/validate either (checked by introspection).
    expect((await fetch(`${t.server.url}/oauth2/userinfo`, { headers: { authorization: `Bearer ${access}` } })).status).toBe(200);
    expect((await t.call('POST', '/token/validate', { token: access })).body.result.valid).toBe(false);
  });

  it('6. the password and passkey factors answer alike for known and unknown addresses', async () => {
    const withPassword = victim('known-pw');
    const signedIn = await signInWithEmail(t.server, withPassword);
    const set = await t.call('POST', '/id/v2', { factor: { method: 'password' } }, { token: signedIn });
    const [setCh] = set.body.result;
    expect((await t.call('POST', '/attestation/v3', { challenge_id: setCh.id, challenge_type: setCh.type, data: { password: 'Owner-Pa55word!' } })).status).toBe(200);
    const withPasskey = victim('known-pk');
    const pkToken = await signInWithEmail(t.server, withPasskey);
    const device = new SoftAuthenticator();
    const add = await t.call('POST', '/id/v2', { factor: { method: 'webauthn' } }, { token: pkToken, headers: { origin: ORIGIN } });
    expect((await t.call('POST', '/attestation/v3', { challenge_id: add.body.result[0].id, challenge_type: 'webauthn_create', data: device.create(add.body.result[0].options, ORIGIN) })).status).toBe(200);
    const codeOnly = victim('known-code');
    await signInWithEmail(t.server, codeOnly);
    const unknown = victim('unknown');
    for (const method of ['password', 'webauthn']) {
      for (const options of INTENTS) {
        const shapes = [];
        for (const handle of [withPassword, withPasskey, codeOnly, unknown]) {
          const res = await t.call('POST', '/id/v2', { handle, factor: { method, options } }, { headers: { origin: ORIGIN } });
          shapes.push({ status: res.status, types: res.status === 200 ? res.body.result.map((c: { type: string }) => c.type) : res.body.errors[0].message });
        }
        for (const shape of shapes) expect(shape, `${method} ${JSON.stringify(options)}`).toEqual(shapes[0]);
      }
    }
  });

  it('7. a sign-in link someone else asked for does not sign them in when its owner opens it', async () => {
    const address = victim('link');
    const id = await t.call('POST', '/id/v2', { handle: address, factor: { method: 'email_link' } });
    const [ch] = id.body.result;
    expect((await t.call('GET', `/challenge/${ch.id}/v2`)).status).toBe(202);
    // The owner (or their mail scanner) opens the link they received.
    const { link } = await lastMessage(t.server, address);
    const opened = await fetch(link!, { redirect: 'manual' });
    const page = await opened.text();
    expect(opened.status).toBe(200);
    expect(page).toContain(address);
    expect(page).toMatch(/requested/i);
    const poll = await t.call('GET', `/challenge/${ch.id}/v2`);
    expect(poll.status, 'the waiting poll gets no token from the link being opened').toBe(202);
    // The owner says no: the waiting poll ends without a token.
    const action = /<form[^>]*action="([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, '&');
    const fields = Object.fromEntries([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    const deny = await fetch(new URL(action, t.server.url), { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...fields, decision: 'deny' }).toString() });
    expect(deny.status).toBe(200);
    const after = await t.call('GET', `/challenge/${ch.id}/v2`);
    expect(after.status).toBe(401);
    expect(after.body.errors[0].message).toMatch(/refused/);
  });

  it('8. password_set and password_reset carry the rules in the shape clients read: validation_rules.regular_expressions', async () => {
    const token = await signInWithEmail(t.server, victim('rules'));
    const set = await t.call('POST', '/id/v2', { factor: { method: 'password' } }, { token });
    const [ch] = set.body.result;
    expect(ch.type).toBe('password_set');
    const rules = ch.options.validation_rules;
    expect(Array.isArray(rules.regular_expressions)).toBe(true);
    for (const r of rules.regular_expressions) {
      expect(r).toMatchObject({ name: expect.any(String), pattern: expect.any(String), match_type: expect.stringMatching(/^must_(not_)?match$/) });
      expect(() => new RegExp(r.pattern, r.pattern_qualifiers?.includes('case_insensitive') ? 'i' : '')).not.toThrow();
    }
  });

  it.each([
    ['/oauth2/tokens', { grant_type: 'client_credentials' }],
    ['/oauth2/tokens/introspect', { token: 'x' }],
    ['/oauth2/tokens/revoke', { token: 'x' }],
    ['/oauth2/tokens/revoke-all', { person_id: 'pid:x' }],
  ])('9. a malformed HTTP Basic credential at %s is 401 invalid_client, not 500', async (path, fields) => {
    const res = await fetch(`${t.server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('%:x').toString('base64')}` },
      body: new URLSearchParams(fields).toString(),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
  });

  it('9. the hosted login takes only the code its own request sent, and mints one authorization code per request', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const authorize = `${t.server.url}/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'keyway-dev-client', redirect_uri: 'http://localhost:3000/login', scope: 'openid', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' })}`;
    const page = await fetch(authorize);
    const requestId = /name="request_id" value="([^"]+)"/.exec(await page.text())![1]!;
    const cookie = cookiesOf(page);
    const form = (data: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body: new URLSearchParams(data).toString(), redirect: 'manual' as const });
    // A code challenge started elsewhere (the attacker's own /id, whose code they hold) does not complete this request.
    const own = victim('hosted');
    const elsewhere = await t.call('POST', '/id/v2', { handle: own, factor: { method: 'otp_via_email' } });
    const { code: elsewhereCode } = await lastMessage(t.server, own);
    const swapped = await fetch(`${t.server.url}/oauth2/login/code`, form({ request_id: requestId, challenge_id: elsewhere.body.result[0].id, code: elsewhereCode! }));
    expect(swapped.status).not.toBe(303);
    // The request's own code works once; the same request cannot mint a second code.
    const codePage = await (await fetch(`${t.server.url}/oauth2/login`, form({ request_id: requestId, email: own }))).text();
    const challengeId = /name="challenge_id" value="([^"]+)"/.exec(codePage)![1]!;
    const { code } = await lastMessage(t.server, own);
    expect((await fetch(`${t.server.url}/oauth2/login/code`, form({ request_id: requestId, challenge_id: challengeId, code: code! }))).status).toBe(303);
    const again = await fetch(`${t.server.url}/oauth2/login`, form({ request_id: requestId, email: own }));
    const secondPage = await again.text();
    const second = /name="challenge_id" value="([^"]+)"/.exec(secondPage)?.[1];
    if (second) {
      const { code: code2 } = await lastMessage(t.server, own);
      expect((await fetch(`${t.server.url}/oauth2/login/code`, form({ request_id: requestId, challenge_id: second, code: code2! }))).status).not.toBe(303);
    }
  });

  describe('the five classes of account pre-hijacking', () => {
    let idp: Awaited<ReturnType<typeof startOidcIdp>>;
    let liar: Awaited<ReturnType<typeof startOidcIdp>>;
    const emails = new Map<string, string>();
    beforeAll(async () => {
      const callback = `${t.server.url}/sso/oidc/callback`;
      idp = await startOidcIdp(callback, { sub: 'x', email: 'x@example.com' }, { clientId: 'trusted-idp', emailOf: (sub) => emails.get(sub) ?? `${sub}@example.com` });
      // A provider that does not verify addresses: it never says email_verified.
      liar = await startOidcIdp(callback, { sub: 'x', email: 'x@example.com' }, { clientId: 'lax-idp', emailOf: (sub) => emails.get(sub) ?? `${sub}@example.com`, emailVerified: null });
      for (const [provider, p] of [['trusted', idp], ['lax', liar]] as const) {
        const created = await t.call('POST', '/organizations/sso/oidc/provider-credentials', { provider: 'generic', label: provider, client_id: p.client_id, client_secret: p.client_secret, issuer: p.issuer }, KEY);
        expect(created.status).toBe(201);
      }
    });
    afterAll(async () => {
      await idp.close();
      await liar.close();
    });

    /** An OIDC sign-in through `p` as `sub` (whose address is `email`): the token, or undefined when it gives none. */
    async function ssoSignIn(p: typeof idp, sub: string, email: string): Promise<string | undefined> {
      emails.set(sub, email);
      const verifier = randomBytes(32).toString('base64url');
      const id = await t.call('POST', '/id/v2', { factor: { method: 'oidc', options: { provider: 'generic', client_id: p.client_id, ux_mode: 'redirect', redirect_target: `${ORIGIN}/login`, pkce_code_challenge: createHash('sha256').update(verifier).digest('base64url') } } }, { headers: { origin: ORIGIN } });
      const [ch] = id.body.result;
      const callback = await browseUntil(ch.options.auth_code_url, `${t.server.url}/sso/oidc/callback`, sub);
      const back = await fetch(callback, { redirect: 'manual' });
      const location = back.headers.get('location');
      if (back.status !== 303 || !location) return undefined;
      const code = new URL(location).searchParams.get('sso_code')!;
      if ((await t.call('POST', '/sso/resolve', { challenge_id: ch.id, code, pkce_code_verifier: verifier })).status !== 204) return undefined;
      const done = await t.call('GET', `/challenge/${ch.id}/v2`);
      return done.status === 200 ? (done.body.result as string) : undefined;
    }

    it('classic–federated merge: a password sign-up for the address, then the owner arrives through a trusted provider', async () => {
      const address = victim('merge');
      for (const options of INTENTS) {
        const id = await t.call('POST', '/id/v2', { handle: address, factor: { method: 'password', options } });
        expect(await attackerCompletes(t.call, id.body.result)).toEqual([]);
      }
      const owner = await ssoSignIn(idp, `merge-owner-${n}`, address);
      expect(owner).toBeDefined();
      expect(decodeClaims(owner!).first_token).toBe(true);
      expect(await credentialTypes(owner!)).toEqual([]);
      expect(await passwordSignIn(address, ATTACKER_PASSWORD)).toBeUndefined();
    });

    it('unexpired session: nothing the attacker started before the owner keeps working after the owner signs in and resets', async () => {
      const address = victim('session');
      const device = new SoftAuthenticator();
      const tokens: string[] = [];
      for (const method of ['password', 'webauthn', 'email_link']) {
        for (const options of INTENTS) {
          const id = await t.call('POST', '/id/v2', { handle: address, factor: { method, options } }, { headers: { origin: ORIGIN } });
          if (id.status === 200) tokens.push(...(await attackerCompletes(t.call, id.body.result, device)));
        }
      }
      const owner = await signInWithEmail(t.server, address);
      for (const token of tokens) {
        const res = await t.call('GET', '/me', undefined, { token });
        if (res.status === 200) expect(res.body.result.person.person_id).not.toBe(personOf(owner));
      }
      expect(await passkeySignIn(device)).toSatisfy((tok: string | undefined) => !tok || personOf(tok) !== personOf(owner));
    });

    it('trojan identifier: an attacker adds the owner’s phone number to their own account; the owner’s SMS code sign-in lands in an account of their own', async () => {
      const attacker = await signInWithEmail(t.server, victim('trojan-owner'));
      const phone = `+4477009${String(n).padStart(5, '0')}`;
      for (const options of INTENTS) {
        const id = await t.call('POST', '/id/v2', { handle: phone, factor: { method: 'password', options } }, { token: attacker });
        if (id.status === 200) await attackerCompletes(t.call, id.body.result);
      }
      const id = await t.call('POST', '/id/v2', { handle: phone, factor: { method: 'otp_via_sms' } });
      const { code } = await lastMessage(t.server, phone);
      const owner = await t.call('POST', '/attestation/v3', { challenge_id: id.body.result[0].id, challenge_type: 'otp', data: { otp: code } });
      expect(owner.status).toBe(200);
      expect(personOf(owner.body.result.token)).not.toBe(personOf(attacker));
      expect(decodeClaims(owner.body.result.token).first_token).toBe(true);
    });

    it('unexpired e-mail change: a handle change the attacker opened before the owner signed up cannot be finished after', async () => {
      const attacker = await signInWithEmail(t.server, victim('change-owner'));
      const address = victim('change');
      const opened = [];
      for (const method of ['password', 'webauthn']) {
        for (const options of INTENTS) {
          opened.push(await t.call('POST', '/id/v2', { handle: address, factor: { method, options } }, { token: attacker, headers: { origin: ORIGIN } }));
        }
      }
      const owner = await signInWithEmail(t.server, address);
      const device = new SoftAuthenticator();
      for (const id of opened) {
        if (id.status !== 200) continue;
        for (const token of await attackerCompletes(t.call, id.body.result, device)) expect(personOf(token)).not.toBe(personOf(owner));
      }
      expect(await credentialTypes(owner)).toEqual([]);
      expect(await passwordSignIn(address, ATTACKER_PASSWORD)).toBeUndefined();
    });

    it("a provider's subject whose address there changes to someone else's signs its own person in, and the token does not claim the new address", async () => {
      const sub = `moving-${n}`;
      const first = await ssoSignIn(idp, sub, victim('moving-own'));
      const other = victim('moving-other');
      const second = await ssoSignIn(idp, sub, other);
      expect(personOf(second!)).toBe(personOf(first!));
      expect((decodeClaims(second!).authentications as Array<{ handle?: string }>).map((a) => a.handle)).not.toContain(other);
    });

    it('non-verifying identity provider: an address it asserts without verifying neither reaches the owner’s account nor makes one the owner later lands in', async () => {
      const existing = victim('lax-existing');
      const owner = await signInWithEmail(t.server, existing);
      const intoExisting = await ssoSignIn(liar, `lax-attacker-${n}`, existing);
      if (intoExisting) expect(personOf(intoExisting)).not.toBe(personOf(owner));
      const fresh = victim('lax-fresh');
      const created = await ssoSignIn(liar, `lax-attacker2-${n}`, fresh);
      const later = await signInWithEmail(t.server, fresh);
      if (created) expect(personOf(created)).not.toBe(personOf(later));
      expect(decodeClaims(later).first_token).toBe(true);
    });
  });
});
