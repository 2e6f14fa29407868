/* eslint-disable @typescript-eslint/no-explicit-any */
// Passkeys in real Chromium with the CDP virtual authenticator, with the two API calls of the ceremony
// scripted by page.route so the test pins exactly what the SDK does with navigator.credentials (scope,
// option decoding, serialization, remembered ids, dismissal). sdk.browser.test.ts runs passkeys against
// the real identity server.
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

const API = 'https://api.passkeys.test';
const b64u = (s: string | Buffer) => Buffer.from(s).toString('base64url');
const TOKEN = `${b64u('{"alg":"none"}')}.${b64u(JSON.stringify({ person_id: 'pk1', oid: 'org_pk', authenticated_methods: ['webauthn'] }))}.sig`;

let h: Harness;
let page: Page;
const calls: Array<{ path: string; body: any }> = [];
let next: unknown[] = [];

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function setup(presence: boolean) {
  page = await h.newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: presence },
  });
  await page.route(`${API}/**`, async (route: Route) => {
    const req = route.request();
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': '*' };
    if (req.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: cors });
    const path = new URL(req.url()).pathname;
    calls.push({ path, body: req.postDataJSON() });
    const result = path === '/id/v2' ? next.shift() : { token: TOKEN };
    return route.fulfill({ status: 200, headers: { ...cors, 'content-type': 'application/json' }, body: JSON.stringify({ result }) });
  });
}

describe('passkeys in Chromium (virtual authenticator)', () => {
  it('registers a passkey scoped to the hostname, remembers it, then signs in with it', async () => {
    await setup(true);
    const challenge = b64u('register-challenge-0123456789');
    next = [
      [{ id: 'wc', type: 'webauthn_create', options: {
        challenge, rp: { name: 'Keyway test' }, user: { id: b64u('user-1'), name: 'ada@example.com', displayName: 'Ada' },
        pubKeyCredParams: [{ type: 'public-key', alg: -7 }], authenticatorSelection: { residentKey: 'required', userVerification: 'required' }, attestation: 'none',
      } }],
    ];
    const reg = await page.evaluate(async (api) => {
      const w = window as any;
      const kw = new w.K.Keyway({ oid: 'org_pk', baseURL: api, analytics: false });
      const seen: any[] = [];
      kw.on('webAuthnChallengeProcessed', (e: any) => seen.push(e));
      await kw.signInWithPasskey({ handle: 'ada@example.com' }).result;
      return { seen, remembered: w.K.rememberedCredentials(location.hostname), platform: await w.K.platformAuthenticatorAvailable() };
    }, API);
    expect(calls[0]!.body.factor).toEqual({ method: 'webauthn', options: { scope: 'localhost', available_credential_ids: [] } });
    const att = calls[1]!.body;
    expect(att.challenge_type).toBe('webauthn_create');
    const client = JSON.parse(Buffer.from(att.data.response.clientDataJSON, 'base64url').toString());
    expect(client).toMatchObject({ type: 'webauthn.create', challenge, origin: h.origin });
    expect(att.data.response.attestationObject).toBeTruthy();
    expect(reg.remembered).toEqual([att.data.id]);
    expect(reg.seen[0]).toMatchObject({ type: 'webauthn_create', credentialId: att.data.id });
    expect(reg.platform).toBe(true);

    calls.length = 0;
    const getChallenge = b64u('sign-in-challenge-abcdefghijkl');
    next = [[{ id: 'wg', type: 'webauthn_get', options: { challenge: getChallenge, allowCredentials: [{ id: reg.remembered[0], type: 'public-key' }], userVerification: 'required' } }]];
    await page.evaluate(async (api) => {
      const w = window as any;
      await new w.K.Keyway({ oid: 'org_pk', baseURL: api, analytics: false }).signInWithPasskey().result;
    }, API);
    expect(calls[0]!.body.factor.options.available_credential_ids).toEqual(reg.remembered);
    const assertion = calls[1]!.body.data;
    expect(assertion.id).toBe(reg.remembered[0]);
    expect(JSON.parse(Buffer.from(assertion.response.clientDataJSON, 'base64url').toString())).toMatchObject({ type: 'webauthn.get', challenge: getChallenge });
    expect(assertion.response.signature).toBeTruthy();
    expect(Buffer.from(assertion.response.userHandle, 'base64url').toString()).toBe('user-1');
  });

  it('a prompt nobody answers becomes "Passkey prompt was dismissed"', async () => {
    await setup(false);
    next = [[{ id: 'wg', type: 'webauthn_get', options: { challenge: b64u('c'.repeat(32)), timeout: 1000 } }]];
    const r = await page.evaluate(async (api) => {
      const w = window as any;
      const err = await new w.K.Keyway({ oid: 'org_pk', baseURL: api, analytics: false }).signInWithPasskey().result.catch((e: Error) => e);
      return { name: err.name, message: err.message };
    }, API);
    expect(r).toEqual({ name: 'PasskeyPromptError', message: 'Passkey prompt was dismissed' });
  });
});
