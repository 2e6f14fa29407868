import { createHash, randomBytes } from 'node:crypto';
import { decodeProtectedHeader, exportPKCS8, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractApi } from './contract.js';
import { BACKENDS, decodeClaims, useTestServer, type TestServer } from './helpers.js';
import { browseUntil, startOidcIdp } from './oidc-idp.js';
import { clientSecretOf, type OidcProviderConfig } from '../src/sso/providers.js';

// SSO calls made as the public reference contract describes them (#24): provider tokens named by the person's Keyway
// token, one entry per token with its sign-in (`authentication_id`), revocation by sign-in and kind of token.
const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
const ORIGIN = 'http://localhost:3000';

type Idp = Awaited<ReturnType<typeof startOidcIdp>>;
interface Entry { token: string; token_type: 'access' | 'id' | 'refresh'; authentication_id: string; expiry: string; [k: string]: unknown }
const byType = (entries: Entry[]) => Object.fromEntries(entries.map((e) => [e.token_type, e])) as Record<'access' | 'id' | 'refresh', Entry>;

/** A complete OIDC sign-in in redirect mode; returns the Keyway token and the provider's callback URL. */
async function ssoSignIn(server: TestServer, idp: Idp, login: string, org?: { id: string }) {
  const call = contractApi(server);
  const verifier = randomBytes(32).toString('base64url');
  const id = await call('POST', '/id/v2', {
    factor: { method: 'oidc', options: { provider: 'generic', client_id: idp.client_id, ux_mode: 'redirect', redirect_target: `${ORIGIN}/login`, pkce_code_challenge: createHash('sha256').update(verifier).digest('base64url') } },
  }, { headers: { origin: ORIGIN }, ...(org ? { org: org.id } : {}) });
  expect(id.status, JSON.stringify(id.body)).toBe(200);
  const [ch] = id.body.result;
  const callback = await browseUntil(ch.options.auth_code_url, `${server.url}/sso/oidc/callback`, login);
  const back = await fetch(callback, { redirect: 'manual' });
  const code = new URL(back.headers.get('location')!).searchParams.get('sso_code');
  const orgOpt = org ? { org: org.id } : {};
  expect((await call('POST', '/sso/resolve', { challenge_id: ch.id, code, pkce_code_verifier: verifier }, orgOpt)).status).toBe(204);
  const done = await call('GET', `/challenge/${ch.id}/v2`, undefined, orgOpt);
  expect(done.status).toBe(200);
  return { token: done.body.result as string, callback: new URL(callback), challengeId: ch.id as string, authUrl: new URL(ch.options.auth_code_url) };
}

