import { generateSync } from 'otplib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailbox, manage, newEmail } from '../test/api.js';
import { startOidcIdp } from '@keyway/test-support';
import { signInAt } from '@keyway/identity-server/testing';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

/** Types the handle, continues, and answers the emailed code read from the dev mailbox. */
async function signInByEmail(page: Page, email: string) {
  const before = new Date().toISOString();
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  const code = page.getByLabel('Code', { exact: true });
  await code.waitFor();
  await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('code');
  expect(await page.getByRole('status').textContent()).toBe(`We sent a code to ${email}.`);
  await code.fill((await mailbox(h.api, email, before)).code!);
  await page.keyboard.press('Enter');
}

const stored = (page: Page) => page.evaluate(() => localStorage.getItem('keyway.docs.token'));

/**
 * The address's owner opens the newest link sent to `email` after `after` (from the dev mailbox) in a tab of the same
 * browser and clicks “Yes, sign me in” on its page.
 */
async function confirmLinkInBrowser(page: Page, email: string, after: string) {
  const { link } = await mailbox(h.api, email, after);
  const tab = await page.context().browser()!.newPage();
  await tab.goto(link!);
  expect(await tab.getByText(`A sign-in as ${email} was requested`).count()).toBe(1);
  await tab.getByRole('button', { name: 'Yes, sign me in' }).click();
  await tab.getByRole('heading', { name: 'You are signed in' }).waitFor();
  await tab.close();
}

/** The form's status line, once it holds `text`. */
async function statusSays(page: Page, text: string) {
  await expect.poll(async () => (await page.getByRole('status').textContent())?.trim()).toBe(text);
}

