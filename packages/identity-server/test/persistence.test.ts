import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { BACKENDS, api, decodeClaims, freshStorage, signInWithEmail, startTestServer } from './helpers.js';

describe.each(BACKENDS)('restart keeps the data (%s)', (backend) => {
  it('keeps persons, handles, credentials, attributes, consents, signing keys and revocations', async () => {
    const storage = await freshStorage(backend);
    const keepStorage = { ...storage, cleanup: async () => undefined };
    let server = await startTestServer(backend, {}, keepStorage);
    let call = api(server);
    const token = await signInWithEmail(server, 'stay@example.com');
    const revoked = await signInWithEmail(server, 'stay@example.com');
    await call('PATCH', '/attributes', { end_user_read_write: { plan: 'pro' } }, { token });
    await call('POST', '/consent/gdpr', { consent_levels: ['marketing'] }, { token });
    await call('POST', '/token/revoke', { token: revoked });
    const pw = await call('POST', '/id/v2', { factor: { method: 'password' } }, { token });
    await call('POST', '/attestation/v3', { challenge_id: pw.body.result[0].id, challenge_type: 'password_set', data: { password: 'kept across restarts 7' } });
    const reg = (await call('POST', '/id/v2', { factor: { method: 'totp' } }, { token })).body.result[0];
    const secret = new URL(reg.options.key_uri).searchParams.get('secret')!;
    expect((await call('POST', '/attestation/v3', { challenge_id: reg.id, challenge_type: 'totp_register', data: { otp: await generate({ secret }) } })).status).toBe(200);
    const jwksBefore = await (await fetch(`${server.url}/.well-known/jwks.json`)).json();
    const port = Number(new URL(server.url).port);
    await server.close();

    server = await startTestServer(backend, { port }, keepStorage);
    call = api(server);
    try {
      expect(await (await fetch(`${server.url}/.well-known/jwks.json`)).json()).toEqual(jwksBefore);
      expect((await call('POST', '/token/validate', { token })).body.result.valid).toBe(true);
      expect((await call('POST', '/token/validate', { token: revoked })).body.result).toEqual({ valid: false, invalidity_reason: 'token has been revoked' });
      const me = await call('GET', '/me', undefined, { token });
      expect(me.body.result.person.person_id).toBe(decodeClaims(token).person_id);
      expect(me.body.result.handles).toEqual([{ type: 'email_address', value: 'stay@example.com', verified: true }]);
      expect((await call('GET', '/attributes', undefined, { token })).body.result).toEqual({ end_user_read_write: { plan: 'pro' } });
      expect((await call('GET', '/consent/gdpr', undefined, { token })).body.result.consents.map((c: any) => c.consent_level)).toEqual(['marketing']);
      expect(me.body.result.credentials.map((c: any) => c.type).sort()).toEqual(['password', 'totp']);
      const verify = await call('POST', '/id/v2', { handle: 'stay@example.com', factor: { method: 'password' } });
      const byPassword = await call('POST', '/attestation/v3', { challenge_id: verify.body.result[0].id, challenge_type: 'password_verify', data: { password: 'kept across restarts 7' } });
      expect(decodeClaims(byPassword.body.result.token).person_id).toBe(decodeClaims(token).person_id);
      const totp = await call('POST', '/id/v2', { handle: 'stay@example.com', factor: { method: 'totp' } });
      const byRecovery = await call('POST', '/attestation/v3', { challenge_id: totp.body.result[0].id, challenge_type: 'totp_verify', data: { otp: reg.options.recovery_codes[3] } });
      expect(byRecovery.status).toBe(200);
      // Signing in again after the restart finds the same person.
      const again = decodeClaims(await signInWithEmail(server, 'stay@example.com'));
      expect(again.person_id).toBe(decodeClaims(token).person_id);
      expect(again.first_token).toBe(false);
    } finally {
      await server.close();
      await storage.cleanup();
    }
  });
});
