import { describe, expect, it, vi } from 'vitest';
import * as errors from '../src/errors.js';
import { authenticate } from '../src/flow.js';
import { pkceChallenge } from '../src/pkce.js';
import { checkSSOFactor, POPUP_TEXT, signInWithSSO, ssoChallenges } from '../src/sso.js';
import { basicChallenges } from '../src/challenges.js';
import { analytics, client, route, TOKEN } from './fake.js';
import { deliver, fakeWindow, mockOpen } from './popup.js';

const oidcChallenge = (url = 'https://idp.example.com/auth?x=1') => [{ id: 'sso1', type: 'oidc', options: { auth_code_url: url } }];

describe('SSO factor rules', () => {
  it('defaults ux_mode to popup, and redirect targets to the current page', () => {
    expect(checkSSOFactor({ method: 'oidc' }).options).toMatchObject({ ux_mode: 'popup' });
    expect(checkSSOFactor({ method: 'saml', options: { ux_mode: 'redirect' } }).options).toMatchObject({
      redirect_target: location.href,
    });
  });
  it('rejects handles, other ux_modes and non-http redirect targets', () => {
    expect(() => checkSSOFactor({ method: 'oidc' }, 'ada@example.com')).toThrow('OIDC should not be used with handles');
    expect(() => checkSSOFactor({ method: 'saml' }, 'ada@example.com')).toThrow('SAML should not be used with handles');
    expect(() => checkSSOFactor({ method: 'oidc', options: { ux_mode: 'tab' as never } })).toThrow('Unsupported OAuth ux_mode');
    expect(() => checkSSOFactor({ method: 'saml', options: { ux_mode: 'tab' as never } })).toThrow('Unsupported SAML ux_mode');
    expect(() => checkSSOFactor({ method: 'oidc', options: { ux_mode: 'redirect', redirect_target: 'javascript:alert(1)' } })).toThrow(
      'Bad OAuth URL',
    );
  });
});

/** Starts a popup OIDC flow and waits until the popup shows the provider. */
async function popupAtProvider() {
  const { w } = mockOpen();
  route('POST', '/id/v2', oidcChallenge());
  const c = client();
  const failed = vi.fn();
  c.events.on('oauthFlowFailed', failed);
  const flow = signInWithSSO(c, { method: 'oidc' });
  await vi.waitFor(() => expect(w.location.href).not.toBe(''));
  return { w, failed, flow };
}

