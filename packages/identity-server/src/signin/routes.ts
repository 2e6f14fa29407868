import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { hashSecret, sameDigest } from '../crypto/secrets.js';
import { answer, badRequest, forbidden, notFound, unauthorized } from '../http/errors.js';
import { clientIp, requireApiKey, requireOrg } from '../http/guards.js';
import { escapeHtml, sendFormPage, sendMessagePage } from '../http/html.js';
import { describeDevice } from '../http/user-agent.js';
import { loadOrg } from '../organizations/settings.js';
import formbody from '@fastify/formbody';
import * as S from '../http/schemas.js';
import { parseHandle, type Handle } from '../persons/handles.js';
import { createPerson, findPersonByHandle, issueToken } from '../persons/persons.js';
import { challengeData, checkAnswer, factorOptions, finishSignIn, loadOpenChallenge, previousToken, type ChallengeOut, type ChallengeRow } from './challenges.js';
import type { FactorRegistry } from './factors/index.js';
import type { Wire } from '../http/wire.js';

// The sign-in protocol of spec §7: `/id` starts a factor, `/attestation` answers a challenge, proxy challenges are
// polled, and tokens are checked and revoked.

/** Methods whose message opens the organization's redirect page (a sign-in link, or a code typed on it). */
const REDIRECT_PAGE_METHODS = new Set(['email_link', 'sms_link', 'otp_via_email', 'otp_via_sms']);

/**
 * The organization's redirect page branding (`authn_redirect_page_ui_config`), as a `ui_customization` challenge placed
 * before the factor's own challenge (same id: it is not answered, the SDK emits `uiCustomizationReceived`).
 */
function uiCustomization(org: Org, method: string, challenges: ChallengeOut[]): ChallengeOut[] {
  const config = org.settings.authn_redirect_page_ui_config;
  const first = challenges[0];
  if (!config || !first || !REDIRECT_PAGE_METHODS.has(method)) return [];
  return [{ id: first.id, type: 'ui_customization', authentication_method: method, options: { authn_redirect_page_ui_config: config } } as ChallengeOut];
}

/** `/id` (start a factor) and `/attestation` (answer a challenge), served by the listed factors. */
export function registerIdRoutes(app: FastifyInstance, ctx: Ctx, factors: FactorRegistry): void {
  const idHandler = async (req: FastifyRequest<Wire<'/id/v2', 'post'>>, reply: FastifyReply) => {
    const org = await requireOrg(ctx, req);
    const body = req.body;
    await ctx.limiter.hit('id-ip', clientIp(req), ctx.limits.perIpPerMinute, 'sign-in attempts from this address');
    const handle = body.handle === undefined ? undefined : parseHandle(body.handle);
    if (handle) await ctx.limiter.hit('id-handle', `${org.id}:${handle.type}:${handle.value}`, ctx.limits.perHandlePerMinute, 'sign-in attempts for this handle');
    const allowed = org.settings.allowed_factors;
    if (allowed?.length && !allowed.includes(body.factor.method)) {
      throw badRequest(`authentication method "${body.factor.method}" is not allowed for this organization`);
    }
    const factor = factors.method(body.factor.method);
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
      requester: { ip: clientIp(req), userAgent: req.headers['user-agent'] },
    });
    reply.header('cache-control', 'no-cache, no-store');
    // The challenge list itself (spec §7 "returns a challenge list"; the published client reads `result` as the array).
    return { result: [...uiCustomization(org, body.factor.method, challenges), ...challenges] };
  };
  app.post('/id', { schema: { body: S.idRequest } }, idHandler);
  app.post('/id/v2', { schema: { body: S.idRequest } }, idHandler);

  const attest = async (req: FastifyRequest<Wire<'/attestation', 'post'>>) => {
    const body = req.body;
    const row = await loadOpenChallenge(ctx, body.challenge_id);
    if (row.type !== body.challenge_type) {
      throw badRequest(`challenge_type "${body.challenge_type}" does not match the challenge, which is of type "${row.type}"`);
    }
    const handler = factors.attestation(row.type);
    if (!handler) throw badRequest(`challenges of type "${row.type}" are not answered through /attestation`);
    const token = await handler(ctx, row, body.data);
    return { result: { token } };
  };
  for (const path of ['/attestation', '/attestation/v2', '/attestation/v3']) app.post(path, { schema: { body: S.attestation } }, attest);
}

