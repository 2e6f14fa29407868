/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerMailedLink, mailbox, startHarness, totp, virtualAuthenticator, type Harness } from './harness.js';

let h: Harness;
let page: Page;
let n = 0;
const email = () => `browser-${Date.now()}-${++n}@example.com`;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function freshPage(): Promise<Page> {
  page = await h.newPage();
  await page.exposeFunction('mailbox', (to: string, after: string) => mailbox(h.api, to, after));
  await page.exposeFunction('totp', (uri: string) => totp(uri));
  await page.exposeFunction('openLink', async (url: string) => (await fetch(url, { redirect: 'manual' })).status);
  await page.exposeFunction('answerLink', (to: string, after: string, decision?: 'confirm' | 'deny') => answerMailedLink(h.api, to, after, decision));
  await page.evaluate(
    ({ api, oid }) => {
      const w = window as any;
      w.kw = new w.K.Keyway({ oid, baseURL: api, analytics: true });
      w.seen = [];
      for (const e of ['idFlowSucceeded', 'idFlowFailed', 'incorrectCodeSubmitted', 'incorrectPasswordSubmitted', 'invalidPasswordSubmitted', 'totpKeyGenerated', 'codeSent'])
        w.kw.on(e, (p: any) => w.seen.push([e, p.failedRules ?? p.failureDetail ?? null]));
      // Signs up with a password: the owner confirms the link sent to the address, then the password is set.
      w.signUpWithPassword = async (to: string, passwords: string[]) => {
        const started = new Date(Date.now() - 1000).toISOString();
        const list = [...passwords];
        const off = w.kw.on('passwordSetReady', (e: any) => e.submit(list.length > 1 ? list.shift() : list[0]));
        try {
          const flow = w.kw.authenticate(to, { method: 'password', options: { sign_up: true } });
          const confirmed = await w.answerLink(to, started);
          await flow.result;
          return confirmed;
        } finally {
          off();
        }
      };
      w.signInOTP = async (to: string, wrongFirst = false) => {
        const started = new Date(Date.now() - 1000).toISOString();
        let tries = 0;
        const off = w.kw.on('codeRequested', async (e: any) => {
          const m = await w.mailbox(to, started);
          e.submit(wrongFirst && tries++ === 0 ? (m.code === '000000' ? '111111' : '000000') : m.code);
        });
        try {
          return await w.kw.authenticate(to, { method: 'otp_via_email' }).result;
        } finally {
          off();
        }
      };
    },
    { api: h.api.url, oid: h.api.orgId },
  );
  return page;
}

