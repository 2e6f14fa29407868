/* eslint-disable @typescript-eslint/no-explicit-any */
// SSO popup in real Chromium against the real identity server and a real OpenID Provider (node-oidc-provider on
// loopback, the identity server's own test provider): a window.open popup navigates to the provider, the person signs
// in on its login and consent pages, the provider sends the popup back to the identity server's callback, whose page
// posts the SSO return to the opener; the SDK resolves it with PKCE and polls for the token. Nothing is intercepted.
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcIdp } from '@keyway/test-support';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
let idp: Awaited<ReturnType<typeof startOidcIdp>>;

beforeAll(async () => {
  h = await startHarness();
  idp = await startOidcIdp(`${h.api.url}/sso/oidc/callback`, { sub: 'grace-1', email: 'Grace@Corp.example' });
  const created = await fetch(`${h.api.url}/organizations/sso/oidc/provider-credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'keyway-orgid': h.api.orgId, 'keyway-api-key': 'kw_dev_api_key_not_secret' },
    body: JSON.stringify({ provider: 'generic', label: 'Corp', client_id: idp.client_id, client_secret: idp.client_secret, issuer: idp.issuer }),
  });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await h?.close();
  await idp?.close();
});

/** Signs in at the provider's development pages inside the popup: login form, then consent, until it closes. */
async function signInAtProvider(popup: Page, login: string): Promise<void> {
  await popup.waitForURL((u) => u.href.startsWith(idp.issuer));
  await popup.locator('input[name="login"]').fill(login);
  await popup.locator('input[name="password"]').fill('any');
  await popup.locator('button[type="submit"]').click();
  // Consent (first sign-in of this account at this client), then the return to the identity server.
  for (let i = 0; i < 5 && !popup.isClosed(); i++) {
    const button = popup.locator('button[type="submit"]');
    try {
      await button.waitFor({ timeout: 2000 });
      if (!new URL(popup.url()).href.startsWith(idp.issuer)) break;
      await button.click();
    } catch {
      break;
    }
  }
}

describe('SSO popup in Chromium against a real OpenID Provider', () => {
  it('opens a 400x600 popup at the provider, signs in there and completes through /sso/resolve with PKCE', async () => {
    const page = await h.newPage();
    const calls: Array<{ path: string; body: any }> = [];
    page.on('request', (r: Request) => {
      const u = new URL(r.url());
      if (u.origin === new URL(h.api.url).origin && r.method() !== 'OPTIONS') calls.push({ path: u.pathname, body: r.postDataJSON() });
    });
    const popupPromise = page.waitForEvent('popup');
    const run = page.evaluate(
      async ({ api, oid }) => {
        const w = window as any;
        const kw = new w.K.Keyway({ oid, baseURL: api, analytics: false });
        const seen: string[] = [];
        kw.on('oauthFlowStarted', (e: any) => seen.push(`${e.method}:${e.uxMode}`));
        await kw.signInWithSSO({ method: 'oidc', options: { provider: 'generic' } }).result;
        const me = await kw.user.me();
        return { seen, person: kw.user.personId, methods: kw.user.authenticatedMethods, handles: me.handles.map((x: any) => x.value) };
      },
      { api: h.api.url, oid: h.api.orgId },
    );
    const popup = await popupPromise;
    await popup.waitForURL((u) => u.href.startsWith(idp.issuer));
    const size = await popup.evaluate(() => [window.outerWidth, window.outerHeight]);
    await signInAtProvider(popup, 'grace-1');
    const r = await run;
    expect(r.seen).toEqual(['oidc:popup']);
    expect(r.person).toMatch(/\S/);
    expect(r.methods).toEqual(['oidc']);
    expect(r.handles).toContain('grace@corp.example');
    const paths = calls.map((c) => c.path.replace(/\/challenge\/[^/]+\//, '/challenge/{id}/'));
    expect(paths.slice(0, 2)).toEqual(['/id/v2', '/sso/resolve']);
    expect(paths).toContain('/challenge/{id}/v2');
    const challengeId = calls[1]!.body.challenge_id as string;
    expect(calls[1]!.body.pkce_code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(calls.find((c) => c.path.startsWith('/challenge/'))!.path).toBe(`/challenge/${challengeId}/v2`);
    await expect.poll(() => popup.isClosed()).toBe(true);
    expect(size).toEqual([400, 600]);
    await page.close();
  });
});