/** Polling of proxy and SSO challenges, and the landing page of sign-in links. */
export function registerChallengeRoutes(app: FastifyInstance, ctx: Ctx): void {
  // Proxy challenges (email_link / sms_link): the SDK polls; 202 until the link is opened, then the token once.
  const poll = async (req: FastifyRequest<Wire<'/challenge/{challenge_id}', 'get'>>, reply: FastifyReply) => {
    const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', req.params.challenge_id).executeTakeFirst();
    if (!row) throw notFound(`challenge "${req.params.challenge_id}" does not exist`);
    if (!['proxy', 'oidc', 'saml'].includes(row.type)) throw badRequest(`challenge "${row.id}" is of type "${row.type}" and cannot be polled`);
    if (row.status === 'completed') throw unauthorized('challenge has already been answered');
    if (row.status === 'refused') throw unauthorized('the sign-in was refused from the link sent to the address');
    if (Date.parse(row.expires_at) <= Date.now()) throw answer('authenticationExpired');
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

  registerLinkPage(app, ctx);
}

/**
 * The link in the e-mail or SMS (#36). Opening it changes nothing: the page names what is being signed in (the
 * organization, the address, when it was asked and from which device and address) and asks the person to confirm or
 * refuse. Confirming completes the sign-in of the tab that asked (its poll gets the token); refusing ends it. Why a
 * confirmation rather than completing in the opening browser: the tab that asked may be on another device (a link
 * opened on a phone for a sign-in on a laptop), and the clients poll for the token where they asked; and a GET that
 * signs in is also completed by mail scanners that open every link.
 */
function registerLinkPage(app: FastifyInstance, ctx: Ctx): void {
  const load = async (id: string, secret: string) => {
    const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || row.type !== 'proxy' || row.secret_hash === null || !sameDigest(hashSecret(row.id, secret), row.secret_hash)) return undefined;
    return row;
  };
  const invalid = (reply: FastifyReply) => sendMessagePage(reply, 404, 'Link not valid', 'This sign-in link is not valid. Request a new one.');
  const expired = (reply: FastifyReply) => sendMessagePage(reply, 410, 'Link expired', 'This sign-in link has expired. Request a new one.');
  const params = { schema: { params: S.challengeParams } };
  app.get<{ Params: { challenge_id: string }; Querystring: { secret?: string } }>(
    '/challenge/:challenge_id/verify',
    { schema: { params: S.challengeParams, querystring: { type: 'object', properties: { secret: { type: 'string', maxLength: 256 } } } } },
    async (req, reply) => {
      const row = await load(req.params.challenge_id, req.query.secret ?? '');
      if (!row) return invalid(reply);
      if (Date.parse(row.expires_at) <= Date.now()) return expired(reply);
      if (row.status !== 'pending') return sendMessagePage(reply, 200, 'Already answered', 'This sign-in link was already used. If you did not ask for it, you can ignore it.');
      const org = await loadOrg(ctx, row.org_id);
      // A link asked for with a previous token adds the address to that person's account, when nobody holds it yet: the
      // page says whose. (When somebody holds it, confirming refuses that tab: signin/proofs.ts.)
      const data = challengeData(row);
      const held = row.handle_type && row.handle_value ? await findPersonByHandle(ctx, row.org_id, { type: row.handle_type, value: row.handle_value } as Handle) : undefined;
      const previous = held ? undefined : data.previous;
      const account = previous ? (await ctx.db.selectFrom('handles').select('value').where('person_id', '=', previous.person_id).orderBy('created_at').executeTakeFirst())?.value ?? previous.person_id : undefined;
      const orgName = org?.org_name ?? 'Keyway';
      return sendFormPage(reply, 200, data.recovery ? `Recover your ${orgName} account?` : `Sign in to ${orgName}?`, confirmationBody(row, req.query.secret ?? '', account));
    },
  );
  app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: 4 * 1024 });
    scope.post<{ Params: { challenge_id: string }; Body: { secret?: string; decision?: string } }>(
      '/challenge/:challenge_id/verify',
      { ...params, schema: { ...params.schema, body: { type: 'object', additionalProperties: false, required: ['secret', 'decision'], properties: { secret: { type: 'string', maxLength: 256 }, decision: { type: 'string', enum: ['confirm', 'deny'] } } } } },
      async (req, reply) => {
        const row = await load(req.params.challenge_id, req.body.secret ?? '');
        if (!row) return invalid(reply);
        if (Date.parse(row.expires_at) <= Date.now()) return expired(reply);
        const confirm = req.body.decision === 'confirm';
        const res = await ctx.db.updateTable('challenges').set({ status: confirm ? 'verified' : 'refused' }).where('id', '=', row.id).where('status', '=', 'pending').executeTakeFirst();
        if (Number(res.numUpdatedRows) !== 1) return sendMessagePage(reply, 409, 'Already answered', 'This sign-in link was already used.');
        if (!confirm) return sendMessagePage(reply, 200, 'Sign-in refused', 'Nobody was signed in. If you did not ask for this link, someone typed your address: you can ignore it.');
        const target = challengeData(row).redirect_target;
        if (target) return reply.redirect(target, 303);
        return sendMessagePage(reply, 200, 'You are signed in', 'Go back to the tab where you started signing in; it continues by itself.');
      },
    );
  });
}

