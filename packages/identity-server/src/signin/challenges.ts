import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { bearerToken, checkRedirect, clientIp, loadOrg, nowIso, requireOrg } from '../context.js';
import type { ChallengeTable } from '../db/schema.js';
import { ApiError, badRequest, forbidden, notFound, unauthorized } from '../http/errors.js';
import { assertReachable, parseHandle, type Handle } from '../persons/handles.js';
import { escapeHtml } from '../email/mailer.js';
import { addHandle, createPerson, findPersonByHandle, getPerson, issueToken, resolveSignInPerson, type PersonRow } from '../persons/persons.js';
import * as S from '../http/schemas.js';
import { writeBuckets } from '../persons/me.js';
import { storeIdpTokens, type PendingIdpTokens } from '../sso/idp-tokens.js';
import { hashSecret, newOtpCode, newSecret, sameDigest } from '../crypto/secrets.js';
import { assertNotLocked, clearFailures, guessKey, recordFailure } from './guessing.js';
import type { UserTokenClaims } from '../tokens/token-service.js';

type ChallengeRow = ChallengeTable;

/** What the client sees of a challenge. */
export interface ChallengeOut {
  id: string;
  type: string;
  authentication_method: string;
  options: Record<string, unknown>;
}

export interface ChallengeData {
  previous?: UserTokenClaims;
  redirect_target?: string;
  /** Recovery challenges never create persons. */
  recovery?: boolean;
  [key: string]: unknown;
}

interface IdBody {
  handle?: unknown;
  factor: { method: string; options?: Record<string, unknown> };
  metadata?: { csrf_token?: string; pkce_code_challenge?: string };
}

/** A sign-in factor: builds the challenges of an ID request and checks their answers. */
export interface FactorHandler {
  start(ctx: Ctx, req: StartRequest): Promise<ChallengeOut[]>;
}

export interface StartRequest {
  org: Org;
  handle: Handle | undefined;
  method: string;
  options: Record<string, unknown>;
  previous: UserTokenClaims | undefined;
  metadata: IdBody['metadata'];
  /** Account recovery (`/recover`): no person is created and nothing is sent to unknown handles. */
  recovery?: boolean;
  /** `Origin` header of the request (passkeys are bound to it). */
  origin?: string | undefined;
}

export const factorHandlers = new Map<string, FactorHandler>();

/** Inserts a pending challenge and returns its row. */
export async function createChallenge(
  ctx: Ctx,
  fields: { org: Org; type: string; method: string; handle?: Handle | undefined; personId?: string | undefined; secret?: string | undefined; data?: ChallengeData; ttlSeconds?: number },
): Promise<ChallengeRow> {
  const id = randomUUID();
  const now = Date.now();
  const row: ChallengeRow = {
    id,
    org_id: fields.org.id,
    type: fields.type,
    method: fields.method,
    handle_type: fields.handle?.type ?? null,
    handle_value: fields.handle?.value ?? null,
    person_id: fields.personId ?? null,
    secret_hash: fields.secret === undefined ? null : hashSecret(id, fields.secret),
    attempts: 0,
    status: 'pending',
    data: JSON.stringify(fields.data ?? {}),
    expires_at: new Date(now + (fields.ttlSeconds ?? ctx.limits.codeTtlSeconds) * 1000).toISOString(),
    created_at: new Date(now).toISOString(),
  };
  await ctx.db.insertInto('challenges').values(row).execute();
  return row;
}

export function challengeData(row: ChallengeRow): ChallengeData {
  return JSON.parse(row.data) as ChallengeData;
}

export function rowHandle(row: ChallengeRow): Handle | undefined {
  return row.handle_type && row.handle_value ? ({ type: row.handle_type, value: row.handle_value } as Handle) : undefined;
}

/** Loads a challenge that can still be answered: 404 unknown, 401 used or expired. */
export async function loadOpenChallenge(ctx: Ctx, id: string): Promise<ChallengeRow> {
  const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`challenge "${id}" does not exist`);
  if (row.status === 'completed') throw unauthorized('challenge has already been answered');
  if (row.status === 'locked' || row.attempts >= ctx.limits.maxAttempts) {
    throw new ApiError(429, 'too many incorrect answers for this challenge: request a new code');
  }
  if (Date.parse(row.expires_at) <= Date.now()) throw unauthorized('authentication has expired');
  return row;
}

