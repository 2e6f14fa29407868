import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../../context.js';
import { checkRedirect, clientIp, loadOrg, nowIso, requireOrg, requireUser } from '../../context.js';
import { badRequest, forbidden, notFound, unauthorized } from '../../http/errors.js';
import { parseHandle, type Handle } from '../../persons/handles.js';
import { escapeHtml } from '../../email/mailer.js';
import { failedRules, hashPassword, PASSWORD_RULES, verifyPassword, type PasswordRule } from './password-hashing.js';
import { findPersonByHandle, getPerson, hashAlgorithm, issueToken, type PersonRow } from '../../persons/persons.js';
import * as S from '../../http/schemas.js';
import { hashSecret, newSecret, sameDigest, sha256 } from '../../crypto/secrets.js';
import { checkTotp, newTotpRegistration, RECOVERY_CODE_COUNT } from './totp-codes.js';
import type { UserTokenClaims } from '../../tokens/token-service.js';
import { requireApiKey } from '../../events/routes.js';
import { clearPersonFactor } from '../guessing.js';
import {
  attestationHandlers,
  challengeData,
  checkAnswer,
  createChallenge,
  factorHandlers,
  factorOptions,
  finishSignIn,
  linkFactor,
  otpFactor,
  resolveChallengePerson,
  rowHandle,
  type ChallengeData,
  type ChallengeOut,
  type StartRequest,
} from '../challenges.js';

interface CredentialRow {
  id: string;
  person_id: string;
  type: string;
  secret: string;
}

async function credentialOf(ctx: Ctx, personId: string, type: 'password' | 'totp'): Promise<CredentialRow | undefined> {
  return ctx.db.selectFrom('credentials').select(['id', 'person_id', 'type', 'secret']).where('person_id', '=', personId).where('type', '=', type).executeTakeFirst();
}

/**
 * The person a password/TOTP factor is about: the handle's owner, else the person of the previous token.
 * `signedIn` tells whether the caller already proved to be that person (previous token of the same person).
 */
async function subjectOf(ctx: Ctx, r: StartRequest): Promise<{ person: PersonRow | undefined; signedIn: boolean }> {
  const prev = r.previous && r.previous.oid === r.org.id ? r.previous : undefined;
  const byHandle = r.handle ? await findPersonByHandle(ctx, r.org.id, r.handle) : undefined;
  if (byHandle) return { person: byHandle, signedIn: prev?.person_id === byHandle.id };
  if (r.handle) return { person: undefined, signedIn: false };
  if (!prev) throw badRequest(`${r.method} needs a handle, or a previous token of the signed-in person`);
  return { person: await getPerson(ctx, prev.person_id), signedIn: true };
}

export const rulesOf = (org: Org | undefined): PasswordRule[] => (org?.settings.password_validation_rules?.length ? org.settings.password_validation_rules : PASSWORD_RULES);
const passwordRulesOptions = (org: Org) => ({ validation_rules: rulesOf(org) });

factorHandlers.set('password', {
  async start(ctx, r) {
    const { person, signedIn } = await subjectOf(ctx, r);
    const data: ChallengeData = r.previous ? { previous: r.previous } : {};
    // The same lookups whoever the handle names (an unknown handle looks for the credential of no one), so the answer's
    // timing does not tell a known handle from an unknown one.
    const cred = await credentialOf(ctx, person?.id ?? '', 'password');
    if (person && cred) {
      const row = await createChallenge(ctx, { org: r.org, type: 'password_verify', method: 'password', handle: r.handle, personId: person.id, data });
      return [{ id: row.id, type: 'password_verify', authentication_method: 'password', options: {} }];
    }
    if (person && signedIn) {
      const row = await createChallenge(ctx, { org: r.org, type: 'password_set', method: 'password', personId: person.id, data });
      return [{ id: row.id, type: 'password_set', authentication_method: 'password', options: passwordRulesOptions(r.org) }];
    }
    // Sign-up with a password (or a signed-in person adding a handle with a password): only where the organization
    // lets unknown handles register. Elsewhere an unknown handle gets exactly the answer of a known person without a
    // password, so the password factor does not reveal who has an account (README, "Guessing limits").
    const signUp = !person && (r.org.settings.self_registration !== false || !!r.previous);
    if (!signUp) throw forbidden('no password set');
    const row = await createChallenge(ctx, { org: r.org, type: 'password_set', method: 'password', handle: r.handle, data });
    return [{ id: row.id, type: 'password_set', authentication_method: 'password', options: passwordRulesOptions(r.org) }];
  },
});

