import { randomUUID } from 'node:crypto';
import type { Ctx, Org } from '../../context.js';
import type { Db } from '../../db/index.js';
import { nowIso } from '../../context.js';
import { answer, badRequest, forbidden, notFound, unauthorized } from '../../http/errors.js';
import { loadOrg } from '../../organizations/settings.js';
import { newSecret } from '../../crypto/secrets.js';
import { createPerson, findPersonByHandle, getPerson, hashAlgorithm, issueToken, type PersonRow } from '../../persons/persons.js';
import { assertHandleAllowed, signOutEverywhere } from '../../persons/proofs.js';
import type { UserTokenClaims } from '../../tokens/token-service.js';
import { clearPersonFactor } from '../guessing.js';
import { proofFirst, wantsSignUp } from '../proof-first.js';
import {
  afterProof,
  challengeData,
  checkAnswer,
  createChallenge,
  finishSignIn,
  resolveChallengePerson,
  rowHandle,
  type AttestationHandler,
  type ChallengeData,
  type ChallengeOut,
  type ChallengeRow,
  type Factor,
  type FactorHandler,
  type StartRequest,
} from '../challenges.js';
import { failedRules, hashPassword, isNativeHash, PASSWORD_RULES, verifyPassword, type PasswordRule } from './password-hashing.js';
import { credentialOf } from './subject.js';

// The `password` factor: set a password on first use, verify it, reset it after recovery or from an emailed link.

/** Who made a credential: a sign-in factor, or the organization (management API, imports). */
export type CredentialSource = 'sign_in' | 'management';

/** The organization's password rules, else the server's. */
export const rulesOf = (org: Org | undefined): PasswordRule[] => (org?.settings.password_validation_rules?.length ? org.settings.password_validation_rules : PASSWORD_RULES);

/**
 * The options of `password_set` and `password_reset`: the rules in the shape clients read before sending a password
 * (`validation_rules.regular_expressions[]` with `pattern_qualifiers`, as the published client does; #36).
 */
export const passwordRulesOptions = (org: Org) => ({
  validation_rules: {
    regular_expressions: rulesOf(org).map((r) => ({ name: r.name, pattern: r.pattern, match_type: r.match_type, ...(r.qualifiers?.length ? { pattern_qualifiers: r.qualifiers } : {}) })),
  },
});

const passwordSetOut = (org: Org, id: string): ChallengeOut => ({ id, type: 'password_set', authentication_method: 'password', options: passwordRulesOptions(org) });

/** A signed-in person's own password: verify it when there is one, else set it. */
async function ownPassword(ctx: Ctx, r: StartRequest, person: PersonRow, data: ChallengeData): Promise<ChallengeOut[]> {
  const cred = await credentialOf(ctx, person.id, 'password');
  const row = await createChallenge(ctx, { org: r.org, type: cred ? 'password_verify' : 'password_set', method: 'password', handle: r.handle, personId: person.id, data });
  return [cred ? { id: row.id, type: 'password_verify', authentication_method: 'password', options: {} } : passwordSetOut(r.org, row.id)];
}

/**
 * `/id` with `password`. Signed in (previous token): the person's own password, or, for a handle that is not yet the
 * person's, a sign-in link to the handle first (signin/proof-first.ts). Signing up (`options.sign_up`, or the
 * organization's implicit sign-up): a sign-in link to the handle, then `password_set` (a username: at once). Signing in: `password_verify` for every handle, known or
 * not, with or without a password (#36: the answer tells nothing about the handle); only the holder's password passes.
 */
