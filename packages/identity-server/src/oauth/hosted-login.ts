import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Ctx, UiConfiguration } from '../context.js';
import { badRequest } from '../http/errors.js';
import { clientIp } from '../http/guards.js';
import { escapeHtml } from '../http/html.js';
import { RateLimitError } from '../http/rate-limit.js';
import { loadOrg } from '../organizations/settings.js';
import { parseHandle } from '../persons/handles.js';
import { challengeData, createChallenge } from '../signin/challenges.js';
import { answerOtp, otpFactor } from '../signin/factors/otp.js';
import { findClient, issueCode, redirectAllowed, str, withParams, type OAuthRequest } from './protocol.js';
import type { Wire } from '../http/wire.js';

// The hosted login of OAuth2 clients: `/oauth2/authorize` and its e-mail and code forms (no script on these pages).

/**
 * The Content-Security-Policy of a hosted login page: no script at all, its own inline style, https logos, and forms that
 * post here only — plus the client's redirect origin, where the code form's answer redirects (Chromium checks
 * form-action on redirects too).
 */
export function hostedLoginCsp(redirectUri?: string): string {
  let redirectOrigin = '';
  try {
    if (redirectUri) redirectOrigin = ` ${new URL(redirectUri).origin}`;
  } catch {
    // An unparsable redirect URI was refused before any page is shown.
  }
  return ["default-src 'none'", "style-src 'unsafe-inline'", 'img-src https: data:', `form-action 'self'${redirectOrigin}`, "base-uri 'none'", "frame-ancestors 'none'"].join('; ');
}

/** A hosted login page; the client's UI configuration (title, colour, logo) styles the sign-in page. */
function page(reply: FastifyReply, status: number, title: string, body: string, ui?: UiConfiguration, redirectUri?: string) {
  const heading = ui?.title ?? title;
  const color = ui?.primary_color && /^#[0-9a-fA-F]{6}$/.test(ui.primary_color) ? ui.primary_color : undefined;
  const logo = ui?.logo_url ? `<img src="${escapeHtml(ui.logo_url)}" alt="" style="max-height:3rem">` : '';
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', hostedLoginCsp(redirectUri))
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(heading)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}input,button{font:inherit;padding:.5rem;width:100%;box-sizing:border-box;margin:.25rem 0}.error{color:#b00020}${color ? `button{background:${color};color:#fff;border:0;border-radius:4px}` : ''}</style></head>
<body>${logo}<h1>${escapeHtml(heading)}</h1>${body}</body></html>`);
}

const emailForm = (requestId: string, clientName: string, error?: string, email = '') => `
<p>Sign in to continue to ${escapeHtml(clientName)}.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/oauth2/login">
<input type="hidden" name="request_id" value="${escapeHtml(requestId)}">
<label for="email">Email address</label><input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(email)}">
<button type="submit">Send me a code</button></form>`;

const codeForm = (requestId: string, challengeId: string, email: string, error?: string) => `
<p>We sent a 6-digit code to ${escapeHtml(email)}.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/oauth2/login/code">
<input type="hidden" name="request_id" value="${escapeHtml(requestId)}"><input type="hidden" name="challenge_id" value="${escapeHtml(challengeId)}">
<input type="hidden" name="email" value="${escapeHtml(email)}">
<label for="code">Code</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">Sign in</button></form>`;

/** `/oauth2/authorize`: a signed-in person's token skips the form, else the e-mail form. */
export function registerAuthorizeRoute(app: FastifyInstance, ctx: Ctx): void {
  app.get<Wire<'/oauth2/authorize', 'get'>>(
    '/oauth2/authorize',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: { response_type: str, client_id: str, redirect_uri: str, state: str, scope: str, code_challenge: str, code_challenge_method: str, nonce: str, token: { type: 'string', maxLength: 16384 } },
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      if (!q.client_id) throw badRequest('client_id is required');
      const found = await findClient(ctx, q.client_id);
      if (!found) throw badRequest(`unknown client_id "${q.client_id}"`);
      if (!q.redirect_uri || !redirectAllowed(ctx, found.client.redirect_uris, q.redirect_uri)) throw badRequest('redirect_uri is not registered for this client');
      const fail = (error: string, description: string) => reply.redirect(withParams(q.redirect_uri!, { error, error_description: description, state: q.state }), 302);
      if (q.response_type !== 'code') return fail('unsupported_response_type', 'response_type must be code');
      if (q.code_challenge_method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
      if (!q.code_challenge || !/^[A-Za-z0-9_-]{43,128}$/.test(q.code_challenge)) return fail('invalid_request', 'code_challenge must be a base64url SHA-256 of the verifier');
      const scope = q.scope ?? 'openid';
      if (!scope.split(' ').includes('openid')) return fail('invalid_scope', 'scope must include openid');
      const request: OAuthRequest = { client_id: q.client_id, redirect_uri: q.redirect_uri, scope, code_challenge: q.code_challenge, ...(q.state ? { state: q.state } : {}), ...(q.nonce ? { nonce: q.nonce } : {}) };
      if (q.token) {
        // The SDK sends the token it holds. A signed-in person's user token (or this client's own access token) skips
        // the form; an anonymous, expired or revoked one shows the form (the person signs in again); any other token
        // (malformed, forged, a container, an id_token, a client token, another organization's) is refused with the reason.
        const v = await ctx.tokens.validate(q.token, 'person');
        const stale = !v.valid && /expired|revoked/.test(v.invalidity_reason);
        const reason = !v.valid
          ? v.invalidity_reason
          : v.claims.oid !== found.org.id
            ? 'token belongs to another organization'
            : v.claims.token_use === 'access' && v.claims.client_id !== q.client_id
              ? 'token is an access token of another client'
              : undefined;
        if (reason && !stale) return fail('invalid_request', `token: ${reason}`);
        if (v.valid && !reason && v.claims.token_use !== 'anonymous') {
          const code = await issueCode(ctx, found.org, request, v.claims);
          return reply.redirect(withParams(q.redirect_uri, { code, state: q.state }), 302);
        }
      }
      const row = await createChallenge(ctx, { org: found.org, type: 'oauth_request', method: 'oauth2', data: { ...request, client_name: found.client.name } });
      return page(reply, 200, 'Sign in', emailForm(row.id, found.client.name), found.client.ui_configuration, q.redirect_uri);
    },
  );
}