describe('@keyway/sdk in Chromium against the identity server', () => {
  it('email OTP: a new address signs up with the code (a wrong one asks again); /me shows the handle, proved', async () => {
    await freshPage();
    const to = email();
    const r = await page.evaluate(async (to) => {
      const w = window as any;
      const token = await w.signInOTP(to, true);
      const me = await w.kw.user.me();
      return { token, me, first: w.kw.user.claims.first_token, methods: w.kw.user.authenticatedMethods, seen: w.seen, remembered: w.K.rememberedHandles() };
    }, to);
    expect(r.methods).toContain('otp_via_email');
    expect(r.first).toBe(true);
    expect(r.me.handles).toEqual([expect.objectContaining({ type: 'email_address', value: to, verified: true })]);
    expect(r.seen.map((s: any) => s[0])).toEqual(['codeSent', 'incorrectCodeSubmitted', 'idFlowSucceeded']);
    expect(r.seen[1][1]).toBe('incorrect_otp_code_via_email');
    expect(r.remembered[0]).toBe(to);
  });

  it('magic link: opening it alone signs nobody in; the flow polls until its owner confirms it on its page', async () => {
    await freshPage();
    const to = email();
    const r = await page.evaluate(async (to) => {
      const w = window as any;
      const events: any[] = [];
      for (const n of ['linkSent', 'linkConfirmed']) w.kw.on(n, (e: any) => events.push([n, e.proof ?? null]));
      const started = new Date(Date.now() - 1000).toISOString();
      const flow = w.kw.authenticate(to, { method: 'email_link' });
      const m = await w.mailbox(to, started);
      const opened = await w.openLink(m.link);
      await new Promise((res) => setTimeout(res, 1500));
      const signedInByOpening = w.kw.user !== undefined;
      const confirmed = await w.answerLink(to, started);
      await flow.result;
      return { opened, signedInByOpening, confirmed, events, methods: w.kw.user.authenticatedMethods };
    }, to);
    expect(r.opened).toBe(200);
    expect(r.signedInByOpening).toBe(false);
    expect(r.confirmed).toBe(200);
    expect(r.events).toEqual([['linkSent', false], ['linkConfirmed', null]]);
    expect(r.methods).toContain('email_link');
  });

  it('magic link refused on its page: the flow fails, nobody is signed in', async () => {
    await freshPage();
    const to = email();
    const r = await page.evaluate(async (to) => {
      const w = window as any;
      const started = new Date(Date.now() - 1000).toISOString();
      const flow = w.kw.authenticate(to, { method: 'email_link' });
      await w.answerLink(to, started, 'deny');
      const err = await flow.result.catch((e: Error) => e);
      return { name: err.name, message: err.message, user: w.kw.user === undefined };
    }, to);
    expect(r).toEqual({ name: 'APIResponseError', message: 'the sign-in was refused from the link sent to the address', user: true });
  });

  it('password: sign-up proves the address by a link, then sets a password (a rule-breaking one asked again); sign-in asks again after a wrong one', async () => {
    await freshPage();
    const to = email();
    const r = await page.evaluate(async (to) => {
      const w = window as any;
      const linkEvents: any[] = [];
      w.kw.on('linkSent', (e: any) => linkEvents.push({ handle: e.handle, proof: e.proof }));
      const confirmed = await w.signUpWithPassword(to, ['abc', 'Correct-Horse-42-battery']);
      const signUpMethods = w.kw.user.authenticatedMethods;
      const handles = (await w.kw.user.me()).handles;
      await w.kw.logout();
      const again = ['not-the-password', 'Correct-Horse-42-battery'];
      w.kw.on('passwordVerifyReady', (e: any) => e.submit(again.shift()));
      await w.kw.authenticate(to, { method: 'password' }).result;
      return { confirmed, linkEvents, signUpMethods, handles, seen: w.seen, methods: w.kw.user.authenticatedMethods };
    }, to);
    expect(r.confirmed).toBe(200);
    expect(r.linkEvents).toEqual([{ handle: to, proof: true }]);
    expect(r.signUpMethods).toEqual(['email_link', 'password']);
    expect(r.handles).toEqual([expect.objectContaining({ type: 'email_address', value: to, verified: true })]);
    const names = r.seen.map((s: any) => s[0]);
    expect(names).toContain('invalidPasswordSubmitted');
    expect(r.seen.find((s: any) => s[0] === 'invalidPasswordSubmitted')[1].length).toBeGreaterThan(0);
    expect(names).toContain('incorrectPasswordSubmitted');
    expect(r.methods).toEqual(['password']);
  });

  it('password sign-in for an address nobody signed up with reads exactly like a wrong password, and sends nothing to the address', async () => {
    await freshPage();
    const to = email();
    const r = await page.evaluate(async (to) => {
      const w = window as any;
      const flow = w.kw.authenticate(to, { method: 'password' });
      let asked = 0;
      w.kw.on('passwordVerifyReady', (e: any) => (++asked > 2 ? flow.cancel() : e.submit(`guess-${asked}-Password`)));
      const err = await flow.result.catch((e: Error) => e.name);
      return { err, asked, seen: w.seen };
    }, to);
    expect(r.err).toBe('FlowCancelledError');
    expect(r.asked).toBe(3);
    expect(r.seen.filter((s: any) => s[0] === 'incorrectPasswordSubmitted').map((s: any) => s[1])).toEqual(['incorrect_password', 'incorrect_password']);
    const mail = (await (await fetch(`${h.api.url}/dev/mailbox.json?to=${encodeURIComponent(to)}`)).json()) as { result: unknown[] };
    expect(mail.result).toEqual([]);
  });

  it('recovery: a code by e-mail, then a new password (a rule-breaking one first: asked again, never sent) that works for the next sign-in', async () => {
    await freshPage();
    const to = email();
    const r = await page.evaluate(async (to) => {
      const w = window as any;
      await w.signUpWithPassword(to, ['First-Password-77']);
      await w.kw.logout();
      const started = new Date(Date.now() - 1000).toISOString();
      const seen: string[] = [];
      for (const n of ['recoveryFlowStarted', 'passwordResetReady', 'invalidPasswordSubmitted', 'recoveryFlowSucceeded']) w.kw.on(n, () => seen.push(n));
      const offCode = w.kw.on('codeRequested', async (e: any) => e.submit((await w.mailbox(to, started)).code));
      const resets = ['short', 'Second-Password-88'];
      const offReset = w.kw.on('passwordResetReady', (e: any) => e.submit(resets.shift()));
      await w.kw.recover(to, 'otp_via_email').result;
      offCode();
      offReset();
      await w.kw.logout();
      w.kw.on('passwordVerifyReady', (e: any) => e.submit('Second-Password-88'));
      await w.kw.authenticate(to, { method: 'password' }).result;
      return { seen, methods: w.kw.user.authenticatedMethods };
    }, to);
    expect(r.seen).toEqual(['recoveryFlowStarted', 'passwordResetReady', 'invalidPasswordSubmitted', 'passwordResetReady', 'recoveryFlowSucceeded']);
    expect(r.methods).toContain('password');
  });

  it('step-up: a person signed in by code adds a password and a passkey to the same account, and a second address after proving it', async () => {
    await freshPage();
    await virtualAuthenticator(page);
    const to = email();
    const second = email();
    const r = await page.evaluate(async ({ to, second }) => {
      const w = window as any;
      await w.signInOTP(to);
      const person = w.kw.user.personId;
      const offSet = w.kw.on('passwordSetReady', (e: any) => e.submit('Step-Up-Password-5'));
      await w.kw.stepUp({ method: 'password' }).result;
      const afterPassword = w.kw.user.authenticatedMethods;
      await w.kw.stepUp({ method: 'webauthn' }).result;
      const afterPasskey = w.kw.user.authenticatedMethods;
      // A second address: its link is confirmed by its owner before it joins the account.
      const started = new Date(Date.now() - 1000).toISOString();
      const flow = w.kw.stepUp({ method: 'password' }, second);
      await w.answerLink(second, started);
      await flow.result;
      offSet();
      const me = await w.kw.user.me();
      return {
        same: w.kw.user.personId === person,
        afterPassword,
        afterPasskey,
        handles: me.handles.map((x: any) => x.value).sort(),
        credentials: me.credentials.map((c: any) => c.type).sort(),
      };
    }, { to, second });
    expect(r.same).toBe(true);
    expect(r.afterPassword).toEqual(['otp_via_email', 'password']);
    expect(r.afterPasskey).toEqual(['otp_via_email', 'password', 'webauthn']);
    expect(r.handles).toEqual([to, second].sort());
    expect(r.credentials).toEqual(['password', 'public-key']);
  });

  it('SMS code: a phone handle receives the code; an e-mail handle is refused before any call', async () => {
    await freshPage();
    const phone = `+1555${String(Date.now()).slice(-7)}`;
    const r = await page.evaluate(async (phone) => {
      const w = window as any;
      const started = new Date(Date.now() - 1000).toISOString();
      const off = w.kw.on('codeRequested', async (e: any) => e.submit((await w.mailbox(phone, started)).code));
      await w.kw.authenticate(phone, { method: 'otp_via_sms' }).result;
      off();
      const refused = await w.kw.authenticate('ada@example.com', { method: 'otp_via_sms' }).result.catch((e: Error) => e.name);
      return { methods: w.kw.user.authenticatedMethods, refused };
    }, phone);
    expect(r.methods).toContain('otp_via_sms');
    expect(r.refused).toBe('InvalidPhoneNumberFormatError');
  });

  it('TOTP: step-up registers an authenticator app and the token gains the method', async () => {
    await freshPage();
    const to = email();
    const r = await page.evaluate(async (to) => {
      const w = window as any;
      await w.signInOTP(to);
      let uri = '';
      w.kw.on('totpKeyGenerated', (e: any) => (uri = e.key_uri));
      w.kw.on('codeRequested', async (e: any) => e.kind === 'totp' && e.submit(await w.totp(uri)));
      await w.kw.stepUp({ method: 'totp' }).result;
      return { uri, methods: w.kw.user.authenticatedMethods };
    }, to);
    expect(r.uri).toMatch(/^otpauth:\/\/totp\//);
    expect(r.methods).toEqual(expect.arrayContaining(['otp_via_email', 'totp']));
  });

  it('passkeys (Chromium virtual authenticator): sign up with a handle (its link confirmed), then sign in without one', async () => {
    await freshPage();
    await virtualAuthenticator(page);
    const to = email();
    const r = await page.evaluate(async (to) => {
      const w = window as any;
      const started = new Date(Date.now() - 1000).toISOString();
      const flow = w.kw.signInWithPasskey({ handle: to, sign_up: true });
      await w.answerLink(to, started);
      await flow.result;
      const first = { person: w.kw.user.personId, methods: w.kw.user.authenticatedMethods };
      const remembered = w.K.rememberedCredentials(location.hostname);
      await w.kw.logout();
      await w.kw.signInWithPasskey().result;
      const me = await w.kw.user.me();
      return { first, remembered, second: w.kw.user.personId, credentials: me.credentials.map((c: any) => c.type) };
    }, to);
    expect(r.first.methods).toContain('webauthn');
    expect(r.remembered).toHaveLength(1);
    expect(r.second).toBe(r.first.person);
    expect(r.credentials).toContain('public-key');
  });

  it('direct ID: a challenge pack handed to another page signs the same person in there', async () => {
    await freshPage();
    const to = email();
    const { pack, person } = await page.evaluate(async (to) => {
      const w = window as any;
      await w.signInOTP(to);
      return { pack: (await w.kw.user.directId()).direct_id, person: w.kw.user.personId };
    }, to);
    const other = await h.newPage();
    await other.goto(`${h.origin}/welcome?challenge_pack_id=${encodeURIComponent(pack)}&tab=1`);
    await other.waitForFunction(() => (window as any).sdkReady === true);
    const r = await other.evaluate(async ({ api, oid }) => {
      const w = window as any;
      const kw = new w.K.Keyway({ oid, baseURL: api, analytics: false });
      let factor = '';
      kw.on('idFlowSucceeded', (e: any) => (factor = e.factor.method));
      const flow = await kw.handleURL();
      await flow.result;
      return { person: kw.user.personId, methods: kw.user.authenticatedMethods, factor, url: location.href };
    }, { api: h.api.url, oid: h.api.orgId });
    expect(r.person).toBe(person);
    expect(r.methods).toContain('direct_id');
    expect(r.factor).toBe('direct_id');
    expect(r.url).toBe(`${h.origin}/welcome?tab=1`);
    await other.close();
  });

  it('anonymous person, then upgrade keeps the same person id', async () => {
    await freshPage();
    const to = email();
    const r = await page.evaluate(async (to) => {
      const w = window as any;
      const anon = await w.kw.createAnonymousUser();
      const anonId = anon.personId;
      const wasAuthenticated = anon.isAuthenticated;
      await anon.setAttributes({ cart: ['book'] });
      await w.signInOTP(to);
      return { anonId, wasAuthenticated, after: w.kw.user.personId, attrs: await w.kw.user.getBucketAttributes() };
    }, to);
    expect(r.wasAuthenticated).toBe(false);
    expect(r.after).toBe(r.anonId);
    expect(r.attrs).toMatchObject({ cart: ['book'] });
  });

  it('attributes (buckets), GDPR consent, organizations, then logout revokes the token', async () => {
    await freshPage();
    const to = email();
    const r = await page.evaluate(async (to) => {
      const w = window as any;
      await w.signInOTP(to);
      const u = w.kw.user;
      await u.setAttributes({ theme: 'dark', locale: 'en' });
      await u.updateAttributes({ font: 'large' });
      const bucket = await u.getBucketAttributes();
      let readOnlyWrite = '';
      await u.setAttributes({ plan: 'free' }, 'end_user_read_only').catch((e: Error) => (readOnlyWrite = e.name));
      await u.addConsents(['analytics']);
      await u.addConsents(['marketing']);
      await u.removeConsents(['analytics']);
      const consents = (await u.consents()).map((c: any) => c.consent_level);
      const orgs = await u.organizations();
      const token = u.token;
      await w.kw.logout();
      const validation = await new w.K.User(w.kw.client, token).validate();
      let after = '';
      await u.me().catch((e: Error) => (after = e.message));
      return { bucket, readOnlyWrite, consents, orgs, validation, after };
    }, to);
    expect(r.bucket).toEqual({ theme: 'dark', locale: 'en', font: 'large' });
    expect(r.readOnlyWrite).toBe('APIResponseError');
    expect(r.consents).toEqual(['marketing']);
    expect(r.orgs.org_hierarchy.map((o: any) => o.id)).toContain(h.api.orgId);
    expect(r.validation.valid).toBe(false);
    expect(r.after).toBe('Cannot call methods on unauthenticated user');
  });

  it('hosted login: authorize with the held token, come back with code and state, exchange with PKCE; the user holds the access token (userinfo, validation), is named by the id_token, and makes no first-party calls', async () => {
    await freshPage();
    const to = email();
    await page.evaluate(async (to) => {
      const w = window as any;
      await w.signInOTP(to);
      await w.kw.hostedLogin({ clientId: 'keyway-dev-client', redirectUri: location.origin + '/callback' });
    }, to);
    await page.waitForURL(/\/callback\?code=/);
    await page.waitForFunction(() => (window as any).sdkReady === true);
    const r = await page.evaluate(async ({ api, oid }) => {
      const w = window as any;
      const kw = new w.K.Keyway({ oid, baseURL: api, analytics: false });
      const token = await kw.handleURL();
      const u = kw.user;
      const refused = await u.me().then(() => 'answered', (e: Error) => e.name);
      const info = await u.userInfo();
      const validation = await u.validate();
      return {
        token: typeof token, hosted: u instanceof w.K.HostedLoginUser, use: u.tokenUse, person: u.personId, email: u.email, idToken: typeof u.idToken,
        client: u.clientId, refused, info, valid: validation.valid, url: location.href,
      };
    }, { api: h.api.url, oid: h.api.orgId });
    expect(r.token).toBe('string');
    expect(r).toMatchObject({ hosted: true, use: 'access', email: to, idToken: 'string', client: 'keyway-dev-client', refused: 'InvalidActionError', valid: true });
    expect(r.person).toBeTruthy();
    expect(r.info).toMatchObject({ sub: r.person, email: to, email_verified: true, org_id: h.api.orgId });
    expect(r.url).not.toMatch(/code=|state=/);
  });

  it('analytics events reach the server with the correlation id of the tab', async () => {
    await freshPage();
    const to = email();
    const correlation = await page.evaluate(async (to) => {
      await (window as any).signInOTP(to);
      return sessionStorage.getItem('keyway.analytics_correlation_id');
    }, to);
    const events = async () => {
      const res = await fetch(`${h.api.url}/events?limit=200`, { headers: { 'Keyway-OrgID': h.api.orgId, 'Keyway-API-Key': 'kw_dev_api_key_not_secret' } });
      const list = ((await res.json()) as { result: Array<{ event_name: string; source: string; event: any }> }).result;
      return list.filter((e) => e.event.analytics_correlation_id === correlation);
    };
    // Analytics are fire-and-forget (keep-alive): wait until the three events of the sign-in are stored.
    await expect.poll(async () => (await events()).length, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    const mine = await events();
    expect(correlation).toBeTruthy();
    expect(mine.map((e) => e.event_name)).toEqual(expect.arrayContaining(['KeywaySDKLoaded_v1', 'AuthenticationSucceeded_v1', 'PersonIdentified_v1']));
    const success = mine.find((e) => e.event_name === 'AuthenticationSucceeded_v1')!;
    expect(success.source).toBe('sdk');
    expect(success.event.event_data).toMatchObject({ success_authn_method: 'otp_via_email', handle: to });
});
});