function passwordOf(data: Record<string, unknown>, rules: PasswordRule[] | false): string {
  const password = data.password;
  if (typeof password !== 'string' || password.length === 0) throw badRequest('No password provided');
  if (password.length > 1024) throw badRequest('password is longer than 1024 characters');
  if (rules) {
    const failed = failedRules(password, rules);
    if (failed.length) throw badRequest(`password does not satisfy the validation rules: ${failed.join(', ')}`);
  }
  return password;
}

/** Stores (or replaces) the person's password credential. */
export async function setPassword(ctx: Ctx, personId: string, password: string, label = 'Password'): Promise<void> {
  const hash = await hashPassword(password);
  const now = nowIso();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('credentials').where('person_id', '=', personId).where('type', '=', 'password').execute();
    await trx
      .insertInto('credentials')
      .values({ id: randomUUID(), person_id: personId, type: 'password', label, params: JSON.stringify({ hash_algorithm: hashAlgorithm(hash) }), secret: JSON.stringify({ hash }), created_at: now, last_used: now })
      .execute();
  });
  await clearPersonFactor(ctx, personId, 'password');
}

attestationHandlers.set('password_set', async (ctx, row, data) => {
  const password = passwordOf(data, rulesOf(await loadOrg(ctx, row.org_id)));
  const resolved = await resolveChallengePerson(ctx, row);
  await checkAnswer(ctx, row, true, '');
  await setPassword(ctx, resolved.person.id, password);
  return issueToken(ctx, resolved.person, { method: 'password', handle: rowHandle(row)?.value }, { firstToken: resolved.created, previous: resolved.previous, oid: row.org_id });
});

attestationHandlers.set('password_verify', async (ctx, row, data) => {
  const password = passwordOf(data, false);
  const cred = row.person_id ? await credentialOf(ctx, row.person_id, 'password') : undefined;
  if (!cred) throw forbidden('no password set');
  const secret = JSON.parse(cred.secret) as { hash: string; rotation_required?: boolean };
  const correct = await verifyPassword(password, secret.hash);
  await checkAnswer(ctx, row, correct, 'incorrect password');
  if (secret.rotation_required) throw forbidden('password must be changed: reset it with the link you were sent, or through account recovery');
  await ctx.db.updateTable('credentials').set({ last_used: nowIso() }).where('id', '=', cred.id).execute();
  return finishSignIn(ctx, row, 'password');
});

// Recovery: the code (or link) challenge must be answered first; then the new password is set.
attestationHandlers.set('password_reset', async (ctx, row, data) => {
  const password = passwordOf(data, rulesOf(await loadOrg(ctx, row.org_id)));
  const d = challengeData(row);
  // Reached through an emailed reset link (the link is the proof), or after the recovery code / link challenge.
  if (!d.reset_by_link) {
    const first = d.after as string | undefined;
    const before = first ? await ctx.db.selectFrom('challenges').select(['status']).where('id', '=', first).executeTakeFirst() : undefined;
    if (before?.status !== 'completed') throw forbidden('answer the recovery code or open the recovery link first');
  }
  await checkAnswer(ctx, row, true, '');
  const resolved = await resolveChallengePerson(ctx, row);
  await setPassword(ctx, resolved.person.id, password);
  return issueToken(ctx, resolved.person, { method: row.method, handle: rowHandle(row)?.value }, { firstToken: false, oid: row.org_id });
});

