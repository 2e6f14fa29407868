/* eslint-disable @typescript-eslint/no-explicit-any */
// SSO popup in real Chromium: a real window.open popup, navigated to the provider URL, whose return page
// (same origin) posts the SSO parameters to the opener. The identity server has no OIDC provider to
// sign in at, so the API calls are scripted with page.route and the "provider" redirects straight back.
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

const API = 'https://api.sso.test';
const b64u = (s: string) => Buffer.from(s).toString('base64url');
const TOKEN = `${b64u('{"alg":"none"}')}.${b64u(JSON.stringify({ person_id: 'sso1', oid: 'org_sso', authenticated_methods: ['oidc'] }))}.sig`;

let h: Harness;
let page: Page;
const calls: Array<{ path: string; body: any }> = [];

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('SSO popup in Chromium', () => {
  it('opens a 400x600 popup, follows the provider, and completes through /sso/resolve', async () => {
    page = await h.newPage();
    await page.route(`${API}/**`, async (route: Route) => {
      const req = route.request();
      const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': '*' };
      if (req.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: cors });
      const path = new URL(req.url()).pathname;
      const body = req.postDataJSON();
      calls.push({ path, body });
      let result: unknown = { token: TOKEN };
      if (path === '/id/v2') {
        const ret = `${h.origin}/sso-return?sso_challenge_id=ch_sso&sso_code=code-1&csrf_token=${body.metadata.csrf_token}`;
        result = [{ id: 'ch_sso', type: 'oidc', options: { auth_code_url: `${h.origin}/idp?next=${encodeURIComponent(ret)}` } }];
      }
      if (path === '/sso/resolve') return route.fulfill({ status: 204, headers: cors });
      return route.fulfill({ status: 200, headers: { ...cors, 'content-type': 'application/json' }, body: JSON.stringify({ result }) });
    });
    const popupPromise = page.waitForEvent('popup');
    const run = page.evaluate(async (api) => {
      const w = window as any;
      const kw = new w.K.Keyway({ oid: 'org_sso', baseURL: api, analytics: false });
      const seen: string[] = [];
      kw.on('oauthFlowStarted', (e: any) => seen.push(`${e.method}:${e.uxMode}`));
      await kw.signInWithSSO({ method: 'oidc', options: { provider: 'google' } }).result;
      return { seen, person: kw.user.personId };
    }, API);
    const popup = await popupPromise;
    await popup.waitForURL(/\/idp\?/);
    const size = await popup.evaluate(() => [window.outerWidth, window.outerHeight]);
    const r = await run;
    expect(r).toEqual({ seen: ['oidc:popup'], person: 'sso1' });
    expect(calls.map((c) => c.path)).toEqual(['/id/v2', '/sso/resolve', '/challenge/ch_sso/v2']);
    expect(calls[1]!.body).toMatchObject({ challenge_id: 'ch_sso', code: 'code-1' });
    expect(calls[1]!.body.pkce_code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await expect.poll(() => popup.isClosed()).toBe(true);
    expect(size).toEqual([400, 600]);
  });
});
