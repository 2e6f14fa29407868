import { track } from './analytics.js';
import { proxy } from './challenges.js';
import type { KeywayClient } from './client.js';
import { FlowCancelledError, InvalidAuthenticationMethodError, InvalidKeywayURLParamsError, POPUP_BLOCKED, UnexpectedError } from './errors.js';
import { startFlow, type ChallengeHandler, type ChallengeHandlers, type Flow } from './flow.js';
import { clearPkce, newPkce, storedPkce } from './pkce.js';
import type { Factor, OIDCFactorOptions, SAMLFactorOptions } from './types.js';

/** Size of the SSO popup. */
export const POPUP_SIZE = { width: 400, height: 600 } as const;
/** Text shown in the popup until the provider URL is set. */
export const POPUP_TEXT = 'You will be redirected in a moment...';
/** `type` of the message a popup return page posts to its opener. */
export const SSO_MESSAGE = 'sso_challenge';

/** Parameters of an SSO return (`sso_challenge_id`, `sso_code`, `csrf_token`). */
export interface SSOReturn {
  /** `sso_challenge_id`. */
  challenge_id: string;
  /** `sso_code`. */
  code: string;
  /** `csrf_token`, compared with the stored one. */
  csrf_token?: string;
}

const label = (m: string) => (m === 'saml' ? 'SAML' : 'OIDC');
const isHttp = (u: unknown) => {
  try {
    return /^https?:$/.test(new URL(u as string).protocol);
  } catch {
    return false;
  }
};

/**
 * Opens the centred 400×600 SSO popup showing `You will be redirected in a moment...`.
 * Must run in the click handler (before any `await`) or browsers block it.
 * @returns the window, or `null` when it was blocked.
 */
export function openPopup(): Window | null {
  const { width, height } = POPUP_SIZE;
  const left = Math.max(0, (window.screenX ?? 0) + ((window.outerWidth || width) - width) / 2);
  const top = Math.max(0, (window.screenY ?? 0) + ((window.outerHeight || height) - height) / 2);
  const w = window.open('', 'keyway-sso', `popup,width=${width},height=${height},left=${left},top=${top}`);
  try {
    if (w) w.document.body.textContent = POPUP_TEXT;
  } catch {
    /* cross-origin window: leave it */
  }
  return w;
}

/**
 * Checks an OIDC or SAML factor: no handle, `ux_mode` popup (default) or redirect, redirect
 * target http(s) (default: the current page).
 * @returns the factor with its defaults applied.
 */
export function checkSSOFactor(factor: Factor, handle?: string): Factor {
  const m = factor.method;
  const o = { ...(factor.options as OIDCFactorOptions & SAMLFactorOptions) };
  if (handle) throw new InvalidAuthenticationMethodError(`${label(m)} should not be used with handles`);
  o.ux_mode ??= 'popup';
  if (o.ux_mode !== 'popup' && o.ux_mode !== 'redirect')
    throw new InvalidAuthenticationMethodError(m === 'saml' ? 'Unsupported SAML ux_mode' : 'Unsupported OAuth ux_mode');
  if (o.ux_mode === 'redirect') {
    o.redirect_target ??= location.href;
    if (!isHttp(o.redirect_target)) throw new InvalidAuthenticationMethodError('Bad OAuth URL');
  }
  return { method: m, options: o };
}

/** Adds a fresh CSRF token and PKCE challenge to the factor and the request metadata. */
async function withPkce(flow: Flow, factor: Factor, org?: string): Promise<string | undefined> {
  const { csrf, challenge } = await newPkce();
  const options = { ...factor.options, csrf_token: csrf, pkce_code_challenge: challenge };
  return flow.identify({
    ...flow.request,
    handle: undefined,
    factor: { ...factor, options },
    metadata: { csrf_token: csrf, pkce_code_challenge: challenge },
    org: org ?? flow.request.org,
  });
}

/**
 * Completes an SSO return: checks the CSRF token against the stored one (`CSRF token mismatch`),
 * posts `/sso/resolve` with the PKCE verifier, then polls the challenge for the token.
 */
export async function completeSSO(flow: Flow, ret: SSOReturn, checkCsrf = true): Promise<string | undefined> {
  const { csrf, verifier } = storedPkce();
  if (checkCsrf && (!csrf || ret.csrf_token !== csrf)) throw new InvalidKeywayURLParamsError('CSRF token mismatch');
  await flow.client.request('POST', '/sso/resolve', {
    body: { challenge_id: ret.challenge_id, code: ret.code, pkce_code_verifier: verifier ?? '' },
    org: flow.request.org ?? true,
    token: null,
  });
  clearPkce();
  return (await proxy(flow, { id: ret.challenge_id, type: 'proxy', options: { challenge_id: ret.challenge_id } })) || undefined;
}

