import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, OAuthClient, Org } from '../context.js';
import { escapeHtml } from '../http/html.js';
import { page } from './hosted-page.js';
import { findClient, redirectAllowed, withParams } from './protocol.js';
import type { Wire } from '../http/wire.js';
import { endSessions, sessionCookieName, sessionCookieOrgs } from './session.js';

// OpenID Connect RP-Initiated Logout 1.0 (`end_session_endpoint`): ends the browser's session at this server.

/** The longest lifetime of a user token (an organization's `token_duration` is at most 30 days): a session's bound. */
const MAX_SESSION_SECONDS = 30 * 24 * 3600;

type LogoutParams = Partial<Record<'id_token_hint' | 'post_logout_redirect_uri' | 'client_id' | 'state' | 'logout_hint' | 'ui_locales' | 'confirm', string>>;

const signedOut = (reply: FastifyReply, status = 200, message = 'You are signed out.') => page(reply, status, 'Signed out', `<p>${escapeHtml(message)}</p>`);

/**
 * `GET`/`POST /oauth2/logout`. With a valid `id_token_hint` whose person is the session's (or no session at all), the
 * session of the hint's organization ends at once; otherwise the page asks the person to confirm (a link from anywhere
 * must not sign someone out: the confirmation posts back here, and a SameSite=Lax cookie reaches only a same-site post).
 * Then the browser goes to `post_logout_redirect_uri` with `state` when it is registered for the client, or a
 * "signed out" page. An unregistered `post_logout_redirect_uri` is refused on a page, never followed.
 */
async function logout(ctx: Ctx, req: FastifyRequest, reply: FastifyReply, p: LogoutParams) {
  if (req.validationError) return signedOut(reply, 400, `The sign-out request is not valid: ${req.validationError.message}.`);
  let client: { org: Org; client: OAuthClient } | undefined;
  let hint: { sub: string; aud: string; oid: string; sid?: string } | undefined;
  if (p.id_token_hint) {
    hint = await ctx.tokens.idTokenHint(p.id_token_hint);
    if (!hint) return signedOut(reply, 400, 'The sign-out request names an id_token_hint this server did not issue.');
    client = await findClient(ctx, hint.aud);
  }
  if (p.client_id) {
    if (hint && hint.aud !== p.client_id) return signedOut(reply, 400, 'client_id and id_token_hint name different clients.');
    client ??= await findClient(ctx, p.client_id);
    if (!client) return signedOut(reply, 400, `Unknown client_id "${p.client_id}".`);
  }
  const redirect = p.post_logout_redirect_uri;
  if (redirect !== undefined) {
    if (!client) return signedOut(reply, 400, 'post_logout_redirect_uri needs id_token_hint or client_id, to know whose addresses to check.');
    // Registered exactly (in development, like redirect URIs, also any address on an allowed browser origin).
    if (!redirectAllowed(ctx, client.client.post_logout_redirect_uris ?? [], redirect)) return signedOut(reply, 400, 'post_logout_redirect_uri is not registered for this client.');
  }
  // Which sessions end: the organization of the client, else every session of this browser.
  const orgId = hint?.oid ?? client?.org.id;
  const cookies = orgId ? [sessionCookieName(orgId)].filter((n) => req.cookies[n] !== undefined) : sessionCookieOrgs(req);
  const session = orgId && cookies[0] ? (await ctx.tokens.validate(req.cookies[cookies[0]]!, 'person')) : undefined;
  const matches = hint && (!session?.valid || session.claims.sub === hint.sub);
  // Only the confirmation page's own form confirms: a POST (a SameSite=Lax cookie reaches it only from this site), never a link.
  const confirmed = req.method === 'POST' && p.confirm === 'yes';
  if (!matches && !confirmed && cookies.length) {
    const fields = Object.entries({ ...p, confirm: 'yes' })
      .filter((e): e is [string, string] => typeof e[1] === 'string')
      .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
      .join('');
    return page(reply, 200, 'Sign out', `<p>Do you want to sign out?</p><form method="post" action="/oauth2/logout">${fields}<button type="submit">Sign out</button></form>`, undefined, redirect);
  }
  await endSessions(ctx, req, reply, cookies);
  // The session the id_token was issued in (`sid`) ends too, cookie or not: a logout posted from the application's
  // site reaches this server without the SameSite=Lax cookie. A session token lives at most the longest token lifetime.
  if (hint?.sid && !(await ctx.tokens.isRevoked(hint.sid))) await ctx.tokens.revoke({ jti: hint.sid, exp: Math.floor(Date.now() / 1000) + MAX_SESSION_SECONDS });
  if (redirect !== undefined) return reply.redirect(withParams(redirect, { state: p.state }), 302);
  return signedOut(reply);
}

/** The end_session_endpoint (form posts and cookies in its own scope). */
export async function logoutRoutes(scope: FastifyInstance, { ctx }: { ctx: Ctx }): Promise<void> {
  await scope.register(formbody, { bodyLimit: 16 * 1024 });
  await scope.register(cookie);
  scope.get<Wire<'/oauth2/logout', 'get'>>('/oauth2/logout', { attachValidation: true }, (req, reply) => logout(ctx, req, reply, req.query));
  scope.post<Wire<'/oauth2/logout', 'post'>>('/oauth2/logout', { attachValidation: true }, (req, reply) => logout(ctx, req, reply, req.body ?? {}));
}
