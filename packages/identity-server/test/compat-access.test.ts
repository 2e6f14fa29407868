import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contractApi, protocolForm } from './contract.js';
import { api, BACKENDS, cookiesOf, decodeClaims, lastMessage, signInWithEmail, useTestServer } from './helpers.js';

// Calls made as the public reference contract describes them (#24): its management calls send `Keyway-API-Key` and
// nothing else to name the organization, token revocation answers 204. What must still be refused is refused.
const DEV_KEY = 'kw_dev_api_key_not_secret';

describe.each(BACKENDS)('the API key alone names the organization (%s)', (backend) => {
  const t = useTestServer(backend);
  const bare = () => api(t.server);
  const keyOnly = (key = DEV_KEY) => ({ org: null, headers: { 'keyway-api-key': key } });

  /** A suborganization and its own API key. */
  async function otherOrg() {
    const made = await bare()('POST', '/organizations/suborganizations', { sub_org_name: `Other ${Math.random()}`, tenant_name: `other-${Date.now()}` }, { headers: { 'keyway-api-key': DEV_KEY } });
    expect(made.status).toBe(200);
    return made.body.result as { id: string; api_key: string };
  }

  it('management calls work with the key alone, and the key still decides which organization is read', async () => {
    const call = bare();
    const created = await call('POST', '/persons', { active: true, handles: [{ type: 'email_address', value: 'keyonly@example.com' }] }, keyOnly());
    expect(created.status).toBe(201);
    const listed = await call('GET', '/persons?handle=email_address:keyonly@example.com', undefined, keyOnly());
    expect(listed.status).toBe(200);
    expect(listed.body.result).toHaveLength(1);
    const other = await otherOrg();
    // The other organization's key alone reads the other organization: the person is not there.
    const elsewhere = await call('GET', '/persons?handle=email_address:keyonly@example.com', undefined, keyOnly(other.api_key));
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.result).toHaveLength(0);
    // With both headers, the key must be that organization's.
    const mixed = await call('GET', '/persons', undefined, { org: t.server.orgId, headers: { 'keyway-api-key': other.api_key } });
    expect(mixed.status).toBe(401);
    expect(mixed.body.errors[0].message).toBe('Keyway-API-Key is not valid for this organization');
  });

  it('refuses an unknown key, a missing key, and a rotated key', async () => {
    const call = bare();
    const unknown = await call('GET', '/persons', undefined, keyOnly('kw_made_up'));
    expect(unknown.status).toBe(401);
    expect(unknown.body.errors[0].message).toBe('Keyway-API-Key is not valid');
    const none = await call('GET', '/persons', undefined, { org: null });
    expect(none.status).toBe(401);
    expect(none.body.errors[0].message).toBe('missing Keyway-API-Key header');
    const other = await otherOrg();
    const rotated = await call('PUT', '/organizations/api-keys', undefined, keyOnly(other.api_key));
    expect(rotated.status).toBe(200);
    expect((await call('GET', '/persons', undefined, keyOnly(other.api_key))).status).toBe(401);
    expect((await call('GET', '/persons', undefined, keyOnly(rotated.body.result.api_key))).status).toBe(200);
  });

  it('POST /token/validate with the key alone: valid for its organization, not for another', async () => {
    const call = bare();
    const token = await signInWithEmail(t.server, 'validate-key@example.com');
    const own = await call('POST', '/token/validate', { token }, keyOnly());
    expect(own.status).toBe(200);
    expect(own.body.result.valid).toBe(true);
    const other = await otherOrg();
    const foreign = await call('POST', '/token/validate', { token }, keyOnly(other.api_key));
    expect(foreign.body.result).toEqual({ valid: false, invalidity_reason: 'token belongs to another organization' });
    expect((await call('POST', '/token/validate', { token }, keyOnly('kw_made_up'))).status).toBe(401);
    // The SDK's form, by organization id, is unchanged.
    expect((await call('POST', '/token/validate', { token })).body.result.valid).toBe(true);
  });

  it('POST /token/revoke answers 204; with a key, only tokens of its organization', async () => {
    const call = bare();
    const token = await signInWithEmail(t.server, 'revoke-key@example.com');
    const other = await otherOrg();
    const foreign = await call('POST', '/token/revoke', { token }, keyOnly(other.api_key));
    expect(foreign.status).toBe(403);
    expect((await call('POST', '/token/validate', { token })).body.result.valid).toBe(true);
    const revoked = await call('POST', '/token/revoke', { token }, keyOnly());
    expect(revoked.status).toBe(204);
    expect(revoked.body).toBeUndefined();
    expect((await call('POST', '/token/validate', { token })).body.result).toMatchObject({ valid: false });
    // Again: already revoked is still a success.
    expect((await call('POST', '/token/revoke', { token }, keyOnly())).status).toBe(204);
  });

  it('GET /organizations/quota/all-tiers with the key alone', async () => {
    const r = await bare()('GET', '/organizations/quota/all-tiers', undefined, keyOnly());
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body.result)).toBe(true);
  });
});

