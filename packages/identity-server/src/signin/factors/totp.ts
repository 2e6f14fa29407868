import { randomUUID } from 'node:crypto';
import type { Ctx } from '../../context.js';
import { sameDigest, sha256 } from '../../crypto/secrets.js';
import { nowIso } from '../../context.js';
import { badRequest, forbidden } from '../../http/errors.js';
import { challengeData, checkAnswer, createChallenge, finishSignIn, resolveChallengePerson, type AttestationHandler, type ChallengeData, type Factor, type FactorHandler, type StartRequest } from '../challenges.js';
import type { Db } from '../../db/index.js';
import { checkTotp, isTotpCode, newTotpRegistration, RECOVERY_CODE_COUNT, type TotpSettings } from './totp-codes.js';
import { credentialOf, subjectOf } from './subject.js';

// The `totp` factor: register an authenticator app (with recovery codes), then verify its codes.

const startTotp: FactorHandler = {
  async start(ctx, r) {
    const { person, signedIn } = await subjectOf(ctx, r);
    const data: ChallengeData = r.previous ? { previous: r.previous } : {};
    const cred = await credentialOf(ctx, person?.id ?? '', 'totp');
    // Signing in: `totp_verify` for every handle (#36: the answer tells nothing of who has an authenticator app); only
    // the holder's codes pass, anyone else's answer is an incorrect code.
    if (cred || !signedIn) {
      const row = await createChallenge(ctx, { org: r.org, type: 'totp_verify', method: 'totp', handle: r.handle, personId: cred ? person!.id : undefined, data });
      return [{ id: row.id, type: 'totp_verify', authentication_method: 'totp', options: {} }];
    }
    if (!person) throw forbidden('TOTP is not set up for this person: sign in with another factor first, then register TOTP');
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
};

function totpCodeOf(data: Record<string, unknown>): string {
  const otp = data.otp;
  if (typeof otp !== 'string' || otp.trim().length === 0) throw badRequest('no TOTP code provided');
  if (otp.length > 32) throw badRequest('TOTP code is longer than 32 characters');
  return otp.trim();
}

/** Server-side state of an authenticator app (kept in the credential's secret column). */
export interface TotpSecret extends TotpSettings {
  secret: string;
  last_time_step: number;
  /** SHA-256 of each unused recovery code (lower case). */
  recovery_hashes: string[];
}

const totpSettings = (s: TotpSecret): TotpSettings => ({
  ...(s.algorithm ? { algorithm: s.algorithm } : {}),
  ...(s.digits ? { digits: s.digits } : {}),
  ...(s.period ? { period: s.period } : {}),
});

/** Replaces the person's authenticator app (one per person): registered here, or imported. */
export async function storeTotp(db: Db, personId: string, secret: TotpSecret, opts: { label?: string; recoveryCodesTotal?: number; lastUsed?: string | null; source?: 'sign_in' | 'management' } = {}): Promise<void> {
  const now = nowIso();
  await db.deleteFrom('credentials').where('person_id', '=', personId).where('type', '=', 'totp').execute();
  await db
    .insertInto('credentials')
    .values({
      id: randomUUID(),
      person_id: personId,
      type: 'totp',
      label: opts.label ?? 'Authenticator app',
      params: JSON.stringify({ recovery_codes_total: opts.recoveryCodesTotal ?? secret.recovery_hashes.length, recovery_codes_unused: secret.recovery_hashes.length }),
      secret: JSON.stringify(secret),
      created_at: now,
      last_used: opts.lastUsed === undefined ? now : opts.lastUsed,
      source: opts.source ?? 'sign_in',
    })
    .execute();
}

const answerTotpRegister: AttestationHandler = async (ctx, row, data) => {
  const code = totpCodeOf(data);
  const d = challengeData(row) as ChallengeData & { totp_secret: string; recovery_hashes: string[] };
  const step = await checkTotp(d.totp_secret, code, 0);
  await checkAnswer(ctx, row, step !== undefined, 'incorrect code');
  const secret: TotpSecret = { secret: d.totp_secret, last_time_step: step!, recovery_hashes: d.recovery_hashes };
  await ctx.db.transaction().execute((trx) => storeTotp(trx, row.person_id!, secret, { recoveryCodesTotal: RECOVERY_CODE_COUNT }));
  return finishSignIn(ctx, row, 'totp');
};

const answerTotpVerify: AttestationHandler = async (ctx, row, data) => {
  const code = totpCodeOf(data);
  const cred = row.person_id ? await credentialOf(ctx, row.person_id, 'totp') : undefined;
  if (!cred) {
    await checkAnswer(ctx, row, false, 'incorrect code');
    throw forbidden('TOTP is not set up for this person');
  }
  const secret = JSON.parse(cred.secret) as TotpSecret;
  let correct = false;
  if (isTotpCode(code, secret)) {
    const step = await checkTotp(secret.secret, code, secret.last_time_step, totpSettings(secret));
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
  const params = JSON.parse(cred.params) as { recovery_codes_total?: number };
  await ctx.db
    .updateTable('credentials')
    .set({
      secret: JSON.stringify(secret),
      params: JSON.stringify({ recovery_codes_total: params.recovery_codes_total ?? RECOVERY_CODE_COUNT, recovery_codes_unused: secret.recovery_hashes.length }),
      last_used: nowIso(),
    })
    .where('id', '=', cred.id)
    .execute();
  return finishSignIn(ctx, row, 'totp');
};

/** Authenticator apps (TOTP). */
export const totpFactor: Factor = {
  methods: {
    totp: startTotp,
  },
  attestations: {
    totp_register: answerTotpRegister,
    totp_verify: answerTotpVerify,
  },
};
