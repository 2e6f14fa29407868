// The published client (@slashid/slashid 3.29, unmodified) signs in against our identity server. Each `it` is one
// step of issue #16; the client's own calls go through the header-renaming proxy (see harness.ts).
import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { answerLink } from '@keyway/identity-server/testing';
import { answerOtp, answerPasswords, configure, confirmLinkWhenSent, email, reply, sdkFor, signInByCode, useInterop, type Interop } from './harness.js';

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

  it('password sign-up as the published client can do it (#36): a code, then a password that breaks a rule is refused by the client itself and asked again', async () => {
    // The client cannot send `sign_up`: it signs in by code, then sets a password as a step-up.
    const to = email('pw-up');
    const sid = sdk();
    const user = await signInByCode(t, to, sid);
    const mark = t.log.length;
    const seen = answerPasswords(sid, ['short', 'correct horse battery staple 42']);
    await user.mfa({ type: 'email_address', value: to }, { method: 'password' });
    expect(seen.prompts).toBe(2);
    // The client read the server's rules (validation_rules.regular_expressions) and refused the weak one itself.
    expect(seen.invalid).toEqual([expect.arrayContaining(['min_length', 'digit'])]);
    const sent = t.calls('POST', '/attestation/v3', mark).map((e) => JSON.parse(e.body).data.password);
    expect(sent).toEqual(['correct horse battery staple 42']);
    expect(user.authentication).toEqual(['otp_via_email', 'password']);
  });

  it('password sign-up in one call where the organization asks for it (implicit_credential_sign_up): code first, then password_set', async () => {
    await configure(t, { implicit_credential_sign_up: true });
    try {
      const to = email('pw-implicit');
      const sid = sdk();
      const seen = answerPasswords(sid, ['password', 'another good one 42']);
      const pending = sid.id(t.oid, { type: 'email_address', value: to }, { method: 'password' });
      // The address is proved first: a link the client polls for (the owner confirms it), then password_set.
      await confirmLinkWhenSent(t, to);
      const user = await pending;
      expect(seen.invalid.length).toBe(1);
      expect(user.authentication).toEqual(['email_link', 'password']);
      expect(t.calls('POST', '/attestation/v3').slice(-1).map((e) => JSON.parse(e.body).challenge_type)).toEqual(['password_set']);
    } finally {
      await configure(t, { implicit_credential_sign_up: false });
    }
  });

  it('password: sign-in verifies it (wrong, then right)', async () => {
    const to = email('pw');
    await signUpWithPassword(t, to, 'correct horse battery staple 42');

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
    // The owner opens the link and confirms the sign-in on its page (#36: opening alone signs nobody in).
    const opened = await answerLink(link!);
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

  it('recovery: a password reset (code, then new password, a weak one refused by the client first) lets the person sign in with the new password', async () => {
    const to = email('recover');
    await signUpWithPassword(t, to, 'first password 12345');

    const sid = sdk();
    answerOtp(t, sid, to);
    const mark = t.log.length;
    const seen = answerPasswords(sid, ['weak', 'second password 67890']);
    const done = new Promise((resolve) => sid.subscribe('recoveryFlowSucceeded', resolve));
    await sid.recover({ handle: { type: 'email_address', value: to }, factor: { method: 'password' } });
    await done;
    // The client checked the rules before sending: the weak password never reached the server, and it asked again.
    expect(seen.prompts).toBe(2);
    expect(seen.invalid.length).toBe(1);
    expect(t.calls('POST', '/attestation/v3', mark).filter((e) => JSON.parse(e.body).challenge_type === 'password_reset').map((e) => JSON.parse(e.body).data.password)).toEqual(['second password 67890']);

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

/** A person signed up with a password the way the published client can: code, then the password as a step-up. */
async function signUpWithPassword(t: Interop, to: string, password: string): Promise<void> {
  const sid = sdkFor(t);
  const user = await signInByCode(t, to, sid);
  answerPasswords(sid, [password]);
  await user.mfa({ type: 'email_address', value: to }, { method: 'password' });
}
