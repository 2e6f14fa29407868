import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractApi } from './contract.js';
import { BACKENDS, decodeClaims, useTestServer, type TestServer } from './helpers.js';
import { browseUntil, startOidcIdp } from './oidc-idp.js';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
const ORIGIN = 'http://localhost:3000';

type Idp = Awaited<ReturnType<typeof startOidcIdp>>;
interface Entry { token: string; token_type: 'access' | 'id' | 'refresh'; authentication_id: string; [k: string]: unknown }
/** The entries of one sign-in by kind of token. */
const byType = (entries: Entry[]) => Object.fromEntries(entries.map((e) => [e.token_type, e])) as Record<'access' | 'id' | 'refresh', Entry>;

/** A complete OIDC sign-in in redirect mode (provider login, return, /sso/resolve, polling); returns the Keyway token. */
async function ssoSignIn(server: TestServer, idp: Idp, login: string): Promise<string> {
  const call = contractApi(server);
  const verifier = randomBytes(32).toString('base64url');
  const id = await call('POST', '/id/v2', {
    factor: { method: 'oidc', options: { provider: 'generic', client_id: idp.client_id, ux_mode: 'redirect', redirect_target: `${ORIGIN}/login`, pkce_code_challenge: createHash('sha256').update(verifier).digest('base64url') } },
  }, { headers: { origin: ORIGIN } });
  expect(id.status, JSON.stringify(id.body)).toBe(200);
  const [ch] = id.body.result;
  const back = await fetch(await browseUntil(ch.options.auth_code_url, `${server.url}/sso/oidc/callback`, login), { redirect: 'manual' });
  const code = new URL(back.headers.get('location')!).searchParams.get('sso_code');
  expect((await call('POST', '/sso/resolve', { challenge_id: ch.id, code, pkce_code_verifier: verifier })).status).toBe(204);
  const done = await call('GET', `/challenge/${ch.id}/v2`);
  expect(done.status).toBe(200);
  return done.body.result as string;
}

