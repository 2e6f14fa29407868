import { describe, expect, it } from 'vitest';
import bcrypt from 'bcryptjs';
import { generate } from 'otplib';
import { SoftAuthenticator } from './authenticator.js';
import { contractApi } from './contract.js';
import { BACKENDS, decodeClaims, lastMessage, useTestServer } from './helpers.js';

// Issue #24, credential import: `credentials` on POST and PUT /persons, the document's `public-key` and TOTP params on
// POST /persons/{person_id}/credentials, called exactly as the public "SlashID API" document describes them
// (`SlashID-` headers read as `Keyway-`). Each imported credential must then work in the real sign-in flow.

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
const ORIGIN = 'http://localhost:3000';
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

describe.each(BACKENDS)('credential import (%s)', (backend) => {
  const t = useTestServer(backend);

  const start = (handle: string, method: string, origin = false) => t.call('POST', '/id/v2', { handle, factor: { method } }, origin ? { headers: { origin: ORIGIN } } : undefined);
  const answer = async (handle: string, method: string, data: Record<string, unknown>) => {
    const ch = (await start(handle, method)).body.result[0];
    return t.call('POST', '/attestation/v3', { challenge_id: ch.id, challenge_type: ch.type, data });
  };
  const byHandle = async (email: string) => (await contractApi(t.server)('GET', `/persons?handle=email_address:${email}`, undefined, KEY)).body.result as Array<{ person_id: string }>;

  it('POST /persons with an imported bcrypt hash and TOTP record: the person signs in with the old password and codes', async () => {
    const call = contractApi(t.server);
    const email = 'imported@example.com';
    const created = await call('POST', '/persons', {
      active: true,
      region: 'europe-belgium',
      handles: [{ type: 'email_address', value: email }],
      credentials: [
        { type: 'password', label: 'Old system', params: { password_hash: bcrypt.hashSync('Legacy pass 42', 4) } },
        { type: 'totp', label: 'Old authenticator', params: { key_uri: `otpauth://totp/Old:${email}?secret=${SECRET}&issuer=Old&algorithm=SHA256&digits=8&period=60`, recovery_codes_total: 10, unused_recovery_codes: ['abcd-efgh', 'ijkl-mnop'] } },
      ],
    }, KEY);
    expect(created.status).toBe(201);
    const id = created.body.result.person_id;
    expect(created.body.result).toMatchObject({ active: true, region: 'europe-belgium', person_type: 'regular' });

    const creds = await call('GET', `/persons/${id}/credentials`, undefined, KEY);
    expect(creds.body.result.map((c: any) => [c.type, c.label, c.params])).toEqual([
      ['password', 'Old system', { hash_algorithm: 'bcrypt' }],
      ['totp', 'Old authenticator', { recovery_codes_total: 10, recovery_codes_unused: 2 }],
    ]);
    expect(JSON.stringify(creds.body)).not.toMatch(/\$2[aby]\$|JBSWY3DP|abcd-efgh/);

    expect((await answer(email, 'password', { password: 'wrong pass 42' })).status).toBe(401);
    const signedIn = await answer(email, 'password', { password: 'Legacy pass 42' });
    expect(signedIn.status).toBe(200);
    expect(decodeClaims(signedIn.body.result.token)).toMatchObject({ person_id: id, authenticated_methods: ['password'] });

    // The codes are checked with the URI's settings: SHA-256, 8 digits, 60 s (a default 6-digit code is refused).
    expect((await answer(email, 'totp', { otp: await generate({ secret: SECRET }) })).status).toBe(401);
    const totp = await answer(email, 'totp', { otp: await generate({ secret: SECRET, algorithm: 'sha256', digits: 8, period: 60 }) });
    expect(totp.status).toBe(200);
    expect(decodeClaims(totp.body.result.token).person_id).toBe(id);
    // An imported recovery code works once.
    expect((await answer(email, 'totp', { otp: 'ABCD-EFGH' })).status).toBe(200);
    expect((await answer(email, 'totp', { otp: 'abcd-efgh' })).status).toBe(401);
    const after = await call('GET', `/persons/${id}/credentials`, undefined, KEY);
    expect(after.body.result.find((c: any) => c.type === 'totp').params).toEqual({ recovery_codes_total: 10, recovery_codes_unused: 1 });
  });

  it('a credential this server cannot verify answers 400 naming the field and the value, and nothing is created', async () => {
    const call = contractApi(t.server);
    const email = 'refused@example.com';
    const cases: Array<[unknown, RegExp]> = [
      [{ type: 'password', params: { password_hash: '$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo' } }, /^credentials\[1\]\.params\.password_hash: the format "argon2id" is not supported/],
      [{ type: 'totp', params: { key_uri: `otpauth://totp/x?secret=${SECRET}&algorithm=MD5` } }, /^credentials\[1\]\.params\.key_uri: Invalid value for parameter 'algorithm': MD5/],
      [{ type: 'totp', params: { key_uri: `otpauth://hotp/x?secret=${SECRET}&counter=3` } }, /^credentials\[1\]\.params\.key_uri: "hotp" \(counter-based\) codes are not supported/],
      [{ type: 'totp', params: { key_uri: 'https://example.com/totp' } }, /^credentials\[1\]\.params\.key_uri: scheme "https" is not an otpauth:\/\/totp\/ URI/],
      [{ type: 'totp', params: { key_uri: `otpauth://totp/x?secret=${SECRET}`, unused_recovery_codes: ['123456'] } }, /^credentials\[1\]\.params\.unused_recovery_codes\[0\] has the shape of an authenticator code/],
      [{ type: 'public-key', params: { webauthn_credential_id: 'AAEC', public_key: 'not-a-key' } }, /^credentials\[1\]\.params\.public_key: "not-a-key" is not a public key/],
      [{ type: 'public-key', params: { public_key: new SoftAuthenticator().add('localhost').publicKey } }, /^credentials\[1\]\.params\.webauthn_credential_id is required to import a public-key credential/],
      [{ type: 'password', params: { key_uri: 'otpauth://totp/x' } }, /^credentials\[1\]\.params\.key_uri is not a parameter of a password credential/],
      [{ label: 'what is it' }, /^credentials\[1\]\.type is required when the params do not tell the credential type/],
    ];
    for (const [bad, message] of cases) {
      const res = await call('POST', '/persons', { handles: [{ type: 'email_address', value: email }], credentials: [{ params: { password_hash: bcrypt.hashSync('Fine pass 1', 4) } }, bad] }, KEY);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.errors[0].message).toMatch(message);
    }
    expect(await byHandle(email)).toEqual([]);
    const twice = await call('POST', '/persons', { handles: [{ type: 'email_address', value: email }], credentials: [{ params: { password_hash: bcrypt.hashSync('a', 4) } }, { params: { password_hash: bcrypt.hashSync('b', 4) } }] }, KEY);
    expect(twice.body.errors[0].message).toBe('credentials[1]: a person has one password credential; so is credentials[0]');
  });

  it('POST /persons/{person_id}/credentials imports a passkey (COSE or SPKI public key) that then signs the person in', async () => {
    const call = contractApi(t.server);
    const email = 'passkey-import@example.com';
    const id = (await call('POST', '/persons', { handles: [{ type: 'email_address', value: email }] }, KEY)).body.result.person_id;
    const device = new SoftAuthenticator();
    const cose = device.add('localhost');
    const spki = device.add('localhost');
    const aaguid = 'adce0002-35bc-c60a-648b-0b25f1f05503';
    const made = await call('POST', `/persons/${id}/credentials`, { type: 'public-key', label: 'Laptop', params: { webauthn_credential_id: cose.id, public_key: cose.publicKey, attestation_type: 'none', authenticator: { aaguid, sign_count: 0 } } }, KEY);
    expect(made.status).toBe(201);
    expect(made.body.result).toEqual({
      id: expect.any(String), last_used: null, type: 'public-key', label: 'Laptop',
      params: { webauthn_credential_id: cose.id, public_key: cose.publicKey, attestation_type: 'none', authenticator: { aaguid, sign_count: 0, clone_warning: false } },
    });
    // Without `type` (the document makes it optional): the params tell it. An SPKI PEM key is stored as a COSE key.
    const fromPem = await call('POST', `/persons/${id}/credentials`, { params: { webauthn_credential_id: Buffer.from(spki.credId).toString('base64'), public_key: spki.spki, authenticator: { aaguid } } }, KEY);
    expect(fromPem.status).toBe(201);
    expect(fromPem.body.result).toMatchObject({ type: 'public-key', label: 'Passkey', params: { webauthn_credential_id: spki.id, public_key: spki.publicKey } });
    const listed = await call('GET', `/persons/${id}/credentials`, undefined, KEY);
    expect(listed.body.result.map((c: any) => c.params.webauthn_credential_id)).toEqual([cose.id, spki.id]);

    // The passkey factor offers and verifies both.
    for (const key of [cose, spki]) {
      const ch = (await start(email, 'webauthn', true)).body.result[0];
      expect(ch.type).toBe('webauthn_get');
      expect(ch.options.allowCredentials.map((c: any) => c.id)).toEqual([cose.id, spki.id]);
      const signed = await t.call('POST', '/attestation/v3', { challenge_id: ch.id, challenge_type: 'webauthn_get', data: device.get(ch.options, ORIGIN, key.id) });
      expect(signed.status).toBe(200);
      expect(decodeClaims(signed.body.result.token)).toMatchObject({ person_id: id, authenticated_methods: ['webauthn'] });
    }
    const used = (await call('GET', `/persons/${id}/credentials`, undefined, KEY)).body.result[0];
    expect(used.params.authenticator.sign_count).toBe(1);
    expect(used.last_used).toMatch(/^\d{4}-/);

    // The same passkey for another person is a conflict; a key of a curve WebAuthn does not use is refused.
    const other = (await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'other-pk@example.com' }] }, KEY)).body.result.person_id;
    const taken = await call('POST', `/persons/${other}/credentials`, { type: 'public-key', params: { webauthn_credential_id: cose.id, public_key: cose.publicKey } }, KEY);
    expect(taken.status).toBe(409);
    const { generateKeyPairSync } = await import('node:crypto');
    const k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const curve = await call('POST', `/persons/${other}/credentials`, { type: 'public-key', params: { webauthn_credential_id: 'AAEC', public_key: k1 } }, KEY);
    expect(curve.status).toBe(400);
    expect(curve.body.errors[0].message).toMatch(/^params\.public_key: "-----BEGIN PUBLIC KEY-----.*" is a key of type ec secp256k1; passkeys are verified with EC P-256/s);
  });

  it('PUT /persons imports into the person found by handle: a TOTP record replaces the one it had, a passkey is added', async () => {
    const call = contractApi(t.server);
    const email = 'upsert-import@example.com';
    const handles = [{ type: 'email_address', value: email }];
    const created = await call('PUT', '/persons', { handles, credentials: [{ type: 'totp', params: { key_uri: `otpauth://totp/x?secret=${SECRET}` } }] }, KEY);
    expect(created.status).toBe(200);
    const id = created.body.result.person_id;
    const device = new SoftAuthenticator();
    const key = device.add('localhost');
    const other = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    const updated = await call('PUT', '/persons', { handles, credentials: [{ type: 'totp', params: { key_uri: `otpauth://totp/x?secret=${other}` } }, { type: 'public-key', params: { webauthn_credential_id: key.id, public_key: key.publicKey } }] }, KEY);
    expect(updated.status).toBe(200);
    expect(updated.body.result.person_id).toBe(id);
    expect((await call('GET', `/persons/${id}/credentials`, undefined, KEY)).body.result.map((c: any) => c.type).sort()).toEqual(['public-key', 'totp']);
    expect((await answer(email, 'totp', { otp: await generate({ secret: SECRET }) })).status).toBe(401);
    expect((await answer(email, 'totp', { otp: await generate({ secret: other }) })).status).toBe(200);
    const ch = (await start(email, 'webauthn', true)).body.result[0];
    expect((await t.call('POST', '/attestation/v3', { challenge_id: ch.id, challenge_type: 'webauthn_get', data: device.get(ch.options, ORIGIN) })).status).toBe(200);
  });

  it('POST …/credentials/password-reset without redirect_target: 202, the link opens the server\'s own reset page, which sets the password', async () => {
    const call = contractApi(t.server);
    const email = 'reset-page@example.com';
    const id = (await call('POST', '/persons', { handles: [{ type: 'email_address', value: email }], credentials: [{ type: 'password', params: { password_hash: bcrypt.hashSync('Before reset 1', 4) } }] }, KEY)).body.result.person_id;
    // Exactly the document's body: force_change and reset_handle, nothing else.
    const reset = await call('POST', `/persons/${id}/credentials/password-reset`, { force_change: true, reset_handle: { type: 'email_address', value: email } }, KEY);
    expect(reset.status).toBe(202);
    expect((await answer(email, 'password', { password: 'Before reset 1' })).status).toBe(403); // force_change
    const { link } = await lastMessage(t.server, email);
    expect(link).toMatch(new RegExp(`^${t.server.url}/password-reset\\?challenge_pack_id=`));
    const packId = new URL(link!).searchParams.get('challenge_pack_id')!;

    const pageRes = await fetch(link!);
    expect(pageRes.status).toBe(200);
    expect(pageRes.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await pageRes.text();
    expect(html).toContain('<form method="post" action="/password-reset">');
    expect(html).toContain(`value="${packId}"`);

    const post = (password: string) => fetch(`${t.server.url}/password-reset`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ challenge_pack_id: packId, password }).toString() });
    const weak = await post('short');
    expect(weak.status).toBe(400);
    expect(await weak.text()).toMatch(/password does not satisfy the validation rules: min_length/);
    const done = await post('After reset 22');
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Password changed');
    expect((await answer(email, 'password', { password: 'Before reset 1' })).status).toBe(401);
    expect((await answer(email, 'password', { password: 'After reset 22' })).status).toBe(200);
    // The link works once.
    expect((await fetch(link!)).status).toBe(410);
    expect((await post('Another pass 33')).status).toBe(410);
  });
});
