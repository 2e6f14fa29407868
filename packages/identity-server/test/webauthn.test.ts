import { describe, expect, it } from 'vitest';
import { SoftAuthenticator } from './authenticator.js';
import { contractApi } from './contract.js';
import { BACKENDS, decodeClaims, proveByLink, signInWithEmail, useTestServer } from './helpers.js';

const ORIGIN = 'http://localhost:3000';

describe.each(BACKENDS)('passkeys (%s)', (backend) => {
  const t = useTestServer(backend);

  it('signs up with a passkey after proving the address, signs in with it by handle and without one, and rejects forgeries', async () => {
    const call = contractApi(t.server);
    const device = new SoftAuthenticator();
    const origin = { headers: { origin: ORIGIN } };
    const create = await call('POST', '/id/v2', { handle: 'pk@example.com', factor: { method: 'webauthn', options: { sign_up: true } } }, origin);
    expect(create.status).toBe(200);
    const [link, ch] = create.body.result;
    expect(link).toMatchObject({ type: 'proxy', authentication_method: 'email_link' });
    expect(ch).toMatchObject({ type: 'webauthn_create', authentication_method: 'webauthn', options: { rp: { id: 'localhost', name: 'Keyway Dev' }, user: { name: 'pk@example.com' }, attestation: 'none' } });
    const early = await call('POST', '/attestation/v3', { challenge_id: ch.id, challenge_type: 'webauthn_create', data: new SoftAuthenticator().create(ch.options, ORIGIN) });
    expect(early.status).toBe(403); // the address is proved first (#36)
    await proveByLink(t.server, 'pk@example.com', link);
    const reg = await call('POST', '/attestation/v3', { challenge_id: ch.id, challenge_type: 'webauthn_create', data: device.create(ch.options, ORIGIN) });
    expect(reg.status).toBe(200);
    const claims = decodeClaims(reg.body.result.token);
    expect(claims).toMatchObject({ first_token: false, authenticated_methods: ['email_link', 'webauthn'] });

    const me = await call('GET', '/me', undefined, { token: reg.body.result.token });
    const cred = me.body.result.credentials.find((c: any) => c.type === 'public-key');
    expect(cred.params).toMatchObject({ attestation_type: 'none', authenticator: { sign_count: 0, clone_warning: false } });

    const get = await call('POST', '/id/v2', { handle: 'pk@example.com', factor: { method: 'webauthn' } }, origin);
    const [gch] = get.body.result;
    expect(gch.type).toBe('webauthn_get');
    expect(gch.options.allowCredentials.map((c: any) => c.id)).toEqual([cred.params.webauthn_credential_id]);
    const signed = await call('POST', '/attestation/v3', { challenge_id: gch.id, challenge_type: 'webauthn_get', data: device.get(gch.options, ORIGIN) });
    expect(decodeClaims(signed.body.result.token).person_id).toBe(claims.person_id);

    // Discoverable: no handle; the passkey names the person.
    const disc = await call('POST', '/id/v2', { factor: { method: 'webauthn' } }, origin);
    const [dch] = disc.body.result;
    const d = await call('POST', '/attestation/v3', { challenge_id: dch.id, challenge_type: 'webauthn_get', data: device.get(dch.options, ORIGIN) });
    expect(decodeClaims(d.body.result.token).person_id).toBe(claims.person_id);

    // An assertion made for another origin, or for another challenge, is refused.
    const again = await call('POST', '/id/v2', { handle: 'pk@example.com', factor: { method: 'webauthn' } }, origin);
    const [ach] = again.body.result;
    const phished = await call('POST', '/attestation/v3', { challenge_id: ach.id, challenge_type: 'webauthn_get', data: device.get(ach.options, 'http://localhost:4000') });
    expect(phished.status).toBe(401);
    expect(phished.body.errors[0].message).toMatch(/^passkey could not be verified/);
    const replay = await call('POST', '/attestation/v3', { challenge_id: ach.id, challenge_type: 'webauthn_get', data: device.get(gch.options, ORIGIN) });
    expect(replay.status).toBe(401);
    const after = await t.call('GET', '/me', undefined, { token: d.body.result.token });
    expect(after.body.result.credentials.find((c: any) => c.type === 'public-key').params.authenticator.sign_count).toBe(2); // refused answers do not count
  });

  it('adds a passkey to a signed-in person and checks the scope against the origin', async () => {
    const device = new SoftAuthenticator();
    const token = await signInWithEmail(t.server, 'addpk@example.com');
    const add = await t.call('POST', '/id/v2', { factor: { method: 'webauthn' } }, { token, headers: { origin: ORIGIN } });
    const [ch] = add.body.result;
    expect(ch.type).toBe('webauthn_create');
    const ok = await t.call('POST', '/attestation/v3', { challenge_id: ch.id, challenge_type: 'webauthn_create', data: device.create(ch.options, ORIGIN) });
    expect(decodeClaims(ok.body.result.token)).toMatchObject({ person_id: decodeClaims(token).person_id, authenticated_methods: ['otp_via_email', 'webauthn'] });

    const badScope = await t.call('POST', '/id/v2', { handle: 'addpk@example.com', factor: { method: 'webauthn', options: { scope: 'example.com' } } }, { headers: { origin: ORIGIN } });
    expect(badScope.body.errors[0]).toEqual({ httpcode: 400, message: 'passkey scope is not a registrable domain suffix of the origin' });
    const foreign = await t.call('POST', '/id/v2', { handle: 'addpk@example.com', factor: { method: 'webauthn' } }, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(400);
    const none = await t.call('POST', '/id/v2', { handle: 'nopk@example.com', factor: { method: 'webauthn' } });
    expect(none.body.errors[0].message).toMatch(/^passkeys need the Origin header/);
  });
});