/**
 * Counts one answer against the challenge's attempt budget (atomically; 429 once the budget is spent) and, when
 * `correct`, consumes the challenge so it can be used only once. Failures also count against the account and factor
 * (src/guessing.ts): while that factor is locked every answer is refused with 429, right or wrong.
 */
export async function checkAnswer(ctx: Ctx, row: ChallengeRow, correct: boolean, wrongMessage: string): Promise<void> {
  const account = guessKey(row, challengeData(row).recovery === true);
  await assertNotLocked(ctx, account);
  if (correct) {
    const res = await ctx.db
      .updateTable('challenges')
      .set({ status: 'completed' })
      .where('id', '=', row.id)
      .where('status', 'in', ['pending', 'verified'])
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw unauthorized('challenge has already been answered');
    await clearFailures(ctx, account);
    return;
  }
  const res = await ctx.db
    .updateTable('challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', row.id)
    .where('status', '=', 'pending')
    .where('attempts', '<', ctx.limits.maxAttempts)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) throw new ApiError(429, 'too many incorrect answers for this challenge: request a new code');
  await recordFailure(ctx, account);
  throw unauthorized(wrongMessage);
}

/** Who a completed challenge signs in (see {@link resolveSignInPerson}); challenges bound to a person use it. */
export async function resolveChallengePerson(ctx: Ctx, row: ChallengeRow): Promise<{ person: PersonRow; created: boolean; previous: UserTokenClaims | undefined }> {
  const org = await loadOrg(ctx, row.org_id);
  if (!org) throw notFound(`organization "${row.org_id}" does not exist`);
  const data = challengeData(row);
  const handle = rowHandle(row);
  if (row.person_id) {
    const person = await getPerson(ctx, row.person_id);
    if (!person) throw notFound('person no longer exists');
    if (!person.active) throw forbidden(`Person ${person.id} is inactive`);
    return { person, created: false, previous: data.previous?.person_id === person.id ? data.previous : undefined };
  }
  if (data.recovery && handle && !(await findPersonByHandle(ctx, org.id, handle))) throw unauthorized('incorrect code');
  return resolveSignInPerson(ctx, org, handle, data.previous);
}

/** Signs the person of a completed challenge in and returns the token. */
export async function finishSignIn(ctx: Ctx, row: ChallengeRow, method: string): Promise<string> {
  const resolved = await resolveChallengePerson(ctx, row);
  const data = challengeData(row);
  const fromProvider = data.sso_attributes;
  if (fromProvider && typeof fromProvider === 'object') {
    await writeBuckets(ctx, resolved.person.id, { end_user_read_only: fromProvider as Record<string, unknown> }, false, 'admin');
  }
  const token = await issueToken(ctx, resolved.person, { method, handle: rowHandle(row)?.value }, { firstToken: resolved.created, previous: resolved.previous, oid: row.org_id });
  // Tokens the OIDC provider issued at this sign-in: kept for the person (GET /sso/oidc/tokens).
  if (data.idp_tokens) await storeIdpTokens(ctx, row.org_id, row.id, resolved.person.id, data.idp_tokens as PendingIdpTokens);
  return token;
}

export function sendCode(ctx: Ctx, org: Org, handle: Handle, code: string, purpose: 'sign-in' | 'recovery'): Promise<void> {
  const minutes = Math.round(ctx.limits.codeTtlSeconds / 60);
  const what = purpose === 'sign-in' ? 'sign-in' : 'account recovery';
  if (handle.type === 'email_address') {
    return ctx.mailer.send({
      orgId: org.id,
      channel: 'email',
      to: handle.value,
      subject: `Your ${org.org_name} ${what} code: ${code}`,
      text: `Your ${what} code for ${org.org_name} is ${code}.\nIt expires in ${minutes} minutes. If you did not ask for it, ignore this message.`,
      html: `<p>Your ${what} code for <b>${escapeHtml(org.org_name)}</b> is</p><p style="font-size:28px;letter-spacing:4px"><b>${code}</b></p><p>It expires in ${minutes} minutes. If you did not ask for it, ignore this message.</p>`,
      code,
      ...(purpose === 'sign-in' ? { template: { name: 'otp_via_email' as const, vars: { code, org_name: org.org_name, minutes: String(minutes) } } } : {}),
    });
  }
  return ctx.mailer.send({
    orgId: org.id,
    channel: 'sms',
    to: handle.value,
    subject: 'SMS',
    text: `${code} is your ${org.org_name} ${what} code. It expires in ${minutes} min.`,
    html: `<p>${code} is your ${escapeHtml(org.org_name)} ${what} code. It expires in ${minutes} min.</p>`,
    code,
  });
}

