import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signInWithEmail, startTestServer, type TestServer } from './helpers.js';

/** Every operation that takes a JSON body, with a valid body to mutate. */
const OPERATIONS: Array<{ method: string; path: string; body: Record<string, unknown>; auth?: boolean; admin?: boolean; wrongType: Record<string, unknown>; unknownField?: { status: number; message: RegExp } }> = [
  { method: 'POST', path: '/id', body: { handle: 'bad@example.com', factor: { method: 'otp_via_email' } }, wrongType: { handle: 42, factor: { method: 'otp_via_email' } } },
  { method: 'POST', path: '/id/v2', body: { handle: 'bad@example.com', factor: { method: 'otp_via_email' } }, wrongType: { handle: 'bad@example.com', factor: 'otp' } },
  { method: 'POST', path: '/attestation', body: { challenge_id: 'x', challenge_type: 'otp', data: { otp: '1' } }, wrongType: { challenge_id: 1, challenge_type: 'otp', data: {} } },
  { method: 'POST', path: '/attestation/v2', body: { challenge_id: 'x', challenge_type: 'otp', data: { otp: '1' } }, wrongType: { challenge_id: 'x', challenge_type: 'otp', data: [] } },
  { method: 'POST', path: '/attestation/v3', body: { challenge_id: 'x', challenge_type: 'otp', data: { otp: '1' } }, wrongType: { challenge_id: 'x', challenge_type: 'pizza', data: {} } },
  { method: 'POST', path: '/recover', body: { handle: 'bad@example.com', factor: { method: 'otp_via_email' } }, wrongType: { handle: 'bad@example.com', factor: { method: 7 } } },
  { method: 'POST', path: '/persons/pid:nobody/impersonate/v2', body: { target_url: 'http://localhost:3000/' }, auth: true, wrongType: { target_url: false } },
  // RFC 6749 §3.2: a token request's unknown fields are ignored, so the answer is about what is wrong (no client).
  { method: 'POST', path: '/oauth2/tokens', body: { grant_type: 'authorization_code', code: 'c', redirect_uri: 'http://localhost:3000/login' }, wrongType: { grant_type: 1 }, unknownField: { status: 401, message: /^client authentication failed$/ } },
  { method: 'POST', path: '/sso/resolve', body: { challenge_id: 'ch1', code: 'c', pkce_code_verifier: 'v'.repeat(43) }, wrongType: { challenge_id: 'ch1', code: 5, pkce_code_verifier: 'v'.repeat(43) } },
  { method: 'POST', path: '/persons', body: { handles: [{ type: 'email_address', value: 'new@example.com' }] }, admin: true, wrongType: { handles: 'new@example.com' } },
  { method: 'PATCH', path: '/organizations/config', body: { allow_self_registration: true }, admin: true, wrongType: { allow_self_registration: 'yes' } },
  { method: 'POST', path: '/organizations/suborganizations', body: { org_name: 'Sub' }, admin: true, wrongType: { org_name: ['Sub'] } },
  { method: 'POST', path: '/token/validate', body: { token: 'x' }, wrongType: { token: ['x'] } },
  { method: 'POST', path: '/token/revoke', body: { token: 'x' }, wrongType: { token: null } },
  { method: 'POST', path: '/persons/anonymous', body: { region: 'europe-belgium' }, wrongType: { region: 5 } },
  { method: 'PUT', path: '/attributes', body: { end_user_read_write: { a: 1 } }, auth: true, wrongType: { end_user_read_write: 'a' } },
  { method: 'PATCH', path: '/attributes', body: { end_user_read_write: { a: 1 } }, auth: true, wrongType: { end_user_read_write: [1] } },
  { method: 'PUT', path: '/attributes/end_user_read_write', body: { a: 1 }, auth: true, wrongType: [1, 2] as unknown as Record<string, unknown> },
  { method: 'POST', path: '/consent/gdpr', body: { consent_levels: ['marketing'] }, auth: true, wrongType: { consent_levels: 'marketing' } },
  { method: 'PUT', path: '/consent/gdpr', body: { consent_levels: ['marketing'] }, auth: true, wrongType: { consent_levels: [1] } },
  { method: 'POST', path: '/actions/sdk', body: { event_name: 'KeywaySDKLoaded_v1', organization_id: 'org_keyway_dev' }, wrongType: { event_name: 5 } },
  { method: 'POST', path: '/events', body: { event_name: 'KeywaySDKLoaded_v1', organization_id: 'org_keyway_dev' }, wrongType: { event_name: 'KeywaySDKLoaded_v1', event_data: 'no' } },
];

