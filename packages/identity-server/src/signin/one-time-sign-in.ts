import type { Ctx, Org } from '../context.js';
import type { SendOutcome } from '../email/mailer.js';
import { hashSecret, newSecret, sameDigest } from '../crypto/secrets.js';
import { badRequest, notFound, unauthorized } from '../http/errors.js';
import { escapeHtml } from '../http/html.js';
import type { Handle } from '../persons/handles.js';
import { getPerson, issueToken } from '../persons/persons.js';
import { challengeData, checkAnswer, createChallenge, type AttestationHandler, type ChallengeData, type ChallengeOut, type Factor } from './challenges.js';
import { passwordRulesOptions } from './factors/password.js';

// Sign-ins the organization hands out: Direct-ID links, impersonation links and password-reset links, each a challenge
// pack the SDK opens with `challenge_pack_id`.

/** A single-use sign-in for a known person: a nonce challenge, handed out inside a challenge pack. */
export async function oneTimeSignIn(ctx: Ctx, org: Org, personId: string, method: 'direct_id' | 'impersonate', ttlSeconds: number, extra: ChallengeData = {}) {
  const secret = newSecret();
  const row = await createChallenge(ctx, { org, type: 'nonce', method, personId, secret, data: extra, ttlSeconds });
  return { row, secret };
}

const answerNonce: AttestationHandler = async (ctx, row, data) => {
  const answer = data.challenge;
  if (typeof answer !== 'string' || answer.length === 0) throw badRequest('data.challenge must be a non-empty string');
  const correct = row.secret_hash !== null && sameDigest(hashSecret(row.id, answer), row.secret_hash);
  const d0 = challengeData(row);
  if (typeof d0.parent_jti === 'string' && (await ctx.tokens.isRevoked(d0.parent_jti))) throw unauthorized('the session that made this sign-in link has ended');
  await checkAnswer(ctx, row, correct, 'nonce does not match the challenge');
  const person = await getPerson(ctx, row.person_id!);
  if (!person) throw notFound('person no longer exists');
  const d = challengeData(row);
  return issueToken(ctx, person, { method: row.method }, { firstToken: false, extraClaims: typeof d.impersonator === 'string' ? { impersonator: d.impersonator } : {} });
};

/** The server's own password reset page (signin/password-reset-page.ts): where a reset link leads without a `redirect_target`. */
export const RESET_PAGE_PATH = '/password-reset';

/**
 * An organization-initiated password reset: a password_reset challenge in a challenge pack, linked from a message to the
 * person's e-mail address or phone (`redirect_target?challenge_pack_id=…`, valid one hour).
 */
export async function sendPasswordResetLink(ctx: Ctx, org: Org, personId: string, handle: Handle, redirectTarget: string): Promise<SendOutcome> {
  const ttl = 3600;
  const row = await createChallenge(ctx, { org, type: 'password_reset', method: handle.type === 'email_address' ? 'email_link' : 'sms_link', handle, personId, data: { reset_by_link: true }, ttlSeconds: ttl });
  const pack = await createChallengePack(ctx, org, [{ id: row.id, type: 'password_reset', authentication_method: 'password', options: passwordRulesOptions(org) }], ttl);
  const url = new URL(redirectTarget);
  url.searchParams.set('challenge_pack_id', pack);
  const link = url.toString();
  const text = `Set a new password for ${org.org_name}: ${link}\nThe link works for one hour. If you did not expect it, ignore this message.`;
  return ctx.mailer.send({
    orgId: org.id,
    channel: handle.type === 'email_address' ? 'email' : 'sms',
    to: handle.value,
    subject: `Set a new ${org.org_name} password`,
    text,
    html: `<p>Set a new password for <b>${escapeHtml(org.org_name)}</b>:</p><p><a href="${escapeHtml(link)}">Choose a new password</a></p><p>The link works for one hour. If you did not expect it, ignore this message.</p>`,
    link,
    validForSeconds: ttl,
    template: { name: handle.type === 'email_address' ? 'email_password_reset' : 'text_password_reset', vars: { link, org_name: org.org_name, minutes: '60' } },
  });
}

/** A single-use Direct-ID (5 minutes): the id of a challenge pack holding a nonce challenge that signs the person in. */
export async function directIdFor(ctx: Ctx, org: Org, personId: string, ttlSeconds = 300, parentJti?: string): Promise<string> {
  // Made from a person's token (`POST /direct-id`): it ends with that token (#36: signing out ends what it handed out).
  const { row, secret } = await oneTimeSignIn(ctx, org, personId, 'direct_id', ttlSeconds, parentJti ? { parent_jti: parentJti } : {});
  return createChallengePack(ctx, org, [{ id: row.id, type: 'nonce', authentication_method: 'direct_id', options: { challenge: secret } }], ttlSeconds);
}

/** Stores a list of challenges under an id the SDK fetches with `GET /challenge_pack/{id}` (`challenge_pack_id` URL parameter). */
export async function createChallengePack(ctx: Ctx, org: Org, challenges: ChallengeOut[], ttlSeconds: number): Promise<string> {
  const row = await createChallenge(ctx, { org, type: 'challenge_pack', method: 'pack', data: { challenges }, ttlSeconds });
  return row.id;
}

/** Single-use `nonce` challenges of Direct-ID and impersonation links. */
export const oneTimeSignInFactor: Factor = {
  methods: {
  },
  attestations: {
    nonce: answerNonce,
  },
};
