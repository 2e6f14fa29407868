import { randomBytes, randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, Org, UiConfiguration } from '../context.js';
import { badRequest } from '../http/errors.js';
import { clientIp } from '../http/guards.js';
import { escapeHtml } from '../http/html.js';
import { hostedLoginCsp, page } from './hosted-page.js';
import { RateLimitError } from '../http/rate-limit.js';
import { loadOrg } from '../organizations/settings.js';
import { parseHandle } from '../persons/handles.js';
import { challengeData, createChallenge } from '../signin/challenges.js';
import { answerOtp, otpFactor } from '../signin/factors/otp.js';
import { DELAYED_NOTICE } from '../email/mailer.js';
import { describeValidation, type ValidationIssue } from '../http/validation.js';
import { findClient, issueCode, redirectAllowed, str, withParams, type OAuthRequest } from './protocol.js';
import { bindLoginToBrowser, currentSession, loginBoundToBrowser, personMaySignIn, startSession, unbindLogin } from './session.js';
import type { Wire } from '../http/wire.js';
import { NOT_ACCEPTED, type UserTokenClaims } from '../tokens/token-model.js';

// The hosted login of OAuth2 clients: `/oauth2/authorize` and its e-mail and code forms (no script on these pages).

/** Texts of the page a client may override (`textOverrides`), with their defaults. */
export type PageTexts = Record<'intro' | 'emailLabel' | 'sendCode' | 'codeIntro' | 'codeLabel' | 'verify', string>;
function texts(ui: UiConfiguration | undefined, clientName: string, email = ''): PageTexts {
  const o = ui?.textOverrides ?? {};
  return {
    intro: o.intro ?? `Sign in to continue to ${clientName}.`,
    emailLabel: o.emailLabel ?? 'Email address',
    sendCode: o.sendCode ?? 'Send me a code',
    codeIntro: o.codeIntro ?? `We sent a 6-digit code to ${email}.`,
    codeLabel: o.codeLabel ?? 'Code',
    verify: o.verify ?? 'Sign in',
  };
}

const emailForm = (requestId: string, t: PageTexts, error?: string, email = '') => `
<p>${escapeHtml(t.intro)}</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/oauth2/login">
<input type="hidden" name="request_id" value="${escapeHtml(requestId)}">
<label for="email">${escapeHtml(t.emailLabel)}</label><input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(email)}">
<button type="submit">${escapeHtml(t.sendCode)}</button></form>`;

const codeForm = (requestId: string, challengeId: string, email: string, t: PageTexts, error?: string, delayed = false) => `
<p>${escapeHtml(t.codeIntro)}</p>
${delayed ? `<p class="notice" role="status">${escapeHtml(DELAYED_NOTICE)}</p>` : ''}
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/oauth2/login/code">
<input type="hidden" name="request_id" value="${escapeHtml(requestId)}"><input type="hidden" name="challenge_id" value="${escapeHtml(challengeId)}">
<input type="hidden" name="email" value="${escapeHtml(email)}">
<label for="code">${escapeHtml(t.codeLabel)}</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">${escapeHtml(t.verify)}</button></form>`;

/**
 * Where the authorization answer goes: the redirect URI's query (default), its fragment, or a form posted to it. Every
 * answer names this server as `iss` (RFC 9207), so a client talking to several servers knows which one answered.
 */
