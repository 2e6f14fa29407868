import { UnexpectedError } from './errors.js';
import { getItem, setItem } from './storage.js';

/** base64url without padding. */
export const b64url = (bytes: ArrayBuffer | Uint8Array): string =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** Decodes base64url (padding optional). */
export const fromB64url = (s: string): Uint8Array<ArrayBuffer> =>
  Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

/** A random base64url string of `bytes` random bytes. */
export const randomToken = (bytes = 32): string => b64url(crypto.getRandomValues(new Uint8Array(bytes)));

/** PKCE S256 code challenge of a verifier: base64url(SHA-256(verifier)). */
export async function pkceChallenge(verifier: string): Promise<string> {
  if (!crypto.subtle) throw new UnexpectedError('PKCE needs a secure context (https or localhost)');
  return b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
}

const FEATURE = 'SSO and hosted login';

/** A fresh CSRF token and PKCE pair; the CSRF token and verifier are kept in local storage for the return. @internal */
export async function newPkce(): Promise<{ csrf: string; verifier: string; challenge: string }> {
  const csrf = randomToken(16);
  const verifier = randomToken();
  setItem('localStorage', 'csrf_token', csrf, FEATURE);
  setItem('localStorage', 'pkce_code_verifier', verifier, FEATURE);
  return { csrf, verifier, challenge: await pkceChallenge(verifier) };
}

/** The stored CSRF token and PKCE verifier (`null` when missing). @internal */
export const storedPkce = () => ({
  csrf: getItem('localStorage', 'csrf_token', FEATURE),
  verifier: getItem('localStorage', 'pkce_code_verifier', FEATURE),
});

/** Forgets the stored CSRF token and verifier once used. @internal */
export function clearPkce(): void {
  setItem('localStorage', 'csrf_token', null, FEATURE);
  setItem('localStorage', 'pkce_code_verifier', null, FEATURE);
}
