// Wire facts the SDK and the identity server rely on: envelope, SDK error messages, security schemes,
// request validation strictness, and that openapi.yaml is the build of api/src.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadContract } from '@keyway/api';
import { renderYaml } from '../src/build.mjs';
import { PRODUCT_SPEC_MD, loadDoc, operationsOf, resolve, schemaValidator, type Json, type MediaType } from './spec-helpers.js';

const doc = loadDoc();
const validatorFor = schemaValidator(doc);
const schema = (name: string) => validatorFor({ $ref: `#/components/schemas/${name}` });
const bodySchema = (method: string, path: string) => {
  const media = doc.paths[path]?.[method]?.requestBody?.content['application/json'];
  if (!media?.schema) throw new Error(`${method} ${path}: no JSON body`);
  return validatorFor(media.schema);
};

/** Messages of every example of the answer `status` of an operation. */
function errorMessages(method: string, path: string, status: string): string[] {
  const raw = doc.paths[path]?.[method]?.responses[status];
  if (!raw) return [];
  const response = resolve<{ content?: Record<string, MediaType> }>(doc, raw as Json);
  return Object.values(response.content?.['application/json']?.examples ?? {})
    .map((ex) => (resolve(doc, ex).value as { errors: { message: string }[] }).errors[0]?.message ?? '');
}

describe('openapi.yaml', () => {
  it('is exactly the build of api/src (run `npm run contract -w @keyway/api` after editing the sources)', () => {
    expect(loadContract().text).toBe(renderYaml());
  });

  it('declares the three servers', () => {
    expect((doc as unknown as { servers: { url: string }[] }).servers.map((s) => s.url)).toEqual([
      'https://api.keyway.dev', 'https://api.sandbox.keyway.dev', 'http://localhost:8787',
    ]);
  });
});

describe('SDK error answers (product-spec §8) carry their exact messages', () => {
  const id = (status: string) => [...errorMessages('post', '/id/v2', status), ...errorMessages('post', '/id', status)];
  it.each([
    ['403', 'no password set'],
    ['403', 'self-registration not allowed for this organization'],
    ['403', 'person cannot be registered'],
    ['403', 'person is not active'],
    ['403', 'authentication has expired'],
    ['409', 'person exists'],
    ['400', 'malformed e-mail address'],
    ['400', 'malformed phone number'],
    ['400', 'unreachable phone number'],
    ['429', 'rate limit exceeded'],
  ])('POST /id/v2 documents %s %s', (status, message) => {
    expect(id(status)).toContain(message);
  });

  it("documents 403 'Person <id> is inactive' for sign-in awaiting approval", () => {
    expect(errorMessages('post', '/id/v2', '403').some((m) => /^Person pid:\S+ is inactive$/.test(m))).toBe(true);
  });

  it("documents 401 'authentication has expired' on attestation and on polling", () => {
    expect(errorMessages('post', '/attestation/v3', '401')).toContain('authentication has expired');
    expect(errorMessages('get', '/challenge/{challenge_id}/v2', '401')).toContain('authentication has expired');
  });

  it('answers 429 on every operation', () => {
    for (const { method, path, op } of operationsOf(doc)) expect(op.responses['429'], `${method} ${path}`).toBeDefined();
  });
});