/** `oidc` and `saml` challenges: open the provider in the popup (or navigate in redirect mode) and wait for the return. */
export const ssoChallenge: ChallengeHandler = async (flow, ch) => {
  const saml = ch.type === 'saml';
  const o = ch.options as { auth_code_url?: string; start_authentication_url?: string };
  const url = saml ? o.start_authentication_url : o.auth_code_url;
  const mode = (flow.request.factor.options as OIDCFactorOptions | undefined)?.ux_mode ?? 'popup';
  const popup = flow.request.popup;
  const fail = (e: Error) => {
    popup?.close();
    flow.emit('oauthFlowFailed', { errorText: e.message, error: e });
    return e;
  };
  if (!isHttp(url)) throw fail(new UnexpectedError(saml ? 'Bad authentication URL' : 'Bad OAuth sign in URL'));
  flow.emit('oauthFlowStarted', { method: saml ? 'saml' : 'oidc', uxMode: mode, url: url! });
  if (mode === 'redirect') {
    location.assign(url!);
    return flow.until(() => {});
  }
  if (!popup || popup.closed) throw popupBlocked(flow);
  popup.location.href = url!;
  const ret = await flow
    .until<SSOReturn>((resolve, reject) => {
      const onMessage = (e: MessageEvent) => {
        if (e.source === popup && e.data?.type === SSO_MESSAGE) resolve(e.data as SSOReturn);
      };
      const t = setInterval(() => {
        if (popup.closed) reject(new UnexpectedError(`${label(ch.type)} flow unsuccesful!`));
      }, 500);
      addEventListener('message', onMessage);
      return () => {
        clearInterval(t);
        removeEventListener('message', onMessage);
        popup.close();
      };
    })
    .catch((e: Error) => {
      throw e instanceof FlowCancelledError ? e : fail(e);
    });
  return completeSSO(flow, ret);
};

function popupBlocked(flow: Flow): Error {
  const e = new UnexpectedError(POPUP_BLOCKED);
  flow.emit('popupFailed', { errorText: e.message, error: e });
  void track(flow.client, 'AuthenticationFailed_v1', {
    failed_authn_method: flow.request.factor.method,
    failure_reason: 'oidc_popup_blocked',
  });
  return e;
}

/**
 * `authn_context_update`: emits `redirectDiscovered`, then continues the flow with the factor the
 * server named (OIDC or SAML) in the target organization.
 */
export const authnContextUpdate: ChallengeHandler = async (flow, ch) => {
  const { target_org_id, factor } = ch.options as { target_org_id: string; factor: Factor };
  flow.emit('redirectDiscovered', { targetOrgId: target_org_id, factor });
  const checked = checkSSOFactor(factor);
  if ((checked.options as OIDCFactorOptions).ux_mode === 'popup' && !flow.request.popup) flow.request.popup = openPopup();
  flow.request.factor = checked;
  return withPkce(flow, checked, target_org_id);
};

/** Handlers of the SSO challenges: `oidc`, `saml` and `authn_context_update`. */
export const ssoChallenges = {
  oidc: ssoChallenge,
  saml: ssoChallenge,
  authn_context_update: authnContextUpdate,
} satisfies ChallengeHandlers;

/**
 * Starts an OIDC or SAML sign-in. In popup mode call it from a click handler: the popup opens
 * at once. In redirect mode the page navigates to the provider and the flow completes on return
 * (see {@link handleURL}). Passing a `handle` is an error: SSO takes none.
 */
export function signInWithSSO(client: KeywayClient, factor: Factor, handlers: ChallengeHandlers = {}, handle?: string): Flow {
  let checked: Factor | undefined;
  let error: unknown;
  try {
    checked = checkSSOFactor(factor, handle);
  } catch (e) {
    error = e;
  }
  const popup = (checked?.options as OIDCFactorOptions | undefined)?.ux_mode === 'popup' ? openPopup() : undefined;
  return startFlow(client, 'auth', { factor: checked ?? factor, popup }, { ...ssoChallenges, ...handlers }, (flow) => {
    if (error) throw error;
    if (popup === null) throw popupBlocked(flow);
    return withPkce(flow, checked!);
  });
}
