import { describe, expect, it } from 'vitest';
import { BACKENDS, decodeClaims, signInWithEmail, useTestServer } from './helpers.js';

// An attacker sends a victim a sign-in that ends on a site of the attacker's choosing (open redirect through the
// identity server). Every redirect_target and target_url goes through the shared rule: the configured app origins,
// the server itself or the organization's allowed domains, after normalization. (SSO factors use the same
// redirectTarget check as the email link.)
const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
const OFFSITE = [
  'https://evil.example/',
  'http://evil.example/docs',
  '//evil.example/',
  'http://localhost:3000@evil.example/',
  'http://localhost:3000\\@evil.example/',
  'http:\\\\evil.example\\',
  'javascript:alert(1)//http://localhost:3000/',
  'http://localhost:3000/\n@evil.example',
];

for (const backend of BACKENDS) {
  describe(`redirect targets stay on the organization's origins (${backend})`, () => {
    const t = useTestServer(backend);

    it.each(OFFSITE)('an email link refuses redirect_target %j', async (target) => {
      const r = await t.call('POST', '/id/v2', { handle: 'victim@example.com', factor: { method: 'email_link', options: { redirect_target: target } } });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].message).toMatch(/redirect_target/);
    });

    it('an email link still returns to the app, normalized', async () => {
      const r = await t.call('POST', '/id/v2', { handle: 'ok@example.com', factor: { method: 'email_link', options: { redirect_target: 'http://localhost:3000/docs/../docs/intro' } } });
      expect(r.status).toBe(200);
    });

    it.each(OFFSITE)('impersonation refuses target_url %j', async (target) => {
      const person = decodeClaims(await signInWithEmail(t.server, 'imp@example.com')).person_id;
      const r = await t.call('POST', `/persons/${person}/impersonate/v2`, { target_url: target }, KEY);
      expect(r.status).toBe(400);
      expect(r.body.errors[0].message).toMatch(/target_url/);
    });

    it.each(OFFSITE)('a password reset link refuses redirect_target %j', async (target) => {
      const person = decodeClaims(await signInWithEmail(t.server, 'reset@example.com')).person_id;
      const r = await t.call('POST', `/persons/${person}/credentials/password-reset`, { handle: { type: 'email_address', value: 'reset@example.com' }, redirect_target: target }, KEY);
      expect(r.status).toBe(400);
      expect(r.body.errors[0].message).toMatch(/redirect_target/);
    });
  });
}