function answerTo(ctx: Ctx, reply: FastifyReply, request: Pick<OAuthRequest, 'redirect_uri' | 'response_mode'>, answer: Record<string, string | undefined>, status: 302 | 303) {
  const params = { ...answer, iss: ctx.publicUrl };
  const mode = request.response_mode ?? 'query';
  if (mode === 'fragment') {
    const u = new URL(request.redirect_uri);
    u.hash = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
    return reply.redirect(u.toString(), status);
  }
  if (mode === 'form_post') {
    // OAuth 2.0 Form Post Response Mode: a page that posts the answer to the redirect URI at once.
    const nonce = randomBytes(16).toString('base64');
    const fields = Object.entries(params)
      .filter((e): e is [string, string] => e[1] !== undefined)
      .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
      .join('');
    return reply
      .code(200)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', `${hostedLoginCsp(request.redirect_uri)}; script-src 'nonce-${nonce}'`)
      .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signing in…</title></head><body><form method="post" action="${escapeHtml(request.redirect_uri)}">${fields}<noscript><button type="submit">Continue</button></noscript></form><script nonce="${nonce}">document.forms[0].submit()</script></body></html>`);
  }
  return reply.redirect(withParams(request.redirect_uri, params), status);
}

const PROMPTS = new Set(['none', 'login', 'consent', 'select_account']);

/** Fields of an authorization request, from the query (GET) or the form (POST). */
type AuthorizeParams = Partial<Record<'response_type' | 'client_id' | 'redirect_uri' | 'state' | 'scope' | 'code_challenge' | 'code_challenge_method' | 'nonce' | 'token' | 'prompt' | 'login_hint' | 'response_mode' | 'handle_types' | 'display' | 'ui_locales' | 'acr_values' | 'id_token_hint' | 'request' | 'request_uri', string>> & { max_age?: number | string };

/**
 * The OAuth error of an invalid authorization request (RFC 6749 §4.1.2.1), from the contract's verdict on it: a missing
 * or repeated parameter is `invalid_request`; a `response_type` it does not offer is `unsupported_response_type`; a
 * malformed `scope` is `invalid_scope`; anything else is `invalid_request`. The description is the validator's sentence.
 */
function authorizationError(err: { validation?: unknown }, where: 'query' | 'body'): { error: string; description: string } {
  const issues = (err.validation ?? []) as ValidationIssue[];
  const description = describeValidation(where, issues).replace(/^(query|body)\./, '');
  const first = issues.find((i) => i.keyword !== 'required') ?? issues[0];
  const param = first?.keyword === 'required' ? undefined : first?.instancePath.split('/')[1];
  const error = param === 'response_type' ? 'unsupported_response_type' : param === 'scope' ? 'invalid_scope' : 'invalid_request';
  return { error, description };
}

/**
 * The person a development server's `token` parameter names. An anonymous, expired or revoked token names nobody (the
 * form shows, the person signs in again), and so does an OAuth2 access token (#36: it is never exchanged, here for a new
 * code that could ask for more scopes) or a token of a person who may not sign in; any other token (malformed, forged, a
 * container, an id_token, a client token, another organization's) is refused with the reason.
 */
async function devToken(ctx: Ctx, token: string, org: Org): Promise<{ claims: UserTokenClaims | undefined } | { refused: string }> {
  const v = await ctx.tokens.validate(token, 'person');
  const stale = !v.valid && (/expired|revoked/.test(v.invalidity_reason) || v.invalidity_reason === NOT_ACCEPTED.access);
  const reason = !v.valid ? v.invalidity_reason : v.claims.oid !== org.id ? 'token belongs to another organization' : undefined;
  if (reason && !stale) return { refused: reason };
  const named = v.valid && !reason && v.claims.token_use !== 'anonymous' && (await personMaySignIn(ctx, v.claims.person_id));
  return { claims: named ? v.claims : undefined };
}

/**
 * `/oauth2/authorize` (GET, and POST with the same fields form-encoded: OpenID Connect Core §3.1.2.1). A browser with a
 * session at this server (the hosted login's cookie) gets a code without a page; else the e-mail form. Unknown
 * `client_id` or unregistered `redirect_uri`: a 400 page (never a redirect to an address nobody registered); every
 * other error goes back to the client (RFC 6749 §4.1.2.1) with `state` and `iss`. OpenID Connect parameters: `prompt`
 * (`none`: answer without a page, `login_required` without a session; `login`/`select_account`: always the form;
 * `consent`: nothing to ask, clients are the organization's own), `login_hint` (prefills the e-mail), `max_age` (a
 * sign-in older than that many seconds shows the form), `id_token_hint`, `response_mode` (query, fragment, form_post),
 * `handle_types` (must allow `email_address`, the page's handle); `display`, `ui_locales` and `acr_values` are accepted
 * and change nothing (one responsive English page, one assurance level); `request` and `request_uri` are refused.
 */
async function authorize(ctx: Ctx, req: FastifyRequest, reply: FastifyReply, q: AuthorizeParams, where: 'query' | 'body') {
  // Nowhere safe to send the answer: the person reads it here (RFC 6749 §4.1.2.1), on a page without a way onwards.
  const refuse = (message: string) => page(reply, 400, 'Sign-in error', `<p class="error" role="alert">${escapeHtml(message)}.</p><p>The application that sent you here is not set up for this sign-in. Go back to it and tell its owner.</p>`);
  if (!q.client_id || typeof q.client_id !== 'string') return refuse('client_id is required');
  const found = await findClient(ctx, q.client_id);
  if (!found) return refuse(`Unknown client_id "${q.client_id}"`);
  if (!q.redirect_uri || typeof q.redirect_uri !== 'string' || !redirectAllowed(ctx, found.client.redirect_uris, q.redirect_uri)) return refuse('redirect_uri is not registered for this client');
  const mode = typeof q.response_mode === 'string' && ['query', 'fragment', 'form_post'].includes(q.response_mode) ? (q.response_mode as OAuthRequest['response_mode']) : undefined;
  const state = typeof q.state === 'string' ? q.state : undefined;
  const fail = (error: string, description: string) => answerTo(ctx, reply, { redirect_uri: q.redirect_uri!, response_mode: mode }, { error, error_description: description, state }, 302);
  if (q.request !== undefined) return fail('request_not_supported', 'request objects (the request parameter) are not supported: send the parameters themselves');
  if (q.request_uri !== undefined) return fail('request_uri_not_supported', 'request_uri is not supported: send the parameters themselves');
  if (req.validationError) {
    const { error, description } = authorizationError(req.validationError, where);
    return fail(error, description);
  }
  if (q.response_mode && !mode) return fail('invalid_request', 'response_mode must be query, fragment or form_post');
  if (!(found.client.grant_types ?? ['authorization_code']).includes('authorization_code')) return fail('unauthorized_client', 'this client is not allowed the authorization_code grant');
  if (q.response_type !== 'code') return fail(q.response_type ? 'unsupported_response_type' : 'invalid_request', 'response_type must be code');
  // PKCE (S256) is required of public clients; a confidential client proves itself with its secret at the token endpoint.
  if (q.code_challenge === undefined && q.code_challenge_method === undefined) {
    if (found.client.public) return fail('invalid_request', 'code_challenge is required: public clients must use PKCE (S256)');
  } else {
    if (q.code_challenge_method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
    if (!q.code_challenge || !/^[A-Za-z0-9_-]{43,128}$/.test(q.code_challenge)) return fail('invalid_request', 'code_challenge must be a base64url SHA-256 of the verifier');
  }
  const scope = q.scope ?? 'openid';
  const scopes = scope.split(' ').filter(Boolean);
  if (!scopes.includes('openid')) return fail('invalid_scope', 'scope must include openid');
  // The code grant grants what the client is registered for, no more (as client_credentials and the mint do).
  const registered = found.client.scopes ?? ['openid'];
  const outside = scopes.filter((x) => !registered.includes(x));
  if (outside.length) return fail('invalid_scope', `scopes not granted to this client: ${outside.join(' ')}`);
  const prompts = (q.prompt ?? '').split(' ').filter(Boolean);
  const unknownPrompt = prompts.find((p) => !PROMPTS.has(p));
  if (unknownPrompt) return fail('invalid_request', `prompt "${unknownPrompt}" is not one of none, login, consent, select_account`);
  if (prompts.includes('none') && prompts.length > 1) return fail('invalid_request', 'prompt none cannot be combined with another value');
  if (q.handle_types && !q.handle_types.split(/[ ,]/).includes('email_address')) return fail('invalid_request', 'handle_types must include email_address: this sign-in page signs in by email address');
  const maxAge = q.max_age === undefined ? undefined : Number(q.max_age);
  let hint: { sub: string } | undefined;
  if (q.id_token_hint !== undefined) {
    const h = await ctx.tokens.idTokenHint(q.id_token_hint);
    if (!h || h.aud !== found.client.client_id) return fail('invalid_request', 'id_token_hint is not an id_token this server issued to this client');
    hint = h;
  }
  const request: OAuthRequest = {
    client_id: q.client_id, redirect_uri: q.redirect_uri, scope,
    ...(q.code_challenge ? { code_challenge: q.code_challenge } : {}),
    ...(state ? { state } : {}), ...(q.nonce ? { nonce: q.nonce } : {}), ...(mode ? { response_mode: mode } : {}),
  };
  const mustSignIn = prompts.includes('login') || prompts.includes('select_account');
  // Who is signed in: the session cookie, or (development servers only) the `token` parameter the SDK sends.
  let signedIn = await currentSession(ctx, req, found.org);
  if (!signedIn && q.token && ctx.devMode && !mustSignIn) {
    const dev = await devToken(ctx, q.token, found.org);
    if ('refused' in dev) return fail('invalid_request', `token: ${dev.refused}`);
    signedIn = dev.claims;
  }
  // The sign-in of the session is the one of its token: `auth_time` is when the person signed in.
  const fresh = signedIn && (maxAge === undefined || Date.now() / 1000 - signedIn.iat <= maxAge);
  const samePerson = !hint || hint.sub === signedIn?.sub;
  if (signedIn && fresh && samePerson && !mustSignIn) {
    const code = await issueCode(ctx, found.org, request, signedIn, signedIn.iat);
    return answerTo(ctx, reply, request, { code, state }, 302);
  }
  if (prompts.includes('none')) {
    const why = !signedIn ? 'nobody is signed in' : !samePerson ? 'the signed-in person is not the one of id_token_hint' : 'the sign-in is older than max_age';
    return fail('login_required', `${why}: prompt=none allows no sign-in page`);
  }
  const id = randomUUID();
  const binding = bindLoginToBrowser(ctx, reply, id, ctx.limits.codeTtlSeconds);
  const row = await createChallenge(ctx, { id, org: found.org, type: 'oauth_request', method: 'oauth2', data: { ...request, client_name: found.client.name, browser_sha256: binding } });
  const ui = found.client.ui_configuration;
  const hintText = q.login_hint?.replace(/^email_address:/, '') ?? '';
  return page(reply, 200, 'Sign in', emailForm(row.id, texts(ui, found.client.name), undefined, hintText.includes('@') ? hintText : ''), ui, q.redirect_uri);
}

/** The e-mail and code forms of the hosted login (form-encoded posts). */
export async function loginFormRoutes(scope: FastifyInstance, { ctx }: { ctx: Ctx }): Promise<void> {
  await scope.register(formbody, { bodyLimit: 16 * 1024 });
  await scope.register(cookie);
  // The contract validates the request; its verdict is answered by OAuth's rules (a redirect with `error`), not a 400.
  scope.get<Wire<'/oauth2/authorize', 'get'>>('/oauth2/authorize', { attachValidation: true }, (req, reply) => authorize(ctx, req, reply, req.query, 'query'));
  scope.post<Wire<'/oauth2/authorize', 'post'>>('/oauth2/authorize', { attachValidation: true }, (req, reply) => authorize(ctx, req, reply, req.body ?? {}, 'body'));
  const loadRequest = async (req: FastifyRequest, id: string) => {
    const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', id).executeTakeFirst();
    // A request signs one person in once (#36): a completed one cannot send a new code nor mint a second code.
    if (!row || row.type !== 'oauth_request' || row.status !== 'pending' || Date.parse(row.expires_at) <= Date.now()) return undefined;
    const org = await loadOrg(ctx, row.org_id);
    if (!org) return undefined;
    const request = challengeData(row) as unknown as OAuthRequest & { client_name: string; otp_challenge_id?: string; browser_sha256?: string };
    // Only the browser that opened the page may post its forms (no login CSRF, no request finished elsewhere).
    if (!loginBoundToBrowser(req, row.id, request.browser_sha256)) return undefined;
    const ui = (await findClient(ctx, request.client_id))?.client.ui_configuration;
    return { row, org, request, ui, texts: (email?: string) => texts(ui, request.client_name, email) };
  };
  const expired = (reply: FastifyReply) => page(reply, 400, 'Sign-in expired', '<p>This sign-in page has expired, or was opened in another browser. Go back to the application and start again.</p>');

  scope.post<{ Body: { request_id?: string; email?: string } }>(
    '/oauth2/login',
    { schema: { body: { type: 'object', additionalProperties: false, required: ['request_id', 'email'], properties: { request_id: str, email: str } } } },
    async (req, reply) => {
      const pending = await loadRequest(req, req.body.request_id!);
      if (!pending) return expired(reply);
      try {
        // The same limits as /id: per client address, then per handle.
        await ctx.limiter.hit('id-ip', clientIp(req), ctx.limits.perIpPerMinute, 'sign-in attempts from this address');
        const handle = parseHandle(req.body.email!);
        if (handle.type !== 'email_address') throw badRequest('enter an email address');
        await ctx.limiter.hit('id-handle', `${pending.org.id}:${handle.type}:${handle.value}`, ctx.limits.perHandlePerMinute, 'sign-in attempts for this handle');
        const [ch] = await otpFactor('email').start(ctx, { org: pending.org, handle, method: 'otp_via_email', options: {}, previous: undefined, metadata: undefined });
        // The request takes only the code it sent (the latest one).
        await ctx.db.updateTable('challenges').set({ data: JSON.stringify({ ...pending.request, otp_challenge_id: ch!.id }) }).where('id', '=', pending.row.id).execute();
        return page(reply, 200, 'Enter your code', codeForm(pending.row.id, ch!.id, handle.value, pending.texts(handle.value), undefined, 'delivery_delayed' in ch!.options), pending.ui, pending.request.redirect_uri);
      } catch (err) {
        if (err instanceof RateLimitError) reply.header('retry-after', String(err.retryAfterSeconds));
        const status = err instanceof RateLimitError ? 429 : 400;
        return page(reply, status, 'Sign in', emailForm(pending.row.id, pending.texts(), (err as Error).message, req.body.email), pending.ui, pending.request.redirect_uri);
      }
    },
  );

  scope.post<{ Body: { request_id?: string; challenge_id?: string; email?: string; code?: string } }>(
    '/oauth2/login/code',
    { schema: { body: { type: 'object', additionalProperties: false, required: ['request_id', 'challenge_id', 'code'], properties: { request_id: str, challenge_id: str, email: str, code: str } } } },
    async (req, reply) => {
      const pending = await loadRequest(req, req.body.request_id!);
      if (!pending) return expired(reply);
      const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', req.body.challenge_id!).executeTakeFirst();
      if (!row || row.type !== 'otp' || row.org_id !== pending.org.id || row.id !== pending.request.otp_challenge_id) return expired(reply);
      let token: string;
      try {
        if (row.status !== 'pending') throw badRequest('this code was already used: start again');
        if (Date.parse(row.expires_at) <= Date.now()) throw badRequest('the code has expired: start again');
        token = await answerOtp(ctx, row, { otp: req.body.code ?? '' });
      } catch (err) {
        if (err instanceof RateLimitError) reply.header('retry-after', String(err.retryAfterSeconds));
        const status = err instanceof RateLimitError ? 429 : 400;
        return page(reply, status, 'Enter your code', codeForm(pending.row.id, row.id, req.body.email ?? '', pending.texts(req.body.email ?? ''), (err as Error).message), pending.ui, pending.request.redirect_uri);
      }
      const v = await ctx.tokens.validate(token, 'person');
      if (!v.valid) return expired(reply);
      const done = await ctx.db.updateTable('challenges').set({ status: 'completed' }).where('id', '=', pending.row.id).where('status', '=', 'pending').executeTakeFirst();
      if (Number(done.numUpdatedRows) !== 1) return expired(reply);
      // The browser is now signed in at this server: other clients of the organization need no page (until logout).
      startSession(ctx, reply, pending.org, token, v.claims);
      unbindLogin(ctx, reply, pending.row.id);
      const code = await issueCode(ctx, pending.org, pending.request, v.claims, v.claims.iat);
      return answerTo(ctx, reply, pending.request, { code, state: pending.request.state }, 303);
    },
  );
}
