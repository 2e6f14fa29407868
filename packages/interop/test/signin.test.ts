// The published client (@slashid/slashid 3.29, unmodified) signs in against our identity server. Each `it` is one
// step of issue #16; the client's own calls go through the header-renaming proxy (see harness.ts).
import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { answerOtp, email, reply, sdkFor, signInByCode, useInterop } from './harness.js';

const t = useInterop();
const sdk = () => sdkFor(t);

describe('published client: sign-in', () => {
  it('e-mail OTP: a wrong code is re-prompted, the right one signs in', async () => {
    const sid = sdk();
    const to = email('otp');
    const seen = answerOtp(t, sid, to, ['000000']);
    const user = await sid.id(t.oid, { type: 'email_address', value: to }, { method: 'otp_via_email' });
    expect(seen.incorrect).toBe(1);
    expect(seen.prompts).toBe(2);
    expect(user.oid).toBe(t.oid);
    expect(user.authentication).toEqual(['otp_via_email']);
    expect(await user.isAuthenticated()).toBe(true);
    const id = t.calls('POST', '/id/v2').at(-1)!;
    expect(id.headers['slashid-orgid']).toBe(t.oid);
    expect(JSON.parse(id.body).factor).toMatchObject({ method: 'otp_via_email', options: { method: 'otp_via_email' } });
  });

  it('password: sign-up sets a password (password_set), sign-in verifies it (wrong, then right)', async () => {
    const to = email('pw');
    const up = sdk();
    up.subscribe('passwordSetReady', () => reply(up, 'passwordSubmitted', 'correct horse battery staple 42'));
    const created = await up.id(t.oid, { type: 'email_address', value: to }, { method: 'password' });
    expect(await created.isAuthenticated()).toBe(true);

    const sid = sdk();
    let prompts = 0;
    let incorrect = 0;
    sid.subscribe('passwordVerifyReady', () => {
      prompts++;
      reply(sid, 'passwordSubmitted', prompts === 1 ? 'not my password' : 'correct horse battery staple 42');
    });
    sid.subscribe('incorrectPasswordSubmitted', () => void incorrect++);
    const user = await sid.id(t.oid, { type: 'email_address', value: to }, { method: 'password' });
    expect(incorrect).toBe(1);
    expect(prompts).toBe(2);
    expect(user.authentication).toContain('password');
  });

  it('e-mail link: the proxy challenge is polled until the link is opened', async () => {
    const sid = sdk();
    const to = email('link');
    const pending = sid.id(t.oid, { type: 'email_address', value: to }, { method: 'email_link' });
    let link: string | undefined;
    for (let i = 0; i < 50 && !link; i++) {
      link = await t.link(to).catch(() => undefined);
      if (!link) await new Promise((r) => setTimeout(r, 100));
    }
    // Let the client poll at least once while the link is still unopened.
    await new Promise((r) => setTimeout(r, 1500));
    const polls = t.calls('GET', `/challenge/${new URL(link!).pathname.split('/')[2]}/v2`);
    expect(polls.length).toBeGreaterThan(0);
    expect(polls[0]!.response).toContain('"httpcode":202');
    const opened = await fetch(link!, { redirect: 'manual' });
    expect(opened.status).toBeLessThan(400);
    const user = await pending;
    expect(user.authentication).toEqual(['email_link']);
  });

  it('TOTP: registered by a signed-in person (totp_register), then verified at the next sign-in (totp_verify)', async () => {
    const to = email('totp');
    const sid = sdk();
    const first = await signInByCode(t, to, sid);
    let secret = '';
    sid.subscribe('totpKeyGenerated', (e: { uri: string; recoveryCodes: string[] }) => {
      secret = new URL(e.uri).searchParams.get('secret') ?? '';
      expect(e.recoveryCodes.length).toBeGreaterThan(0);
      reply(sid, 'otpCodeSubmitted', generate({ secret }));
    });
    await first.mfa({ type: 'email_address', value: to }, { method: 'totp' });
    expect(secret).not.toBe('');
    expect(first.authentication).toEqual(['otp_via_email', 'totp']);

    // Next sign-in with TOTP alone; a code of the next time step (the one used above may not be reused).
    const again = sdk();
    again.subscribe('totpCodeRequested', () => reply(again, 'otpCodeSubmitted', generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 })));
    const user = await again.id(t.oid, { type: 'email_address', value: to }, { method: 'totp' });
    expect(user.authentication).toEqual(['totp']);
  });

  it('MFA / step-up: a second factor with the current token as bearer adds to the same person', async () => {
    const to = email('mfa');
    // The SDK instance that signed the person in announces the prompts of the step-up.
    const sid = sdk();
    const user = await signInByCode(t, to, sid);
    const before = user.ID;
    const mark = t.log.length;
    sid.subscribe('passwordSetReady', () => reply(sid, 'passwordSubmitted', 'a long enough password 1'));
    await user.mfa({ type: 'email_address', value: to }, { method: 'password' });
    expect(user.ID).toBe(before);
    expect(user.authentication).toEqual(['otp_via_email', 'password']);
    expect(t.calls('POST', '/id/v2', mark)[0]!.headers.authorization).toMatch(/^Bearer /);
  });

  it('anonymous person: created, then upgraded by an e-mail sign-in with the anonymous token', async () => {
    const sid = sdk();
    const anon = await sid.createAnonymousUser();
    expect(anon.anonymous).toBe(true);
    expect(await anon.isAuthenticated()).toBe(false);
    const to = email('anon');
    answerOtp(t, sid, to);
    const user = await anon.id({ type: 'email_address', value: to }, { method: 'otp_via_email' });
    expect(user.ID).toBe(anon.ID);
    expect(user.anonymous).toBe(false);
    expect(await user.isAuthenticated()).toBe(true);
  });

  it('recovery: a password reset (code, then new password) lets the person sign in with the new password', async () => {
    const to = email('recover');
    const up = sdk();
    up.subscribe('passwordSetReady', () => reply(up, 'passwordSubmitted', 'first password 12345'));
    await up.id(t.oid, { type: 'email_address', value: to }, { method: 'password' });

    const sid = sdk();
    answerOtp(t, sid, to);
    sid.subscribe('passwordResetReady', () => reply(sid, 'passwordSubmitted', 'second password 67890'));
    const done = new Promise((resolve) => sid.subscribe('recoveryFlowSucceeded', resolve));
    await sid.recover({ handle: { type: 'email_address', value: to }, factor: { method: 'password' } });
    await done;

    const again = sdk();
    again.subscribe('passwordVerifyReady', () => reply(again, 'passwordSubmitted', 'second password 67890'));
    const user = await again.id(t.oid, { type: 'email_address', value: to }, { method: 'password' });
    expect(user.authentication).toEqual(['password']);
  });

  it('login from the URL: a challenge pack (?sidcp=) and encoded challenges (?challenges=) sign the person in', async () => {
    const to = email('url');
    const user = await signInByCode(t, to);
    const pack = await user.createDirectID();
    expect(typeof pack).toBe('string');
    window.history.replaceState({}, '', `/welcome?sidcp=${encodeURIComponent(pack!)}`);
    const fromPack = await sdk().getUserFromURL();
    expect(fromPack?.ID).toBe(user.ID);

    const pack2 = (await user.createDirectID())!;
    const res = await fetch(`${t.server.url}/challenge_pack/${pack2}`);
    const challenges = ((await res.json()) as { result: unknown }).result;
    const encoded = Buffer.from(JSON.stringify(challenges)).toString('base64url');
    window.history.replaceState({}, '', `/welcome?challenges=${encoded}`);
    const fromChallenges = await sdk().getUserFromURL();
    expect(fromChallenges?.ID).toBe(user.ID);
    window.history.replaceState({}, '', '/signin');
  });

  it('every request the published client sent and every answer it got match api/openapi.yaml', () => {
    t.checkContract();
  });
});
