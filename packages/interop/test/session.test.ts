// What a signed-in person does with the published client's User: validation, /me, attributes, consents, tokens for
// other organizations, Direct-ID, analytics and logout — against our identity server through the proxy.
import { describe, expect, it } from 'vitest';
import { email, sdkFor, signInByCode, useInterop } from './harness.js';

const t = useInterop();

describe('published client: the signed-in person', () => {
  it('validateToken and isAuthenticated', async () => {
    const user = await signInByCode(t, email('validate'));
    const v = await user.validateToken();
    expect(v.valid).toBe(true);
    expect(v.expires_at).toBeInstanceOf(Date);
    expect(v.expires_in_seconds).toBeGreaterThan(0);
    expect(await user.isAuthenticated()).toBe(true);
  });

  it('/me: handles and organizations', async () => {
    const to = email('me');
    const user = await signInByCode(t, to);
    expect(await user.getHandles()).toEqual([{ type: 'email_address', value: to }]);
    const orgs = await user.getOrganizations();
    expect(orgs.map((o) => o.id)).toContain(t.oid);
    const me = t.calls('GET', '/me').at(-1)!;
    const body = JSON.parse(me.response) as { result: { credentials: unknown[]; handles: unknown[]; organizations: unknown[] } };
    expect(Array.isArray(body.result.credentials)).toBe(true);
  });

  it('attribute buckets: set, get, delete (and the deprecated user.set/get/delete)', async () => {
    const user = await signInByCode(t, email('attrs'));
    const bucket = user.getBucket('end_user_read_write');
    await bucket.set({ plan: 'pro', seats: 3 });
    expect(await bucket.get(['plan'])).toEqual({ plan: 'pro' });
    expect(await bucket.get()).toEqual({ plan: 'pro', seats: 3 });
    await bucket.delete(['seats']);
    expect(await bucket.get()).toEqual({ plan: 'pro' });

    await user.set({ nickname: 'ada' });
    expect(await user.get(['nickname'])).toEqual({ nickname: 'ada' });
    await user.delete(['nickname']);
    expect(await user.get(['nickname'])).toEqual({});
  });

  it('GDPR consent: get, set, add, remove, removeAll', async () => {
    const user = await signInByCode(t, email('gdpr'));
    expect((await user.getGDPRConsent()).consents).toEqual([]);
    const set = await user.setGDPRConsent({ consentLevels: ['necessary', 'analytics'] });
    expect(set.consents.map((c) => c.consent_level).sort()).toEqual(['analytics', 'necessary']);
    expect(set.consents[0]!.created_at).toBeInstanceOf(Date);
    const added = await user.addGDPRConsent({ consentLevels: ['marketing'] });
    expect(added.consents.map((c) => c.consent_level).sort()).toEqual(['analytics', 'marketing', 'necessary']);
    await user.removeGDPRConsent({ consentLevels: ['analytics', 'marketing'] });
    expect((await user.getGDPRConsent()).consents.map((c) => c.consent_level)).toEqual(['necessary']);
    await user.removeGDPRConsentAll();
    expect((await user.getGDPRConsent()).consents).toEqual([]);
  });

  it('getTokenForOrganization: POST /token/v2 with metadata and the target organization header', async () => {
    const user = await signInByCode(t, email('org'));
    const mark = t.log.length;
    const token = await user.getTokenForOrganization(t.oid);
    expect(typeof token).toBe('string');
    const call = t.calls('POST', '/token/v2', mark)[0]!;
    expect(call.status).toBe(200);
    expect(call.headers['slashid-orgid']).toBe(t.oid);
    expect(JSON.parse(call.body).metadata).toMatchObject({ csrf_token: expect.any(String), pkce_code_challenge: expect.any(String) });
    const again = sdkFor(t).getUser(token);
    expect(again.ID).toBe(user.ID);
    expect(await again.isAuthenticated()).toBe(true);
  });

  it('createDirectID: a string id', async () => {
    const user = await signInByCode(t, email('direct'));
    const id = await user.createDirectID();
    expect(typeof id).toBe('string');
    expect(id!.length).toBeGreaterThan(8);
  });

  it('analytics: the client beacons its events to /actions/sdk and the server accepts them', async () => {
    const mark = t.log.length;
    const sid = sdkFor(t, true);
    const to = email('analytics');
    await signInByCode(t, to, sid);
    await new Promise((r) => setTimeout(r, 300));
    const beacons = t.calls('POST', '/actions/sdk', mark);
    const names = beacons.map((b) => (JSON.parse(b.body) as { event_data: { event_name: string } }).event_data.event_name);
    expect(names).toEqual(expect.arrayContaining(['SlashIDSDKLoaded_v1', 'PersonIdentified_v1', 'AuthenticationSucceeded_v1']));
    for (const b of beacons) expect(b.status).toBeLessThan(300);
  });

  it('logout: the token is revoked and no longer authenticates', async () => {
    const user = await signInByCode(t, email('logout'));
    const token = user.token;
    await user.logout();
    expect(t.calls('POST', '/token/revoke').at(-1)!.status).toBeLessThan(300);
    const again = sdkFor(t).getUser(token);
    expect(await again.isAuthenticated()).toBe(false);
    expect((await again.validateToken()).valid).toBe(false);
  });

  it('every request the published client sent and every answer it got match api/openapi.yaml', () => {
    t.checkContract();
  });
});
