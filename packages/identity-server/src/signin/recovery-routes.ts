import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { answer, badRequest, forbidden, notFound, unauthorized } from '../http/errors.js';
import { clientIp, requireApiKey, requireOrg, requireUser } from '../http/guards.js';
import { checkRedirect } from '../http/origins.js';
import * as S from '../http/schemas.js';
import { loadOrg } from '../organizations/settings.js';
import { parseHandle, type Handle } from '../persons/handles.js';
import { getPerson } from '../persons/persons.js';
import type { UserTokenClaims } from '../tokens/token-service.js';
import { challengeData, createChallenge, factorOptions, type ChallengeOut, type StartRequest } from './challenges.js';
import { otpAndLinkFactors } from './factors/otp.js';
import { passwordRulesOptions } from './factors/password.js';
import { createChallengePack, directIdFor, oneTimeSignIn } from './one-time-sign-in.js';
import type { Wire } from '../http/wire.js';

// Account recovery (`/recover`), challenge packs, Direct-ID and impersonation.

function appendQuery(url: string, key: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(key, value);
  return u.toString();
}

const RECOVERY_METHODS = ['otp_via_email', 'otp_via_sms', 'email_link', 'sms_link'];

/** `/recover` and `/challenge_pack/:id`. */
export function registerRecoveryRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.post<Wire<'/recover', 'post'>>(
    '/recover',
    { schema: { body: S.recoverRequest } },
    async (req) => {
      const org = await requireOrg(ctx, req);
      await ctx.limiter.hit('id-ip', clientIp(req), ctx.limits.perIpPerMinute, 'sign-in attempts from this address');
      const handle: Handle = parseHandle(req.body.handle);
      if (handle.type === 'username') throw badRequest('recovery needs an email address or phone number as handle');
      await ctx.limiter.hit('id-handle', `${org.id}:${handle.type}:${handle.value}`, ctx.limits.perHandlePerMinute, 'sign-in attempts for this handle');
      // `password` (what the published client sends: recover the password factor) proves the handle with a code sent to it.
      const method = req.body.factor.method === 'password' ? (handle.type === 'email_address' ? 'otp_via_email' : 'otp_via_sms') : req.body.factor.method;
      if (!RECOVERY_METHODS.includes(method)) throw badRequest(`recovery works with password, ${RECOVERY_METHODS.join(', ')}, not "${method}"`);
      const start: StartRequest = { org, handle, method, options: factorOptions(req.body.factor), previous: undefined, metadata: undefined, recovery: true };
      const first = await otpAndLinkFactors.methods[method]!.start(ctx, start);
      const reset = await createChallenge(ctx, { org, type: 'password_reset', method, handle, data: { after: first[0]!.id, recovery: true } });
      return { result: [...first, { id: reset.id, type: 'password_reset', authentication_method: 'password', options: passwordRulesOptions(org) }] };
    },
  );

  app.get<Wire<'/challenge_pack/{challenge_pack_id}', 'get'>>(
    '/challenge_pack/:challenge_pack_id',
    { schema: { params: { type: 'object', required: ['challenge_pack_id'], properties: { challenge_pack_id: { type: 'string', maxLength: 128 } } } } },
    async (req) => {
      const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', req.params.challenge_pack_id).executeTakeFirst();
      if (!row || row.type !== 'challenge_pack') throw notFound(`challenge pack "${req.params.challenge_pack_id}" does not exist`);
      if (Date.parse(row.expires_at) <= Date.now()) throw answer('authenticationExpired');
      const orgHeader = req.headers['keyway-orgid'];
      if (typeof orgHeader === 'string' && orgHeader !== row.org_id) throw notFound(`challenge pack "${row.id}" does not exist`);
      return { result: challengeData(row).challenges as ChallengeOut[] };
    },
  );
}

/** `/direct-id` and impersonation (with the organization's API key, or as a member of the group "impersonators"). */
export function registerDirectIdRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.post('/direct-id', async (req) => {
    const claims = await requireUser(ctx, req);
    // Spec §7: "result: a direct id" (the string).
    return { result: await directIdFor(ctx, (await loadOrg(ctx, claims.oid))!, claims.person_id, 300, claims.jti) };
  });

  // Impersonation: with the organization's API key, or as a signed-in person of the group "impersonators".
  const impersonate = (version: 1 | 2) => async (req: FastifyRequest<Wire<'/persons/{person_id}/impersonate/v2', 'post'>>) => {
    let org: Org;
    let impersonator: string;
    if (req.headers['keyway-api-key']) {
      org = await requireApiKey(ctx, req);
      impersonator = 'api';
    } else {
      const claims: UserTokenClaims = await requireUser(ctx, req);
      org = await requireOrg(ctx, req);
      if (claims.oid !== org.id) throw forbidden('token belongs to another organization');
      const caller = await getPerson(ctx, claims.person_id);
      if (!caller || !(JSON.parse(caller.groups) as string[]).includes('impersonators')) throw forbidden('impersonation needs membership of the "impersonators" group');
      impersonator = claims.person_id;
    }
    const person = await getPerson(ctx, req.params.person_id);
    if (!person || person.org_id !== org.id) throw notFound(`person "${req.params.person_id}" does not exist`);
    const rawTarget = req.body?.target_url;
    if (version === 2 && !rawTarget) throw badRequest('body is missing required field "target_url"');
    const target = rawTarget === undefined ? undefined : checkRedirect(ctx, org, rawTarget, 'target_url');
    const token = await ctx.tokens.sign({
      person_id: person.id,
      oid: org.id,
      first_token: false,
      authenticated_methods: ['impersonate'],
      authentications: [{ method: 'impersonate' }],
      person_type: person.person_type,
      groups: JSON.parse(person.groups) as string[],
      impersonator,
    });
    if (!target) return { result: { token } };
    const { row, secret } = await oneTimeSignIn(ctx, org, person.id, 'impersonate', 300, { impersonator });
    const pack = await createChallengePack(ctx, org, [{ id: row.id, type: 'nonce', authentication_method: 'impersonate', options: { challenge: secret } }], 300);
    return { result: { token, url: appendQuery(target, 'challenge_pack_id', pack) } };
  };
  const targetBody = { type: ['object', 'null'], additionalProperties: false, properties: { target_url: { type: 'string', minLength: 1, maxLength: 2048 } } };
  const personParams = { type: 'object', required: ['person_id'], properties: { person_id: { type: 'string', maxLength: 128 } } };
  app.post('/persons/:person_id/impersonate', { schema: { params: personParams, body: targetBody } }, impersonate(1));
  app.post('/persons/:person_id/impersonate/v2', { schema: { params: personParams, body: targetBody } }, impersonate(2));
}