describe.each(BACKENDS)('OAuth2 management calls as the public reference contract makes them (%s)', (backend) => {
  const t = useTestServer(backend);
  const KEY = { headers: { 'keyway-api-key': DEV_KEY } };
  const form = (path: string, fields: Record<string, string>, basic?: { id: string; secret: string }) => protocolForm(t.server, path, fields, basic);

  async function setUp(email: string) {
    const call = contractApi(t.server);
    const client = await call('POST', '/oauth2/clients', { client_name: `Compat ${email}`, scopes: ['openid', 'email', 'reports:read'], grant_types: ['authorization_code'], redirect_uris: ['https://compat.example.com/cb'] }, KEY);
    const basic = { id: client.body.result.client_id as string, secret: client.body.result.client_secret as string };
    const person = await call('POST', '/persons', { handles: [{ type: 'email_address', value: email }] }, KEY);
    return { call, basic, pid: person.body.result.person_id as string };
  }

  it('mints with custom_claims, answers token_type "bearer", and refuses reserved claims', async () => {
    const { call, basic, pid } = await setUp('custom-claims@example.com');
    const minted = await call('POST', '/oauth2/tokens/mint', { client_id: basic.id, person_id: pid, scopes: ['openid'], custom_claims: { tier: 'gold', seats: 3 } }, KEY);
    expect(minted.status).toBe(200);
    expect(minted.body.result.token_type).toBe('bearer');
    expect(decodeClaims(minted.body.result.access_token)).toMatchObject({ tier: 'gold', seats: 3, person_id: pid, client_id: basic.id });
    const reserved = await call('POST', '/oauth2/tokens/mint', { client_id: basic.id, person_id: pid, custom_claims: { sub: 'someone-else', tier: 'x' } }, KEY);
    expect(reserved.status).toBe(400);
    expect(reserved.body.errors[0].message).toBe('custom_claims may not set reserved claims: sub');
  });

  it('introspection with scope reports active only when the token carries every scope named; any type hint is accepted', async () => {
    const { call, basic, pid } = await setUp('introspect-scope@example.com');
    const token = (await call('POST', '/oauth2/tokens/mint', { client_id: basic.id, person_id: pid, scopes: ['openid', 'email'] }, KEY)).body.result.access_token as string;
    expect((await form('/oauth2/tokens/introspect', { token, scope: 'email' }, basic)).body).toMatchObject({ active: true, scope: 'openid email' });
    expect((await form('/oauth2/tokens/introspect', { token, scope: 'openid email' }, basic)).body!.active).toBe(true);
    expect((await form('/oauth2/tokens/introspect', { token, scope: 'reports:read' }, basic)).body).toEqual({ active: false });
    for (const token_type_hint of ['access_token', 'refresh_token', 'authorize_code', 'id_token']) {
      expect((await form('/oauth2/tokens/introspect', { token, token_type_hint }, basic)).body!.active, token_type_hint).toBe(true);
    }
    expect((await form('/oauth2/tokens/introspect', { token, token_type_hint: 'cookie' }, basic)).status).toBe(400);
    expect((await form('/oauth2/tokens/revoke', { token, token_type_hint: 'id_token' }, basic)).status).toBe(200);
    expect((await form('/oauth2/tokens/introspect', { token }, basic)).body).toEqual({ active: false });
  });

  it('revoke-all takes person_id and until; an earlier until never brings tokens back', async () => {
    const { call, basic, pid } = await setUp('revoke-until@example.com');
    // An access token is checked by its client's introspection (POST /token/validate answers only for user tokens, #36).
    const valid = (token: string) => form('/oauth2/tokens/introspect', { token }, basic).then((r) => r.body.active as boolean);
    const before = new Date(Date.now() - 60_000).toISOString();
    const token = (await call('POST', '/oauth2/tokens/mint', { client_id: basic.id, person_id: pid }, KEY)).body.result.access_token as string;
    // Tokens issued before a minute ago: not this one.
    expect((await form('/oauth2/tokens/revoke-all', { person_id: pid, until: before }, basic)).status).toBe(200);
    expect(await valid(token)).toBe(true);
    await new Promise((r) => setTimeout(r, 1100)); // token times are in seconds
    expect((await form('/oauth2/tokens/revoke-all', { person_id: pid }, basic)).status).toBe(200);
    expect(await valid(token)).toBe(false);
    expect((await form('/oauth2/tokens/revoke-all', { person_id: pid, until: before }, basic)).status).toBe(200);
    expect(await valid(token)).toBe(false);
    const future = await form('/oauth2/tokens/revoke-all', { person_id: pid, until: new Date(Date.now() + 3_600_000).toISOString() }, basic);
    expect(future.status).toBe(400);
    const none = await form('/oauth2/tokens/revoke-all', {}, basic);
    expect(none.status).toBe(400);
  });
});