describe.each(BACKENDS)('SSO provider tokens as the public reference describes them (%s)', (backend) => {
  const t = useTestServer(backend);
  let idp: Idp;
  beforeAll(async () => {
    idp = await startOidcIdp(`${t.server.url}/sso/oidc/callback`, { sub: 'ref-1', email: 'ref-1@corp.example' }, { clientId: 'compat-sso', emailOf: (sub) => `${sub}@corp.example` });
    const created = await contractApi(t.server)('POST', '/organizations/sso/oidc/provider-credentials', { provider: 'generic', client_id: idp.client_id, client_secret: idp.client_secret, issuer: idp.issuer }, KEY);
    expect(created.status).toBe(201);
  });
  afterAll(() => idp.close());

  it('GET /sso/oidc/tokens names the person by Keyway-Token and answers one entry per token of each sign-in', async () => {
    const call = contractApi(t.server);
    const signIn = await ssoSignIn(t.server, idp, 'ref-1');
    const personId = decodeClaims(signIn.token).person_id as string;
    const res = await call('GET', '/sso/oidc/tokens', undefined, { headers: { ...KEY.headers, 'keyway-token': signIn.token } });
    expect(res.status).toBe(200);
    const entries = res.body.result as Entry[];
    expect(entries.map((e) => e.token_type).sort()).toEqual(['access', 'id', 'refresh']);
    // What the provider sent to the callback besides the code and state (node-oidc-provider sends `iss`, RFC 9207).
    const extra = Object.fromEntries([...signIn.callback.searchParams].filter(([k]) => k !== 'code' && k !== 'state'));
    expect(Object.keys(extra).length).toBeGreaterThan(0);
    for (const e of entries) {
      expect(e).toMatchObject({ authentication_id: signIn.challengeId, client_id: idp.client_id, person_id: personId, organization_id: t.server.orgId, provider: 'generic', extra_callback_values: extra });
    }
    const tokens = byType(entries);
    expect(await idp.accessTokenWorks(tokens.access.token)).toBe(true);
    expect(await idp.refreshTokenWorks(tokens.refresh.token)).toBe(true);
    // Expiry: the access token's from expires_in, the ID token's from its exp claim, none stated for the refresh token.
    expect(Date.parse(tokens.access.expiry) - Date.now()).toBeGreaterThan(30 * 60_000);
    expect(Date.parse(tokens.id.expiry)).toBe((decodeClaims(tokens.id.token).exp as number) * 1000);
    expect(tokens.refresh.expiry).toBe('0001-01-01T00:00:00Z');

    // The query filters by sign-in and by kind of token.
    const second = await ssoSignIn(t.server, idp, 'ref-1');
    const current = (await call('POST', '/sso/oidc/tokens/query', { person_id: personId }, KEY)).body.result as Entry[];
    expect(new Set(current.map((e) => e.authentication_id))).toEqual(new Set([second.challengeId]));
    const onlyAccess = await call('POST', '/sso/oidc/tokens/query', { person_id: personId, authentication_ids: [second.challengeId], token_types: ['access'] }, KEY);
    expect(onlyAccess.status).toBe(200);
    expect(onlyAccess.body.result.map((e: Entry) => e.token_type)).toEqual(['access']);
    // The first sign-in's tokens were replaced by the second's.
    expect((await call('POST', '/sso/oidc/tokens/query', { person_id: personId, authentication_ids: [signIn.challengeId] }, KEY)).body.result).toEqual([]);
    expect((await call('POST', '/sso/oidc/tokens/query', { person_id: personId, token_types: ['bearer'] }, KEY)).status).toBe(400);
  });

  it('Keyway-Token and person_id: neither answers 400 naming both, disagreeing 400, agreeing 200', async () => {
    const call = contractApi(t.server);
    const { token } = await ssoSignIn(t.server, idp, 'ref-2');
    const personId = decodeClaims(token).person_id as string;
    const neither = await call('GET', '/sso/oidc/tokens', undefined, KEY);
    expect(neither.status).toBe(400);
    expect(neither.body.errors[0].message).toMatch(/Keyway-Token.*person_id/);
    const both = await call('GET', `/sso/oidc/tokens?person_id=${encodeURIComponent(personId)}`, undefined, { headers: { ...KEY.headers, 'keyway-token': token } });
    expect(both.status).toBe(200);
    expect(both.body.result).toHaveLength(3);
    const other = decodeClaims((await ssoSignIn(t.server, idp, 'ref-3')).token).person_id as string;
    const disagree = await call('GET', `/sso/oidc/tokens?person_id=${encodeURIComponent(other)}`, undefined, { headers: { ...KEY.headers, 'keyway-token': token } });
    expect(disagree.status).toBe(400);
    expect(disagree.body.errors[0].message).toBe('person_id names another person than Keyway-Token');
  });

  it("refuses another organization's person token, an expired or revoked token, and another organization's API key", async () => {
    const call = contractApi(t.server);
    const { token } = await ssoSignIn(t.server, idp, 'ref-4');
    const personId = decodeClaims(token).person_id as string;
    const withToken = (tok: string, headers = KEY.headers) => call('GET', '/sso/oidc/tokens', undefined, { headers: { ...headers, 'keyway-token': tok } });

    // A person token of another organization (a suborganization with its own persons).
    const sub = await call('POST', '/organizations/suborganizations', { sub_org_name: `Other ${randomBytes(3).toString('hex')}` }, KEY);
    expect(sub.status).toBe(200);
    const B = { id: sub.body.result.id as string, key: sub.body.result.api_key as string };
    const stranger = await call('POST', '/persons', { active: true, handles: [{ type: 'email_address', value: 'stranger@corp.example' }] }, { org: B.id, headers: { 'keyway-api-key': B.key } });
    expect(stranger.status).toBe(201);
    const minted = await call('POST', `/persons/${encodeURIComponent(stranger.body.result.person_id)}/mint-token`, {}, { org: B.id, headers: { 'keyway-api-key': B.key } });
    expect(minted.status).toBe(201);
    const foreign = await withToken(minted.body.result as string);
    expect(foreign.status).toBe(401);
    expect(foreign.body.errors[0].message).toBe('Keyway-Token: the token was not issued by this organization');

    // An expired token: the person's own claims, signed with this server's current key, but past its expiry.
    const key = await t.server.db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    const { iat: _iat, exp: _exp, ...claims } = decodeClaims(token);
    const expired = await new SignJWT(claims)
      .setProtectedHeader(decodeProtectedHeader(token) as { alg: string })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(await importJWK(JSON.parse(key.private_jwk) as JWK, key.alg));
    const old = await withToken(expired);
    expect(old.status).toBe(401);
    expect(old.body.errors[0].message).toMatch(/^Keyway-Token: .*expired/);

    // A forged token (not signed by this server) and a revoked one.
    expect((await withToken(`${token.slice(0, -4)}AAAA`)).status).toBe(401);
    expect((await withToken(token)).status).toBe(200);
    expect((await call('POST', '/token/revoke', { token }, KEY)).status).toBe(204);
    const revoked = await withToken(token);
    expect(revoked.status).toBe(401);
    expect(revoked.body.errors[0].message).toMatch(/^Keyway-Token: .*revoked/);

    // The other organization's API key, with this organization named or alone, never reads these tokens.
    const fresh = (await ssoSignIn(t.server, idp, 'ref-4')).token;
    expect((await withToken(fresh, { 'keyway-api-key': B.key })).status).toBe(401);
    const alone = await call('GET', '/sso/oidc/tokens', undefined, { org: null, headers: { 'keyway-api-key': B.key, 'keyway-token': fresh } });
    expect(alone.status).toBe(401);
    expect(JSON.stringify(alone.body)).not.toContain('"token"');
    for (const res of [
      await call('GET', `/sso/oidc/tokens?person_id=${encodeURIComponent(personId)}`, undefined, { org: B.id, headers: { 'keyway-api-key': B.key } }),
      await call('POST', '/sso/oidc/tokens/query', { person_id: personId }, { org: B.id, headers: { 'keyway-api-key': B.key } }),
    ]) expect(res.status).toBe(404);
    expect((await withToken(fresh)).status).toBe(200);
  });

  it('POST /sso/oidc/tokens/revoke/v2 revokes one sign-in, all its tokens or the token_types given', async () => {
    const call = contractApi(t.server);
    const signIn = await ssoSignIn(t.server, idp, 'ref-5');
    const personId = decodeClaims(signIn.token).person_id as string;
    const before = byType((await call('POST', '/sso/oidc/tokens/query', { person_id: personId }, KEY)).body.result);

    // Only the access token: revoked at the provider and forgotten; the refresh and ID tokens stay.
    const access = await call('POST', '/sso/oidc/tokens/revoke/v2', { person_id: personId, authentication_id: signIn.challengeId, token_types: ['access'] }, KEY);
    expect(access.status).toBe(204);
    expect(await idp.accessTokenWorks(before.access.token)).toBe(false);
    const left = byType((await call('POST', '/sso/oidc/tokens/query', { person_id: personId }, KEY)).body.result);
    expect(Object.keys(left).sort()).toEqual(['id', 'refresh']);
    expect(left.refresh.token).toBe(before.refresh.token);

    // Unknown sign-in, or a sign-in of another client: 404. client_id is not required.
    const unknown = await call('POST', '/sso/oidc/tokens/revoke/v2', { person_id: personId, authentication_id: 'ch_unknown' }, KEY);
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].message).toBe(`no SSO authentication "ch_unknown" is stored for person "${personId}"`);
    expect((await call('POST', '/sso/oidc/tokens/revoke/v2', { person_id: personId, authentication_id: signIn.challengeId, client_id: 'another-client' }, KEY)).status).toBe(404);
    const missing = await call('POST', '/sso/oidc/tokens/revoke/v2', { person_id: personId }, KEY);
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].message).toContain('authentication_id');

    // The rest (no token_types): all gone.
    expect((await call('POST', '/sso/oidc/tokens/revoke/v2', { person_id: personId, authentication_id: signIn.challengeId }, KEY)).status).toBe(204);
    expect(await idp.refreshTokenWorks(before.refresh.token)).toBe(false);
    expect((await call('GET', '/sso/oidc/tokens', undefined, { headers: { ...KEY.headers, 'keyway-token': signIn.token } })).body.result).toEqual([]);
    expect((await call('POST', '/sso/oidc/tokens/revoke/v2', { person_id: personId, authentication_id: signIn.challengeId }, KEY)).status).toBe(204);
  });
});

