import { createHash } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, OAuthClient, Org, UiConfiguration } from '../context.js';
import { clientIp, loadOrg, requireOrg, requireUser } from '../context.js';
import { RateLimitError } from '../http/rate-limit.js';
import { ApiError, badRequest, forbidden } from '../http/errors.js';
import * as S from '../http/schemas.js';
import { parseHandle } from '../persons/handles.js';
import { escapeHtml } from '../email/mailer.js';
import { getPerson, type PersonRow } from '../persons/persons.js';
import { hashSecret, newSecret, sameDigest, sha256 } from '../crypto/secrets.js';
import type { UserTokenClaims } from '../tokens/token-service.js';
import { consumeRefreshToken, familyRevoked, findRefreshToken, issueRefreshToken, refreshEnabled, revokeFamily } from './refresh-tokens.js';
import { attestationHandlers, challengeData, createChallenge, otpFactor } from '../signin/challenges.js';

interface AuthorizeQuery {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  state?: string;
  scope?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  nonce?: string;
  token?: string;
}

interface OAuthRequest {
  client_id: string;
  redirect_uri: string;
  state?: string;
  scope: string;
  code_challenge: string;
  nonce?: string;
}

async function findClient(ctx: Ctx, clientId: string): Promise<{ org: Org; client: OAuthClient } | undefined> {
  const rows = await ctx.db.selectFrom('organizations').select('id').execute();
  for (const r of rows) {
    const org = await loadOrg(ctx, r.id);
    const client = org?.settings.oauth_clients?.find((c) => c.client_id === clientId);
    if (org && client) return { org, client };
  }
  return undefined;
}

function redirectAllowed(ctx: Ctx, registered: string[], uri: string): boolean {
  if (registered.includes(uri)) return true;
  if (!ctx.devMode) return false;
  try {
    return ctx.corsOrigins.includes(new URL(uri).origin);
  } catch {
    return false;
  }
}

