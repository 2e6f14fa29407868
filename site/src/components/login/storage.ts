import { jwtClaims } from '@keyway/sdk/jwt';
import { sameOriginPath } from '@keyway/sdk/redirect';
import gatedPrefixes from '../../data/gated-prefixes.json';
import { TOKEN_KEY } from './tokenKey';

// What the gate needs on every page, without the SDK (which loads only where a token is validated or issued).

export { TOKEN_KEY };
/** Where /login sends a visitor whose redirect_to is missing or not a path of this site. */
export const DEFAULT_RETURN = '/docs/intro';

export const isGatedPath = (pathname: string): boolean =>
  gatedPrefixes.some((p) => pathname === p || pathname.startsWith(`${p}/`));

/** The stored token, or null (also when storage is unavailable: a warning, and the gate treats it as absent). */
export function readToken(): string | null {
  try {
    return window.localStorage.getItem(TOKEN_KEY);
  } catch (error) {
    console.warn('Keyway docs: local storage is unavailable, sign-in cannot be remembered.', error);
    return null;
  }
}

/** Who a token names, for display only (the servers validate the token): its first handle, else the person id. */
export function signedInAs(token: string): string {
  const claims = jwtClaims(token) as { authentications?: { handle?: string }[]; person_id?: string } | undefined;
  const handle = Array.isArray(claims?.authentications) ? claims.authentications.find((a) => typeof a?.handle === 'string')?.handle : undefined;
  return handle ?? (typeof claims?.person_id === 'string' ? claims.person_id : 'a Keyway customer');
}

export function storeToken(token: string): void {
  try {
    window.localStorage.setItem(TOKEN_KEY, token);
  } catch (error) {
    console.warn('Keyway docs: local storage is unavailable, sign-in cannot be remembered.', error);
  }
}

export function clearToken(): void {
  try {
    window.localStorage.removeItem(TOKEN_KEY);
  } catch {
    // nothing stored then
  }
}

/**
 * The same-origin path (with search and hash) `redirect_to` names, or the default, by Keyway's shared redirect rule
 * (`@keyway/sdk/redirect`: normalized first, then same origin only). Never /login itself.
 */
export function safeRedirect(raw: string | null | undefined, origin: string): string {
  const to = sameOriginPath(raw, origin, DEFAULT_RETURN);
  return new URL(to, origin).pathname === '/login' ? DEFAULT_RETURN : to;
}

/** `/login?redirect_to=…` for a location of this site. */
export function loginHref(location: { pathname: string; search: string; hash: string }): string {
  return `/login?redirect_to=${encodeURIComponent(location.pathname + location.search + location.hash)}`;
}