/** The e-mail and code forms of the hosted login (form-encoded posts). */
export async function loginFormRoutes(scope: FastifyInstance, { ctx }: { ctx: Ctx }): Promise<void> {
  await scope.register(formbody, { bodyLimit: 16 * 1024 });
  const loadRequest = async (id: string) => {
    const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || row.type !== 'oauth_request' || Date.parse(row.expires_at) <= Date.now()) return undefined;
    const org = await loadOrg(ctx, row.org_id);
    return org ? { row, org, request: challengeData(row) as unknown as OAuthRequest & { client_name: string } } : undefined;
  };
  const expired = (reply: FastifyReply) => page(reply, 400, 'Sign-in expired', '<p>This sign-in page has expired. Go back to the application and start again.</p>');

  scope.post<{ Body: { request_id?: string; email?: string } }>(
    '/oauth2/login',
    { schema: { body: { type: 'object', additionalProperties: false, required: ['request_id', 'email'], properties: { request_id: str, email: str } } } },
    async (req, reply) => {
      const pending = await loadRequest(req.body.request_id!);
      if (!pending) return expired(reply);
      try {
        // The same limits as /id: per client address, then per handle.
        await ctx.limiter.hit('id-ip', clientIp(req), ctx.limits.perIpPerMinute, 'sign-in attempts from this address');
        const handle = parseHandle(req.body.email!);
        if (handle.type !== 'email_address') throw badRequest('enter an email address');
        await ctx.limiter.hit('id-handle', `${pending.org.id}:${handle.type}:${handle.value}`, ctx.limits.perHandlePerMinute, 'sign-in attempts for this handle');
        const [ch] = await otpFactor('email').start(ctx, { org: pending.org, handle, method: 'otp_via_email', options: {}, previous: undefined, metadata: undefined });
        return page(reply, 200, 'Enter your code', codeForm(pending.row.id, ch!.id, handle.value), undefined, pending.request.redirect_uri);
      } catch (err) {
        if (err instanceof RateLimitError) reply.header('retry-after', String(err.retryAfterSeconds));
        const status = err instanceof RateLimitError ? 429 : 400;
        return page(reply, status, 'Sign in', emailForm(pending.row.id, pending.request.client_name, (err as Error).message, req.body.email), undefined, pending.request.redirect_uri);
      }
    },
  );

  scope.post<{ Body: { request_id?: string; challenge_id?: string; email?: string; code?: string } }>(
    '/oauth2/login/code',
    { schema: { body: { type: 'object', additionalProperties: false, required: ['request_id', 'challenge_id', 'code'], properties: { request_id: str, challenge_id: str, email: str, code: str } } } },
    async (req, reply) => {
      const pending = await loadRequest(req.body.request_id!);
      if (!pending) return expired(reply);
      const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', req.body.challenge_id!).executeTakeFirst();
      if (!row || row.type !== 'otp' || row.org_id !== pending.org.id) return expired(reply);
      let token: string;
      try {
        if (row.status !== 'pending') throw badRequest('this code was already used: start again');
        if (Date.parse(row.expires_at) <= Date.now()) throw badRequest('the code has expired: start again');
        token = await answerOtp(ctx, row, { otp: req.body.code ?? '' });
      } catch (err) {
        if (err instanceof RateLimitError) reply.header('retry-after', String(err.retryAfterSeconds));
        const status = err instanceof RateLimitError ? 429 : 400;
        return page(reply, status, 'Enter your code', codeForm(pending.row.id, row.id, req.body.email ?? '', (err as Error).message), undefined, pending.request.redirect_uri);
      }
      const v = await ctx.tokens.validate(token, 'person');
      if (!v.valid) return expired(reply);
      await ctx.db.updateTable('challenges').set({ status: 'completed' }).where('id', '=', pending.row.id).execute();
      const code = await issueCode(ctx, pending.org, pending.request, v.claims);
      return reply.redirect(withParams(pending.request.redirect_uri, { code, state: pending.request.state }), 303);
    },
  );
}
