import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractApi } from './contract.js';
import { BACKENDS, decodeClaims, lastMessage, useTestServer } from './helpers.js';
import { browseUntil, startOidcIdp } from './oidc-idp.js';
import { startSamlIdp, submitAutoPost } from './saml-idp.js';

const ORIGIN = 'http://localhost:3000';

describe.each(BACKENDS)('OIDC SSO against a real OpenID Provider (%s)', (backend) => {
  const t = useTestServer(backend);
  let idp: Awaited<ReturnType<typeof startOidcIdp>>;
  beforeAll(async () => {
    idp = await startOidcIdp(`${t.server.url}/sso/oidc/callback`, { sub: 'ada-1', email: 'Ada@Corp.example' });
    const created = await contractApi(t.server)(
      'POST',
      '/organizations/sso/oidc/provider-credentials',
      { provider: 'generic', label: 'Corp', client_id: idp.client_id, client_secret: idp.client_secret, issuer: idp.issuer },
      { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } },
    );
    expect(created.status).toBe(201);
  });
  afterAll(() => idp.close());

  function pkce() {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url'), csrf: randomBytes(16).toString('hex') };
  }

  it('redirect mode: provider sign-in, return parameters, /sso/resolve with PKCE, then the token by polling', async () => {
    const call = contractApi(t.server);
    const p = pkce();
    const id = await call('POST', '/id/v2', {
      factor: { method: 'oidc', options: { provider: 'generic', ux_mode: 'redirect', redirect_target: `${ORIGIN}/login`, csrf_token: p.csrf, pkce_code_challenge: p.challenge } },
    }, { headers: { origin: ORIGIN } });
    expect(id.status).toBe(200);
    const [ch, then] = id.body.result;
    expect(ch.type).toBe('oidc');
    expect(ch.options.auth_code_url.startsWith(`${idp.issuer}/auth?`)).toBe(true);
    // Followed by the proxy challenge a client polls for the token (the published client's sequence).
    expect(then).toEqual({ id: ch.id, type: 'proxy', authentication_method: 'oidc', options: { challenge_id: ch.id } });
    expect((await call('GET', `/challenge/${ch.id}/v2`)).status).toBe(202);

    const callback = await browseUntil(ch.options.auth_code_url, `${t.server.url}/sso/oidc/callback`, 'ada-1');
    const back = await fetch(callback, { redirect: 'manual' });
    expect(back.status).toBe(303);
    const ret = new URL(back.headers.get('location')!);
    expect(ret.origin + ret.pathname).toBe(`${ORIGIN}/login`);
    expect(ret.searchParams.get('sso_challenge_id')).toBe(ch.id);
    expect(ret.searchParams.get('csrf_token')).toBe(p.csrf);
    // The challenge to complete, for clients that finish a return from the URL (the published client's getUserFromURL).
    expect(JSON.parse(Buffer.from(ret.searchParams.get('challenges')!, 'base64url').toString())).toEqual([{ id: ch.id, type: 'proxy', authentication_method: 'oidc', options: { challenge_id: ch.id } }]);
    const code = ret.searchParams.get('sso_code')!;

    const wrongPkce = await call('POST', '/sso/resolve', { challenge_id: ch.id, code, pkce_code_verifier: randomBytes(32).toString('base64url') });
    expect(wrongPkce.status).toBe(401);
    expect(wrongPkce.body.errors[0].message).toBe('PKCE code verifier does not match the code challenge');
    const resolved = await call('POST', '/sso/resolve', { challenge_id: ch.id, code, pkce_code_verifier: p.verifier });
    expect(resolved.status).toBe(204);
    const done = await call('GET', `/challenge/${ch.id}/v2`);
    expect(done.status).toBe(200);
    expect(decodeClaims(done.body.result)).toMatchObject({ authenticated_methods: ['oidc'], authentications: [{ method: 'oidc', handle: 'ada@corp.example' }], first_token: true });
    // The same return cannot be replayed.
    expect((await fetch(callback, { redirect: 'manual' })).status).toBe(400);
  });

  it('popup mode: the return page posts the SSO code to the opening page origin only', async () => {
    const p = pkce();
    const id = await t.call('POST', '/id/v2', { factor: { method: 'oidc', options: { provider: 'generic', csrf_token: p.csrf, pkce_code_challenge: p.challenge } } }, { headers: { origin: ORIGIN } });
    const [ch] = id.body.result;
    const callback = await browseUntil(ch.options.auth_code_url, `${t.server.url}/sso/oidc/callback`, 'ada-1');
    const page = await (await fetch(callback)).text();
    const posted = /postMessage\((\{.*?\}), "([^"]+)"\)/.exec(page)!;
    expect(posted[2]).toBe(ORIGIN);
    const msg = JSON.parse(posted[1]!);
    expect(msg).toMatchObject({ type: 'sso_challenge', challenge_id: ch.id, csrf_token: p.csrf });
    // The published client's message, to the same origin only: type 5 with the return's query string.
    const all = [...page.matchAll(/postMessage\((\{.*?\}), "([^"]+)"\)/g)];
    expect(all.map((m) => m[2])).toEqual([ORIGIN, ORIGIN]);
    expect(JSON.parse(all[1]![1]!)).toEqual({ type: 5, urlParams: `?${new URLSearchParams({ sso_challenge_id: ch.id, sso_code: msg.code, csrf_token: p.csrf })}` });
    expect((await t.call('POST', '/sso/resolve', { challenge_id: ch.id, code: msg.code, pkce_code_verifier: p.verifier })).status).toBe(204);
    const done = await t.call('GET', `/challenge/${ch.id}`);
    expect(decodeClaims(done.body.result).authentications[0].handle).toBe('ada@corp.example');
  });

  it('uses a new client secret at once after a PATCH', async () => {
    const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
    const attempt = async () => {
      const p = pkce();
      const id = await t.call('POST', '/id/v2', { factor: { method: 'oidc', options: { provider: 'generic', csrf_token: p.csrf, pkce_code_challenge: p.challenge } } }, { headers: { origin: ORIGIN } });
      return (await fetch(await browseUntil(id.body.result[0].options.auth_code_url, `${t.server.url}/sso/oidc/callback`, 'ada-1'))).status;
    };
    expect(await attempt()).toBe(200);
    const path = `/organizations/sso/oidc/provider-credentials/${idp.client_id}`;
    expect((await contractApi(t.server)('PATCH', path, { client_secret: 'not-the-secret-the-provider-knows' }, KEY)).status).toBe(200);
    expect(await attempt()).toBe(400); // the provider refuses the code exchange with the wrong secret
    expect((await contractApi(t.server)('PATCH', path, { client_secret: idp.client_secret }, KEY)).status).toBe(200);
    expect(await attempt()).toBe(200);
  });

  it('refuses unknown providers, handles and forged returns', async () => {
    const p = pkce();
    const unknown = await t.call('POST', '/id/v2', { factor: { method: 'oidc', options: { provider: 'okta', pkce_code_challenge: p.challenge } } }, { headers: { origin: ORIGIN } });
    expect(unknown.body.errors[0]).toEqual({ httpcode: 400, message: `no OIDC provider "okta" is configured for organization "${t.server.orgId}"` });
    const withHandle = await t.call('POST', '/id/v2', { handle: 'a@b.example', factor: { method: 'oidc', options: { provider: 'generic', pkce_code_challenge: p.challenge } } }, { headers: { origin: ORIGIN } });
    expect(withHandle.body.errors[0].message).toBe('oidc takes no handle: the identity provider names the person');
    const forged = await fetch(`${t.server.url}/sso/oidc/callback?state=abc.def&code=xyz`);
    expect(forged.status).toBe(400);
    const resolveUnknown = await t.call('POST', '/sso/resolve', { challenge_id: 'nope', code: 'x', pkce_code_verifier: p.verifier });
    expect(resolveUnknown.status).toBe(404);
  });
});

