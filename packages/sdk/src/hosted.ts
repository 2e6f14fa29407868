import type { KeywayClient } from './client.js';
import { InvalidKeywayURLParamsError, UnexpectedError } from './errors.js';
import { clearPkce, newPkce, storedPkce } from './pkce.js';
import { getItem, setItem } from './storage.js';
import type { OAuthTokenResponse } from './types.js';

/** Options of the hosted login. */
export interface HostedLoginOptions {
  /** OAuth client id of the application. */
  clientId: string;
  /** Page the authorization server sends the person back to (with `code` and `state`). */
  redirectUri: string;
  /** Scopes (default `openid`). */
  scope?: string;
}

const FEATURE = 'hosted login';

/**
 * Sends the browser to the hosted login (`GET /oauth2/authorize`, authorization code with PKCE S256).
 * The client id and redirect URI are kept in session storage, the CSRF token (`state`) and PKCE
 * verifier in local storage, for {@link completeHostedLogin}.
 * @returns the authorize URL the page navigates to.
 */
export async function hostedLogin(client: KeywayClient, o: HostedLoginOptions): Promise<string> {
  const { csrf, challenge } = await newPkce();
  setItem('sessionStorage', 'oauth_client_id', o.clientId, FEATURE);
  setItem('sessionStorage', 'oauth_redirect_uri', o.redirectUri, FEATURE);
  const u = new URL(client.config.baseURL + '/oauth2/authorize');
  const q = {
    redirect_uri: o.redirectUri,
    client_id: o.clientId,
    response_type: 'code',
    state: csrf,
    scope: o.scope ?? 'openid',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    token: client.token,
  };
  for (const [k, v] of Object.entries(q)) if (v) u.searchParams.set(k, v);
  location.assign(u.href);
  return u.href;
}

/**
 * Completes the hosted login on the redirect page: checks `state` against the stored CSRF token
 * (`CSRF token mismatch`), then exchanges the code (`POST /oauth2/tokens`, form-encoded).
 * The access token becomes the client's token and the id_token its `idToken`: a hosted login's user
 * (`HostedLoginUser`) holds the access token, for the application's API and userinfo, not for Keyway's
 * first-party person calls.
 */
export async function completeHostedLogin(client: KeywayClient, params: URLSearchParams): Promise<OAuthTokenResponse> {
  const code = params.get('code');
  if (!code) throw new InvalidKeywayURLParamsError('the code parameter is missing');
  const clientId = getItem('sessionStorage', 'oauth_client_id', FEATURE);
  const redirectUri = getItem('sessionStorage', 'oauth_redirect_uri', FEATURE);
  if (!clientId || !redirectUri) throw new UnexpectedError('Client ID or redirect URI not found in session storage');
  const { csrf, verifier } = storedPkce();
  if (!csrf || !verifier) throw new UnexpectedError('CSRF token or PKCE code verifier not found');
  if (params.get('state') !== csrf) throw new InvalidKeywayURLParamsError('CSRF token mismatch');
  const r = await client
    .call<OAuthTokenResponse>('POST', '/oauth2/tokens', {
      body: { client_id: clientId, code, code_verifier: verifier, grant_type: 'authorization_code', redirect_uri: redirectUri },
      form: true,
      token: null,
    })
    .catch(() => undefined);
  const tokens = (r?.body.result ?? r?.body) as OAuthTokenResponse | undefined;
  if (!r || r.status >= 400 || !tokens?.access_token) throw new UnexpectedError('Failed to obtain access token');
  clearPkce();
  setItem('sessionStorage', 'oauth_client_id', null, FEATURE);
  setItem('sessionStorage', 'oauth_redirect_uri', null, FEATURE);
  client.token = tokens.access_token;
  client.idToken = tokens.id_token;
  return tokens;
}
