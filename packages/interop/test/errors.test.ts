// Spec §8: the server's error answers, as the published client classifies them (its error `name`).
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_DEV_API_KEY } from '@keyway/identity-server';
import { email, reply, sdkFor, signInByCode, useInterop } from './harness.js';

const t = useInterop();

/** The error the published client raises for `promise` (fails the test when it resolves). */
async function errorOf(promise: Promise<unknown>): Promise<{ name: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    return err as { name: string; message: string };
  }
  throw new Error('expected the client to fail');
}

async function management(method: string, path: string, body?: unknown) {
  const res = await fetch(`${t.server.url}${path}`, {
    method,
    headers: { 'keyway-orgid': t.oid, 'keyway-api-key': DEFAULT_DEV_API_KEY, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res;
}

describe('published client: error mapping (spec §8)', () => {
  it('400 malformed e-mail address -> InvalidEmailAddressFormatError', async () => {
    const err = await errorOf(sdkFor(t).id(t.oid, { type: 'email_address', value: 'not-an-address@' }, { method: 'otp_via_email' }));
    expect(err.name).toBe('InvalidEmailAddressFormatError');
  });

  it('400 malformed phone number -> InvalidPhoneNumberFormatError', async () => {
    const err = await errorOf(sdkFor(t).id(t.oid, { type: 'phone_number', value: '+12' }, { method: 'otp_via_sms' }));
    expect(err.name).toBe('InvalidPhoneNumberFormatError');
  });

  it('a password for an address without one is an incorrect password, asked again (#36: 403 no password set is no longer answered)', async () => {
    const to = email('nopw');
    await signInByCode(t, to);
    const sid = sdkFor(t);
    let incorrect = 0;
    // Two guesses; after that nobody answers the prompt (the flow waits, as it would for a person who walked away).
    sid.subscribe('passwordVerifyReady', () => void (incorrect < 2 && reply(sid, 'passwordSubmitted', `a guess ${incorrect}`)));
    sid.subscribe('incorrectPasswordSubmitted', () => void incorrect++);
    const pending = sid.id(t.oid, { type: 'email_address', value: to }, { method: 'password' });
    await vi.waitFor(() => expect(incorrect).toBe(2), { timeout: 10_000 });
    void pending.catch(() => undefined);
  });

  it('403 "Person … is inactive" -> SignInAwaitingApprovalError', async () => {
    const to = email('inactive');
    const user = await signInByCode(t, to);
    await management('PATCH', `/persons/${user.ID}`, { active: false });
    const sid = sdkFor(t);
    sid.subscribe('otpCodeSent', () => reply(sid, 'otpCodeSubmitted', t.code(to)));
    const err = await errorOf(sid.id(t.oid, { type: 'email_address', value: to }, { method: 'otp_via_email' }));
    expect(err.name).toBe('SignInAwaitingApprovalError');
  });

  it('429 -> RateLimitError', async () => {
    const to = email('limited');
    // Spend the per-handle budget directly, then the client's ID request is refused.
    for (let i = 0; i < 10; i++) {
      await fetch(`${t.server.url}/id/v2`, {
        method: 'POST',
        headers: { 'keyway-orgid': t.oid, 'content-type': 'application/json' },
        body: JSON.stringify({ handle: { type: 'email_address', value: to }, factor: { method: 'otp_via_email' } }),
      });
    }
    const err = await errorOf(sdkFor(t).id(t.oid, { type: 'email_address', value: to }, { method: 'otp_via_email' }));
    expect(err.name).toBe('RateLimitError');
  });

  it('any other error -> APIResponseError carrying the correlation id', async () => {
    // A method the organization does not allow: a 400 of its own. (TOTP for a person who never registered it was the
    // example before #36; TOTP now answers every handle alike, so the client waits for a code instead.)
    await management('PATCH', '/organizations/config', { allowed_factors: ['otp_via_email', 'password'] });
    let err: { name: string; context?: { correlationId?: string } };
    try {
      err = (await errorOf(sdkFor(t).id(t.oid, { type: 'email_address', value: email('other') }, { method: 'email_link' }))) as typeof err;
    } finally {
      await management('PATCH', '/organizations/config', { allowed_factors: [] });
    }
    expect(err.name).toBe('APIResponseError');
    expect(err.context?.correlationId).toMatch(/[0-9a-f-]{36}/);
  });

  it('every request the published client sent and every answer it got match api/openapi.yaml', () => {
    t.checkContract();
  });
});