factorHandlers.set('totp', {
  async start(ctx, r) {
    const { person, signedIn } = await subjectOf(ctx, r);
    if (!person) throw forbidden('TOTP is not set up for this person: sign in with another factor first, then register TOTP');
    const data: ChallengeData = r.previous ? { previous: r.previous } : {};
    const cred = await credentialOf(ctx, person.id, 'totp');
    if (cred) {
      const row = await createChallenge(ctx, { org: r.org, type: 'totp_verify', method: 'totp', handle: r.handle, personId: person.id, data });
      return [{ id: row.id, type: 'totp_verify', authentication_method: 'totp', options: {} }];
    }
    if (!signedIn) throw forbidden('TOTP is not set up for this person: sign in with another factor first, then register TOTP');
    const handles = await ctx.db.selectFrom('handles').select('value').where('person_id', '=', person.id).orderBy('created_at').execute();
    const reg = await newTotpRegistration(r.org.org_name, handles[0]?.value ?? person.id);
    data.totp_secret = reg.secret;
    data.recovery_hashes = reg.recovery_codes.map(sha256);
    const row = await createChallenge(ctx, { org: r.org, type: 'totp_register', method: 'totp', personId: person.id, data });
    return [
      {
        id: row.id,
        type: 'totp_register',
        authentication_method: 'totp',
        options: { key_uri: reg.key_uri, qr_code_data_b64: reg.qr_code_data_b64, recovery_codes: reg.recovery_codes },
      },
    ];
  },
});

function totpCodeOf(data: Record<string, unknown>): string {
  const otp = data.otp;
  if (typeof otp !== 'string' || otp.trim().length === 0) throw badRequest('no TOTP code provided');
  if (otp.length > 32) throw badRequest('TOTP code is longer than 32 characters');
  return otp.trim();
}

interface TotpSecret {
  secret: string;
  last_time_step: number;
  recovery_hashes: string[];
}

attestationHandlers.set('totp_register', async (ctx, row, data) => {
  const code = totpCodeOf(data);
  const d = challengeData(row) as ChallengeData & { totp_secret: string; recovery_hashes: string[] };
  const step = await checkTotp(d.totp_secret, code, 0);
  await checkAnswer(ctx, row, step !== undefined, 'incorrect code');
  const secret: TotpSecret = { secret: d.totp_secret, last_time_step: step!, recovery_hashes: d.recovery_hashes };
  const now = nowIso();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('credentials').where('person_id', '=', row.person_id!).where('type', '=', 'totp').execute();
    await trx
      .insertInto('credentials')
      .values({
        id: randomUUID(),
        person_id: row.person_id!,
        type: 'totp',
        label: 'Authenticator app',
        params: JSON.stringify({ recovery_codes_total: RECOVERY_CODE_COUNT, recovery_codes_unused: RECOVERY_CODE_COUNT }),
        secret: JSON.stringify(secret),
        created_at: now,
        last_used: now,
      })
      .execute();
  });
  return finishSignIn(ctx, row, 'totp');
});

