import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SoftAuthenticator } from './authenticator.js';
import { protocolForm } from './contract.js';
import { answerLink, BACKENDS, cookiesOf, decodeClaims, lastMessage, proveByLink, signInWithEmail, useTestServer } from './helpers.js';

// #36, the account lifecycle as an outside tester attacked it (a helper who never saw the code, against a running
// server): each test is one of their findings, written as they ran it. Every one failed on the server before its fix.

const ORIGIN = 'http://localhost:3000';
const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
const REDIRECT = 'https://app.example/cb';

describe.each(BACKENDS)('adversarial: the account lifecycle, as an outside tester attacked it (%s)', (backend) => {
  const t = useTestServer(backend);
  let n = 0;
  const address = (tag: string) => `${tag}-${++n}-${Date.now()}@example.com`;
  const personOf = (token: string) => decodeClaims(token).person_id as string;
  const form = (data: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(data).toString(), redirect: 'manual' as const });

  /** An authorization request of `clientId`; with `token`, the authorize endpoint may answer at once. */
  function authorizeUrl(clientId: string, extra: Record<string, string> = {}) {
    const verifier = randomBytes(32).toString('base64url');
    const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, state: 'state-123456', scope: 'openid', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', ...extra });
    return { url: `${t.server.url}/oauth2/authorize?${q}`, verifier };
  }

  async function newClient(fields: Record<string, unknown> = {}) {
    const made = await t.call('POST', '/oauth2/clients', { client_name: 'App', scopes: ['openid', 'email', 'phone', 'groups'], grant_types: ['authorization_code', 'refresh_token'], redirect_uris: [REDIRECT], public: true, ...fields }, KEY);
    expect(made.status).toBe(201);
    return made.body.result as { client_id: string };
  }

  it('the hosted login takes no code after five wrong ones on its challenge, the right one included', async () => {
    const victim = address('hosted-guess');
    const { url } = authorizeUrl('keyway-dev-client', { redirect_uri: 'http://localhost:3000/login' });
    const page = await fetch(url);
    const requestId = /name="request_id" value="([^"]+)"/.exec(await page.text())![1]!;
    const inBrowser = (fields: Record<string, string>) => {
      const init = form(fields);
      return { ...init, headers: { ...init.headers, cookie: cookiesOf(page) } };
    };
    const codePage = await (await fetch(`${t.server.url}/oauth2/login`, inBrowser({ request_id: requestId, email: victim }))).text();
    const challengeId = /name="challenge_id" value="([^"]+)"/.exec(codePage)![1]!;
    const { code } = await lastMessage(t.server, victim);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 7; i++) await fetch(`${t.server.url}/oauth2/login/code`, inBrowser({ request_id: requestId, challenge_id: challengeId, code: wrong }));
    const right = await fetch(`${t.server.url}/oauth2/login/code`, inBrowser({ request_id: requestId, challenge_id: challengeId, code: code! }));
    expect(right.status).not.toBe(303);
    expect(await right.text()).toMatch(/too many/);
  });

  it("an access token at /oauth2/authorize gets no new code, whatever scope it asks (#36: never exchanged)", async () => {
    const client = await newClient();
    const owner = await signInWithEmail(t.server, address('authorize-at'));
    const minted = (await t.call('POST', '/oauth2/tokens/mint', { client_id: client.client_id, person_id: personOf(owner), scopes: ['openid'] }, KEY)).body.result;
    const { url } = authorizeUrl(client.client_id, { token: minted.access_token, prompt: 'none', scope: 'openid email phone groups' });
    const answer = await fetch(url, { redirect: 'manual' });
    const location = new URL(answer.headers.get('location') ?? 'http://x/');
    expect(location.searchParams.get('code')).toBeNull();
    expect(location.searchParams.get('error')).toBe('login_required');
  });

  it("an anonymous visitor's token stops working once the person signs up with it (no fixated session)", async () => {
    const anon = (await t.call('POST', '/persons/anonymous', {})).body.result as string;
    const upgraded = await signInWithEmail(t.server, address('anon-upgrade'), anon);
    expect(personOf(upgraded)).toBe(personOf(anon));
    for (const [method, path] of [['GET', '/me'], ['POST', '/direct-id'], ['GET', '/attributes']] as const) {
      expect((await t.call(method, path, undefined, { token: anon })).status, `${method} ${path}`).toBe(401);
    }
    expect((await t.call('GET', '/me', undefined, { token: upgraded })).status).toBe(200);
  });

  it('a passkey challenge by handle fails alike for a real passkey answered by another key and for anyone without one', async () => {
    const origin = { headers: { origin: ORIGIN } };
    const holder = address('pk-holder');
    const device = new SoftAuthenticator();
    const token = await signInWithEmail(t.server, holder);
    const add = await t.call('POST', '/id/v2', { factor: { method: 'webauthn' } }, { token, ...origin });
    expect((await t.call('POST', '/attestation/v3', { challenge_id: add.body.result[0].id, challenge_type: 'webauthn_create', data: device.create(add.body.result[0].options, ORIGIN) })).status).toBe(200);
    const failures = [];
    for (const handle of [holder, address('pk-none')]) {
      const get = await t.call('POST', '/id/v2', { handle, factor: { method: 'webauthn' } }, origin);
      const [ch] = get.body.result;
      // An attacker's own key, answering with the credential id the challenge lists.
      const forged = new SoftAuthenticator();
      const own = forged.add(ch.options.rpId);
      const answer = forged.get(ch.options, ORIGIN, own.id);
      const res = await t.call('POST', '/attestation/v3', { challenge_id: ch.id, challenge_type: 'webauthn_get', data: { ...answer, id: ch.options.allowCredentials[0].id, rawId: ch.options.allowCredentials[0].id } });
      failures.push({ status: res.status, message: res.body.errors[0].message });
    }
    expect(failures[0]).toEqual(failures[1]);
    expect(failures[0]!.message).toBe('passkey could not be verified');
  });

  it('decoy passkey ids are stable per address and vary like real ones between addresses', async () => {
    const lengths = new Set<number>();
    const transports = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const handle = address('decoy');
      const ids = [];
      for (let k = 0; k < 2; k++) {
        const get = await t.call('POST', '/id/v2', { handle, factor: { method: 'webauthn' } }, { headers: { origin: ORIGIN } });
        ids.push(get.body.result[0].options.allowCredentials[0]);
      }
      expect(ids[1]).toEqual(ids[0]);
      lengths.add(Buffer.from(ids[0].id, 'base64url').length);
      transports.add(JSON.stringify(ids[0].transports ?? []));
    }
    expect(lengths.size).toBeGreaterThan(1);
    expect(transports.size).toBeGreaterThan(1);
  });

  it("a recovered account's OAuth refresh tokens stop working (whoever had them is signed out)", async () => {
    const client = await newClient();
    const owner = address('refresh-recover');
    const token = await signInWithEmail(t.server, owner);
    const { url, verifier } = authorizeUrl(client.client_id, { token });
    const code = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
    const granted = await protocolForm(t.server, '/oauth2/tokens', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id });
    expect(granted.body.refresh_token).toMatch(/^kwrt_/);
    // The owner recovers the account: a code to the address, then a new password.
    const rec = await t.call('POST', '/recover', { handle: owner, factor: { method: 'otp_via_email' } });
    const [otp, reset] = rec.body.result;
    await t.call('POST', '/attestation/v3', { challenge_id: otp.id, challenge_type: 'otp', data: { otp: (await lastMessage(t.server, owner)).code } });
    expect((await t.call('POST', '/attestation/v3', { challenge_id: reset.id, challenge_type: 'password_reset', data: { password: 'a new password 42' } })).status).toBe(200);
    const refreshed = await protocolForm(t.server, '/oauth2/tokens', { grant_type: 'refresh_token', refresh_token: granted.body.refresh_token, client_id: client.client_id });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('POST /token/validate does not call an OAuth2 access token a valid user token', async () => {
    const client = await newClient();
    const owner = await signInWithEmail(t.server, address('validate-at'));
    const minted = (await t.call('POST', '/oauth2/tokens/mint', { client_id: client.client_id, person_id: personOf(owner), scopes: ['openid'] }, KEY)).body.result;
    for (const opts of [{}, KEY]) {
      const res = (await t.call('POST', '/token/validate', { token: minted.access_token }, opts)).body.result;
      expect(res).toEqual({ valid: false, invalidity_reason: 'token is an OAuth2 access token, which is not accepted here' });
    }
  });

  it('registering a passkey under a credential id another person has is a clear 4xx, not a 500', async () => {
    const origin = { headers: { origin: ORIGIN } };
    const first = new SoftAuthenticator();
    const a = await signInWithEmail(t.server, address('pk-a'));
    const addA = await t.call('POST', '/id/v2', { factor: { method: 'webauthn' } }, { token: a, ...origin });
    const regA = first.create(addA.body.result[0].options, ORIGIN);
    expect((await t.call('POST', '/attestation/v3', { challenge_id: addA.body.result[0].id, challenge_type: 'webauthn_create', data: regA })).status).toBe(200);
    const b = await signInWithEmail(t.server, address('pk-b'));
    const addB = await t.call('POST', '/id/v2', { factor: { method: 'webauthn' } }, { token: b, ...origin });
    const res = await t.call('POST', '/attestation/v3', { challenge_id: addB.body.result[0].id, challenge_type: 'webauthn_create', data: new SoftAuthenticator().create(addB.body.result[0].options, ORIGIN, regA.id) });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('passkey could not be registered: use another one');
  });

  it('the TOTP factor answers alike for a person with an authenticator app, one without, and an unknown address', async () => {
    const withTotp = address('totp-yes');
    const token = await signInWithEmail(t.server, withTotp);
    const reg = await t.call('POST', '/id/v2', { factor: { method: 'totp' } }, { token });
    expect(reg.body.result[0].type).toBe('totp_register');
    const { generate } = await import('otplib');
    const secret = new URL(reg.body.result[0].options.key_uri).searchParams.get('secret')!;
    expect((await t.call('POST', '/attestation/v3', { challenge_id: reg.body.result[0].id, challenge_type: 'totp_register', data: { otp: await generate({ secret }) } })).status).toBe(200);
    const without = address('totp-no');
    await signInWithEmail(t.server, without);
    const shapes = [];
    for (const handle of [withTotp, without, address('totp-nobody')]) {
      const res = await t.call('POST', '/id/v2', { handle, factor: { method: 'totp' } });
      shapes.push({ status: res.status, types: res.body.result?.map((c: { type: string }) => c.type) });
      if (handle !== withTotp) {
        const refused = await t.call('POST', '/attestation/v3', { challenge_id: res.body.result[0].id, challenge_type: 'totp_verify', data: { otp: '123456' } });
        expect(refused.body.errors[0]).toEqual({ httpcode: 401, message: 'incorrect code' });
      }
    }
    expect(shapes[1]).toEqual(shapes[0]);
    expect(shapes[2]).toEqual(shapes[0]);
  });

  it("a link asked for with one person's token never hands that tab another person's session", async () => {
    const a = await signInWithEmail(t.server, address('mix-a'));
    const bAddress = address('mix-b');
    await signInWithEmail(t.server, bAddress);
    const id = await t.call('POST', '/id/v2', { handle: bAddress, factor: { method: 'email_link' } }, { token: a });
    const [ch] = id.body.result;
    const { link } = await lastMessage(t.server, bAddress);
    const page = await (await fetch(link!)).text();
    expect(page).not.toContain('adds this address to the account');
    await answerLink(link!);
    const poll = await t.call('GET', `/challenge/${ch.id}/v2`);
    expect(poll.status).toBe(403);
    expect(poll.body.errors[0].message).toBe('this address belongs to another account: sign out, then sign in with it');
  });

  it('signing out ends what the session handed out: its Direct-ID and its unused authorization codes', async () => {
    const token = await signInWithEmail(t.server, address('logout'));
    const directId = (await t.call('POST', '/direct-id', undefined, { token })).body.result as string;
    const client = await newClient();
    const { url, verifier } = authorizeUrl(client.client_id, { token });
    const code = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
    expect((await t.call('POST', '/token/revoke', { token })).status).toBe(204);
    const pack = (await t.call('GET', `/challenge_pack/${directId}`)).body.result;
    const nonce = pack.find((c: { type: string }) => c.type === 'nonce');
    const used = await t.call('POST', '/attestation/v3', { challenge_id: nonce.id, challenge_type: 'nonce', data: { challenge: nonce.options.challenge } });
    expect(used.status).toBe(401);
    const exchanged = await protocolForm(t.server, '/oauth2/tokens', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id });
    expect(exchanged.body.error).toBe('invalid_grant');
  });

  it('handles are compared as people read them: invisible characters are refused, compatibility forms folded', async () => {
    const zwsp = await t.call('POST', '/id/v2', { handle: 'vic\u200btim@example.com', factor: { method: 'otp_via_email' } });
    expect(zwsp.status).toBe(400);
    const kelvin = await t.call('POST', '/id/v2', { handle: '\u212aelvin-fold@example.com', factor: { method: 'otp_via_email' } });
    expect(kelvin.status).toBe(200);
    expect((await lastMessage(t.server, 'kelvin-fold@example.com')).code).toMatch(/^\d{6}$/);
  });

  it("a recovery link's page says it recovers the account", async () => {
    const owner = address('recover-page');
    await signInWithEmail(t.server, owner);
    await t.call('POST', '/recover', { handle: owner, factor: { method: 'email_link' } });
    const page = await (await fetch((await lastMessage(t.server, owner)).link!)).text();
    expect(page).toMatch(/Recover your .* account\?/);
  });

  it('a proof that comes first still works after all of this (sanity)', async () => {
    const owner = address('sanity');
    const id = await t.call('POST', '/id/v2', { handle: owner, factor: { method: 'password', options: { sign_up: true } } });
    const token = await proveByLink(t.server, owner, id.body.result[0]);
    expect(decodeClaims(token).first_token).toBe(true);
  });
});