describe('SSO popup', () => {
  it('opens a centred 400x600 popup with the waiting text, then completes through /sso/resolve', async () => {
    const { open, w } = mockOpen();
    const id = route('POST', '/id/v2', oidcChallenge());
    const resolve = route('POST', '/sso/resolve', () => new Response(null, { status: 204 }));
    const poll = route('GET', '/challenge/sso1/v2', { token: TOKEN });
    const c = client();
    const started = vi.fn();
    c.events.on('oauthFlowStarted', started);
    const flow = signInWithSSO(c, { method: 'oidc', options: { provider: 'google', client_id: 'cid' } });
    expect(open).toHaveBeenCalledTimes(1);
    expect(open.mock.calls[0]![2]).toMatch(/width=400,height=600,left=\d+,top=\d+/);
    expect(w.document.body.textContent).toBe(POPUP_TEXT);
    await vi.waitFor(() => expect(w.location.href).toBe('https://idp.example.com/auth?x=1'));
    const sent = id[0]!.body;
    expect(sent.handle).toBeUndefined();
    expect(sent.factor).toMatchObject({ method: 'oidc', options: { provider: 'google', client_id: 'cid', ux_mode: 'popup' } });
    const csrf = localStorage.getItem('keyway.csrf_token');
    const verifier = localStorage.getItem('keyway.pkce_code_verifier')!;
    expect(sent.metadata).toEqual({ csrf_token: csrf, pkce_code_challenge: await pkceChallenge(verifier) });
    expect(sent.factor.options.pkce_code_challenge).toBe(sent.metadata.pkce_code_challenge);
    expect(started).toHaveBeenCalledWith(expect.objectContaining({ method: 'oidc', uxMode: 'popup' }));
    deliver({ type: 'sso_challenge', challenge_id: 'sso1', code: 'c0de', csrf_token: 'forged' }, fakeWindow());
    deliver({ type: 'sso_challenge', challenge_id: 'sso1', code: 'c0de', csrf_token: csrf }, w);
    await expect(flow.result).resolves.toBe(TOKEN);
    expect(resolve[0]!.body).toEqual({ challenge_id: 'sso1', code: 'c0de', pkce_code_verifier: verifier });
    expect(poll).toHaveLength(1);
    expect(w.close).toHaveBeenCalled();
    expect(localStorage.getItem('keyway.pkce_code_verifier')).toBeNull();
  });

  it('a blocked popup fails with the popup message, popupFailed and oidc_popup_blocked', async () => {
    mockOpen(null);
    const ev = analytics();
    const c = client({ analytics: true });
    const failed = vi.fn();
    c.events.on('popupFailed', failed);
    const flow = signInWithSSO(c, { method: 'oidc' });
    await expect(flow.result).rejects.toThrow('Keyway: Popup blocked, please consider redirect instead');
    expect(failed).toHaveBeenCalled();
    await vi.waitFor(() =>
      expect(ev.map((e) => e.body.event_data.failure_reason)).toContain('oidc_popup_blocked'),
    );
  });

  it('closing the popup fails the flow with "OIDC flow unsuccesful!"', async () => {
    const { w, failed, flow } = await popupAtProvider();
    w.closed = true;
    await expect(flow.result).rejects.toThrow('OIDC flow unsuccesful!');
    expect(failed).toHaveBeenCalledWith(expect.objectContaining({ errorText: 'OIDC flow unsuccesful!' }));
  });

  it('a bad provider URL closes the popup', async () => {
    const { w } = mockOpen();
    route('POST', '/id/v2', [{ id: 's', type: 'saml', options: { start_authentication_url: 'nope' } }]);
    await expect(signInWithSSO(client(), { method: 'saml' }).result).rejects.toThrow('Bad authentication URL');
    expect(w.close).toHaveBeenCalled();
    route('POST', '/id/v2', oidcChallenge('ftp://x'));
    mockOpen();
    await expect(signInWithSSO(client(), { method: 'oidc' }).result).rejects.toThrow('Bad OAuth sign in URL');
  });

  it('cancelling the flow closes the popup', async () => {
    const { w, failed, flow } = await popupAtProvider();
    flow.cancel();
    await expect(flow.result).rejects.toBeInstanceOf(errors.FlowCancelledError);
    expect(w.close).toHaveBeenCalled();
    expect(failed).not.toHaveBeenCalled();
  });

  it('a wrong CSRF token in the return is refused', async () => {
    const { w } = mockOpen();
    route('POST', '/id/v2', oidcChallenge());
    const flow = signInWithSSO(client(), { method: 'oidc' });
    await vi.waitFor(() => expect(w.location.href).not.toBe(''));
    deliver({ type: 'sso_challenge', challenge_id: 'sso1', code: 'c', csrf_token: 'other' }, w);
    await expect(flow.result).rejects.toThrow('CSRF token mismatch');
  });

  it('a handle is refused before anything opens', async () => {
    const { open } = mockOpen();
    await expect(signInWithSSO(client(), { method: 'oidc' }, {}, 'ada@example.com').result).rejects.toThrow(
      'OIDC should not be used with handles',
    );
    expect(open).not.toHaveBeenCalled();
  });
});

describe('SSO redirect and context update', () => {
  it('redirect mode navigates the page to the provider', async () => {
    const assign = vi.spyOn(location, 'assign').mockImplementation(() => {});
    const { open } = mockOpen();
    const id = route('POST', '/id/v2', oidcChallenge());
    const flow = signInWithSSO(client(), { method: 'oidc', options: { ux_mode: 'redirect', redirect_target: 'https://app.example.com/back' } });
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('https://idp.example.com/auth?x=1'));
    expect(open).not.toHaveBeenCalled();
    expect(id[0]!.body.factor.options).toMatchObject({ ux_mode: 'redirect', redirect_target: 'https://app.example.com/back' });
    expect(localStorage.getItem('keyway.csrf_token')).toBeTruthy();
    flow.cancel();
  });

  it('authn_context_update emits redirectDiscovered and continues with the new factor in the target org', async () => {
    const assign = vi.spyOn(location, 'assign').mockImplementation(() => {});
    const factor = { method: 'saml', options: { provider_credentials_id: 'pc1', ux_mode: 'redirect' } };
    const id = route('POST', '/id/v2', [{ id: 'u1', type: 'authn_context_update', options: { target_org_id: 'org2', factor } }], [
      { id: 's1', type: 'saml', options: { start_authentication_url: 'https://saml.example.com/start' } },
    ]);
    const c = client();
    const discovered = vi.fn();
    c.events.on('redirectDiscovered', discovered);
    const flow = authenticate(c, { handle: 'ada@corp.example.com', factor: { method: 'otp_via_email' } }, { ...basicChallenges, ...ssoChallenges });
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('https://saml.example.com/start'));
    expect(discovered).toHaveBeenCalledWith(expect.objectContaining({ targetOrgId: 'org2', factor }));
    expect(id[1]!.headers.get('keyway-orgid')).toBe('org2');
    expect(id[1]!.body.handle).toBeUndefined();
    expect(id[1]!.body.factor).toMatchObject({ method: 'saml', options: { provider_credentials_id: 'pc1' } });
    flow.cancel();
    await expect(flow.result).rejects.toBeInstanceOf(errors.FlowCancelledError);
  });
});