/** What the confirmation page says of the sign-in a link completes, and its two buttons. */
function confirmationBody(row: ChallengeRow, secret: string, account: string | undefined): string {
  const requested = challengeData(row).requested as { at?: string; ip?: string; user_agent?: string } | undefined;
  const when = new Date(requested?.at ?? row.created_at).toUTCString();
  const from = [describeDevice(requested?.user_agent), requested?.ip ? `network address ${requested.ip}` : undefined].filter(Boolean).join(', ');
  const what = challengeData(row).recovery ? 'The recovery of the account of' : 'A sign-in as';
  return (
    `<p>${what} <b>${escapeHtml(row.handle_value ?? '')}</b> was requested on ${escapeHtml(when)}${from ? ` from ${escapeHtml(from)}` : ''}.</p>` +
    (account && account !== row.handle_value
      ? `<p><b>It adds this address to the account of ${escapeHtml(account)}</b>: afterwards, signing in with it opens that account.</p>`
      : '') +
    '<p>Confirm only if it was you. Confirming signs in the browser tab where the sign-in was started, wherever it is.</p>' +
    `<form method="post" action="/challenge/${encodeURIComponent(row.id)}/verify"><input type="hidden" name="secret" value="${escapeHtml(secret)}">` +
    '<button type="submit" name="decision" value="confirm">Yes, sign me in</button> <button type="submit" name="decision" value="deny">No, it was not me</button></form>'
  );
}

/** Anonymous persons, token validation and revocation. */
export function registerTokenRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.post<Wire<'/persons/anonymous', 'post'>>('/persons/anonymous', { schema: { body: S.anonymousRequest } }, async (req) => {
    const org = await requireOrg(ctx, req);
    await ctx.limiter.hit('id-ip', clientIp(req), ctx.limits.perIpPerMinute, 'sign-in attempts from this address');
    const person = await createPerson(ctx, org, { type: 'anonymous', region: req.body?.region });
    const token = await issueToken(ctx, person, { method: 'anonymous' }, { firstToken: true });
    // Spec §7: "result: anonymous token" (the token string).
    return { result: token };
  });

  /** The organization a backend names by its API key (checked), when it sends one. */
  const keyOrg = async (req: FastifyRequest) => (req.headers['keyway-api-key'] === undefined ? undefined : await requireApiKey(ctx, req));

  app.post<Wire<'/token/validate', 'post'>>('/token/validate', { schema: { body: S.tokenBody } }, async (req) => {
    const org = await keyOrg(req);
    const res = await ctx.tokens.validate(req.body.token, 'validate');
    if (!res.valid) return { result: { valid: false, invalidity_reason: res.invalidity_reason } };
    const orgHeader = req.headers['keyway-orgid'];
    const expected = org?.id ?? (typeof orgHeader === 'string' ? orgHeader : undefined);
    if (expected !== undefined && expected !== res.claims.oid) {
      return { result: { valid: false, invalidity_reason: 'token belongs to another organization' } };
    }
    return { result: { valid: true, expires_in_seconds: res.expires_in_seconds, expires_at: res.expires_at } };
  });

  // The token is the capability (whoever holds it may end it); an API key may end any token of its organization.
  app.post<Wire<'/token/revoke', 'post'>>('/token/revoke', { schema: { body: S.tokenBody } }, async (req, reply) => {
    const org = await keyOrg(req);
    const res = await ctx.tokens.validate(req.body.token, 'revoke');
    if (res.valid) {
      if (org && res.claims.oid !== org.id) throw forbidden('token belongs to another organization');
      await ctx.tokens.revoke(res.claims);
      return reply.code(204).send();
    }
    if (res.invalidity_reason === 'token has been revoked' || res.invalidity_reason === 'token has expired') return reply.code(204).send();
    throw badRequest(`cannot revoke: ${res.invalidity_reason}`);
  });
}
