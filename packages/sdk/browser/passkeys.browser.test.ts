/* eslint-disable @typescript-eslint/no-explicit-any */
// Passkeys in real Chromium with the CDP virtual authenticator against the real identity server, nothing intercepted:
// the test reads what the SDK sends and what the server answers (request and response events) to pin exactly what the
// SDK does with navigator.credentials (scope, option decoding, serialization, remembered ids, dismissal).
import type { Page, Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
let n = 0;
const email = () => `passkey-${Date.now()}-${++n}@example.com`;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

interface Exchange {
  path: string;
  body: any;
  answer: Promise<any>;
}

/** A page with a virtual authenticator, recording the identity server calls it makes and their answers. */
async function setup(presence: boolean): Promise<{ page: Page; calls: Exchange[] }> {
  const page = await h.newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: presence },
  });
  const calls: Exchange[] = [];
  const api = new URL(h.api.url).origin;
  page.on('request', (r: Request) => {
    const u = new URL(r.url());
    if (u.origin !== api || r.method() === 'OPTIONS') return;
    let settle: (v: any) => void = () => undefined;
    const answer = new Promise((resolve) => (settle = resolve));
    calls.push({ path: u.pathname, body: r.postDataJSON(), answer });
    page.on('response', function match(res: Response) {
      if (res.request() !== r) return;
      page.off('response', match);
      void res.json().then(settle, () => settle(undefined));
    });
  });
  return { page, calls };
}

describe('passkeys in Chromium (virtual authenticator) against the identity server', () => {
  it('registers a passkey scoped to the hostname, remembers it, then signs in with it', async () => {
    const { page, calls } = await setup(true);
    const to = email();
    const reg = await page.evaluate(
      async ({ api, oid, to }) => {
        const w = window as any;
        const kw = new w.K.Keyway({ oid, baseURL: api, analytics: false });
        const seen: any[] = [];
        kw.on('webAuthnChallengeProcessed', (e: any) => seen.push(e));
        await kw.signInWithPasskey({ handle: to }).result;
        return { seen, person: kw.user.personId, remembered: w.K.rememberedCredentials(location.hostname), platform: await w.K.platformAuthenticatorAvailable() };
      },
      { api: h.api.url, oid: h.api.orgId, to },
    );
    expect(calls[0]!.path).toBe('/id/v2');
    expect(calls[0]!.body.factor).toEqual({ method: 'webauthn', options: { scope: 'localhost', available_credential_ids: [] } });
    const challenge = (await calls[0]!.answer).result[0];
    expect(challenge.type).toBe('webauthn_create');
    const att = calls[1]!.body;
    expect(calls[1]!.path).toBe('/attestation/v3');
    expect(att.challenge_type).toBe('webauthn_create');
    const client = JSON.parse(Buffer.from(att.data.response.clientDataJSON, 'base64url').toString());
    expect(client).toMatchObject({ type: 'webauthn.create', challenge: challenge.options.challenge, origin: h.origin });
    expect(att.data.response.attestationObject).toBeTruthy();
    expect(reg.remembered).toEqual([att.data.id]);
    expect(reg.seen[0]).toMatchObject({ type: 'webauthn_create', credentialId: att.data.id });
    expect(reg.platform).toBe(true);

    calls.length = 0;
    const second = await page.evaluate(
      async ({ api, oid }) => {
        const w = window as any;
        const kw = new w.K.Keyway({ oid, baseURL: api, analytics: false });
        await kw.signInWithPasskey().result;
        return { person: kw.user.personId, methods: kw.user.authenticatedMethods };
      },
      { api: h.api.url, oid: h.api.orgId },
    );
    expect(calls[0]!.body.factor.options.available_credential_ids).toEqual(reg.remembered);
    const getChallenge = (await calls[0]!.answer).result[0];
    expect(getChallenge.type).toBe('webauthn_get');
    const assertion = calls[1]!.body.data;
    expect(assertion.id).toBe(reg.remembered[0]);
    expect(JSON.parse(Buffer.from(assertion.response.clientDataJSON, 'base64url').toString())).toMatchObject({ type: 'webauthn.get', challenge: getChallenge.options.challenge });
    expect(assertion.response.signature).toBeTruthy();
    expect(assertion.response.userHandle).toBeTruthy();
    expect(second).toEqual({ person: reg.person, methods: ['webauthn'] });
    await page.close();
  });

  it('a prompt nobody answers becomes "Passkey prompt was dismissed"', async () => {
    // No presence is ever simulated: the prompt stays unanswered until the server's own timeout (2 minutes) ends it.
    const { page } = await setup(false);
    const r = await page.evaluate(
      async ({ api, oid }) => {
        const w = window as any;
        const err = await new w.K.Keyway({ oid, baseURL: api, analytics: false }).signInWithPasskey().result.catch((e: Error) => e);
        return { name: err.name, message: err.message };
      },
      { api: h.api.url, oid: h.api.orgId },
    );
    expect(r).toEqual({ name: 'PasskeyPromptError', message: 'Passkey prompt was dismissed' });
    await page.close();
  }, 180_000);
});