describe.each(BACKENDS)('OIDC provider credentials with the document\'s options and external credentials (%s)', (backend) => {
  const t = useTestServer(backend);
  let idp: Idp;
  beforeAll(async () => {
    idp = await startOidcIdp(`${t.server.url}/sso/oidc/callback`, { sub: 'opt-1', email: 'opt-1@corp.example' }, { clientId: 'compat-options', emailOf: (sub) => `${sub}@corp.example` });
  });
  afterAll(() => idp.close());

  /** Starts an OIDC sign-in and plays the browser at the provider; answers the authorize URL and the callback's answer. */
  async function tryOidcSignIn(login: string) {
    const id = await contractApi(t.server)('POST', '/id/v2', {
      factor: { method: 'oidc', options: { provider: 'google', client_id: idp.client_id, ux_mode: 'redirect', redirect_target: `${ORIGIN}/login`, pkce_code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url') } },
    }, { headers: { origin: ORIGIN } });
    expect(id.status, JSON.stringify(id.body)).toBe(200);
    const authUrl = new URL(id.body.result[0].options.auth_code_url);
    const back = await fetch(await browseUntil(authUrl.href, `${t.server.url}/sso/oidc/callback`, login), { redirect: 'manual' });
    return { authUrl, status: back.status };
  }

  it('the client secret comes from the external credential at each sign-in; options add scopes; GETs answer the fields', async () => {
    const call = contractApi(t.server);
    const cred = await call('POST', '/organizations/config/external-credentials', { extcred_provider: 'google', extcred_type: 'client_credentials', json_blob: { client_id: idp.client_id, client_secret: idp.client_secret } }, KEY);
    expect(cred.status).toBe(201);
    const credId = cred.body.result[0] as string;
    // The stored client_secret is wrong: only the external credential's works.
    const created = await call('POST', '/organizations/sso/oidc/provider-credentials', {
      provider: 'google', client_id: idp.client_id, client_secret: 'not-the-secret', issuer: idp.issuer, label: 'Corp',
      options: { google: { authorize_scopes: ['offline_access'] } }, external_cred_id: credId, enable_in_slashid_oidc_authz_server: true,
    }, KEY);
    expect(created.status).toBe(201);
    const expected = { client_id: idp.client_id, provider: 'google', label: 'Corp', options: { google: { authorize_scopes: ['offline_access'] } }, external_cred_id: credId, enable_in_slashid_oidc_authz_server: true };
    expect(created.body.result).toMatchObject(expected);
    expect((await call('GET', `/organizations/sso/oidc/provider-credentials/${idp.client_id}`, undefined, KEY)).body.result).toMatchObject(expected);
    expect((await call('GET', '/organizations/sso/oidc/provider-credentials?oauth_provider=google', undefined, KEY)).body.result).toEqual([expect.objectContaining(expected)]);

    const ok = await tryOidcSignIn('opt-1');
    expect(ok.authUrl.searchParams.get('scope')).toBe('openid email profile offline_access');
    expect(ok.status).toBe(303);

    // Rotating the external credential rotates the secret used: a wrong one fails the code exchange at once.
    expect((await call('PATCH', `/organizations/config/external-credentials/${credId}`, { json_blob: { client_secret: 'rotated-wrong' } }, KEY)).status).toBe(204);
    expect((await tryOidcSignIn('opt-1')).status).toBe(400);
    // Detached (empty id): the configuration's own client_secret is used again; fixing it signs in.
    const detached = await call('PATCH', `/organizations/sso/oidc/provider-credentials/${idp.client_id}`, { external_cred_id: '', client_secret: idp.client_secret, options: { google: {} } }, KEY);
    expect(detached.status).toBe(200);
    expect(detached.body.result).not.toHaveProperty('external_cred_id');
    const plain = await tryOidcSignIn('opt-1');
    expect(plain.status).toBe(303);
    expect(plain.authUrl.searchParams.get('scope')).toBe('openid email profile');
    // The former name external_cred attaches one too.
    expect((await call('PATCH', `/organizations/config/external-credentials/${credId}`, { json_blob: { client_secret: idp.client_secret } }, KEY)).status).toBe(204);
    const alias = await call('PATCH', `/organizations/sso/oidc/provider-credentials/${idp.client_id}`, { external_cred: credId, client_secret: 'not-the-secret' }, KEY);
    expect(alias.body.result.external_cred_id).toBe(credId);
    expect((await tryOidcSignIn('opt-1')).status).toBe(303);
  });

  it('refuses an unknown external credential, one without a secret, and options of another provider, naming the field', async () => {
    const call = contractApi(t.server);
    const base = { provider: 'google', client_id: `refused-${randomBytes(3).toString('hex')}`, client_secret: 's3cret' };
    const unknown = await call('POST', '/organizations/sso/oidc/provider-credentials', { ...base, external_cred_id: 'nope' }, KEY);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].message).toBe('external_cred_id "nope" is not an external credential of this organization');
    const cred = await call('POST', '/organizations/config/external-credentials', { extcred_provider: 'generic', extcred_type: 'api_key', json_blob: { api_key: 'k' } }, KEY);
    const noSecret = await call('POST', '/organizations/sso/oidc/provider-credentials', { ...base, external_cred_id: cred.body.result[0] }, KEY);
    expect(noSecret.status).toBe(400);
    expect(noSecret.body.errors[0].message).toContain('external_cred_id');
    const other = await call('POST', '/organizations/sso/oidc/provider-credentials', { ...base, options: { github: { authorize_scopes: ['repo'] } } }, KEY);
    expect(other.status).toBe(400);
    expect(other.body.errors[0].message).toBe('options.github does not apply to a "google" provider');
    const both = await call('POST', '/organizations/sso/oidc/provider-credentials', { ...base, external_cred: 'a', external_cred_id: 'b' }, KEY);
    expect(both.status).toBe(400);
    // Nothing was stored.
    expect((await call('GET', `/organizations/sso/oidc/provider-credentials/${base.client_id}`, undefined, KEY)).status).toBe(404);
  });

  it('options name the Entra ID tenant and the Okta organization (the issuer), and Apple\'s signing key (never read back)', async () => {
    const call = contractApi(t.server);
    const azure = await call('POST', '/organizations/sso/oidc/provider-credentials', { provider: 'azuread', client_id: 'entra-app', client_secret: 's', options: { azuread: { tenant: 'contoso.onmicrosoft.com' } } }, KEY);
    expect(azure.status).toBe(201);
    expect(azure.body.result.issuer).toBe('https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0');
    const pseudo = await call('POST', '/organizations/sso/oidc/provider-credentials', { provider: 'azuread', client_id: 'entra-common', client_secret: 's', options: { azuread: { tenant: 'common' } } }, KEY);
    expect(pseudo.status).toBe(400);
    expect(pseudo.body.errors[0].message).toMatch(/^options\.azuread\.tenant "common" is a pseudo tenant/);
    const okta = await call('POST', '/organizations/sso/oidc/provider-credentials', { provider: 'okta', client_id: 'okta-app', client_secret: 's', options: { okta: { organization_url: 'https://acme.okta.com/' } } }, KEY);
    expect(okta.body.result.issuer).toBe('https://acme.okta.com');

    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const apple = { team_id: 'TEAM123456', key_id: 'KEY1234567', secret_lifetime: '3600' };
    const made = await call('POST', '/organizations/sso/oidc/provider-credentials', { provider: 'apple', client_id: 'com.example.web', client_secret: 'unused', options: { apple: { ...apple, private_key: await exportPKCS8(privateKey) } } }, KEY);
    expect(made.status).toBe(201);
    expect(made.body.result.options).toEqual({ apple });
    expect(JSON.stringify((await call('GET', '/organizations/sso/oidc/provider-credentials/com.example.web', undefined, KEY)).body)).not.toContain('PRIVATE KEY');
    // The secret sent to Apple: a JWT of the team for the client, signed with the key.
    const stored = (await call('GET', '/organizations/sso/oidc/provider-credentials/com.example.web', undefined, KEY)).body.result;
    const org = await t.server.db.selectFrom('organizations').select('settings').where('id', '=', t.server.orgId).executeTakeFirstOrThrow();
    const config = (JSON.parse(org.settings) as { oidc_providers: OidcProviderConfig[] }).oidc_providers.find((p) => p.client_id === stored.client_id)!;
    const secret = await clientSecretOf({ db: t.server.db } as never, t.server.orgId, config);
    const { payload, protectedHeader } = await jwtVerify(secret, publicKey, { issuer: apple.team_id, subject: 'com.example.web', audience: 'https://appleid.apple.com' });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: apple.key_id });
    expect(payload.exp! - payload.iat!).toBe(3600);
    const tooLong = await call('POST', '/organizations/sso/oidc/provider-credentials', { provider: 'apple', client_id: 'com.example.long', client_secret: 'x', options: { apple: { ...apple, secret_lifetime: '4400h', private_key: await exportPKCS8(privateKey) } } }, KEY);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors[0].message).toContain('options.apple.secret_lifetime');
    const badKey = await call('POST', '/organizations/sso/oidc/provider-credentials', { provider: 'apple', client_id: 'com.example.bad', client_secret: 'x', options: { apple: { ...apple, private_key: 'not a key' } } }, KEY);
    expect(badKey.status).toBe(400);
    expect(badKey.body.errors[0].message).toContain('options.apple.private_key');
  });
});