describe.each(BACKENDS)('hosted login: the UI configuration and the OpenID Connect parameters of the public reference contract (%s)', (backend) => {
  const t = useTestServer(backend);
  const KEY = { headers: { 'keyway-api-key': DEV_KEY } };
  const REDIRECT = 'https://app.compat.example.com/callback';
  const post = (data: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(data).toString(), redirect: 'manual' as const });

  async function newClient(pub: boolean) {
    const made = await contractApi(t.server)('POST', '/oauth2/clients', { client_name: 'Compat app', scopes: ['openid', 'email'], grant_types: ['authorization_code'], redirect_uris: [REDIRECT], public: pub }, KEY);
    expect(made.status).toBe(201);
    return { id: made.body.result.client_id as string, secret: made.body.result.client_secret as string };
  }
  const authorize = (params: Record<string, string>) => fetch(`${t.server.url}/oauth2/authorize?${new URLSearchParams({ response_type: 'code', redirect_uri: REDIRECT, scope: 'openid email', ...params })}`, { redirect: 'manual' });

  /** The sign-in page of a pending request, filled in: e-mail, then the code from the dev mailbox. */
  async function signInOnPage(html: string, email: string, cookie: string) {
    const requestId = /name="request_id" value="([^"]+)"/.exec(html)![1]!;
    const withCookie = (fields: Record<string, string>) => {
      const init = post(fields);
      return { ...init, headers: { ...init.headers, cookie } };
    };
    const codePage = await (await fetch(`${t.server.url}/oauth2/login`, withCookie({ request_id: requestId, email }))).text();
    const challengeId = /name="challenge_id" value="([^"]+)"/.exec(codePage)![1]!;
    const { code } = await lastMessage(t.server, email);
    return { codePage, done: await fetch(`${t.server.url}/oauth2/login/code`, withCookie({ request_id: requestId, challenge_id: challengeId, code: code! })) };
  }

  it('PUT ui-configuration takes the document\'s fields (201), reads them back, and the sign-in page shows them', async () => {
    const call = contractApi(t.server);
    const client = await newClient(true);
    const ui = {
      logoUrl: 'https://cdn.compat.example.com/logo.svg', pageTitle: 'Welcome to Compat', pageBackgroundColor: '#fafbfc', faviconUrl: 'https://cdn.compat.example.com/icon.png',
      supportURL: 'https://compat.example.com/help', alternativeAuthURL: 'https://compat.example.com/other', showBadge: false, storeLastFactor: true, handleTypes: ['email_address'],
      themeVars: { 'kw-accent': '#aa3300' }, textOverrides: { sendCode: 'Email me a code', codeIntro: 'Look in your inbox.' }, dynamicFlowEnabled: false, dynamicFlowConfig: { steps: 1 },
    };
    const put = await call('PUT', `/oauth2/clients/${client.id}/ui-configuration`, ui, KEY);
    expect(put.status).toBe(201);
    expect(put.body.result).toMatchObject({ ...ui, logo_url: ui.logoUrl, title: ui.pageTitle, show_keyway_branding: false });
    expect((await call('GET', `/oauth2/clients/${client.id}/ui-configuration`, undefined, KEY)).body.result).toMatchObject(ui);

    const verifier = randomBytes(32).toString('base64url');
    const pageRes = await authorize({ client_id: client.id, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', login_hint: 'hinted@example.com' });
    expect(pageRes.status).toBe(200);
    const html = await pageRes.text();
    expect(html).toContain('<title>Welcome to Compat</title>');
    expect(html).toContain('<img src="https://cdn.compat.example.com/logo.svg"');
    expect(html).toContain('<link rel="icon" href="https://cdn.compat.example.com/icon.png">');
    expect(html).toContain('background:#fafbfc');
    expect(html).toContain('--kw-accent:#aa3300;');
    expect(html).toContain('<a href="https://compat.example.com/help">Need help?</a>');
    expect(html).toContain('<a href="https://compat.example.com/other">Sign in another way</a>');
    expect(html).toContain('>Email me a code</button>');
    expect(html).not.toContain('Secured by Keyway');
    expect(html).toContain('value="hinted@example.com"');
    const { codePage } = await signInOnPage(html, 'styled@example.com', cookiesOf(pageRes));
    expect(codePage).toContain('Look in your inbox.');
    expect(codePage).toContain('<title>Welcome to Compat</title>');

    // Refused, naming what is wrong: a CSS value that would leave its declaration, two names of one field that differ.
    expect((await call('PUT', `/oauth2/clients/${client.id}/ui-configuration`, { themeVars: { 'kw-accent': 'red;} body{display:none' } }, KEY)).status).toBe(400);
    const differ = await call('PUT', `/oauth2/clients/${client.id}/ui-configuration`, { pageTitle: 'A', title: 'B' }, KEY);
    expect(differ.status).toBe(400);
    expect(differ.body.errors[0].message).toBe('pageTitle and title are two names of one field and differ: give one of them');
    expect((await call('PUT', `/oauth2/clients/${client.id}/ui-configuration`, { handleTypes: ['phone_number'] }, KEY)).status).toBe(400);
  });

  it('a confidential client may leave out PKCE and state; a public client may not leave out PKCE', async () => {
    const confidential = await newClient(false);
    const page = await authorize({ client_id: confidential.id });
    expect(page.status).toBe(200);
    const { done } = await signInOnPage(await page.text(), 'no-pkce@example.com', cookiesOf(page));
    expect(done.status).toBe(303);
    const back = new URL(done.headers.get('location')!);
    expect(back.searchParams.get('state')).toBeNull();
    const code = back.searchParams.get('code')!;
    const withoutSecret = await protocolForm(t.server, '/oauth2/tokens', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: confidential.id });
    expect(withoutSecret.status).toBe(401);
    const exchanged = await protocolForm(t.server, '/oauth2/tokens', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, confidential);
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({ token_type: 'bearer' });
    const pub = await newClient(true);
    const refused = await authorize({ client_id: pub.id, state: 'abc' });
    expect(refused.status).toBe(302);
    const to = new URL(refused.headers.get('location')!);
    expect(to.searchParams.get('error')).toBe('invalid_request');
    expect(to.searchParams.get('error_description')).toBe('code_challenge is required: public clients must use PKCE (S256)');
  });

  it('prompt, max_age, response_mode and handle_types', async () => {
    const client = await newClient(false);
    const token = await signInWithEmail(t.server, 'prompt@example.com');
    const location = (r: Response) => new URL(r.headers.get('location')!);
    // prompt=none: straight back, with a code for a signed-in person, with login_required otherwise.
    expect(location(await authorize({ client_id: client.id, prompt: 'none', token, state: 's1' })).searchParams.get('code')).toBeTruthy();
    const nobody = location(await authorize({ client_id: client.id, prompt: 'none', state: 's2' }));
    expect(nobody.searchParams.get('error')).toBe('login_required');
    expect(nobody.searchParams.get('state')).toBe('s2');
    // prompt=login: the page even with a token; max_age=0 likewise once the token is a second old.
    expect((await authorize({ client_id: client.id, prompt: 'login', token })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await authorize({ client_id: client.id, max_age: '0', token })).status).toBe(200);
    expect((await authorize({ client_id: client.id, max_age: '3600', token })).status).toBe(302);
    expect(location(await authorize({ client_id: client.id, prompt: 'sometimes' })).searchParams.get('error')).toBe('invalid_request');
    // response_mode: fragment, and form_post (a page that posts the answer to the redirect URI).
    const fragment = location(await authorize({ client_id: client.id, token, response_mode: 'fragment', state: 's3' }));
    expect(fragment.search).toBe('');
    expect(new URLSearchParams(fragment.hash.slice(1)).get('state')).toBe('s3');
    expect(new URLSearchParams(fragment.hash.slice(1)).get('code')).toBeTruthy();
    const posted = await authorize({ client_id: client.id, token, response_mode: 'form_post', state: 's4' });
    expect(posted.status).toBe(200);
    const html = await posted.text();
    expect(html).toContain(`<form method="post" action="${REDIRECT}">`);
    expect(html).toMatch(/<input type="hidden" name="code" value="[^"]+">/);
    expect(html).toContain('<input type="hidden" name="state" value="s4">');
    expect(posted.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/);
    expect(location(await authorize({ client_id: client.id, handle_types: 'phone_number' })).searchParams.get('error')).toBe('invalid_request');
    for (const [k, v] of [['display', 'popup'], ['ui_locales', 'fr-CA en'], ['acr_values', 'urn:mace:incommon:iap:silver'], ['handle_types', 'email_address,phone_number']]) {
      expect((await authorize({ client_id: client.id, [k!]: v! })).status, k).toBe(200);
    }
  });
});