describe.each(BACKENDS)('tokens obtained through SSO with OIDC (%s)', (backend) => {
  const t = useTestServer(backend);
  let idp: Idp;
  let plain: Idp; // a provider without a revocation endpoint
  beforeAll(async () => {
    // Each login name is its own person (e-mail <login>@corp.example); 'lin-7' and 'lin-at-plain' are the same person.
    const emailOf = (sub: string) => `${sub === 'lin-at-plain' ? 'lin-7' : sub}@corp.example`;
    idp = await startOidcIdp(`${t.server.url}/sso/oidc/callback`, { sub: 'lin-7', email: 'lin-7@corp.example' }, { emailOf });
    plain = await startOidcIdp(`${t.server.url}/sso/oidc/callback`, { sub: 'lin-at-plain', email: 'lin-7@corp.example' }, { clientId: 'plain-sso', revocation: false, emailOf });
    for (const p of [idp, plain]) {
      const created = await contractApi(t.server)('POST', '/organizations/sso/oidc/provider-credentials', { provider: 'generic', label: p.client_id, client_id: p.client_id, client_secret: p.client_secret, issuer: p.issuer }, KEY);
      expect(created.status).toBe(201);
    }
  });
  afterAll(async () => {
    await idp.close();
    await plain.close();
  });

  it('stores what the provider issued at sign-in, encrypted, and lists it per person', async () => {
    const call = contractApi(t.server);
    const personId = decodeClaims(await ssoSignIn(t.server, idp, 'lin-7')).person_id as string;

    const listed = await call('GET', `/sso/oidc/tokens?person_id=${encodeURIComponent(personId)}`, undefined, KEY);
    expect(listed.status).toBe(200);
    expect(listed.body.meta.pagination).toEqual({ limit: 100, offset: 0, total_count: 3 });
    const entry = byType(listed.body.result);
    for (const e of listed.body.result) {
      expect(e).toMatchObject({ person_id: personId, client_id: idp.client_id, provider: 'generic', issuer: idp.issuer, subject: 'lin-7', authentication_id: entry.access.authentication_id });
      expect(e.scopes).toEqual(expect.arrayContaining(['openid', 'email']));
    }
    expect(Date.parse(entry.access.expiry as string) - Date.now()).toBeGreaterThan(30 * 60_000);
    expect(decodeClaims(entry.id.token)).toMatchObject({ sub: 'lin-7', iss: idp.issuer, aud: idp.client_id });
    // The provider accepts the stored access token: the back end can call the provider's APIs for the person.
    expect(await idp.accessTokenWorks(entry.access.token)).toBe(true);
    expect(typeof entry.refresh.token).toBe('string');

    // At rest, no token value is readable in the database.
    const row = await t.server.db.selectFrom('sso_oidc_tokens').selectAll().where('person_id', '=', personId).executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    for (const v of [entry.access.token, entry.refresh.token, entry.id.token]) expect(stored.includes(v)).toBe(false);
    expect(row.sealed_tokens).toMatch(/^v1\./);

    // A second sign-in through the same client replaces its tokens (one set per client), under a new authentication id.
    await ssoSignIn(t.server, idp, 'lin-7');
    const again = byType((await call('GET', `/sso/oidc/tokens?person_id=${encodeURIComponent(personId)}`, undefined, KEY)).body.result);
    expect(Object.keys(again).sort()).toEqual(['access', 'id', 'refresh']);
    expect(again.access.authentication_id).not.toBe(entry.access.authentication_id);
    expect(again.access.token).not.toBe(entry.access.token);

    // Signing in through another provider adds its tokens; the query narrows by client or provider.
    await ssoSignIn(t.server, plain, 'lin-at-plain');
    expect((await call('POST', '/sso/oidc/tokens/query', { person_id: personId }, KEY)).body.result).toHaveLength(6);
    const narrowed = await call('POST', '/sso/oidc/tokens/query', { person_id: personId, client_id: plain.client_id }, KEY);
    expect(new Set(narrowed.body.result.map((x: { subject: string }) => x.subject))).toEqual(new Set(['lin-at-plain']));
    expect((await call('POST', '/sso/oidc/tokens/query', { person_id: personId, provider: 'google' }, KEY)).body.result).toEqual([]);
    const paged = await call('GET', `/sso/oidc/tokens?person_id=${encodeURIComponent(personId)}&limit=1&offset=1`, undefined, KEY);
    expect(paged.body.result).toHaveLength(1);
    expect(paged.body.meta.pagination).toEqual({ limit: 1, offset: 1, total_count: 6 });
  });

  it('revokes at the provider (RFC 7009) and marks the entry revoked; a provider without revocation is only forgotten', async () => {
    const call = contractApi(t.server);
    const personId = decodeClaims(await ssoSignIn(t.server, idp, 'rev-1')).person_id as string;
    const entry = byType((await call('GET', `/sso/oidc/tokens?person_id=${encodeURIComponent(personId)}`, undefined, KEY)).body.result);
    expect(await idp.accessTokenWorks(entry.access.token)).toBe(true);

    const revoked = await call('POST', '/sso/oidc/tokens/revoke/v2', { person_id: personId, authentication_id: entry.access.authentication_id }, KEY);
    expect(revoked.status).toBe(204);
    expect(revoked.body).toBeUndefined();
    expect(await idp.accessTokenWorks(entry.access.token)).toBe(false);
    expect(await idp.refreshTokenWorks(entry.refresh.token)).toBe(false);

    // Gone from the list; the stored row keeps no value and says when.
    expect((await call('GET', `/sso/oidc/tokens?person_id=${encodeURIComponent(personId)}`, undefined, KEY)).body.result).toEqual([]);
    const row = await t.server.db.selectFrom('sso_oidc_tokens').selectAll().where('person_id', '=', personId).executeTakeFirstOrThrow();
    expect(row.sealed_tokens).toBeNull();
    expect(Date.parse(row.revoked_at!)).toBeGreaterThan(Date.now() - 60_000);
    // Nothing live is left: revoking again counts nothing.
    expect((await call('POST', '/sso/oidc/tokens/revoke/v2', { person_id: personId, authentication_id: entry.access.authentication_id }, KEY)).status).toBe(204);
    // The next sign-in brings live tokens back.
    await ssoSignIn(t.server, idp, 'rev-1');
    expect((await call('GET', `/sso/oidc/tokens?person_id=${encodeURIComponent(personId)}`, undefined, KEY)).body.result).toHaveLength(3);

    // No revocation endpoint at the provider: the tokens are forgotten here only.
    const other = decodeClaims(await ssoSignIn(t.server, plain, 'plain-2')).person_id as string;
    const plainEntry = byType((await call('POST', '/sso/oidc/tokens/query', { person_id: other }, KEY)).body.result);
    expect((await call('POST', '/sso/oidc/tokens/revoke/v2', { person_id: other, authentication_id: plainEntry.access.authentication_id }, KEY)).status).toBe(204);
    expect((await call('POST', '/sso/oidc/tokens/query', { person_id: other }, KEY)).body.result).toEqual([]);
    expect(await plain.accessTokenWorks(plainEntry.access.token)).toBe(true);
  });

  it('the deprecated revoke finds the entry by the value of its access or refresh token', async () => {
    const call = contractApi(t.server);
    const personId = decodeClaims(await ssoSignIn(t.server, idp, 'legacy-1')).person_id as string;
    const entry = byType((await call('POST', '/sso/oidc/tokens/query', { person_id: personId }, KEY)).body.result);
    const wrongClient = await call('POST', '/sso/oidc/tokens/revoke', { token: entry.refresh.token, client_id: plain.client_id }, KEY);
    expect(wrongClient.status).toBe(404);
    expect(wrongClient.body.errors[0].message).toBe(`no live token of OIDC client "${plain.client_id}" has this value`);
    // token_type (the public reference's field) says which token the value is: a refresh token is not an access token.
    const wrongType = await call('POST', '/sso/oidc/tokens/revoke', { token: entry.refresh.token, client_id: idp.client_id, token_type: 'access_token' }, KEY);
    expect(wrongType.status).toBe(404);
    const res = await call('POST', '/sso/oidc/tokens/revoke', { token: entry.refresh.token, client_id: idp.client_id, token_type: 'refresh_token' }, KEY);
    expect(res.status).toBe(204);
    expect(await idp.accessTokenWorks(entry.access.token)).toBe(false);
    expect((await call('POST', '/sso/oidc/tokens/query', { person_id: personId }, KEY)).body.result).toEqual([]);
    // The value is forgotten: a second call does not find it.
    expect((await call('POST', '/sso/oidc/tokens/revoke', { token: entry.access.token, client_id: idp.client_id }, KEY)).status).toBe(404);
  });

  it('answers 404 for unknown persons and clients, 400 for malformed selections, and deletes entries with the person', async () => {
    const call = contractApi(t.server);
    const missing = await call('GET', '/sso/oidc/tokens?person_id=pid:00000000000000000000000000000000', undefined, KEY);
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].message).toBe('person "pid:00000000000000000000000000000000" does not exist');
    expect((await call('POST', '/sso/oidc/tokens/query', { person_id: 'pid:00000000000000000000000000000000' }, KEY)).status).toBe(404);
    const noPerson = await call('GET', '/sso/oidc/tokens', undefined, KEY);
    expect(noPerson.status).toBe(400);
    expect(noPerson.body.errors[0].message).toContain('person_id');
    const extra = await call('POST', '/sso/oidc/tokens/query', { person_id: 'pid:1', secret: true }, KEY);
    expect(extra.status).toBe(400);
    expect(extra.body.errors[0].message).toContain('secret');
    expect((await call('POST', '/sso/oidc/tokens/revoke/v2', { person_id: 'pid:1' }, KEY)).status).toBe(400);
    expect((await call('POST', '/sso/oidc/tokens/revoke', { client_id: idp.client_id }, KEY)).status).toBe(400);
    expect((await call('GET', '/sso/oidc/tokens?person_id=x&limit=0', undefined, KEY)).status).toBe(400);

    const personId = decodeClaims(await ssoSignIn(t.server, idp, 'gone-1')).person_id as string;
    const unknown = await call('POST', '/sso/oidc/tokens/revoke/v2', { person_id: personId, authentication_id: 'nobody' }, KEY);
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].message).toBe(`no SSO authentication "nobody" is stored for person "${personId}"`);
    expect((await call('DELETE', `/persons/${encodeURIComponent(personId)}`, undefined, KEY)).status).toBe(204);
    expect(await t.server.db.selectFrom('sso_oidc_tokens').select('id').where('person_id', '=', personId).execute()).toEqual([]);
  });

  it("never shows or revokes one organization's provider tokens with another organization's key", async () => {
    const call = contractApi(t.server);
    const personId = decodeClaims(await ssoSignIn(t.server, idp, 'owned-9')).person_id as string;
    const entry = byType((await call('POST', '/sso/oidc/tokens/query', { person_id: personId }, KEY)).body.result).access;
    const sub = await call('POST', '/organizations/suborganizations', { org_name: 'Other tenant' }, KEY);
    const B = { org: sub.body.result.id as string, headers: { 'keyway-api-key': sub.body.result.api_key as string } };
    // B's key with A's ids and token values: 404, and nothing shown or changed.
    for (const res of [
      await call('GET', `/sso/oidc/tokens?person_id=${encodeURIComponent(personId)}`, undefined, B),
      await call('POST', '/sso/oidc/tokens/query', { person_id: personId }, B),
      await call('POST', '/sso/oidc/tokens/revoke/v2', { person_id: personId, authentication_id: entry.authentication_id }, B),
      await call('POST', '/sso/oidc/tokens/revoke', { token: entry.token, client_id: idp.client_id }, B),
    ]) {
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain(entry.token);
    }
    // A's key for B's organization: refused before anything is read.
    expect([401, 403]).toContain((await call('POST', '/sso/oidc/tokens/query', { person_id: personId }, { ...KEY, org: B.org })).status);
    expect(byType((await call('POST', '/sso/oidc/tokens/query', { person_id: personId }, KEY)).body.result).access.token).toBe(entry.token);
    expect(await idp.accessTokenWorks(entry.token)).toBe(true);
  });

  it('answers 502 and changes nothing when the provider cannot be reached', async () => {
    const call = contractApi(t.server);
    const down = await startOidcIdp(`${t.server.url}/sso/oidc/callback`, { sub: 'down-1', email: 'down-1@corp.example' }, { clientId: 'soon-down' });
    await call('POST', '/organizations/sso/oidc/provider-credentials', { provider: 'generic', label: 'Down', client_id: down.client_id, client_secret: down.client_secret, issuer: down.issuer }, KEY);
    const personId = decodeClaims(await ssoSignIn(t.server, down, 'down-1')).person_id as string;
    const before = byType((await call('POST', '/sso/oidc/tokens/query', { person_id: personId }, KEY)).body.result);
    await down.close();
    const res = await call('POST', '/sso/oidc/tokens/revoke/v2', { person_id: personId, authentication_id: before.access.authentication_id }, KEY);
    expect(res.status).toBe(502);
    expect(res.body.errors[0].message).toMatch(new RegExp(`^the identity provider ${down.issuer} could not revoke the token: `));
    const kept = byType((await call('POST', '/sso/oidc/tokens/query', { person_id: personId }, KEY)).body.result);
    expect(kept.access.token).toBe(before.access.token);
    expect(kept.refresh.token).toBe(before.refresh.token);
  });
});