const startPassword: FactorHandler = {
  async start(ctx, r) {
    const prev = r.previous && r.previous.oid === r.org.id ? r.previous : undefined;
    const data: ChallengeData = r.previous ? { previous: r.previous } : {};
    if (!r.handle) {
      const person = prev && (await getPerson(ctx, prev.person_id));
      if (!person) throw badRequest('password needs a handle, or a previous token of the signed-in person');
      return ownPassword(ctx, r, person, data);
    }
    const holder = await findPersonByHandle(ctx, r.org.id, r.handle);
    if (prev) {
      if (holder?.id === prev.person_id) return ownPassword(ctx, r, holder, data);
      return proofFirst(ctx, r, async (after) => passwordSetOut(r.org, (await createChallenge(ctx, { org: r.org, type: 'password_set', method: 'password', handle: r.handle, data: { ...data, after } })).id));
    }
    // The same lookups whoever the handle names (an unknown handle looks for the credential of no one).
    const cred = await credentialOf(ctx, holder?.id ?? '', 'password');
    if (wantsSignUp(r, !!cred)) {
      if (r.handle.type === 'username') return usernameSignUp(ctx, r, holder, data);
      return proofFirst(ctx, r, async (after) => passwordSetOut(r.org, (await createChallenge(ctx, { org: r.org, type: 'password_set', method: 'password', handle: r.handle, data: { ...data, after } })).id));
    }
    const row = await createChallenge(ctx, { org: r.org, type: 'password_verify', method: 'password', handle: r.handle, personId: cred ? holder!.id : undefined, data });
    return [{ id: row.id, type: 'password_verify', authentication_method: 'password', options: {} }];
  },
};

/**
 * Sign-up with a username: nobody can prove a username (it reaches no one), so a free one is taken at once; a taken
 * one is a 409 (a username's availability is public wherever people choose one).
 */
async function usernameSignUp(ctx: Ctx, r: StartRequest, holder: PersonRow | undefined, data: ChallengeData): Promise<ChallengeOut[]> {
  if (holder) throw answer('personExists');
  if (r.org.settings.self_registration === false) throw answer('selfRegistrationNotAllowed');
  assertHandleAllowed(r.org, r.handle!);
  const row = await createChallenge(ctx, { org: r.org, type: 'password_set', method: 'password', handle: r.handle, data: { ...data, username_sign_up: true } });
  return [passwordSetOut(r.org, row.id)];
}

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

/**
 * Stores (or replaces) the person's password credential. Replacing one ends every session of the person issued before
 * (whoever knew the old password is signed out).
 */
export async function setPassword(ctx: Ctx, personId: string, password: string, label = 'Password', source: CredentialSource = 'sign_in'): Promise<void> {
  const replaced = await credentialOf(ctx, personId, 'password');
  await storePasswordHash(ctx, personId, await hashPassword(password), label, source);
  if (replaced) await signOutEverywhere(ctx, personId);
}

/** Stores (or replaces) the person's password credential from a hash (made here, or imported: see `importableHash`). */
export async function storePasswordHash(ctx: Ctx, personId: string, hash: string, label = 'Password', source: CredentialSource = 'sign_in'): Promise<void> {
  await ctx.db.transaction().execute((trx) => writePasswordHash(trx, personId, hash, label, source));
  await clearPersonFactor(ctx, personId, 'password');
}

/** Replaces the person's password credential (one per person) in `db` (a transaction of the caller). */
export async function writePasswordHash(db: Db, personId: string, hash: string, label: string, source: CredentialSource = 'sign_in'): Promise<void> {
  const now = nowIso();
  await db.deleteFrom('credentials').where('person_id', '=', personId).where('type', '=', 'password').execute();
  await db
    .insertInto('credentials')
    .values({ id: randomUUID(), person_id: personId, type: 'password', label, params: JSON.stringify({ hash_algorithm: hashAlgorithm(hash) }), secret: JSON.stringify({ hash }), created_at: now, last_used: now, source })
    .execute();
}

/**
 * Who a `password_set` sets the password of: the person its proof signed in (checked before the challenge is used, so
 * that an answer sent too early does not spend it), the signed-in person, or a new username.
 */
