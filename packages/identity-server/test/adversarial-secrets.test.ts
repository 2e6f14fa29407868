import { describe, expect, it } from 'vitest';
import { generate } from 'otplib';
import { contractApi } from './contract.js';
import { BACKENDS, decodeClaims, signInWithEmail, useTestServer } from './helpers.js';

// #15 §5, tried with a stolen user token or a leaked management key: no read gives offline-crackable or reusable secret
// material (password hashes, TOTP secrets, recovery codes, client secrets). Every answer is also checked against the contract.
const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
/** Anything that looks like a stored password hash (PHC strings of scrypt, argon2, bcrypt, pbkdf2). */
const HASH = /\$(scrypt|argon2(id|i|d)?|2[aby]|pbkdf2[-\w]*)\$/;

describe.each(BACKENDS)('adversarial: secrets never leave the server (%s)', (backend) => {
  const t = useTestServer(backend);

  async function personWithPasswordAndTotp(email: string) {
    const call = contractApi(t.server);
    const token = await signInWithEmail(t.server, email);
    const personId = decodeClaims(token).person_id as string;
    expect((await call('PUT', `/persons/${personId}/credentials/password`, { password: 'Stolen-token 42 password' }, KEY)).status).toBe(200);
    const reg = await call('POST', '/id/v2', { factor: { method: 'totp' } }, { token });
    const [ch] = reg.body.result.challenges;
    const secret = new URL(ch.options.key_uri).searchParams.get('secret')!;
    const done = await call('POST', '/attestation/v3', { challenge_id: ch.id, challenge_type: ch.type, data: { otp: await generate({ secret }) } });
    expect(done.status).toBe(200);
    return { token: done.body.result.token as string, personId, totpSecret: secret, recoveryCodes: ch.options.recovery_codes as string[] };
  }

  function expectNoSecret(body: unknown, p: { totpSecret: string; recoveryCodes: string[] }, where: string) {
    const text = JSON.stringify(body);
    expect(text, where).not.toMatch(HASH);
    expect(text, where).not.toContain('password_hash');
    expect(text, where).not.toContain(p.totpSecret);
    for (const code of p.recoveryCodes) expect(text, where).not.toContain(code);
  }

  it('GET /me with a stolen user token shows the password credential without its hash, and no TOTP secret', async () => {
    const p = await personWithPasswordAndTotp('stolen-me@example.com');
    const me = await contractApi(t.server)('GET', '/me', undefined, { token: p.token });
    expect(me.status).toBe(200);
    expect(me.body.result.credentials.map((c: { type: string }) => c.type).sort()).toEqual(['password', 'totp']);
    expectNoSecret(me.body, p, 'GET /me');
  });

  it('the management API (GET person, GET credentials, PUT password) shows no hash, TOTP secret or recovery code', async () => {
    const p = await personWithPasswordAndTotp('leaked-key@example.com');
    const call = contractApi(t.server);
    expectNoSecret((await call('GET', `/persons/${p.personId}`, undefined, KEY)).body, p, 'GET /persons/{id}');
    const creds = await call('GET', `/persons/${p.personId}/credentials`, undefined, KEY);
    expect(creds.status).toBe(200);
    expectNoSecret(creds.body, p, 'GET /persons/{id}/credentials');
    const set = await call('PUT', `/persons/${p.personId}/credentials/password`, { password: 'Another 42 password!' }, KEY);
    expect(set.status).toBe(200);
    expect(set.body.result.params).toEqual({ hash_algorithm: 'scrypt' });
    expectNoSecret(set.body, p, 'PUT /persons/{id}/credentials/password');
  });

  it('a password imported through the management API (migration) still signs in, and its hash is not read back', async () => {
    const call = contractApi(t.server);
    const person = await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'imported-hash@example.com' }] }, KEY);
    const id = person.body.result.person_id as string;
    const imported = await call('POST', `/persons/${id}/credentials`, { type: 'password', password: 'Migrated 42 secret' }, KEY);
    expect(imported.status).toBe(201);
    expect(JSON.stringify(imported.body)).not.toMatch(HASH);
    const login = await call('POST', '/id/v2', { handle: 'imported-hash@example.com', factor: { method: 'password' } });
    const ok = await call('POST', '/attestation/v3', { challenge_id: login.body.result.challenges[0].id, challenge_type: 'password_verify', data: { password: 'Migrated 42 secret' } });
    expect(ok.status).toBe(200);
  });

  it('an OAuth2 client secret is shown once, at creation, then only its last 4 characters', async () => {
    const call = contractApi(t.server);
    const made = await call('POST', '/oauth2/clients', { client_name: 'Secretive', scopes: ['openid'], grant_types: ['client_credentials'] }, KEY);
    const secret = made.body.result.client_secret as string;
    expect(secret).toMatch(/^kwcs_/);
    const read = await call('GET', `/oauth2/clients/${made.body.result.client_id}`, undefined, KEY);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain(secret);
    expect(read.body.result.client_secret_last4).toBe(secret.slice(-4));
  });
});
