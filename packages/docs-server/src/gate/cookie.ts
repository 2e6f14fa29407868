/** The docs session cookie: the validated user token, readable by the server only. */
export const SESSION_COOKIE = 'keyway_docs_session';

/** The value of one cookie of a `Cookie` header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      return decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export interface CookieAttributes {
  maxAgeSeconds: number;
  secure: boolean;
}

/** `Set-Cookie` for the session: HttpOnly, SameSite=Lax, whole site, Secure outside development. */
export function sessionCookie(value: string, { maxAgeSeconds, secure }: CookieAttributes): string {
  const parts = [
    `${SESSION_COOKIE}=${encodeURIComponent(value)}`,
    'Path=/',
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Lax',
  ];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

/** `Set-Cookie` that removes the session. */
export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', { maxAgeSeconds: 0, secure }) + '; Expires=Thu, 01 Jan 1970 00:00:00 GMT';
}
