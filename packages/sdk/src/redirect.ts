// The one redirect rule of Keyway (the site's /login `redirect_to`, @keyway/react's loginMiddleware and the identity
// server's `redirect_target`s and `target_url`s all import it): normalize first, then compare origins.

/** Longest redirect value accepted (characters). */
export const MAX_REDIRECT_LENGTH = 2048;

/**
 * The URL `value` names, resolved against `base` the way a browser would (`new URL(value, base)`: dot segments,
 * `%2e` dots, backslashes, `//host` and stripped tabs/newlines are applied before anything is compared), when it stays
 * on `base`'s origin or on an origin `allowOrigin` accepts; otherwise `null`.
 *
 * Refused before parsing: non-strings, empty or over-long values, control characters (`U+0000`–`U+001F`, `U+007F`)
 * and raw backslashes. Refused after parsing: schemes other than http and https,
 * credentials in the URL, and every origin other than the allowed ones.
 */
export function allowedRedirectURL(value: unknown, base: string, allowOrigin?: (origin: string, url: URL) => boolean): URL | null {
  if (typeof value !== 'string' || value === '' || value.length > MAX_REDIRECT_LENGTH) return null;
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return null;
  let url: URL;
  let home: URL;
  try {
    home = new URL(base);
    url = new URL(value, home);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  if (url.origin === home.origin) return url;
  return allowOrigin?.(url.origin, url) ? url : null;
}

/**
 * The same-origin path (with search and hash) `value` names, relative to `origin`, or `fallback`. The result always
 * starts with exactly one `/`, so a browser given it never leaves the site (a normalized `/.//host` would otherwise
 * read as the protocol-relative `//host`).
 */
export function sameOriginPath(value: unknown, origin: string, fallback: string): string {
  const url = allowedRedirectURL(value, origin);
  if (!url) return fallback;
  return `/${url.pathname.replace(/^\/+/, '')}${url.search}${url.hash}`;
}