describe.each(BACKENDS)('OAuth2 client and userinfo shapes of the public reference contract (%s)', (backend) => {
  const t = useTestServer(backend);
  const KEY = { headers: { 'keyway-api-key': DEV_KEY } };

  it('clients answer response_types as combinations; PATCH changes grant_types under the creation rules', async () => {
    const call = contractApi(t.server);
    const made = await call('POST', '/oauth2/clients', { client_name: 'Grants', scopes: ['openid'], grant_types: ['authorization_code'], redirect_uris: ['https://grants.example.com/cb'], public: true }, KEY);
    const id = made.body.result.client_id as string;
    expect(made.body.result.response_types).toEqual([['code']]);
    const patched = await call('PATCH', `/oauth2/clients/${id}`, { grant_types: ['authorization_code', 'refresh_token'] }, KEY);
    expect(patched.status).toBe(200);
    expect(patched.body.result.grant_types).toEqual(['authorization_code', 'refresh_token']);
    expect((await call('GET', `/oauth2/clients/${id}`, undefined, KEY)).body.result.grant_types).toEqual(['authorization_code', 'refresh_token']);
    const refused = await call('PATCH', `/oauth2/clients/${id}`, { grant_types: ['client_credentials'] }, KEY);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].message).toBe('grant_types: client_credentials needs a confidential client (public: false)');
  });

  it('userinfo names the issuer, the audience and the organization', async () => {
    const call = contractApi(t.server);
    const client = await call('POST', '/oauth2/clients', { client_name: 'Info', scopes: ['openid', 'email'], grant_types: ['authorization_code'], redirect_uris: ['https://info.example.com/cb'] }, KEY);
    const person = await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'info@example.com' }, { type: 'username', value: 'info_user' }] }, KEY);
    const minted = await call('POST', '/oauth2/tokens/mint', { client_id: client.body.result.client_id, person_id: person.body.result.person_id }, KEY);
    // The client's last_used is now set (before its first token it is absent).
    const used = (await call('GET', `/oauth2/clients/${client.body.result.client_id}`, undefined, KEY)).body.result.last_used as string;
    expect(Date.now() - Date.parse(used)).toBeLessThan(60_000);
    expect(client.body.result.last_used).toBeUndefined();
    const info = await fetch(`${t.server.url}/oauth2/userinfo`, { headers: { authorization: `Bearer ${minted.body.result.access_token}` } });
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ sub: person.body.result.person_id, iss: t.server.url, aud: client.body.result.client_id, org_id: t.server.orgId, username: 'info_user', email: 'info@example.com' });
  });
});