describe('bad input never yields a 5xx and never writes', () => {
  let server: TestServer;
  let call: ReturnType<typeof api>;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { limits: { perIpPerMinute: 10_000 } });
    call = api(server);
    token = await signInWithEmail(server, 'owner@example.com');
  });
  afterAll(() => server.stop());

  async function mailboxSize() {
    return ((await (await fetch(`${server.url}/dev/mailbox.json?limit=500`)).json()) as { result: unknown[] }).result.length;
  }

  for (const op of OPERATIONS) {
    it(`${op.method} ${op.path}`, async () => {
      const opts = op.auth ? { token } : op.admin ? { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } } : {};
      const before = await mailboxSize();
      const cases: Array<{ name: string; status: number; message: RegExp; run: () => ReturnType<typeof call> }> = [
        { name: 'malformed JSON', status: 400, message: /^malformed JSON body/, run: () => call(op.method, op.path, undefined, { ...opts, raw: '{"handle": ' }) },
        { name: 'wrong types', status: 400, message: /^body/, run: () => call(op.method, op.path, op.wrongType, opts) },
        { name: 'unknown field', status: 400, message: /unknown field "surprise"|must be object/, ...op.unknownField, run: () => call(op.method, op.path, { ...op.body, surprise: { nested: true } }, opts) },
        { name: 'huge body', status: 413, message: /^request body is larger than 65536 bytes$/, run: () => call(op.method, op.path, { ...op.body, pad: 'x'.repeat(200_000) }, opts) },
        { name: 'wrong content type', status: 415, message: /^unsupported Content-Type "application\/xml"/, run: () => call(op.method, op.path, undefined, { ...opts, raw: '<x/>', headers: { ...('headers' in opts ? opts.headers : {}), 'content-type': 'application/xml' } }) },
        { name: 'no body', status: 400, message: /body/, run: () => call(op.method, op.path, undefined, opts) },
      ];
      for (const c of cases) {
        if (/^\/persons\//.test(op.path) && c.name === 'no body') continue; // region and target_url are optional in v1 shapes
        if (op.path.startsWith('/attributes') && c.name === 'unknown field') continue; // attribute names are free-form
        const res = await c.run();
        expect.soft(res.status, `${c.name}: ${JSON.stringify(res.body)}`).toBe(c.status);
        expect.soft(res.body.errors?.[0]?.httpcode, c.name).toBe(c.status);
        expect.soft(res.body.errors?.[0]?.message, c.name).toMatch(c.message);
      }
      if (op.path.startsWith('/id') || op.path === '/recover') {
        const noOrg = await call(op.method, op.path, op.body, { org: null });
        expect(noOrg.status).toBe(400);
        expect(noOrg.body.errors[0].message).toBe('missing Keyway-OrgID header');
      }
      if (op.auth || op.admin) {
        const noCredentials = await call(op.method, op.path, op.body);
        expect(noCredentials.status).toBe(401);
      }
      expect(await mailboxSize()).toBe(before);
    });
  }

  it('names the exact field that is wrong', async () => {
    const r = await call('POST', '/id/v2', { handle: 'a@example.com', factor: { method: 'otp_via_email', extra: 1 } });
    expect(r.body.errors[0].message).toBe('body.factor has unknown field "extra"');
    const m = await call('POST', '/id/v2', { handle: 'a@example.com', factor: { method: 'carrier_pigeon' } });
    expect(m.body.errors[0].message).toMatch(/^body\.factor\.method must be one of "email_link", "sms_link", "otp_via_email"/);
    const req = await call('POST', '/attestation/v3', { challenge_id: 'x', data: {} });
    expect(req.body.errors[0].message).toBe('body is missing required field "challenge_type"');
    const q = await call('GET', '/events?limit=5000', undefined, { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } });
    expect(q.status).toBe(400);
    expect(q.body.errors[0].message).toBe('querystring.limit must be <= 1000');
    const unknownRoute = await call('GET', '/nope');
    expect(unknownRoute.body.errors[0]).toEqual({ httpcode: 404, message: 'no route for GET /nope' });
  });

  it('answers 400 naming an undeclared query parameter of the management API, where ignoring it would give a wrong answer', async () => {
    const admin = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
    const person = await call('POST', '/persons', { active: true, handles: [{ type: 'email_address', value: 'query@example.com' }] }, admin);
    for (const path of ['/persons?colour=red', `/persons/${person.body.result.person_id}?colour=red`, '/groups?colour=red', '/events?limit=5&colour=red', '/organizations/config?colour=red']) {
      const r = await call('GET', path, undefined, admin);
      expect.soft(r.status, path).toBe(400);
      expect.soft(r.body.errors?.[0]?.message, path).toBe('querystring has unknown field "colour"');
    }
    // The sign-in API and the OAuth endpoints keep ignoring what they do not know (OAuth 2.0 requires it).
    expect((await call('GET', '/me?colour=red', undefined, { token })).status).toBe(200);
    expect((await call('GET', '/.well-known/openid-configuration?colour=red')).status).toBe(200);
  });

  it('rejects an unknown challenge and a mismatching challenge type', async () => {
    const r = await call('POST', '/attestation/v3', { challenge_id: 'does-not-exist', challenge_type: 'otp', data: { otp: '123456' } });
    expect(r.status).toBe(404);
    const id = await call('POST', '/id/v2', { handle: 'type@example.com', factor: { method: 'otp_via_email' } });
    const t = await call('POST', '/attestation/v3', { challenge_id: id.body.result[0].id, challenge_type: 'totp_verify', data: { otp: '123456' } });
    expect(t.status).toBe(400);
    expect(t.body.errors[0].message).toBe('challenge_type "totp_verify" does not match the challenge, which is of type "otp"');
    const empty = await call('POST', '/attestation/v3', { challenge_id: id.body.result[0].id, challenge_type: 'otp', data: {} });
    expect(empty.body.errors[0]).toEqual({ httpcode: 400, message: 'body.data is missing required field "otp"' });
  });
});
