import { describe, expect, it } from 'vitest';
import { contractApi, protocolForm } from './contract.js';
import { BACKENDS, decodeClaims, useTestServer } from './helpers.js';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

describe.each(BACKENDS)('OAuth2 client credentials, revoke-all, mint and hosted UI configuration (%s)', (backend) => {
  const t = useTestServer(backend);

  const form = (path: string, fields: Record<string, string>, basic?: { id: string; secret: string }) => protocolForm(t.server, path, fields, basic);

  it('issues machine-to-machine tokens to confidential clients, introspectable and revocable', async () => {
    const call = contractApi(t.server);
    expect((await call('POST', '/oauth2/clients', { client_name: 'Browser', scopes: ['openid'], grant_types: ['client_credentials'], public: true }, KEY)).status).toBe(400);
    const made = await call('POST', '/oauth2/clients', { client_name: 'Billing job', scopes: ['invoices:read', 'invoices:write'], grant_types: ['client_credentials'] }, KEY);
    expect(made.status).toBe(201);
    const basic = { id: made.body.result.client_id as string, secret: made.body.result.client_secret as string };

    const token = await form('/oauth2/tokens', { grant_type: 'client_credentials', scope: 'invoices:read' }, basic);
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'invoices:read' });
    expect(decodeClaims(token.body!.access_token)).toMatchObject({ sub: basic.id, client_id: basic.id, oid: t.server.orgId, token_use: 'client' });
    expect((await form('/oauth2/tokens', { grant_type: 'client_credentials', scope: 'admin' }, basic)).body).toMatchObject({ error: 'invalid_scope', error_description: 'scopes not granted to this client: admin' });
    expect((await form('/oauth2/tokens', { grant_type: 'client_credentials' }, { ...basic, secret: 'wrong' })).status).toBe(401);
    const all = await form('/oauth2/tokens', { grant_type: 'client_credentials' }, basic);
    expect(all.body!.scope).toBe('invoices:read invoices:write');

    // A client token is not a user token: /me refuses it, introspection knows it.
    expect((await t.call('GET', '/me', undefined, { token: token.body!.access_token })).status).toBe(401);
    expect((await form('/oauth2/tokens/introspect', { token: token.body!.access_token }, basic)).body).toMatchObject({ active: true, sub: basic.id, client_id: basic.id, scope: 'invoices:read' });

    await new Promise((r) => setTimeout(r, 1100)); // tokens issued from the next second on stay valid
    expect((await form('/oauth2/tokens/revoke-all', { subject: basic.id }, basic)).status).toBe(200);
    expect((await form('/oauth2/tokens/introspect', { token: token.body!.access_token }, basic)).body).toEqual({ active: false });
    expect((await form('/oauth2/tokens/introspect', { token: all.body!.access_token }, basic)).body).toEqual({ active: false });
    await new Promise((r) => setTimeout(r, 1100));
    const fresh = await form('/oauth2/tokens', { grant_type: 'client_credentials' }, basic);
    expect((await form('/oauth2/tokens/introspect', { token: fresh.body!.access_token }, basic)).body!.active).toBe(true);
    expect((await form('/oauth2/tokens/revoke-all', { subject: basic.id })).status).toBe(401);
  });

  it('mints OAuth tokens for a person and revokes them all for that person', async () => {
    const call = contractApi(t.server);
    const client = await call('POST', '/oauth2/clients', { client_name: 'Portal', scopes: ['openid', 'email'], grant_types: ['authorization_code'], redirect_uris: ['https://portal.example.com/cb'] }, KEY);
    const basic = { id: client.body.result.client_id as string, secret: client.body.result.client_secret as string };
    const person = await call('POST', '/persons', { handles: [{ type: 'email_address', value: 'minted@example.com' }] }, KEY);
    const pid = person.body.result.person_id as string;

    const minted = await call('POST', '/oauth2/tokens/mint', { client_id: basic.id, person_id: pid }, KEY);
    expect(minted.body.result).toMatchObject({ token_type: 'bearer', scope: 'openid email' });
    expect(decodeClaims(minted.body.result.access_token)).toMatchObject({ person_id: pid, client_id: basic.id, authenticated_methods: ['api'] });
    expect(decodeClaims(minted.body.result.id_token)).toMatchObject({ sub: pid, aud: basic.id, email: 'minted@example.com' });
    const noId = await call('POST', '/oauth2/tokens/mint', { client_id: basic.id, person_id: pid, scopes: ['email'], include_id_token: true }, KEY);
    expect(noId.body.result.id_token).toBeUndefined();
    expect((await call('POST', '/oauth2/tokens/mint', { client_id: basic.id, person_id: pid, scopes: ['admin'] }, KEY)).status).toBe(400);
    expect((await call('POST', '/oauth2/tokens/mint', { client_id: 'nope', person_id: pid }, KEY)).status).toBe(404);
    expect((await call('POST', '/oauth2/tokens/mint', { client_id: basic.id, person_id: 'pid:nobody' }, KEY)).status).toBe(404);

    // Access tokens are checked by introspection (POST /token/validate answers only for user tokens, #36).
    const valid = (token: string) =>
      decodeClaims(token).token_use === 'access'
        ? form('/oauth2/tokens/introspect', { token }, basic).then((r) => r.body.active as boolean)
        : call('POST', '/token/validate', { token }).then((r) => r.body.result.valid as boolean);
    expect(await valid(minted.body.result.access_token)).toBe(true);
    const personToken = await call('POST', `/persons/${pid}/mint-token`, {}, KEY);
    await new Promise((r) => setTimeout(r, 1100));
    await form('/oauth2/tokens/revoke-all', { subject: pid }, basic);
    expect(await valid(minted.body.result.access_token)).toBe(false);
    expect(await valid(noId.body.result.access_token)).toBe(false);
    // Tokens not issued to this client are untouched.
    expect(await valid(personToken.body.result)).toBe(true);
  });

  it('stores the hosted UI configuration and shows it on the sign-in page', async () => {
    const call = contractApi(t.server);
    const client = await call('POST', '/oauth2/clients', { client_name: 'Styled', scopes: ['openid'], grant_types: ['authorization_code'], redirect_uris: ['https://styled.example.com/cb'], public: true }, KEY);
    const id = client.body.result.client_id as string;
    expect((await call('GET', `/oauth2/clients/${id}/ui-configuration`, undefined, KEY)).body.result).toMatchObject({ title: 'Sign in to Styled', show_keyway_branding: true });
    const ui = { title: 'Welcome to Acme <Docs>', primary_color: '#1f6feb', logo_url: 'https://cdn.example.com/logo.svg', factors: ['otp_via_email'] };
    // The answer carries both spellings of the fields the public reference contract renamed.
    expect((await call('PUT', `/oauth2/clients/${id}/ui-configuration`, ui, KEY)).body.result).toEqual({ ...ui, pageTitle: ui.title, logoUrl: ui.logo_url });
    expect((await call('GET', `/oauth2/clients/${id}/ui-configuration`, undefined, KEY)).body.result).toMatchObject(ui);
    expect((await call('PUT', `/oauth2/clients/${id}/ui-configuration`, { primary_color: 'blue' }, KEY)).status).toBe(400);
    expect((await call('PUT', '/oauth2/clients/unknown/ui-configuration', ui, KEY)).status).toBe(404);
    await call('PATCH', '/organizations/config', { allowed_factors: ['otp_via_email'] }, KEY);
    expect((await call('PUT', `/oauth2/clients/${id}/ui-configuration`, { factors: ['webauthn'] }, KEY)).body.errors[0].message).toBe('factors not allowed by the organization config (allowed_factors): webauthn');
    await call('PATCH', '/organizations/config', { allowed_factors: [] }, KEY);

    const q = new URLSearchParams({ response_type: 'code', client_id: id, redirect_uri: 'https://styled.example.com/cb', scope: 'openid', state: 'st4te-5678', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
    const html = await (await fetch(`${t.server.url}/oauth2/authorize?${q}`)).text();
    expect(html, html).toContain('<h1>Welcome to Acme &lt;Docs&gt;</h1>');
    expect(html).toContain('--kw-accent:#1f6feb;');
    expect(html).toContain('button{background:var(--kw-accent)');
    expect(html).toContain('src="https://cdn.example.com/logo.svg"');
  });
});
