import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerLink, api, BACKENDS, cookiesOf, type Answer, freshStorage, lastMessage, signInWithEmail, signUpWithPassword, startTestServer, type TestServer, type TestStorage } from './helpers.js';

// An attacker with no account who knows a victim's e-mail address guesses the victim's password and e-mailed codes,
// spreading the guesses over fresh challenges (the per-challenge cap of 5) and over two server processes that share
// one database. The account-level lock must hold across both; the victim can still get in with an e-mailed link.
const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
const PASSWORD = 'correct horse 42 battery';

for (const backend of BACKENDS) {
  describe(`guessing limits per account and factor (${backend})`, () => {
    let storage: TestStorage;
    let a: TestServer;
    let b: Awaited<ReturnType<typeof startTestServer>>;
    // No per-minute start limits here: the attacker is patient, the account-level defence is what is tested. The lock
    // comes after 4 failures here (10 by default) to keep the run short: each password check costs a scrypt hash.
    const limits = { perIpPerMinute: 0, perHandlePerMinute: 0, lockoutThreshold: 4 };
    beforeAll(async () => {
      storage = await freshStorage(backend);
      a = await startTestServer(backend, { limits }, storage);
      b = await startTestServer(backend, { limits }, storage);
    });
    afterAll(async () => {
      await b.close();
      await a.stop();
    });

    const answer = (server: TestServer, challenge: { id: string; type: string }, data: Record<string, unknown>) =>
      api(server)('POST', '/attestation/v3', { challenge_id: challenge.id, challenge_type: challenge.type, data });

    it('locks the password factor after repeated failures over fresh challenges and two processes; a correct password is refused too', async () => {
      await signUpWithPassword(a, 'victim@example.com', PASSWORD);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const server = i % 2 ? b : a; // alternate processes
        const r = await api(server)('POST', '/id/v2', { handle: 'victim@example.com', factor: { method: 'password' } });
        const verify = r.body.result[0];
        statuses.push((await answer(server, verify, { password: `guess number ${i}` })).status);
      }
      // Four wrong guesses are answered 401; from then on the factor is locked, whatever the process.
      expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
      for (const server of [a, b]) {
        const verify = (await api(server)('POST', '/id/v2', { handle: 'victim@example.com', factor: { method: 'password' } })).body.result[0];
        const right = await answer(server, verify, { password: PASSWORD });
        expect(right.status).toBe(429);
        expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(60);
        expect(right.body.errors[0].message).toMatch(/^too many failed attempts for this account/);
      }
      // The victim still gets in with an e-mailed link.
      const link = await api(b)('POST', '/id/v2', { handle: 'victim@example.com', factor: { method: 'email_link' } });
      const ch = link.body.result[0];
      const { link: url } = await lastMessage(a, 'victim@example.com');
      expect((await answerLink(url!)).status).toBe(200);
      const done = await api(a)('GET', `/challenge/${ch.id}/v2`);
      expect(done.status).toBe(200);
      expect(typeof done.body.result).toBe('string'); // a completed poll answers the token itself
      // Or recovers the account: a new password set through recovery ends the lock.
      const rec = await api(a)('POST', '/recover', { handle: { type: 'email_address', value: 'victim@example.com' }, factor: { method: 'email_link' } });
      const challenges = Array.isArray(rec.body.result) ? rec.body.result : rec.body.result.challenges;
      const { link: recoveryLink } = await lastMessage(a, 'victim@example.com');
      await answerLink(recoveryLink!);
      expect((await api(a)('GET', `/challenge/${challenges[0].id}/v2`)).status).toBe(200);
      expect((await answer(a, challenges[1], { password: 'a brand new 77 password' })).status).toBe(200);
      const after = (await api(b)('POST', '/id/v2', { handle: 'victim@example.com', factor: { method: 'password' } })).body.result[0];
      expect((await answer(b, after, { password: 'a brand new 77 password' })).status).toBe(200);
    }, 180_000);

    it('locks e-mailed codes for a handle across fresh codes, and a correct code is refused while locked', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const id = await api(i % 2 ? b : a)('POST', '/id/v2', { handle: 'codes@example.com', factor: { method: 'otp_via_email' } });
        const { code } = await lastMessage(a, 'codes@example.com');
        const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
        statuses.push((await answer(i % 2 ? a : b, id.body.result[0], { otp: wrong })).status);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 429]);
      const id = await api(a)('POST', '/id/v2', { handle: 'codes@example.com', factor: { method: 'otp_via_email' } });
      const { code } = await lastMessage(a, 'codes@example.com');
      expect((await answer(b, id.body.result[0], { otp: code })).status).toBe(429);
      // Other accounts are not affected.
      expect(await signInWithEmail(a, 'bystander@example.com')).toMatch(/^ey/);
    });
  });

  describe(`the password factor does not tell who has an account (${backend})`, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer(backend, { limits: { perIpPerMinute: 0, perHandlePerMinute: 0 } });
    });
    afterAll(() => server.stop());

    it('answers an unknown handle exactly like a known person without a password, where sign-up is closed', async () => {
      const call = api(server);
      await signInWithEmail(server, 'known@example.com'); // a person without a password
      expect((await call('PATCH', '/organizations/config', { allow_self_registration: false }, KEY)).status).toBe(204);
      const shape = (r: Answer<{ type: string }[] | undefined>) => ({ status: r.status, types: r.body.result?.map((c) => c.type), errors: r.body.errors });
      for (const options of [{}, { sign_up: true }]) {
        const known = await call('POST', '/id/v2', { handle: 'known@example.com', factor: { method: 'password', options } });
        const unknown = await call('POST', '/id/v2', { handle: 'nobody-here@example.com', factor: { method: 'password', options } });
        expect(shape(unknown)).toEqual(shape(known));
        // Signing in: a password is refused the same way for both.
        if (!('sign_up' in options)) {
          for (const r of [known, unknown]) {
            const refused = await call('POST', '/attestation/v3', { challenge_id: r.body.result[0].id, challenge_type: 'password_verify', data: { password: 'Guess-1234' } });
            expect(refused.body.errors[0]).toEqual({ httpcode: 401, message: 'incorrect password' });
          }
        }
      }
    });
  });

  describe(`the hosted login's e-mail step has the limits of /id (${backend})`, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer(backend, { limits: { perIpPerMinute: 3, perHandlePerMinute: 2 } });
    });
    afterAll(() => server.stop());

    const requestId = async () => {
      const verifier = randomBytes(32).toString('base64url');
      const q = new URLSearchParams({ response_type: 'code', client_id: 'keyway-dev-client', redirect_uri: 'http://localhost:3000/login', state: 'st4te-1234', scope: 'openid', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' });
      const page = await fetch(`${server.url}/oauth2/authorize?${q}`);
      return { id: /name="request_id" value="([^"]+)"/.exec(await page.text())![1]!, cookie: cookiesOf(page) };
    };
    const emailStep = async (email: string) => {
      const request = await requestId();
      return fetch(`${server.url}/oauth2/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: request.cookie }, body: new URLSearchParams({ request_id: request.id, email }).toString() });
    };

    it('refuses a fourth e-mail from one address within a minute (per IP), with Retry-After', async () => {
      const statuses = [];
      for (const email of ['h1@example.com', 'h2@example.com', 'h3@example.com', 'h4@example.com']) statuses.push((await emailStep(email)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await emailStep('h5@example.com');
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await refused.text()).toContain('too many sign-in attempts from this address');
    });
  });
}