function withParams(uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

/**
 * The calling client of a protocol endpoint: HTTP Basic (`client_secret_basic`) or `client_id` + `client_secret` in the
 * form. Public clients authenticate with their id alone; confidential ones need the secret (compared as digests).
 */
async function authenticateClient(ctx: Ctx, req: FastifyRequest, form: Record<string, string | undefined>): Promise<{ org: Org; client: OAuthClient } | undefined> {
  let id = form.client_id;
  let secret = form.client_secret;
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (basic) {
    const [u, p] = Buffer.from(basic, 'base64').toString('utf8').split(':', 2);
    id = decodeURIComponent(u ?? '');
    secret = decodeURIComponent(p ?? '');
  }
  if (!id) return undefined;
  const found = await findClient(ctx, id);
  if (!found) return undefined;
  // A client without a stored secret (such as the seeded development client) is public.
  if (found.client.public || !found.client.secret_sha256) return found;
  if (!secret || !sameDigest(sha256(secret), found.client.secret_sha256)) return undefined;
  return found;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** A one-time authorization code (60 s) bound to the client, redirect URI and PKCE challenge. */
async function issueCode(ctx: Ctx, org: Org, req: OAuthRequest, claims: Pick<UserTokenClaims, 'person_id' | 'authentications'>): Promise<string> {
  const secret = newSecret();
  const row = await createChallenge(ctx, {
    org,
    type: 'oauth_code',
    method: 'oauth2',
    personId: claims.person_id,
    secret,
    data: { ...req, authentications: claims.authentications },
    ttlSeconds: 60,
  });
  return `${row.id}.${secret}`;
}

/** Access token (a user token naming the client) and, when asked, an OpenID Connect id_token for the client. */
export async function issueOAuthTokens(
  ctx: Ctx,
  client: OAuthClient,
  person: PersonRow,
  authentications: UserTokenClaims['authentications'],
  opts: { scope: string; nonce?: string | undefined; idToken: boolean; refresh?: { org: Org; familyId?: string; grantScope: string } },
) {
  const methods = [...new Set(authentications.map((a) => a.method))];
  const access_token = await ctx.tokens.sign(
    {
      token_use: 'access',
      person_id: person.id,
      oid: person.org_id,
      first_token: false,
      authenticated_methods: methods,
      authentications,
      person_type: person.person_type,
      groups: JSON.parse(person.groups) as string[],
      client_id: client.client_id,
      scope: opts.scope,
    },
    client.access_token_duration,
  );
  const email = await ctx.db.selectFrom('handles').select('value').where('person_id', '=', person.id).where('type', '=', 'email_address').executeTakeFirst();
  const id_token = opts.idToken
    ? await ctx.tokens.signJwt(
        {
          auth_time: Math.floor(Date.now() / 1000),
          amr: methods,
          ...(opts.nonce ? { nonce: opts.nonce } : {}),
          ...(email ? { email: email.value, email_verified: true } : {}),
          person_id: person.id,
          oid: person.org_id,
          person_type: person.person_type,
        },
        { use: 'id', subject: person.id, audience: client.client_id },
      )
    : undefined;
  const refresh_token =
    opts.refresh && refreshEnabled(client)
      ? await issueRefreshToken(ctx, { org: opts.refresh.org, client, personId: person.id, scope: opts.refresh.grantScope, authentications, accessToken: access_token, ...(opts.refresh.familyId ? { familyId: opts.refresh.familyId } : {}) })
      : undefined;
  return {
    access_token,
    ...(id_token ? { id_token } : {}),
    ...(refresh_token ? { refresh_token } : {}),
    token_type: 'Bearer',
    expires_in: client.access_token_duration ?? ctx.tokens.opts.ttlSeconds,
    scope: opts.scope,
  };
}

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

const str = { type: 'string', maxLength: 2048 };

export function registerOAuthRoutes(app: FastifyInstance, ctx: Ctx): void {
  // Token for another organization of the person (suborganization or person pool); v2 wraps it in a token container.
  const tokenFor = (version: 1 | 2) => async (req: FastifyRequest) => {
    const claims = await requireUser(ctx, req);
    const target = await requireOrg(ctx, req);
    let allowed = target.id === claims.oid || (target.settings.person_pool_orgs_ids ?? []).includes(claims.oid);
    for (let o: Org | undefined = target; !allowed && o?.parent_id; ) {
      o = await loadOrg(ctx, o.parent_id);
      if (o?.id === claims.oid) allowed = true;
    }
    if (!allowed) throw forbidden(`person has no access to organization "${target.id}"`);
    const required = target.settings.required_factor;
    if (required && !claims.authenticated_methods.includes(required.method)) {
      const row = await createChallenge(ctx, { org: target, type: 'authn_context_update', method: required.method, personId: claims.person_id });
      return {
        result: {
          type: 'challenge_list',
          challenges: [{ id: row.id, type: 'authn_context_update', authentication_method: required.method, options: { target_org_id: target.id, factor: { method: required.method, options: required.options ?? {} } } }],
        },
      };
    }
    const person = await getPerson(ctx, claims.person_id);
    const personType = person?.person_type ?? claims.person_type;
    const userToken = await ctx.tokens.sign({
      person_id: claims.person_id,
      oid: target.id,
      first_token: false,
      authenticated_methods: claims.authenticated_methods,
      authentications: claims.authentications,
      person_type: personType,
      groups: person ? (JSON.parse(person.groups) as string[]) : [],
    });
    // Derived tokens: revoking the caller's token (or signing out) revokes them.
    if (version === 1) {
      await ctx.tokens.recordDerived(userToken, claims.jti);
      return { result: { type: 'token', token: userToken } };
    }
    const container = await ctx.tokens.signJwt(
      { user_token: userToken, oid: target.id, person_id: claims.person_id, person_type: personType },
      { use: 'container', subject: claims.person_id, audience: target.id },
    );
    const containerJti = await ctx.tokens.recordDerived(container, claims.jti);
    await ctx.tokens.recordDerived(userToken, containerJti);
    return { result: { type: 'token', token: container } };
  };
  app.get('/token', tokenFor(1));
  app.get('/token/v2', tokenFor(2));
  // The published client asks with POST and its CSRF/PKCE metadata in the body (spec §7 names GET): both are served.
  app.post('/token/v2', { schema: { body: S.tokenForOrgRequest } }, tokenFor(2));

  // OpenID Connect userinfo for access tokens of the hosted login (any valid user token works the same way).
  const userinfo = async (req: FastifyRequest, reply: FastifyReply) => {
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const v = token ? await ctx.tokens.validate(token, 'userinfo') : undefined;
    if (!v?.valid) {
      reply.header('www-authenticate', 'Bearer error="invalid_token"');
      return reply.code(401).send({ error: 'invalid_token', error_description: v ? v.invalidity_reason : 'missing bearer access token' });
    }
    const person = await getPerson(ctx, v.claims.person_id);
    if (!person) return reply.code(401).send({ error: 'invalid_token', error_description: 'token person no longer exists' });
    const handles = await ctx.db.selectFrom('handles').select(['type', 'value']).where('person_id', '=', person.id).orderBy('created_at').execute();
    const email = handles.find((h) => h.type === 'email_address')?.value;
    const phone = handles.find((h) => h.type === 'phone_number')?.value;
    const username = handles.find((h) => h.type === 'username')?.value;
    reply.header('cache-control', 'no-store');
    return {
      sub: person.id,
      ...(email ? { email, email_verified: true } : {}),
      ...(phone ? { phone_number: phone, phone_number_verified: true } : {}),
      ...(username ? { preferred_username: username } : {}),
      groups: JSON.parse(person.groups) as string[],
    };
  };
  app.get('/oauth2/userinfo', userinfo);
  app.post('/oauth2/userinfo', userinfo);

  app.get<{ Querystring: AuthorizeQuery }>(
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

  app.register(async (scope) => {
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
          ctx.limiter.hit('id-ip', clientIp(req), ctx.limits.perIpPerMinute, 'sign-in attempts from this address');
          const handle = parseHandle(req.body.email!);
          if (handle.type !== 'email_address') throw badRequest('enter an email address');
          ctx.limiter.hit('id-handle', `${pending.org.id}:${handle.type}:${handle.value}`, ctx.limits.perHandlePerMinute, 'sign-in attempts for this handle');
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
          token = await attestationHandlers.get('otp')!(ctx, row, { otp: req.body.code ?? '' });
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

    // RFC 7662 introspection and RFC 7009 revocation, for authenticated clients of the organization that issued the token.
    const tokenForm = { type: 'object', additionalProperties: false, required: ['token'], properties: { token: { type: 'string', maxLength: 16384 }, token_type_hint: str, client_id: str, client_secret: str } };
    scope.post<{ Body: Record<string, string> }>('/oauth2/tokens/introspect', { schema: { body: tokenForm } }, async (req, reply) => {
      const caller = await authenticateClient(ctx, req, req.body);
      if (!caller) return reply.code(401).header('www-authenticate', 'Basic').send({ error: 'invalid_client', error_description: 'client authentication failed' });
      const refresh = await findRefreshToken(ctx, req.body.token!);
      if (refresh) {
        const active = refresh.status === 'active' && refresh.org_id === caller.org.id && Date.parse(refresh.expires_at) > Date.now();
        if (!active) return { active: false };
        return { active: true, sub: refresh.person_id, client_id: refresh.client_id, exp: Math.floor(Date.parse(refresh.expires_at) / 1000), iat: Math.floor(Date.parse(refresh.created_at) / 1000), iss: ctx.publicUrl, token_type: 'refresh_token', scope: refresh.scope };
      }
      const v = await ctx.tokens.validate(req.body.token!, 'introspect');
      if (!v.valid || v.claims.oid !== caller.org.id) return { active: false };
      const c = v.claims;
      return { active: true, sub: c.sub, client_id: c.client_id ?? caller.client.client_id, exp: c.exp, iat: c.iat, iss: c.iss, token_type: 'Bearer', scope: c.scope ?? 'openid' };
    });
    scope.post<{ Body: Record<string, string> }>('/oauth2/tokens/revoke', { schema: { body: tokenForm } }, async (req, reply) => {
      const caller = await authenticateClient(ctx, req, req.body);
      if (!caller) return reply.code(401).header('www-authenticate', 'Basic').send({ error: 'invalid_client', error_description: 'client authentication failed' });
      // A refresh token of this client: its whole family goes, with the access tokens issued alongside (RFC 7009 §2.1).
      const refresh = await findRefreshToken(ctx, req.body.token!);
      if (refresh) {
        if (refresh.client_id === caller.client.client_id && refresh.org_id === caller.org.id) await revokeFamily(ctx, refresh.family_id);
        return reply.code(200).send();
      }
      const v = await ctx.tokens.validate(req.body.token!, 'introspect');
      // Unknown, expired or foreign tokens: nothing to do, and RFC 7009 answers 200 all the same.
      if (v.valid && v.claims.oid === caller.org.id) await ctx.tokens.revoke(v.claims);
      return reply.code(200).send();
    });
    // Every token this client holds for one subject (a person, or the client itself for client credentials tokens).
    scope.post<{ Body: Record<string, string> }>(
      '/oauth2/tokens/revoke-all',
      { schema: { body: { type: 'object', additionalProperties: false, required: ['subject'], properties: { subject: str, client_id: str, client_secret: str } } } },
      async (req, reply) => {
        const caller = await authenticateClient(ctx, req, req.body);
        if (!caller || caller.client.public || !caller.client.secret_sha256) {
          return reply.code(401).header('www-authenticate', 'Basic').send({ error: 'invalid_client', error_description: 'client authentication failed (a confidential client with its secret is required)' });
        }
        await ctx.tokens.revokeAll(caller.client.client_id, req.body.subject!);
        await ctx.db
          .updateTable('oauth_refresh_tokens')
          .set({ status: 'revoked' })
          .where('org_id', '=', caller.org.id)
          .where('client_id', '=', caller.client.client_id)
          .where('person_id', '=', req.body.subject!)
          .where('status', '=', 'active')
          .execute();
        return reply.code(200).send();
      },
    );

    // RFC 6749 §4.1.3 with PKCE (RFC 7636, S256 only); answers in OAuth's shape plus the Keyway envelope's errors.
    scope.post<{ Body: Record<string, string> }>(
      '/oauth2/tokens',
      {
        schema: {
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['grant_type'],
            properties: { grant_type: str, code: str, code_verifier: str, client_id: str, client_secret: str, redirect_uri: str, scope: str, refresh_token: { type: 'string', maxLength: 4096 } },
          },
        },
      },
      async (req, reply) => {
        const b = req.body;
        const oauthError = (status: number, error: string, description: string) =>
          reply.code(status).header('cache-control', 'no-store').send({ error, error_description: description, result: null, errors: [{ httpcode: status, message: description }] });
        if (!['authorization_code', 'client_credentials', 'refresh_token'].includes(b.grant_type!)) return oauthError(400, 'unsupported_grant_type', 'grant_type must be authorization_code, client_credentials or refresh_token');
        const caller = await authenticateClient(ctx, req, b);
        if (!caller) return oauthError(401, 'invalid_client', 'client authentication failed');
        if (b.grant_type === 'refresh_token') {
          // RFC 6749 §6 with rotation (OAuth 2.0 Security BCP §4.14): each refresh token works once; using one again
          // revokes its whole family, since either the client or an attacker holds a copy.
          const { client, org } = caller;
          if (!b.refresh_token) return oauthError(400, 'invalid_request', 'refresh_token is required');
          const row = await findRefreshToken(ctx, b.refresh_token);
          if (!row || row.org_id !== org.id) return oauthError(400, 'invalid_grant', 'refresh token is not valid');
          if (row.client_id !== client.client_id) return oauthError(400, 'invalid_grant', 'refresh token was issued to another client');
          if (row.status === 'revoked') return oauthError(400, 'invalid_grant', 'refresh token has been revoked');
          const reused = async () => {
            await revokeFamily(ctx, row.family_id);
            return oauthError(400, 'invalid_grant', 'refresh token was already used: every token of this grant has been revoked');
          };
          if (row.status === 'used') return reused();
          if (Date.parse(row.expires_at) <= Date.now()) return oauthError(400, 'invalid_grant', 'refresh token has expired');
          if (!refreshEnabled(client)) return oauthError(400, 'unauthorized_client', 'this client is not allowed the refresh_token grant');
          const granted = row.scope.split(' ').filter(Boolean);
          const requested = (b.scope ?? '').split(' ').filter(Boolean);
          const outside = requested.filter((x) => !granted.includes(x));
          if (outside.length) return oauthError(400, 'invalid_scope', `scopes not granted by this refresh token: ${outside.join(' ')}`);
          const person = await getPerson(ctx, row.person_id);
          if (!person || !person.active) return oauthError(400, 'invalid_grant', person ? `Person ${person.id} is inactive` : 'person no longer exists');
          // Of two concurrent uses only one wins; the other is a reuse.
          if (!(await consumeRefreshToken(ctx, row.id))) return reused();
          const scope = (requested.length ? requested : granted).join(' ');
          try {
            const out = await issueOAuthTokens(ctx, client, person, JSON.parse(row.authentications) as UserTokenClaims['authentications'], {
              scope,
              idToken: scope.split(' ').includes('openid'),
              refresh: { org, familyId: row.family_id, grantScope: row.scope },
            });
            // A reuse revoked the family while this rotation ran: the new tokens go with it.
            if (await familyRevoked(ctx, row.family_id)) {
              await revokeFamily(ctx, row.family_id);
              return oauthError(400, 'invalid_grant', 'refresh token has been revoked');
            }
            reply.header('cache-control', 'no-store');
            return out;
          } catch (err) {
            if (err instanceof ApiError && err.status === 403) return oauthError(400, 'invalid_grant', err.message);
            throw err;
          }
        }
        if (b.grant_type === 'client_credentials') {
          // Machine to machine: a confidential client that authenticated with its secret gets a token for itself.
          const { client, org } = caller;
          if (client.public || !client.secret_sha256) return oauthError(400, 'unauthorized_client', 'public clients cannot use client_credentials: they hold no secret');
          if (!(client.grant_types ?? []).includes('client_credentials')) return oauthError(400, 'unauthorized_client', 'this client is not allowed the client_credentials grant');
          const requested = (b.scope ?? '').split(' ').filter(Boolean);
          const allowed = client.scopes ?? [];
          const outside = requested.filter((x) => !allowed.includes(x));
          if (outside.length) return oauthError(400, 'invalid_scope', `scopes not granted to this client: ${outside.join(' ')}`);
          const scope = (requested.length ? requested : allowed).join(' ');
          const ttl = client.access_token_duration ?? ctx.tokens.opts.ttlSeconds;
          const access_token = await ctx.tokens.signJwt({ client_id: client.client_id, oid: org.id, scope }, { use: 'client', subject: client.client_id, audience: org.id, ttlSeconds: ttl });
          reply.header('cache-control', 'no-store');
          return { access_token, token_type: 'Bearer', expires_in: ttl, scope };
        }
        b.client_id = caller.client.client_id;
        for (const f of ['code', 'code_verifier', 'redirect_uri'] as const) {
          if (!b[f]) return oauthError(400, 'invalid_request', `${f} is required`);
        }
        const [id, secret] = b.code!.split('.', 2);
        const row = id ? await ctx.db.selectFrom('challenges').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
        if (!row || row.type !== 'oauth_code' || !secret || row.secret_hash === null || !sameDigest(hashSecret(row.id, secret), row.secret_hash)) {
          return oauthError(400, 'invalid_grant', 'authorization code is not valid');
        }
        const data = challengeData(row) as unknown as OAuthRequest & { authentications: UserTokenClaims['authentications'] };
        if (row.status !== 'pending') return oauthError(400, 'invalid_grant', 'authorization code was already used');
        if (Date.parse(row.expires_at) <= Date.now()) return oauthError(400, 'invalid_grant', 'authorization code has expired');
        if (data.client_id !== b.client_id || data.redirect_uri !== b.redirect_uri) return oauthError(400, 'invalid_grant', 'client_id or redirect_uri does not match the authorization request');
        if (!/^[A-Za-z0-9._~-]{43,128}$/.test(b.code_verifier!) || s256(b.code_verifier!) !== data.code_challenge) return oauthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge');
        const consumed = await ctx.db.updateTable('challenges').set({ status: 'completed' }).where('id', '=', row.id).where('status', '=', 'pending').executeTakeFirst();
        if (Number(consumed.numUpdatedRows) !== 1) return oauthError(400, 'invalid_grant', 'authorization code was already used');
        const person = await getPerson(ctx, row.person_id!);
        if (!person) return oauthError(400, 'invalid_grant', 'person no longer exists');
        reply.header('cache-control', 'no-store');
        try {
          return await issueOAuthTokens(ctx, caller.client, person, data.authentications, { scope: data.scope, nonce: data.nonce, idToken: true, refresh: { org: caller.org, grantScope: data.scope } });
        } catch (err) {
          // A sync hook refused the token.
          if (err instanceof ApiError && err.status === 403) return oauthError(400, 'invalid_grant', err.message);
          throw err;
        }
      },
    );
  });
}