describe('wire facts of the SDK issue', () => {
  it('POST /id/v2 takes handle, factor {method, options} and metadata {csrf_token, pkce_code_challenge}', () => {
    const validate = bodySchema('post', '/id/v2');
    const body = {
      handle: { type: 'email_address', value: 'ada@example.com' },
      factor: { method: 'otp_via_email', options: {} },
      metadata: { csrf_token: 'b6c1e0f2a9d84c7e91f3', pkce_code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' },
    };
    expect(validate(body)).toBe(true);
    expect(validate({ ...body, extra: 1 })).toBe(false);
    expect(validate({ ...body, factor: { method: 'carrier_pigeon' } })).toBe(false);
    expect(validate({ ...body, handle: { type: 'fax', value: '1' } })).toBe(false);
    expect(validate({ ...body, metadata: { csrf_token: 'b6c1e0f2a9d84c7e91f3', nonce: 'x' } })).toBe(false);
    expect(validate({ handle: body.handle })).toBe(false);
  });

  it('OIDC and SAML factors need their options; ux_mode is popup or redirect', () => {
    const validate = bodySchema('post', '/id/v2');
    expect(validate({ factor: { method: 'oidc', options: { client_id: 'c1', provider: 'google', ux_mode: 'redirect' } } })).toBe(true);
    expect(validate({ factor: { method: 'oidc', options: { client_id: 'c1', provider: 'google', ux_mode: 'tab' } } })).toBe(false);
    expect(validate({ factor: { method: 'oidc' } })).toBe(false);
    expect(validate({ factor: { method: 'saml', options: { provider_credentials_id: 'spc_1' } } })).toBe(true);
  });

  it('POST /attestation/v3 takes {challenge_id, challenge_type, data} and answers result.token', () => {
    const validate = bodySchema('post', '/attestation/v3');
    expect(validate({ challenge_id: 'ch_1', challenge_type: 'otp', data: { otp: '123456' } })).toBe(true);
    expect(validate({ challenge_id: 'ch_1', challenge_type: 'password_verify', data: { password: 'correct horse' } })).toBe(true);
    expect(validate({ challenge_id: 'ch_1', challenge_type: 'otp', data: { password: 'x' } })).toBe(false);
    expect(validate({ challenge_id: 'ch_1', challenge_type: 'otp', data: { otp: '12ab' } })).toBe(true); // wrong codes are a 401, not a 400
    expect(validate({ challenge_id: 'ch_1', challenge_type: 'otp', data: { otp: '' } })).toBe(false);
    const ok = resolve<{ content: Record<string, MediaType> }>(doc, doc.paths['/attestation/v3']!.post!.responses['200'] as Json);
    const okValidate = validatorFor(ok.content['application/json']!.schema!);
    expect(okValidate({ result: { token: 'a.b.c' } })).toBe(true);
    expect(okValidate({ result: {} })).toBe(false);
    expect(okValidate({ token: 'a.b.c' })).toBe(false);
  });

  it('GET /challenge/{id}/v2 answers 202 with errors[0].httpcode 202 while pending', () => {
    const pending = resolve<{ content: Record<string, MediaType> }>(doc, doc.paths['/challenge/{challenge_id}/v2']!.get!.responses['202'] as Json);
    const media = pending.content['application/json']!;
    expect((media.example as { errors: { httpcode: number }[] }).errors[0]?.httpcode).toBe(202);
  });

  it('GET /token and /token/v2 answer {type: challenge_list, challenges} or {type: token, token}', () => {
    for (const path of ['/token', '/token/v2']) {
      const ok = resolve<{ content: Record<string, MediaType> }>(doc, doc.paths[path]!.get!.responses['200'] as Json);
      const validate = validatorFor(ok.content['application/json']!.schema!);
      expect(validate({ result: { type: 'token', token: 'a.b.c' } })).toBe(true);
      expect(validate({ result: { type: 'challenge_list', challenges: [{ id: 'ch_1', type: 'otp', authentication_method: 'otp_via_email', options: {} }] } })).toBe(true);
      expect(validate({ result: { type: 'token' } })).toBe(false);
      expect(validate({ result: { type: 'other', token: 'a.b.c' } })).toBe(false);
    }
  });

  it('challenges are typed by their type: options of the right shape are required', () => {
    const validate = schema('Challenge');
    expect(validate({ id: 'ch_1', type: 'totp_register', authentication_method: 'totp', options: { key_uri: 'otpauth://totp/Keyway:ada?secret=JBSWY3DPEHPK3PXP', qr_code_data_b64: 'iVBORw0KGgo=', recovery_codes: ['a1b2c3d4'] } })).toBe(true);
    expect(validate({ id: 'ch_1', type: 'totp_register', authentication_method: 'totp', options: {} })).toBe(false);
    expect(validate({ id: 'ch_1', type: 'oidc', authentication_method: 'oidc', options: { auth_code_url: 'not a url' } })).toBe(false);
  });

  it('POST /oauth2/tokens is form-encoded and its answer includes id_token', () => {
    const op = doc.paths['/oauth2/tokens']!.post!;
    const media = op.requestBody!.content['application/x-www-form-urlencoded']!;
    const validate = validatorFor(media.schema!);
    expect(validate({ grant_type: 'authorization_code', client_id: 'docs', code: 'c', code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', redirect_uri: 'https://docs.example.com/login' })).toBe(true);
    expect(validate({ grant_type: 'password', username: 'a', password: 'b' })).toBe(false);
    // The example exchange is client_credentials (it runs as printed); the answer's schema carries id_token for openid codes.
    const ok = resolve<{ content: Record<string, MediaType> }>(doc, op.responses['200'] as Json);
    expect(resolve<{ properties: Record<string, Json> }>(doc, ok.content['application/json']!.schema!).properties).toHaveProperty('id_token');
  });

  it('/.well-known endpoints are public; management calls need org id and API key; SDK calls a bearer token', () => {
    expect(doc.paths['/.well-known/jwks.json']!.get!.security).toEqual([]);
    expect(doc.paths['/.well-known/openid-configuration']!.get!.security).toEqual([]);
    expect(doc.paths['/me']!.get!.security).toEqual([{ UserToken: [] }]);
    expect(doc.paths['/token/v2']!.get!.security).toEqual([{ OrgId: [], UserToken: [] }]);
    const schemes = doc.components.securitySchemes!;
    expect(schemes.OrgId).toMatchObject({ type: 'apiKey', in: 'header', name: 'Keyway-OrgID' });
    expect(schemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Keyway-API-Key' });
    expect(schemes.UserToken).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(schemes.ClientBasic).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  it('the envelope is one reusable schema and every enveloped answer types result', () => {
    const envelope = schema('Envelope');
    expect(envelope({ result: 1, errors: [{ httpcode: 400, message: 'x' }], meta: { pagination: { limit: 10, offset: 0, total_count: 3 } } })).toBe(true);
    expect(envelope({ errors: [] })).toBe(false);
    expect(envelope({ meta: { pagination: { limit: 2000, offset: 0, total_count: 1 } } })).toBe(false);
    expect(schema('ErrorResponse')({ result: 1 })).toBe(false);
  });

  it('POST /token/revoke accepts the consistency headers and documents 408', () => {
    const op = doc.paths['/token/revoke']!.post!;
    const names = (op.parameters ?? []).map((p) => resolve<{ name: string }>(doc, p).name);
    expect(names).toEqual(expect.arrayContaining(['Keyway-Required-Consistency', 'Keyway-Required-Consistency-Timeout']));
    expect(op.responses['408']).toBeDefined();
  });
});

describe('entities of product-spec §3', () => {
  const spec = readFileSync(PRODUCT_SPEC_MD, 'utf8');
  const listAfter = (label: RegExp) => {
    const m = label.exec(spec);
    if (!m?.[1]) throw new Error(`product-spec: ${label} not found`);
    return m[1].split(',').map((s) => s.trim().replace(/\.$/, '')).filter(Boolean);
  };
  const enumOf = (name: string) => (doc.components.schemas![name] as { enum?: string[] }).enum;
  const constsOf = (name: string, key: string) =>
    ((doc.components.schemas![name] as { oneOf: Json[] }).oneOf).map((v) => ((v.properties as Json)[key] as { const: string }).const);

  it('every challenge type has its own variant', () => {
    expect(constsOf('Challenge', 'type').sort()).toEqual(listAfter(/Challenge: id, type, authentication_method, options\. Types: ([^\n]+)/).sort());
  });
  it('authentication methods, handle types and attribute buckets are the spec enums', () => {
    expect(enumOf('AuthenticationMethod')?.sort()).toEqual(listAfter(/Authentication methods: ([^\n]+)/).sort());
    expect(enumOf('AttributeBucketName')?.sort()).toEqual(listAfter(/Attribute buckets: ([^\n]+)/).map((b) => b.replace(/ \(default\)$/, '')).sort());
    expect(enumOf('PersonHandleType')).toEqual(['email_address', 'phone_number', 'username']);
  });
  it('an ID request handle may be {type, value} or the plain string the SDK sends', () => {
    const validate = bodySchema('post', '/id/v2');
    expect(validate({ handle: 'ada@example.com', factor: { method: 'otp_via_email' } })).toBe(true);
    expect(validate({ handle: { type: 'phone_number', value: '+447700900123' }, factor: { method: 'otp_via_sms' } })).toBe(true);
    expect(validate({ handle: 42, factor: { method: 'otp_via_email' } })).toBe(false);
    expect(validate({ handle: '', factor: { method: 'otp_via_email' } })).toBe(false);
  });
  it('logout and removing consent answer 204 without a body (the published client reads both as void)', () => {
    for (const [path, method] of [['/token/revoke', 'post'], ['/consent/gdpr', 'delete']] as const) {
      const responses = doc.paths[path]![method]!.responses;
      expect(Object.keys(responses).filter((s) => s.startsWith('2')), path).toEqual(['204']);
      expect((responses['204'] as { content?: unknown }).content, path).toBeUndefined();
    }
  });
});