export function requireHandleType(handle: Handle | undefined, method: string, type: Handle['type']): Handle {
  const label = type === 'email_address' ? 'an email address' : 'a phone number';
  if (!handle) throw badRequest(`${method} needs a handle: ${label}`);
  const got = { email_address: 'an email address', phone_number: 'a phone number', username: 'a username' }[handle.type];
  if (handle.type !== type) throw badRequest(`${method} needs ${label} as handle, not ${got}`);
  return handle;
}

/**
 * The http(s) redirect target of a link or SSO factor. When the organization lists allowed domains, the target must be
 * on one of them (or on a configured CORS origin).
 */
export function redirectTarget(ctx: Ctx, org: Org, options: Record<string, unknown>): string | undefined {
  const t = options.redirect_target;
  return t === undefined ? undefined : checkRedirect(ctx, org, t, 'factor.options.redirect_target');
}

export const otpFactor = (channel: 'email' | 'sms'): FactorHandler => ({
  async start(ctx, r) {
    const handle = requireHandleType(r.handle, r.method, channel === 'email' ? 'email_address' : 'phone_number');
    assertReachable(handle);
    const code = newOtpCode();
    const data: ChallengeData = r.previous ? { previous: r.previous } : {};
    if (r.recovery) data.recovery = true;
    const row = await createChallenge(ctx, { org: r.org, type: 'otp', method: r.method, handle, secret: code, data });
    if (!r.recovery || (await findPersonByHandle(ctx, r.org.id, handle))) await sendCode(ctx, r.org, handle, code, r.recovery ? 'recovery' : 'sign-in');
    return [{ id: row.id, type: 'otp', authentication_method: r.method, options: {} }];
  },
});