describe.each(BACKENDS)('SAML SSO against a SAML 2.0 identity provider (%s)', (backend) => {
  const t = useTestServer(backend);
  let idp: Awaited<ReturnType<typeof startSamlIdp>>;
  beforeAll(async () => {
    idp = await startSamlIdp('Grace@Navy.example');
    // Configured through the management API from the IdP's metadata.
    const created = await contractApi(t.server)('POST', '/organizations/sso/saml/provider-credentials', { label: 'Navy', idp_metadata_xml: idp.metadataXml, attribute_mapping: { email: 'work_email' } }, { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } });
    expect(created.status).toBe(201);
    expect(created.body.result).toMatchObject({ label: 'Navy', idp_entity_id: idp.issuer, sp_acs_url: `${t.server.url}/sso/saml/acs` });
    navy = created.body.result.id;
  });
  let navy: string;
  afterAll(() => idp.close());

  const start = async (csrf: string, verifier: string) => {
    const id = await contractApi(t.server)('POST', '/id/v2', {
      factor: { method: 'saml', options: { provider_credentials_id: navy, ux_mode: 'redirect', redirect_target: `${ORIGIN}/login`, csrf_token: csrf, pkce_code_challenge: createHash('sha256').update(verifier).digest('base64url') } },
    }, { headers: { origin: ORIGIN } });
    expect(id.status).toBe(200);
    return id.body.result[0];
  };

  it('redirect mode: signed assertion accepted at the ACS, the address proved with a code once (#36), then /sso/resolve and polling give the token', async () => {
    const call = contractApi(t.server);
    const verifier = randomBytes(32).toString('base64url');
    const csrf = randomBytes(16).toString('hex');
    const ch = await start(csrf, verifier);
    expect(ch).toMatchObject({ type: 'saml', authentication_method: 'saml' });
    expect(ch.options.start_authentication_url.startsWith(`${idp.entryPoint}?SAMLRequest=`)).toBe(true);
    const idpPage = await (await fetch(ch.options.start_authentication_url)).text();
    // The organization does not trust this provider for addresses (the default for SAML): a code is sent to it first.
    const acs = await submitAutoPost(idpPage);
    expect(acs.status).toBe(200);
    expect(await acs.text()).toContain('did not confirm that <b>grace@navy.example</b> is yours');
    const confirm = (code: string) => fetch(`${t.server.url}/sso/confirm-email`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ challenge_id: ch.id, code }).toString() });
    const { code } = await lastMessage(t.server, 'grace@navy.example');
    expect((await confirm(code === '000000' ? '111111' : '000000')).status).toBe(401);
    expect((await call('GET', `/challenge/${ch.id}/v2`)).status).toBe(202);
    const proved = await confirm(code!);
    expect(proved.status).toBe(303);
    const ret = new URL(proved.headers.get('location')!);
    expect(ret.searchParams.get('sso_challenge_id')).toBe(ch.id);
    expect(ret.searchParams.get('csrf_token')).toBe(csrf);
    expect((await call('POST', '/sso/resolve', { challenge_id: ch.id, code: ret.searchParams.get('sso_code'), pkce_code_verifier: verifier })).status).toBe(204);
    const done = await call('GET', `/challenge/${ch.id}/v2`);
    expect(decodeClaims(done.body.result)).toMatchObject({ authenticated_methods: ['saml'], authentications: [{ method: 'saml', handle: 'grace@navy.example' }] });
    // The mapped SAML attribute landed in the person's read-only bucket.
    const attrs = await call('GET', '/attributes?buckets=end_user_read_only', undefined, { token: done.body.result });
    expect(attrs.body.result).toEqual({ end_user_read_only: { work_email: 'Grace@Navy.example' } });
    // Replaying the same IdP answer fails: the challenge was used.
    expect((await submitAutoPost(idpPage)).status).toBe(400);
    // The same subject signs the same person in next time, with no code: the provider's subject is linked to the person.
    const next = await start(csrf, verifier);
    const again = await submitAutoPost(await (await fetch(next.options.start_authentication_url)).text());
    expect(again.status).toBe(303);
    const code2 = new URL(again.headers.get('location')!).searchParams.get('sso_code');
    expect((await call('POST', '/sso/resolve', { challenge_id: next.id, code: code2, pkce_code_verifier: verifier })).status).toBe(204);
    expect(decodeClaims((await call('GET', `/challenge/${next.id}/v2`)).body.result).person_id).toBe(decodeClaims(done.body.result).person_id);
  });

  it('refuses metadata without what sign-in needs', async () => {
    const call = contractApi(t.server);
    const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
    const noCert = await call('POST', '/organizations/sso/saml/provider-credentials', { label: 'x', idp_metadata_xml: idp.metadataXml.replace(/<md:KeyDescriptor[\s\S]*<\/md:KeyDescriptor>/, '') }, KEY);
    expect(noCert.body.errors[0]).toEqual({ httpcode: 400, message: 'IdP metadata has no signing certificate' });
    const broken = await call('POST', '/organizations/sso/saml/provider-credentials', { label: 'x', idp_metadata_xml: '<md:EntityDescriptor' }, KEY);
    expect(broken.status).toBe(400);
    expect((await call('GET', '/organizations/sso/saml/provider-credentials', undefined, KEY)).body.result).toHaveLength(1);
  });

  it('rejects a response whose assertion was tampered with', async () => {
    const id = await t.call('POST', '/id/v2', { factor: { method: 'saml', options: { provider_credentials_id: navy, pkce_code_challenge: createHash('sha256').update('x'.repeat(43)).digest('base64url') } } }, { headers: { origin: ORIGIN } });
    const page = await (await fetch(id.body.result[0].options.start_authentication_url)).text();
    const b64 = /name="SAMLResponse" value="([^"]+)"/.exec(page)![1]!;
    const forged = Buffer.from(Buffer.from(b64, 'base64').toString('utf8').replaceAll('Grace@Navy.example', 'admin@navy.example')).toString('base64');
    const res = await submitAutoPost(page.replace(b64, forged));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('could not be verified');
  });
});
