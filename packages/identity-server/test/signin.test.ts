import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { BACKENDS, answerLink, api, decodeClaims, lastMessage, signInWithEmail, startTestServer, useTestServer } from './helpers.js';

describe.each(BACKENDS)('email OTP sign-in (%s)', (backend) => {
  const t = useTestServer(backend);

  it('signs a new person up and in with the code from the dev mailbox', async () => {
    const id = await t.call('POST', '/id/v2', { handle: 'Newcomer@Example.com', factor: { method: 'otp_via_email' } });
    expect(id.status).toBe(200);
    expect(id.headers.get('cache-control')).toContain('no-cache');
    expect(Array.isArray(id.body.result)).toBe(true);
    const [challenge] = id.body.result;
    expect(challenge).toMatchObject({ type: 'otp', authentication_method: 'otp_via_email', options: {} });

    const mail = await lastMessage(t.server, 'newcomer@example.com');
    expect(mail.code).toMatch(/^\d{6}$/);
    expect(mail.text).toContain(mail.code);
    expect(mail.html).toContain(mail.code);
    expect(mail.subject).toContain(mail.code);

    const att = await t.call('POST', '/attestation/v3', { challenge_id: challenge.id, challenge_type: 'otp', data: { otp: mail.code } });
    expect(att.status).toBe(200);
    const claims = decodeClaims(att.body.result.token);
    expect(claims).toMatchObject({
      oid: t.server.orgId,
      first_token: true,
      authenticated_methods: ['otp_via_email'],
      authentications: [{ method: 'otp_via_email', handle: 'newcomer@example.com' }],
      person_type: 'regular',
      groups: [],
    });
    expect(claims.sub).toBe(claims.person_id);

    // The token verifies against the published JWKS, and the code cannot be used twice.
    const jwks = await (await fetch(`${t.server.url}/.well-known/jwks.json`)).json();
    const { payload } = await jwtVerify(att.body.result.token, createLocalJWKSet(jwks), { issuer: t.server.url });
    expect(payload.person_id).toBe(claims.person_id);
    const again = await t.call('POST', '/attestation/v3', { challenge_id: challenge.id, challenge_type: 'otp', data: { otp: mail.code } });
    expect(again.status).toBe(401);
    expect(again.body.errors[0].message).toBe('challenge has already been answered');

    // Second sign-in: same person, no longer first token.
    const second = decodeClaims(await signInWithEmail(t.server, 'newcomer@example.com'));
    expect(second.person_id).toBe(claims.person_id);
    expect(second.first_token).toBe(false);
  });

  it('answers a wrong code with 401 and locks the challenge after 5 wrong answers', async () => {
    const id = await t.call('POST', '/id/v2', { handle: 'wrong@example.com', factor: { method: 'otp_via_email' } });
    const challengeId = id.body.result[0].id;
    const { code } = await lastMessage(t.server, 'wrong@example.com');
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const r = await t.call('POST', '/attestation/v3', { challenge_id: challengeId, challenge_type: 'otp', data: { otp: wrong } });
      expect(r.status).toBe(401);
      expect(r.body.errors[0]).toEqual({ httpcode: 401, message: 'incorrect code' });
    }
    const locked = await t.call('POST', '/attestation/v3', { challenge_id: challengeId, challenge_type: 'otp', data: { otp: code } });
    expect(locked.status).toBe(429);
    expect(locked.body.errors[0].message).toContain('too many incorrect answers');
  });

  it('refuses an expired code with "authentication has expired"', async () => {
    const short = await startTestServer(backend, { limits: { codeTtlSeconds: 1 } });
    try {
      const c = api(short);
      const id = await c('POST', '/id/v2', { handle: 'late@example.com', factor: { method: 'otp_via_email' } });
      const { code } = await lastMessage(short, 'late@example.com');
      await new Promise((r) => setTimeout(r, 1100));
      const r = await c('POST', '/attestation/v3', { challenge_id: id.body.result[0].id, challenge_type: 'otp', data: { otp: code } });
      expect(r.status).toBe(401);
      expect(r.body.errors[0].message).toBe('authentication has expired');
    } finally {
      await short.stop();
    }
  });

  it('sends SMS codes for otp_via_sms into the dev mailbox and checks handle kinds', async () => {
    const id = await t.call('POST', '/id/v2', { handle: '+44 7700 900123', factor: { method: 'otp_via_sms' } });
    expect(id.status).toBe(200);
    const sms = await lastMessage(t.server, '+447700900123');
    expect(sms.code).toMatch(/^\d{6}$/);
    const att = await t.call('POST', '/attestation/v3', { challenge_id: id.body.result[0].id, challenge_type: 'otp', data: { otp: sms.code } });
    expect(decodeClaims(att.body.result.token).authentications).toEqual([{ method: 'otp_via_sms', handle: '+447700900123' }]);

    const mismatch = await t.call('POST', '/id/v2', { handle: 'a@example.com', factor: { method: 'otp_via_sms' } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors[0].message).toBe('otp_via_sms needs a phone number as handle, not an email address');
    const badEmail = await t.call('POST', '/id/v2', { handle: 'not-an@email', factor: { method: 'otp_via_email' } });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.errors[0].message.startsWith('malformed e-mail address')).toBe(true);
    const badPhone = await t.call('POST', '/id/v2', { handle: '+12', factor: { method: 'otp_via_sms' } });
    expect(badPhone.body.errors[0]).toEqual({ httpcode: 400, message: 'malformed phone number' });
    const unreachable = await t.call('POST', '/id/v2', { handle: '+12125550123', factor: { method: 'otp_via_sms' } });
    expect(unreachable.body.errors[0]).toEqual({ httpcode: 400, message: 'unreachable phone number' });
  });

  it('needs a known organization in Keyway-OrgID', async () => {
    const missing = await t.call('POST', '/id/v2', { handle: 'x@example.com', factor: { method: 'otp_via_email' } }, { org: null });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].message).toBe('missing Keyway-OrgID header');
    const unknown = await t.call('POST', '/id/v2', { handle: 'x@example.com', factor: { method: 'otp_via_email' } }, { org: 'nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].message).toBe('organization "nope" does not exist');
  });

  it('completes an email link (proxy challenge): 202 while waiting, token once the link is opened and its owner confirms', async () => {
    const id = await t.call('POST', '/id/v2', { handle: 'link@example.com', factor: { method: 'email_link', options: { redirect_target: 'http://localhost:3000/docs' } } });
    const ch = id.body.result[0];
    expect(ch).toMatchObject({ type: 'proxy', authentication_method: 'email_link', options: { challenge_id: ch.id } });
    const waiting = await t.call('GET', `/challenge/${ch.id}/v2`);
    expect(waiting.status).toBe(202);
    expect(waiting.body.errors[0].httpcode).toBe(202);
    const { link } = await lastMessage(t.server, 'link@example.com');
    expect(link).toContain(`/challenge/${ch.id}/verify?secret=`);
    const forged = await fetch(link!.replace(/secret=.*/, 'secret=guess'), { redirect: 'manual' });
    expect(forged.status).toBe(404);
    expect((await t.call('GET', `/challenge/${ch.id}/v2`)).status).toBe(202);
    // Opening the link shows what is being signed in and changes nothing (#36); the owner's confirmation does.
    const page = await fetch(link!, { redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(await page.text()).toMatch(/A sign-in as <b>link@example\.com<\/b> was requested on .+ from an unknown browser/);
    expect((await t.call('GET', `/challenge/${ch.id}/v2`)).status).toBe(202);
    const opened = await answerLink(link!);
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('http://localhost:3000/docs');
    expect((await answerLink(link!).catch((e: Error) => e.message))).toMatch(/has no form/);
    const done = await t.call('GET', `/challenge/${ch.id}/v2`);
    expect(done.status).toBe(200);
    expect(decodeClaims(done.body.result).authenticated_methods).toEqual(['email_link']);
    expect((await t.call('GET', `/challenge/${ch.id}/v2`)).status).toBe(401);
  });

  it('answers 429 with Retry-After when one handle asks for too many codes', async () => {
    const limited = await startTestServer(backend, { limits: { perHandlePerMinute: 3 } });
    try {
      const c = api(limited);
      for (let i = 0; i < 3; i++) expect((await c('POST', '/id/v2', { handle: 'busy@example.com', factor: { method: 'otp_via_email' } })).status).toBe(200);
      const r = await c('POST', '/id/v2', { handle: 'busy@example.com', factor: { method: 'otp_via_email' } });
      expect(r.status).toBe(429);
      expect(r.body.errors[0].message).toMatch(/^rate limit exceeded: too many sign-in attempts for this handle/);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await c('POST', '/id/v2', { handle: 'other@example.com', factor: { method: 'otp_via_email' } })).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});
