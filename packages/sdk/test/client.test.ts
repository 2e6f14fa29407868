import { HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { KeywayClient, resolveConfig, SDK_VERSION } from '../src/client.js';
import * as errors from '../src/errors.js';
import { BASE, client, fail, route, server } from './fake.js';
import { http } from 'msw';

describe('configuration (§5)', () => {
  const bad = (o: unknown, msg: RegExp) => {
    expect(() => resolveConfig(o as never)).toThrow(errors.InvalidKeywayConfigurationError);
    expect(() => resolveConfig(o as never)).toThrow(msg);
  };
  it('requires options', () => bad(undefined, /options are required/));
  it('accepts production and sandbox only as environment strings', () => {
    expect(resolveConfig({ oid: 'o', environment: 'sandbox' }).baseURL).toBe('https://api.sandbox.keyway.dev');
    expect(resolveConfig({ oid: 'o', environment: 'production' }).baseURL).toBe('https://api.keyway.dev');
    expect(resolveConfig({ oid: 'o' }).baseURL).toBe('https://api.keyway.dev');
    bad({ oid: 'o', environment: 'staging' }, /environment must be "production" or "sandbox", got "staging"/);
  });
  it('needs string baseURL and sdkURL in an environment object', () => {
    bad({ oid: 'o', environment: { baseURL: 1, sdkURL: 'https://x' } }, /environment.baseURL must be a string/);
    bad({ oid: 'o', environment: { baseURL: 'https://x' } }, /environment.sdkURL must be a string/);
  });
  it('refuses environment combined with baseURL or sdkURL', () => {
    bad({ oid: 'o', environment: 'sandbox', baseURL: 'https://x' }, /cannot be combined/);
    bad({ oid: 'o', environment: 'sandbox', sdkURL: 'https://x' }, /cannot be combined/);
  });
  it('needs an http(s) baseURL and a valid sdkURL', () => {
    bad({ oid: 'o', baseURL: 'ftp://x' }, /baseURL must be a valid http or https URL, got "ftp:\/\/x"/);
    bad({ oid: 'o', baseURL: 'not a url' }, /baseURL must be a valid http or https URL/);
    bad({ oid: 'o', baseURL: 'https://x', sdkURL: '::' }, /sdkURL must be a valid URL/);
    expect(resolveConfig({ oid: 'o', baseURL: 'http://localhost:4000/' })).toMatchObject({
      baseURL: 'http://localhost:4000',
      sdkURL: 'http://localhost:4000',
    });
  });
  it('requires oid when analytics (default on) or IdP-initiated SSO are on', () => {
    bad({}, /^oid is required - please initialize the SDK with an organization ID$/);
    bad({ analytics: false, idpInitiatedSso: true }, /oid is required/);
    bad({ oid: 5 }, /oid must be a string/);
    expect(resolveConfig({ analytics: false })).toMatchObject({ analytics: false, idpInitiatedSso: false, groupsClaimName: 'groups' });
  });
});

describe('HTTP client', () => {
  it('sends the SDK version, org id, bearer and JSON body and unwraps result', async () => {
    const calls = route('POST', '/thing', { ok: 1 });
    const c = client();
    c.token = 'tok';
    expect(await c.request('POST', '/thing', { body: { a: 1 }, org: true })).toEqual({ ok: 1 });
    const h = calls[0]!.headers;
    expect(h.get('keyway-sdkversion')).toBe(SDK_VERSION);
    expect(SDK_VERSION).toBe('3.29.3');
    expect(h.get('keyway-orgid')).toBe('org1');
    expect(h.get('authorization')).toBe('Bearer tok');
    expect(h.get('content-type')).toBe('application/json');
    expect(calls[0]!.body).toEqual({ a: 1 });
  });
  it('omits org and bearer when not asked', async () => {
    const calls = route('GET', '/thing', {});
    await client().request('GET', '/thing', { query: { a: 'x,y', b: undefined } });
    expect(calls[0]!.headers.has('keyway-orgid')).toBe(false);
    expect(calls[0]!.headers.has('authorization')).toBe(false);
    expect(calls[0]!.query.get('a')).toBe('x,y');
    expect(calls[0]!.query.has('b')).toBe(false);
  });

  const rows: Array<[number, string, new (...a: never[]) => errors.KeywayError, string | RegExp]> = [
    [429, 'too many', errors.RateLimitError, 'too many'],
    [403, 'no password set', errors.NoPasswordSetError, 'no password set'],
    [403, 'self-registration not allowed for this organization', errors.SelfRegistrationNotAllowed, /self-registration/],
    [403, 'person cannot be registered', errors.HandlePatternNotAllowedError, /cannot be registered/],
    [403, 'person is not active', errors.SignUpAwaitingApprovalError, /not active/],
    [403, 'Person 123 is inactive', errors.SignInAwaitingApprovalError, /inactive/],
    [401, 'authentication has expired', errors.TimeoutError, 'Authentication has expired'],
    [403, 'authentication has expired', errors.TimeoutError, 'Authentication has expired'],
    [400, 'the scope is not a registrable domain suffix of the origin', errors.BadPasskeyScopeError, 'Passkey scope is invalid'],
    [409, 'person exists', errors.PersonExistsError, 'Person with the given handle already exists'],
    [400, 'malformed e-mail address: x', errors.InvalidEmailAddressFormatError, 'Email address is malformed'],
    [400, 'malformed phone number', errors.InvalidPhoneNumberFormatError, 'Phone number is malformed'],
    [400, 'unreachable phone number', errors.UnreachablePhoneNumberError, 'Phone number is unreachable'],
    [404, 'not found', errors.APIResponseError, 'not found'],
    [403, 'forbidden', errors.APIResponseError, 'forbidden'],
  ];
  it.each(rows)('maps %i "%s" to %o', async (code, message, cls, text) => {
    route('GET', '/x', () => fail(code, message, code, { 'Keyway-Correlation-Id': 'corr-1' }));
    const err = (await client().request('GET', '/x').catch((e: unknown) => e)) as errors.APIResponseError;
    expect(err).toBeInstanceOf(cls);
    expect(err.message).toMatch(text);
    if (cls === errors.APIResponseError) expect(err).toMatchObject({ httpcode: code, correlationId: 'corr-1', slug: 'api_response_error' });
  });
  it('maps an error status without an envelope', async () => {
    route('GET', '/x', () => new HttpResponse('oops', { status: 500 }));
    await expect(client().request('GET', '/x')).rejects.toMatchObject({ name: 'APIResponseError', httpcode: 500 });
  });

  it('retries failed network calls 5 times with 500..8000 ms waits and the retry header', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const counts: Array<string | null> = [];
    server.use(
      http.get(BASE + '/flaky', ({ request }) => {
        counts.push(request.headers.get('keyway-sdkretrycount'));
        return counts.length < 6 ? HttpResponse.error() : HttpResponse.json({ result: 'ok' });
      }),
    );
    const p = client().request('GET', '/flaky');
    const waits = [500, 1000, 2000, 4000, 8000];
    for (const [i, w] of waits.entries()) {
      await vi.advanceTimersByTimeAsync(w - 1);
      expect(counts).toHaveLength(i + 1);
      await vi.advanceTimersByTimeAsync(1);
    }
    await expect(p).resolves.toBe('ok');
    expect(counts).toEqual([null, '1', '2', '3', '4', '5']);
  });
  it('gives up after the fifth retry', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    let n = 0;
    server.use(http.get(BASE + '/down', () => (n++, HttpResponse.error())));
    const p = client().request('GET', '/down');
    p.catch(() => {});
    await vi.advanceTimersByTimeAsync(15500);
    await expect(p).rejects.toThrow(/network error calling GET \/down/);
    expect(n).toBe(6);
  });
  it('does not retry HTTP error statuses', async () => {
    const calls = route('GET', '/e', () => fail(500, 'boom'));
    await expect(client().request('GET', '/e')).rejects.toThrow('boom');
    expect(calls).toHaveLength(1);
  });
  it('oid getter explains a missing organization id', () => {
    expect(() => new KeywayClient({ analytics: false, baseURL: BASE }).oid).toThrow(/oid is required/);
  });
});