attestationHandlers.set('totp_verify', async (ctx, row, data) => {
  const code = totpCodeOf(data);
  const cred = row.person_id ? await credentialOf(ctx, row.person_id, 'totp') : undefined;
  if (!cred) throw forbidden('TOTP is not set up for this person');
  const secret = JSON.parse(cred.secret) as TotpSecret;
  let correct = false;
  if (/^\d{6}$/.test(code)) {
    const step = await checkTotp(secret.secret, code, secret.last_time_step);
    if (step !== undefined) {
      secret.last_time_step = step;
      correct = true;
    }
  } else {
    // A recovery code (shown once at registration) works once instead of a TOTP code.
    const digest = sha256(code.toLowerCase());
    const idx = secret.recovery_hashes.findIndex((h) => sameDigest(h, digest));
    if (idx >= 0) {
      secret.recovery_hashes.splice(idx, 1);
      correct = true;
    }
  }
  await checkAnswer(ctx, row, correct, 'incorrect code');
  await ctx.db
    .updateTable('credentials')
    .set({
      secret: JSON.stringify(secret),
      params: JSON.stringify({ recovery_codes_total: RECOVERY_CODE_COUNT, recovery_codes_unused: secret.recovery_hashes.length }),
      last_used: nowIso(),
    })
    .where('id', '=', cred.id)
    .execute();
  return finishSignIn(ctx, row, 'totp');
});

/** A single-use sign-in for a known person: a nonce challenge, handed out inside a challenge pack. */
async function oneTimeSignIn(ctx: Ctx, org: Org, personId: string, method: 'direct_id' | 'impersonate', ttlSeconds: number, extra: ChallengeData = {}) {
  const secret = newSecret();
  const row = await createChallenge(ctx, { org, type: 'nonce', method, personId, secret, data: extra, ttlSeconds });
  return { row, secret };
}

attestationHandlers.set('nonce', async (ctx, row, data) => {
  const answer = data.challenge;
  if (typeof answer !== 'string' || answer.length === 0) throw badRequest('data.challenge must be a non-empty string');
  const correct = row.secret_hash !== null && sameDigest(hashSecret(row.id, answer), row.secret_hash);
  await checkAnswer(ctx, row, correct, 'nonce does not match the challenge');
  const person = await getPerson(ctx, row.person_id!);
  if (!person) throw notFound('person no longer exists');
  const d = challengeData(row);
  return issueToken(ctx, person, { method: row.method }, { firstToken: false, extraClaims: typeof d.impersonator === 'string' ? { impersonator: d.impersonator } : {} });
});

/**
 * An organization-initiated password reset: a password_reset challenge in a challenge pack, linked from a message to the
 * person's e-mail address or phone (`redirect_target?challenge_pack_id=…`, valid one hour).
 */
export async function sendPasswordResetLink(ctx: Ctx, org: Org, personId: string, handle: Handle, redirectTarget: string): Promise<void> {
  const ttl = 3600;
  const row = await createChallenge(ctx, { org, type: 'password_reset', method: handle.type === 'email_address' ? 'email_link' : 'sms_link', handle, personId, data: { reset_by_link: true }, ttlSeconds: ttl });
  const pack = await createChallengePack(ctx, org, [{ id: row.id, type: 'password_reset', authentication_method: 'password', options: passwordRulesOptions(org) }], ttl);
  const url = new URL(redirectTarget);
  url.searchParams.set('challenge_pack_id', pack);
  const link = url.toString();
  const text = `Set a new password for ${org.org_name}: ${link}\nThe link works for one hour. If you did not expect it, ignore this message.`;
  await ctx.mailer.send({
    orgId: org.id,
    channel: handle.type === 'email_address' ? 'email' : 'sms',
    to: handle.value,
    subject: `Set a new ${org.org_name} password`,
    text,
    html: `<p>Set a new password for <b>${escapeHtml(org.org_name)}</b>:</p><p><a href="${escapeHtml(link)}">Choose a new password</a></p><p>The link works for one hour. If you did not expect it, ignore this message.</p>`,
    link,
    template: { name: 'password_reset', vars: { link, org_name: org.org_name, minutes: '60' } },
  });
}

/** A single-use Direct-ID (5 minutes): the id of a challenge pack holding a nonce challenge that signs the person in. */
export async function directIdFor(ctx: Ctx, org: Org, personId: string): Promise<string> {
  const { row, secret } = await oneTimeSignIn(ctx, org, personId, 'direct_id', 300);
  return createChallengePack(ctx, org, [{ id: row.id, type: 'nonce', authentication_method: 'direct_id', options: { challenge: secret } }], 300);
}

