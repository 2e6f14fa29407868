/* eslint-disable @typescript-eslint/no-explicit-any */
// Passkeys in real Chromium with the CDP virtual authenticator against the real identity server, nothing intercepted:
// the test reads what the SDK sends and what the server answers (request and response events) to pin exactly what the
// SDK does with navigator.credentials (scope, option decoding, serialization, remembered ids, dismissal).
import type { Page, Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerMailedLink, startHarness, virtualAuthenticator, type Harness } from './harness.js';

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
  await virtualAuthenticator(page, presence);
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
  it('signs up with a passkey: a link proves the address first, then the passkey is registered for the hostname, remembered, and signs in', async () => {
    const { page, calls } = await setup(true);
    const to = email();
    const before = new Date(Date.now() - 1000).toISOString();
    const [reg, confirmed] = await Promise.all([
      page.evaluate(
        async ({ api, oid, to }) => {
          const w = window as any;
          const kw = new w.K.Keyway({ oid, baseURL: api, analytics: false });
          const seen: any[] = [];
          for (const name of ['linkSent', 'linkConfirmed', 'webAuthnChallengeProcessed']) kw.on(name, (e: any) => seen.push({ name, ...e }));
          await kw.signInWithPasskey({ handle: to, sign_up: true }).result;
          return { seen, person: kw.user.personId, methods: kw.user.authenticatedMethods, remembered: w.K.rememberedCredentials(location.hostname), platform: await w.K.platformAuthenticatorAvailable() };
        },
        { api: h.api.url, oid: h.api.orgId, to },
      ),
      answerMailedLink(h.api, to, before),
    ]);
    expect(confirmed).toBe(200);
    expect(calls[0]!.path).toBe('/id/v2');
    expect(calls[0]!.body).toEqual({ handle: to, factor: { method: 'webauthn', options: { sign_up: true, scope: 'localhost', available_credential_ids: [] } } });
    const [proof, challenge] = (await calls[0]!.answer).result;
    expect(proof).toMatchObject({ type: 'proxy', authentication_method: 'email_link' });
    expect(challenge.type).toBe('webauthn_create');
    // The SDK polled the link's challenge until its owner confirmed it, and only then registered the passkey.
    const polls = calls.filter((c) => c.path === `/challenge/${proof.id}/v2`);
    expect(polls.length).toBeGreaterThanOrEqual(1);
    const att = calls.at(-1)!.body;
    expect(calls.at(-1)!.path).toBe('/attestation/v3');
    expect(att.challenge_type).toBe('webauthn_create');
    const client = JSON.parse(Buffer.from(att.data.response.clientDataJSON, 'base64url').toString());
    expect(client).toMatchObject({ type: 'webauthn.create', challenge: challenge.options.challenge, origin: h.origin });
    expect(att.data.response.attestationObject).toBeTruthy();
    expect(reg.remembered).toEqual([att.data.id]);
    expect(reg.seen.map((e: any) => e.name)).toEqual(['linkSent', 'linkConfirmed', 'webAuthnChallengeProcessed']);
    expect(reg.seen[0]).toMatchObject({ method: 'email_link', handle: to, proof: true });
    expect(reg.seen[2]).toMatchObject({ type: 'webauthn_create', credentialId: att.data.id });
    expect(reg.methods).toEqual(['email_link', 'webauthn']);
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

    // By handle: the holder's passkey is offered and answers.
    calls.length = 0;
    const byHandle = await page.evaluate(
      async ({ api, oid, to }) => {
        const kw = new (window as any).K.Keyway({ oid, baseURL: api, analytics: false });
        await kw.signInWithPasskey({ handle: to }).result;
        return kw.user.personId;
      },
      { api: h.api.url, oid: h.api.orgId, to },
    );
    expect(byHandle).toBe(reg.person);
    expect((await calls[0]!.answer).result[0].options.allowCredentials.map((c: any) => c.id)).toEqual(reg.remembered);
    await page.close();
  });

  it('a passkey sign-in for an address without an account gets the same kind of answer, and the browser finds no passkey', async () => {
    const { page, calls } = await setup(true);
    const r = await page.evaluate(
      async ({ api, oid, to }) => {
        const kw = new (window as any).K.Keyway({ oid, baseURL: api, analytics: false });
        const err = await kw.signInWithPasskey({ handle: to }).result.catch((e: Error) => e);
        return { name: err.name, user: kw.user === undefined };
      },
      { api: h.api.url, oid: h.api.orgId, to: email() },
    );
    const [challenge, ...rest] = (await calls[0]!.answer).result;
    expect(rest).toEqual([]);
    expect(challenge.type).toBe('webauthn_get');
    expect(challenge.options.allowCredentials).toHaveLength(1);
    expect(r).toEqual({ name: 'PasskeyPromptError', user: true });
    expect(calls.filter((c) => c.path === '/attestation/v3')).toEqual([]);
    await page.close();
  }, 60_000);

  it('a prompt nobody answers becomes "Passkey prompt was dismissed"', async () => {
    // No presence is ever simulated: the prompt stays unanswered until the server's own timeout ends it (the harness's
    // server sets 15 seconds, KEYWAY_PASSKEY_TIMEOUT_SECONDS; 2 minutes by default).
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
  }, 60_000);
});