async function passwordSubject(ctx: Ctx, row: ChallengeRow, proved: Awaited<ReturnType<typeof afterProof>> | undefined): Promise<{ person: PersonRow; created: boolean; authentications: UserTokenClaims['authentications'] }> {
  const d = challengeData(row);
  if (proved) return { ...proved, created: false };
  if (d.username_sign_up) {
    const org = await loadOrg(ctx, row.org_id);
    if (!org || !rowHandle(row)) throw notFound('organization no longer exists');
    if (await findPersonByHandle(ctx, org.id, rowHandle(row)!)) throw answer('personExists');
    return { person: await createPerson(ctx, org, { type: 'regular', handle: rowHandle(row) }), created: true, authentications: [] };
  }
  const resolved = await resolveChallengePerson(ctx, row);
  return { person: resolved.person, created: resolved.created, authentications: resolved.previous?.authentications ?? [] };
}

const answerPasswordSet: AttestationHandler = async (ctx, row, data) => {
  const password = passwordOf(data, rulesOf(await loadOrg(ctx, row.org_id)));
  const proved = challengeData(row).after ? await afterProof(ctx, row) : undefined;
  await checkAnswer(ctx, row, true, '');
  const subject = await passwordSubject(ctx, row, proved);
  await setPassword(ctx, subject.person.id, password);
  return issueToken(ctx, subject.person, { method: 'password', handle: rowHandle(row)?.value }, { firstToken: subject.created, previous: { authentications: subject.authentications }, oid: row.org_id });
};

/** A hash that matches no password: checked for a handle without a password, so that it costs what a real check does. */
let noPasswordHash: Promise<string> | undefined;

const answerPasswordVerify: AttestationHandler = async (ctx, row, data) => {
  const password = passwordOf(data, false);
  const cred = row.person_id ? await credentialOf(ctx, row.person_id, 'password') : undefined;
  const secret = cred ? (JSON.parse(cred.secret) as { hash: string; rotation_required?: boolean }) : undefined;
  const correct = secret ? await verifyPassword(password, secret.hash) : (await verifyPassword(password, await (noPasswordHash ??= hashPassword(newSecret())))) && false;
  await checkAnswer(ctx, row, correct, 'incorrect password');
  if (!cred || !secret) throw unauthorized('incorrect password');
  if (secret.rotation_required) throw forbidden('password must be changed: reset it with the link you were sent, or through account recovery');
  // An imported hash (bcrypt) is replaced by this server's own at the first sign-in that proves the password.
  const rehash = isNativeHash(secret.hash) ? {} : await (async () => {
    const hash = await hashPassword(password);
    return { secret: JSON.stringify({ ...secret, hash }), params: JSON.stringify({ hash_algorithm: hashAlgorithm(hash) }) };
  })();
  await ctx.db.updateTable('credentials').set({ last_used: nowIso(), ...rehash }).where('id', '=', cred.id).execute();
  return finishSignIn(ctx, row, 'password');
};

// Recovery: the code (or link) challenge must be answered first; then the new password is set.
const answerPasswordReset: AttestationHandler = async (ctx, row, data) => {
  const password = passwordOf(data, rulesOf(await loadOrg(ctx, row.org_id)));
  const d = challengeData(row);
  // Reached through an emailed reset link (the link is the proof), or after the recovery code / link challenge.
  if (!d.reset_by_link) {
    const first = d.after as string | undefined;
    const before = first ? await ctx.db.selectFrom('challenges').select(['status']).where('id', '=', first).executeTakeFirst() : undefined;
    if (before?.status !== 'completed') throw forbidden('answer the recovery code or open the recovery link first');
  }
  await checkAnswer(ctx, row, true, '');
  const person = d.reset_by_link ? (await resolveChallengePerson(ctx, row)).person : (await afterProof(ctx, row)).person;
  await setPassword(ctx, person.id, password);
  // A reset or a recovery ends every earlier session, whether or not there was a password before (#36).
  await signOutEverywhere(ctx, person.id);
  return issueToken(ctx, person, { method: row.method, handle: rowHandle(row)?.value }, { firstToken: false, oid: row.org_id });
};

/** Passwords. */
export const passwordFactor: Factor = {
  methods: {
    password: startPassword,
  },
  attestations: {
    password_set: answerPasswordSet,
    password_verify: answerPasswordVerify,
    password_reset: answerPasswordReset,
  },
};