/** Stores a list of challenges under an id the SDK fetches with `GET /challenge_pack/{id}` (`challenge_pack_id` URL parameter). */
export async function createChallengePack(ctx: Ctx, org: Org, challenges: ChallengeOut[], ttlSeconds: number): Promise<string> {
  const row = await createChallenge(ctx, { org, type: 'challenge_pack', method: 'pack', data: { challenges }, ttlSeconds });
  return row.id;
}

function appendQuery(url: string, key: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(key, value);
  return u.toString();
}

const RECOVERY_METHODS = ['otp_via_email', 'otp_via_sms', 'email_link', 'sms_link'];

export function registerFactorRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.post<{ Body: { handle: unknown; factor: { method: string; options?: Record<string, unknown> } } }>(
    '/recover',
    { schema: { body: S.recoverRequest } },
    async (req) => {
      const org = await requireOrg(ctx, req);
      ctx.limiter.hit('id-ip', clientIp(req), ctx.limits.perIpPerMinute, 'sign-in attempts from this address');
      const handle: Handle = parseHandle(req.body.handle);
      if (handle.type === 'username') throw badRequest('recovery needs an email address or phone number as handle');
      ctx.limiter.hit('id-handle', `${org.id}:${handle.type}:${handle.value}`, ctx.limits.perHandlePerMinute, 'sign-in attempts for this handle');
      // `password` (what the published client sends: recover the password factor) proves the handle with a code sent to it.
      const method = req.body.factor.method === 'password' ? (handle.type === 'email_address' ? 'otp_via_email' : 'otp_via_sms') : req.body.factor.method;
      if (!RECOVERY_METHODS.includes(method)) throw badRequest(`recovery works with password, ${RECOVERY_METHODS.join(', ')}, not "${method}"`);
      const start: StartRequest = { org, handle, method, options: factorOptions(req.body.factor), previous: undefined, metadata: undefined, recovery: true };
      const first = method.startsWith('otp') ? await otpFactor(method === 'otp_via_email' ? 'email' : 'sms').start(ctx, start) : await linkFactor(method === 'email_link' ? 'email' : 'sms').start(ctx, start);
      const reset = await createChallenge(ctx, { org, type: 'password_reset', method, handle, data: { after: first[0]!.id, recovery: true } });
      return { result: [...first, { id: reset.id, type: 'password_reset', authentication_method: 'password', options: passwordRulesOptions(org) }] };
    },
  );

  app.get<{ Params: { challenge_pack_id: string } }>(
    '/challenge_pack/:challenge_pack_id',
    { schema: { params: { type: 'object', required: ['challenge_pack_id'], properties: { challenge_pack_id: { type: 'string', maxLength: 128 } } } } },
    async (req) => {
      const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', req.params.challenge_pack_id).executeTakeFirst();
      if (!row || row.type !== 'challenge_pack') throw notFound(`challenge pack "${req.params.challenge_pack_id}" does not exist`);
      if (Date.parse(row.expires_at) <= Date.now()) throw unauthorized('authentication has expired');
      const orgHeader = req.headers['keyway-orgid'];
      if (typeof orgHeader === 'string' && orgHeader !== row.org_id) throw notFound(`challenge pack "${row.id}" does not exist`);
      return { result: challengeData(row).challenges as ChallengeOut[] };
    },
  );

  app.post('/direct-id', async (req) => {
    const claims = await requireUser(ctx, req);
    // Spec §7: "result: a direct id" (the string).
    return { result: await directIdFor(ctx, (await loadOrg(ctx, claims.oid))!, claims.person_id) };
  });

  // Impersonation: with the organization's API key, or as a signed-in person of the group "impersonators".
  const impersonate = (version: 1 | 2) => async (req: FastifyRequest<{ Params: { person_id: string }; Body: { target_url?: string } | null }>) => {
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
