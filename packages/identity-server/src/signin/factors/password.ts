import { randomUUID } from 'node:crypto';
import type { Ctx, Org } from '../../context.js';
import type { Db } from '../../db/index.js';
import { nowIso } from '../../context.js';
import { answer, badRequest, forbidden, unauthorized } from '../../http/errors.js';
import { loadOrg } from '../../organizations/settings.js';
import { hashAlgorithm, issueToken } from '../../persons/persons.js';
import { clearPersonFactor } from '../guessing.js';
import { challengeData, checkAnswer, createChallenge, finishSignIn, resolveChallengePerson, rowHandle, type AttestationHandler, type ChallengeData, type Factor, type FactorHandler, type StartRequest } from '../challenges.js';
import { failedRules, hashPassword, isNativeHash, PASSWORD_RULES, verifyPassword, type PasswordRule } from './password-hashing.js';
import { credentialOf, subjectOf } from './subject.js';

// The `password` factor: set a password on first use, verify it, reset it after recovery or from an emailed link.

/** The organization's password rules, else the server's. */
export const rulesOf = (org: Org | undefined): PasswordRule[] => (org?.settings.password_validation_rules?.length ? org.settings.password_validation_rules : PASSWORD_RULES);
export const passwordRulesOptions = (org: Org) => ({ validation_rules: rulesOf(org) });

const startPassword: FactorHandler = {
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
    if (!signUp) throw answer('noPasswordSet');
    const row = await createChallenge(ctx, { org: r.org, type: 'password_set', method: 'password', handle: r.handle, data });
    return [{ id: row.id, type: 'password_set', authentication_method: 'password', options: passwordRulesOptions(r.org) }];
  },
};

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
  await storePasswordHash(ctx, personId, await hashPassword(password), label);
}

/** Stores (or replaces) the person's password credential from a hash (made here, or imported: see `importableHash`). */
export async function storePasswordHash(ctx: Ctx, personId: string, hash: string, label = 'Password'): Promise<void> {
  await ctx.db.transaction().execute((trx) => writePasswordHash(trx, personId, hash, label));
  await clearPersonFactor(ctx, personId, 'password');
}

/** Replaces the person's password credential (one per person) in `db` (a transaction of the caller). */
export async function writePasswordHash(db: Db, personId: string, hash: string, label: string): Promise<void> {
  const now = nowIso();
  await db.deleteFrom('credentials').where('person_id', '=', personId).where('type', '=', 'password').execute();
  await db
    .insertInto('credentials')
    .values({ id: randomUUID(), person_id: personId, type: 'password', label, params: JSON.stringify({ hash_algorithm: hashAlgorithm(hash) }), secret: JSON.stringify({ hash }), created_at: now, last_used: now })
    .execute();
}

const answerPasswordSet: AttestationHandler = async (ctx, row, data) => {
  const password = passwordOf(data, rulesOf(await loadOrg(ctx, row.org_id)));
  const resolved = await resolveChallengePerson(ctx, row);
  await checkAnswer(ctx, row, true, '');
  await setPassword(ctx, resolved.person.id, password);
  return issueToken(ctx, resolved.person, { method: 'password', handle: rowHandle(row)?.value }, { firstToken: resolved.created, previous: resolved.previous, oid: row.org_id });
};

const answerPasswordVerify: AttestationHandler = async (ctx, row, data) => {
  const password = passwordOf(data, false);
  const cred = row.person_id ? await credentialOf(ctx, row.person_id, 'password') : undefined;
  if (!cred) throw answer('noPasswordSet');
  const secret = JSON.parse(cred.secret) as { hash: string; rotation_required?: boolean };
  const correct = await verifyPassword(password, secret.hash);
  await checkAnswer(ctx, row, correct, 'incorrect password');
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
  const resolved = await resolveChallengePerson(ctx, row);
  await setPassword(ctx, resolved.person.id, password);
  return issueToken(ctx, resolved.person, { method: row.method, handle: rowHandle(row)?.value }, { firstToken: false, oid: row.org_id });
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
