import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { sameDigest, sha256 } from '../crypto/secrets.js';
import { getPerson } from '../persons/persons.js';
import type { UserTokenClaims } from '../tokens/token-service.js';

// The session of a browser at this server (OpenID Connect "End-User is authenticated with the OP"): signing in on the
// hosted login stores the person's user token in an HTTP-only cookie of this server, one per organization. With it,
// another client of the organization gets a code without a page (`prompt=none` included); RP-Initiated Logout revokes
// the token, which ends the session on every replica (revocations are shared), and clears the cookie.
//
// The value is the user token itself: signed, expiring, revocable, and it says when the person signed in (`iat`, the
// `auth_time` of every code of the session). Path `/oauth2` keeps it to the authorization, login and logout endpoints.
// SameSite=Lax: sent on top-level navigations (GET) from any site, never on cross-site posts or in cross-site frames.

const PREFIX = 'kw_session_';
const secure = (ctx: Ctx) => ctx.publicUrl.startsWith('https:');

/** The cookie of an organization's session (organization ids are kept to cookie-name characters). */
export const sessionCookieName = (orgId: string) => PREFIX + orgId.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * The signed-in person of this browser in `org`, when its session is valid (not expired, not revoked, not anonymous)
 * and its person still exists and is active (a person the organization deactivated or deleted signs in nowhere).
 */
export async function currentSession(ctx: Ctx, req: FastifyRequest, org: Org): Promise<UserTokenClaims | undefined> {
  const token = req.cookies[sessionCookieName(org.id)];
  if (!token) return undefined;
  const v = await ctx.tokens.validate(token, 'person');
  if (!v.valid || v.claims.token_use !== 'user' || v.claims.oid !== org.id) return undefined;
  return (await personMaySignIn(ctx, v.claims.person_id)) ? v.claims : undefined;
}

/** Whether the person exists and is active. */
export async function personMaySignIn(ctx: Ctx, personId: string): Promise<boolean> {
  const person = await getPerson(ctx, personId);
  return !!person && !!person.active;
}

// The hosted login's forms belong to the browser that opened the page: the page sets a random value in a cookie of its
// own (path /oauth2/login, SameSite=Lax, so a cross-site post never carries it) and the request keeps its digest. A
// form posted without it (another browser, a third-party page posting someone's request: login CSRF) is refused.

const loginCookieName = (requestId: string) => `kw_login_${requestId.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** Binds a new sign-in request to this browser; answers the digest the request keeps. */
export function bindLoginToBrowser(ctx: Ctx, reply: FastifyReply, requestId: string, ttlSeconds: number): string {
  const value = randomBytes(24).toString('base64url');
  reply.setCookie(loginCookieName(requestId), value, { path: '/oauth2/login', httpOnly: true, sameSite: 'lax', secure: secure(ctx), maxAge: ttlSeconds });
  return sha256(value);
}

/** Whether this browser opened the sign-in request whose digest is `digest`. */
export function loginBoundToBrowser(req: FastifyRequest, requestId: string, digest: string | undefined): boolean {
  const value = req.cookies[loginCookieName(requestId)];
  return !!value && !!digest && sameDigest(sha256(value), digest);
}

/** Forgets the binding once the request signed the person in. */
export function unbindLogin(ctx: Ctx, reply: FastifyReply, requestId: string): void {
  reply.clearCookie(loginCookieName(requestId), { path: '/oauth2/login', httpOnly: true, sameSite: 'lax', secure: secure(ctx) });
}

/** Starts (or replaces) the session of `org` with the person's fresh user token. */
export function startSession(ctx: Ctx, reply: FastifyReply, org: Org, token: string, claims: Pick<UserTokenClaims, 'exp'>): void {
  reply.setCookie(sessionCookieName(org.id), token, {
    path: '/oauth2',
    httpOnly: true,
    sameSite: 'lax',
    secure: secure(ctx),
    maxAge: Math.max(0, claims.exp - Math.floor(Date.now() / 1000)),
  });
}

/** The organizations this browser has a session cookie for (valid or not). */
export function sessionCookieOrgs(req: FastifyRequest): string[] {
  return Object.keys(req.cookies).filter((name) => name.startsWith(PREFIX));
}

/** Ends the sessions of the given cookies: their tokens are revoked (for every replica) and the cookies cleared. */
export async function endSessions(ctx: Ctx, req: FastifyRequest, reply: FastifyReply, cookieNames: string[]): Promise<void> {
  for (const name of cookieNames) {
    const token = req.cookies[name];
    if (token) {
      const v = await ctx.tokens.validate(token, 'person');
      if (v.valid) await ctx.tokens.revoke(v.claims);
    }
    reply.clearCookie(name, { path: '/oauth2', httpOnly: true, sameSite: 'lax', secure: secure(ctx) });
  }
}