describe('@keyway/react in Chromium against the identity server', () => {
  it('signs in by email code with the keyboard only, keeps the session across a reload, and signs out', async () => {
    const page = await h.open('otp');
    const email = newEmail('chromium');
    await page.getByLabel('Email address').waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('handle');
    await signInByEmail(page, email);
    await page.getByTestId('who').waitFor();
    expect(await page.getByTestId('who').textContent()).toMatch(new RegExp(`^\\S+ in ${h.api.orgId} by otp_via_email$`));
    expect(await stored(page)).toMatch(/^ey/);
    const token = (await stored(page))!;
    await page.reload();
    await page.getByTestId('who').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email address').waitFor();
    expect(await stored(page)).toBeNull();
    // Signing out revoked the token on the server.
    const check = await fetch(`${h.api.url}/token/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'keyway-orgid': h.api.orgId },
      body: JSON.stringify({ token }),
    });
    expect(((await check.json()) as { result: { valid: boolean } }).result.valid).toBe(false);
    await page.close();
  });

  it('fits a 320 px wide phone screen without sideways scrolling', async () => {
    const page = await h.open('password');
    await page.setViewportSize({ width: 320, height: 640 });
    await page.getByLabel('Email address').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    const box = (await page.locator('.kw-form').boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(320);
    // Touch-sized controls.
    expect((await page.getByRole('button', { name: 'Continue' }).boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await page.close();
  });

  it('creates an account with a password: the link to the address is confirmed in its page, then the live rules; signs back in; a wrong password offers reset and sign-up', async () => {
    const email = newEmail('pw');
    const page = await h.open('password');
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('handle');
    await page.getByLabel('Email address').fill(email);
    expect(await page.getByRole('radio', { name: 'Password' }).isChecked()).toBe(true);
    const before = new Date().toISOString();
    await page.getByRole('button', { name: 'Continue' }).click();
    await statusSays(page, `We sent a link to ${email} to check that the address is yours. Open it and confirm that it is you; this page then asks for your new password.`);
    await confirmLinkInBrowser(page, email, before);
    await page.getByRole('heading', { name: 'Choose a password' }).waitFor();
    expect(await page.getByRole('status').textContent()).toBe(`${email} is confirmed.`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('password');
    const pw = page.getByLabel('New password', { exact: true });
    await pw.fill('short1');
    expect(await page.locator('.kw-rule', { hasText: 'at least 10 characters' }).getAttribute('data-met')).toBe('false');
    await pw.fill('long-enough-1');
    expect(await page.locator('.kw-rule', { hasText: 'at least 10 characters' }).getAttribute('data-met')).toBe('true');
    await page.getByLabel('Repeat the password').fill('long-enough-1');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('who').waitFor();
    expect(await page.getByTestId('who').textContent()).toMatch(/ by email_link\+password$/);
    await page.getByRole('button', { name: 'Sign out' }).click();

    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password', { exact: true }).fill('not-the-password-1');
    await page.keyboard.press('Enter');
    expect(await page.getByRole('alert').textContent()).toBe('Incorrect password. Try again, reset your password, or create an account if you have none.');
    expect(await page.getByRole('button', { name: 'Forgot your password?' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Create an account' }).isVisible()).toBe(true);
    await page.getByLabel('Password', { exact: true }).fill('long-enough-1');
    await page.keyboard.press('Enter');
    expect(await page.getByTestId('who').textContent()).toMatch(/ by password$/);
    await page.close();
  });

  it('an account made by code gets a password through “Forgot your password?”: the emailed code, a rule-breaking password explained and asked again, then the new one', async () => {
    const email = newEmail('recover');
    // The account was made by an e-mailed code and has no password yet: a password typed for it is incorrect.
    await signInAt(h.api, email);
    const page = await h.open('password');
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password', { exact: true }).fill('what-was-it-1');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').waitFor();
    const before = new Date().toISOString();
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    const code = page.getByLabel('Code', { exact: true });
    await code.fill((await mailbox(h.api, email, before)).code!);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New password', { exact: true }).fill('short-1');
    await page.getByLabel('Repeat the password').fill('short-1');
    await page.keyboard.press('Enter');
    expect(await page.getByRole('alert').textContent()).toBe('That password does not meet the rules: at least 10 characters.');
    expect(await page.getByRole('heading', { name: 'Choose a new password' }).isVisible()).toBe(true);
    await page.getByLabel('New password', { exact: true }).fill('recovered-pass-2');
    await page.getByLabel('Repeat the password').fill('recovered-pass-2');
    await page.keyboard.press('Enter');
    expect(await page.getByTestId('who').textContent()).toMatch(/ by otp_via_email$/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password', { exact: true }).fill('recovered-pass-2');
    await page.keyboard.press('Enter');
    expect(await page.getByTestId('who').textContent()).toMatch(/ by password$/);
    await page.close();
  });

  it('registers an authenticator app after the emailed code (code computed with otplib from the key shown)', async () => {
    const page = await h.open('mfa');
    await page.getByLabel('Email address').waitFor();
    await signInByEmail(page, newEmail('mfa'));
    await page.getByRole('heading', { name: 'Set up your authenticator app' }).waitFor();
    const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 50)).toBe(true);
    expect(await page.locator('.kw-recovery-codes li').count()).toBeGreaterThanOrEqual(5);
    const secret = (await page.locator('.kw-totp-key code').textContent())!.replace(/\s/g, '');
    expect(await page.getByTestId('who').count()).toBe(0);
    await page.getByLabel('Code', { exact: true }).fill(generateSync({ secret }));
    await page.keyboard.press('Enter');
    expect(await page.getByTestId('who').textContent()).toMatch(/ by otp_via_email\+totp$/);
    await page.close();
  });

  it('switches organization from the drop-down', async () => {
    const sub = await manage(h.api, 'POST', '/organizations/suborganizations', { org_name: 'Chromium Europe', share_person_pool: true });
    const page = await h.open('orgs');
    await page.getByLabel('Email address').waitFor();
    await signInByEmail(page, newEmail('orgs'));
    const select = page.getByLabel('Organization');
    await page.locator('option', { hasText: 'Chromium Europe' }).waitFor({ state: 'attached' });
    await select.selectOption(sub.id);
    await expect.poll(() => page.getByTestId('who').textContent()).toContain(` in ${sub.id} `);
    await page.close();
  });

  it('records the consent chosen in the dialog on the server', async () => {
    const page = await h.open('consent');
    await page.getByLabel('Email address').waitFor();
    await signInByEmail(page, newEmail('consent'));
    await page.getByRole('dialog', { name: 'Your privacy' }).waitFor();
    await page.getByRole('button', { name: 'Accept all' }).click();
    await expect.poll(() => page.getByTestId('consents').textContent()).toBe('analytics,marketing,necessary,retargeting,tracking');
    await page.reload();
    await expect.poll(() => page.getByTestId('consents').textContent()).toBe('analytics,marketing,necessary,retargeting,tracking');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.close();
  });

  it('creates an account with a passkey once the link is confirmed, then signs in with it without typing anything (virtual authenticator)', async () => {
    const page = await h.open('passkey');
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    const email = newEmail('passkey');
    await page.getByRole('button', { name: 'Create an account' }).click();
    // A passkey account is reached by its address: the form asks for it first.
    await page.getByRole('button', { name: 'Sign up with a passkey' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Enter your email address.');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('handle');
    await page.getByLabel('Email address').fill(email);
    const before = new Date().toISOString();
    await page.getByRole('button', { name: 'Sign up with a passkey' }).click();
    await statusSays(page, `We sent a link to ${email} to check that the address is yours. Open it and confirm that it is you; this page then creates your passkey.`);
    expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toHaveLength(0);
    await confirmLinkInBrowser(page, email, before);
    await page.getByTestId('who').waitFor();
    expect(await page.getByTestId('who').textContent()).toMatch(/ by email_link\+webauthn$/);
    expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toHaveLength(1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    expect(await page.getByTestId('who').textContent()).toMatch(/ by webauthn$/);
    await page.close();
  });

  it('signs in with single sign-on in a popup at a real OpenID provider', async () => {
    const idp = await startOidcIdp(`${h.api.url}/sso/oidc/callback`, { sub: 'sso-1', email: 'Sso.Person@Corp.example' });
    try {
      await manage(h.api, 'POST', '/organizations/sso/oidc/provider-credentials', { provider: 'generic', label: 'Corp', client_id: idp.client_id, client_secret: idp.client_secret, issuer: idp.issuer });
      const page = await h.open('sso');
      const popupOpened = page.waitForEvent('popup');
      await page.getByRole('button', { name: 'Continue with Corp' }).click();
      expect(await page.getByRole('status').textContent()).toContain('Finish signing in with your identity provider in the window that opened.');
      const popup = await popupOpened;
      await popup.locator('input[name=login]').fill('sso-1');
      await popup.locator('input[name=password]').fill('any');
      await popup.locator('button[type=submit]').click();
      await popup.locator('button[type=submit]').click(); // consent
      await page.getByTestId('who').waitFor();
      expect(await page.getByTestId('who').textContent()).toMatch(/ by oidc$/);
      await page.close();
    } finally {
      await idp.close();
    }
  });

  it('the page bundle (React + @keyway/react + @keyway/sdk) stays small', () => {
    console.log(`browser test bundle: ${(h.bundleBytes / 1024).toFixed(1)} KiB minified`);
    expect(h.bundleBytes).toBeLessThan(320 * 1024);
  });
});
