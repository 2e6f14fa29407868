import type { CookieSerializeOptions } from '@fastify/cookie';

/** The docs session cookie: the validated user token, readable by the server only. */
export const SESSION_COOKIE = 'keyway_docs_session';

/**
 * Attributes of the session cookie (written and parsed by @fastify/cookie): HttpOnly, SameSite=Lax, the whole site,
 * Secure outside development, kept `maxAgeSeconds` (whole seconds, never negative).
 */
export function sessionCookieOptions(maxAgeSeconds: number, secure: boolean): CookieSerializeOptions {
  return { path: '/', maxAge: Math.max(0, Math.floor(maxAgeSeconds)), httpOnly: true, sameSite: 'lax', secure };
}