export const linkFactor = (channel: 'email' | 'sms'): FactorHandler => ({
  async start(ctx, r) {
    const handle = requireHandleType(r.handle, r.method, channel === 'email' ? 'email_address' : 'phone_number');
    assertReachable(handle);
    const secret = newSecret();
    const target = redirectTarget(ctx, r.org, r.options);
    const data: ChallengeData = {};
    if (r.previous) data.previous = r.previous;
    if (target) data.redirect_target = target;
    if (r.recovery) data.recovery = true;
    const row = await createChallenge(ctx, { org: r.org, type: 'proxy', method: r.method, handle, secret, data });
    const out: ChallengeOut[] = [{ id: row.id, type: 'proxy', authentication_method: r.method, options: { challenge_id: row.id } }];
    if (r.recovery && !(await findPersonByHandle(ctx, r.org.id, handle))) return out;
    const link = `${ctx.publicUrl}/challenge/${row.id}/verify?secret=${secret}`;
    const minutes = Math.round(ctx.limits.codeTtlSeconds / 60);
    await ctx.mailer.send(
      channel === 'email'
        ? {
            orgId: r.org.id,
            channel: 'email',
            to: handle.value,
            subject: r.recovery ? `Recover your ${r.org.org_name} account` : `Sign in to ${r.org.org_name}`,
            text: `Open this link to sign in to ${r.org.org_name}:\n${link}\nIt expires in ${minutes} minutes. If you did not ask for it, ignore this message.`,
            html: `<p>Open this link to sign in to <b>${escapeHtml(r.org.org_name)}</b>:</p><p><a href="${escapeHtml(link)}">Sign in</a></p><p>It expires in ${minutes} minutes. If you did not ask for it, ignore this message.</p>`,
            link,
            ...(r.recovery ? {} : { template: { name: 'email_link' as const, vars: { link, org_name: r.org.org_name, minutes: String(minutes) } } }),
          }
        : {
            orgId: r.org.id,
            channel: 'sms',
            to: handle.value,
            subject: 'SMS',
            text: `Sign in to ${r.org.org_name}: ${link}`,
            html: `<p>Sign in to ${escapeHtml(r.org.org_name)}: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
            link,
          },
    );
    return out;
  },
});

factorHandlers.set('otp_via_email', otpFactor('email'));
factorHandlers.set('otp_via_sms', otpFactor('sms'));
factorHandlers.set('email_link', linkFactor('email'));
factorHandlers.set('sms_link', linkFactor('sms'));

/** Answer checkers per challenge type; each returns the token. */
export type AttestationHandler = (ctx: Ctx, row: ChallengeRow, data: Record<string, unknown>) => Promise<string>;
export const attestationHandlers = new Map<string, AttestationHandler>();

attestationHandlers.set('otp', async (ctx, row, data) => {
  const otp = data.otp;
  if (typeof otp !== 'string' || otp.length === 0) throw badRequest('data.otp must be a non-empty string');
  if (otp.length > 16) throw badRequest('data.otp is longer than 16 characters');
  const correct = row.secret_hash !== null && sameDigest(hashSecret(row.id, otp.trim()), row.secret_hash);
  await checkAnswer(ctx, row, correct, 'incorrect code');
  return finishSignIn(ctx, row, row.method);
});

/**
 * The options of a factor without the copy of `method` the published client repeats inside them
 * (`{method, options: {method, …}}`); a copy that names another method is refused.
 */
export function factorOptions(factor: { method: string; options?: Record<string, unknown> }): Record<string, unknown> {
  const { method, ...options } = factor.options ?? {};
  if (method !== undefined && method !== factor.method) throw badRequest(`factor.options.method must be "${factor.method}" (the factor's method) when given`);
  return options;
}

/** The previous token of an ID request (MFA, step-up, anonymous upgrade); 401 when present but invalid. */
export async function previousToken(ctx: Ctx, req: FastifyRequest): Promise<UserTokenClaims | undefined> {
  const token = bearerToken(req);
  if (!token) return undefined;
  const res = await ctx.tokens.validate(token, 'person');
  if (!res.valid) throw unauthorized(`previous token: ${res.invalidity_reason}`);
  return res.claims;
}

export function registerAuthRoutes(app: FastifyInstance, ctx: Ctx): void {
  const idHandler = async (req: FastifyRequest<{ Body: IdBody }>, reply: FastifyReply) => {
    const org = await requireOrg(ctx, req);
    const body = req.body;
    ctx.limiter.hit('id-ip', clientIp(req), ctx.limits.perIpPerMinute, 'sign-in attempts from this address');
    const handle = body.handle === undefined ? undefined : parseHandle(body.handle);
    if (handle) ctx.limiter.hit('id-handle', `${org.id}:${handle.type}:${handle.value}`, ctx.limits.perHandlePerMinute, 'sign-in attempts for this handle');
    const allowed = org.settings.allowed_factors;
    if (allowed?.length && !allowed.includes(body.factor.method)) {
      throw badRequest(`authentication method "${body.factor.method}" is not allowed for this organization`);
    }
    const factor = factorHandlers.get(body.factor.method);
    if (!factor) throw badRequest(`authentication method "${body.factor.method}" is not available on this server`);
    const previous = await previousToken(ctx, req);
    const challenges = await factor.start(ctx, {
      org,
      handle,
      method: body.factor.method,
      options: factorOptions(body.factor),
      previous,
      metadata: body.metadata,
      origin: req.headers.origin,
    });
    reply.header('cache-control', 'no-cache, no-store');
    // The challenge list itself (spec §7 "returns a challenge list"; the published client reads `result` as the array).
    return { result: challenges };
  };
  app.post('/id', { schema: { body: S.idRequest } }, idHandler);
  app.post('/id/v2', { schema: { body: S.idRequest } }, idHandler);

  const attest = async (req: FastifyRequest<{ Body: { challenge_id: string; challenge_type: string; data: Record<string, unknown> } }>) => {
    const body = req.body;
    const row = await loadOpenChallenge(ctx, body.challenge_id);
    if (row.type !== body.challenge_type) {
      throw badRequest(`challenge_type "${body.challenge_type}" does not match the challenge, which is of type "${row.type}"`);
    }
    const handler = attestationHandlers.get(row.type);
    if (!handler) throw badRequest(`challenges of type "${row.type}" are not answered through /attestation`);
    const token = await handler(ctx, row, body.data);
    return { result: { token } };
  };
  for (const path of ['/attestation', '/attestation/v2', '/attestation/v3']) app.post(path, { schema: { body: S.attestation } }, attest);

  // Proxy challenges (email_link / sms_link): the SDK polls; 202 until the link is opened, then the token once.
  const poll = async (req: FastifyRequest<{ Params: { challenge_id: string } }>, reply: FastifyReply) => {
    const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', req.params.challenge_id).executeTakeFirst();
    if (!row) throw notFound(`challenge "${req.params.challenge_id}" does not exist`);
    if (!['proxy', 'oidc', 'saml'].includes(row.type)) throw badRequest(`challenge "${row.id}" is of type "${row.type}" and cannot be polled`);
    if (row.status === 'completed') throw unauthorized('challenge has already been answered');
    if (Date.parse(row.expires_at) <= Date.now()) throw unauthorized('authentication has expired');
    if (row.status !== 'verified') {
      reply.code(202);
      const waitingFor = row.type === 'proxy' ? 'the link to be opened' : 'the identity provider sign-in to complete';
      return { result: null, errors: [{ httpcode: 202, message: `waiting for ${waitingFor}` }] };
    }
    await checkAnswer(ctx, row, true, '');
    const token = await finishSignIn(ctx, row, row.method);
    // The token itself, as the published client reads it (`result` is the token string).
    return { result: token };
  };
  app.get('/challenge/:challenge_id', { schema: { params: S.challengeParams } }, poll);
  app.get('/challenge/:challenge_id/v2', { schema: { params: S.challengeParams } }, poll);

  // The link in the email or SMS: marks the proxy challenge verified; the polling tab then receives the token.
  app.get<{ Params: { challenge_id: string }; Querystring: { secret?: string } }>(
    '/challenge/:challenge_id/verify',
    { schema: { params: S.challengeParams, querystring: { type: 'object', properties: { secret: { type: 'string', maxLength: 256 } } } } },
    async (req, reply) => {
      const page = (status: number, title: string, text: string) =>
        reply
          .code(status)
          .type('text/html; charset=utf-8')
          .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body style="font-family:system-ui;margin:3rem"><h1>${title}</h1><p>${text}</p></body></html>`);
      const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', req.params.challenge_id).executeTakeFirst();
      const secret = req.query.secret ?? '';
      if (!row || row.type !== 'proxy' || row.secret_hash === null || !sameDigest(hashSecret(row.id, secret), row.secret_hash)) {
        return page(404, 'Link not valid', 'This sign-in link is not valid. Request a new one.');
      }
      if (Date.parse(row.expires_at) <= Date.now()) return page(410, 'Link expired', 'This sign-in link has expired. Request a new one.');
      if (row.status === 'pending') {
        await ctx.db.updateTable('challenges').set({ status: 'verified' }).where('id', '=', row.id).where('status', '=', 'pending').execute();
      }
      const target = challengeData(row).redirect_target;
      if (target) return reply.redirect(target, 303);
      return page(200, 'You are signed in', 'Go back to the tab where you started signing in; it continues by itself.');
    },
  );

  app.post<{ Body: { region?: string } | null }>('/persons/anonymous', { schema: { body: S.anonymousRequest } }, async (req) => {
    const org = await requireOrg(ctx, req);
    ctx.limiter.hit('id-ip', clientIp(req), ctx.limits.perIpPerMinute, 'sign-in attempts from this address');
    const person = await createPerson(ctx, org, { type: 'anonymous', region: req.body?.region });
    const token = await issueToken(ctx, person, { method: 'anonymous' }, { firstToken: true });
    // Spec §7: "result: anonymous token" (the token string).
    return { result: token };
  });

  app.post<{ Body: { token: string } }>('/token/validate', { schema: { body: S.tokenBody } }, async (req) => {
    const res = await ctx.tokens.validate(req.body.token, 'validate');
    if (!res.valid) return { result: { valid: false, invalidity_reason: res.invalidity_reason } };
    const orgHeader = req.headers['keyway-orgid'];
    if (typeof orgHeader === 'string' && orgHeader !== res.claims.oid) {
      return { result: { valid: false, invalidity_reason: 'token belongs to another organization' } };
    }
    return { result: { valid: true, expires_in_seconds: res.expires_in_seconds, expires_at: res.expires_at } };
  });

  app.post<{ Body: { token: string } }>('/token/revoke', { schema: { body: S.tokenBody } }, async (req) => {
    const res = await ctx.tokens.validate(req.body.token, 'revoke');
    if (res.valid) {
      await ctx.tokens.revoke(res.claims);
      return { result: { revoked: true } };
    }
    if (res.invalidity_reason === 'token has been revoked' || res.invalidity_reason === 'token has expired') return { result: { revoked: true } };
    throw badRequest(`cannot revoke: ${res.invalidity_reason}`);
  });
}
