import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { nowIso } from '../context.js';
import { loadOrg } from '../organizations/settings.js';
import { checkRedirect } from '../http/origins.js';
import { bearerToken, clientIp, requireOrg } from '../http/guards.js';
import type { ChallengeTable } from '../db/schema.js';
import { answer, ApiError, badRequest, forbidden, notFound, unauthorized } from '../http/errors.js';
import { assertReachable, parseHandle, type Handle } from '../persons/handles.js';
import { escapeHtml, sendMessagePage } from '../http/html.js';
import { findPersonByHandle, getPerson, issueToken, type PersonRow } from '../persons/persons.js';
import { PROVING_METHODS, signInByProof, type ProvedSignIn } from '../persons/proofs.js';
import * as S from '../http/schemas.js';
import { writeBuckets } from '../persons/attributes.js';
import { storeIdpTokens, type PendingIdpTokens } from '../sso/idp-tokens.js';
import { linkFederatedIdentity } from '../sso/federated.js';
import { hashSecret, newOtpCode, newSecret, sameDigest } from '../crypto/secrets.js';
import { assertNotLocked, clearFailures, guessKey, recordFailure } from './guessing.js';
import type { UserTokenClaims } from '../tokens/token-service.js';
import type { Schema } from '../http/wire.js';

export type ChallengeRow = ChallengeTable;

/** What the client sees of a challenge. */
export type ChallengeOut = Schema<'Challenge'>;

export interface ChallengeData {
  previous?: UserTokenClaims;
  redirect_target?: string;
  /** Recovery challenges never create persons. */
  recovery?: boolean;
  /** A proof another challenge follows (`after`): the person it signs in is recorded on the row when it completes. */
  chain?: boolean;
  /** The proof this challenge follows (signin/proof-first.ts, recovery): its person is this challenge's person. */
  after?: string;
  /** How an SSO sign-in proved its e-mail address (a trusted provider, or a code sent to it). */
  handle_proof?: string;
  [key: string]: unknown;
}

/** The body of `/id` and `/id/v2` (v2 adds `metadata`). */
export type IdBody = Schema<'IdRequestV2'>;

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
  /** The code proves the handle for a challenge that follows it (signin/proof-first.ts). */
  chain?: boolean;
  /** Who asked (shown on the page a sign-in link opens, so its owner can tell whether it was them). */
  requester?: { ip: string; userAgent?: string | undefined };
}

/**
 * A sign-in factor: the `/id` methods it starts (`factor.method` → handler) and the challenge types it answers through
 * `/attestation`. Every factor is listed in signin/factors/index.ts.
 */
export interface Factor {
  methods: Record<string, FactorHandler>;
  attestations: Record<string, AttestationHandler>;
}

/** Inserts a pending challenge and returns its row. */
export async function createChallenge(
  ctx: Ctx,
  fields: { id?: string; org: Org; type: string; method: string; handle?: Handle | undefined; personId?: string | undefined; secret?: string | undefined; data?: ChallengeData; ttlSeconds?: number },
): Promise<ChallengeRow> {
  // A caller may choose the id (a random UUID too) when something must name the challenge before it is stored.
  const id = fields.id ?? randomUUID();
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
  if (Date.parse(row.expires_at) <= Date.now()) throw answer('authenticationExpired');
  return row;
}

/**
 * Counts one answer against the challenge's attempt budget (atomically; 429 once the budget is spent) and, when
 * `correct`, consumes the challenge so it can be used only once. Failures also count against the account and factor
 * (src/signin/guessing.ts): while that factor is locked every answer is refused with 429, right or wrong.
 */
export async function checkAnswer(ctx: Ctx, row: ChallengeRow, correct: boolean, wrongMessage: string): Promise<void> {
  const account = guessKey(row, challengeData(row).recovery === true);
  await assertNotLocked(ctx, account);
  if (correct) {
    // A challenge whose wrong answers are spent takes no right one either, whichever route answers it (#36: the hosted
    // login's code form used to skip the check the attestation routes made when loading the challenge).
    const res = await ctx.db
      .updateTable('challenges')
      .set({ status: 'completed' })
      .where('id', '=', row.id)
      .where('status', 'in', ['pending', 'verified'])
      .where('attempts', '<', ctx.limits.maxAttempts)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) {
      const now = await ctx.db.selectFrom('challenges').select(['status']).where('id', '=', row.id).executeTakeFirst();
      if (now?.status === 'completed') throw unauthorized('challenge has already been answered');
      throw new ApiError(429, 'too many incorrect answers for this challenge: request a new code');
    }
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

/**
 * Who a completed challenge signs in: the person it is bound to, or the holder of the handle it proved (see
 * {@link signInByProof}). A challenge that is bound to no person and proves nothing signs nobody in.
 */
export async function resolveChallengePerson(ctx: Ctx, row: ChallengeRow): Promise<ProvedSignIn> {
  const org = await loadOrg(ctx, row.org_id);
  if (!org) throw notFound(`organization "${row.org_id}" does not exist`);
  const data = challengeData(row);
  const handle = rowHandle(row);
  if (row.person_id) {
    const person = await getPerson(ctx, row.person_id);
    if (!person) throw notFound('person no longer exists');
    if (!person.active) throw answer('signInAwaitingApproval', { person_id: person.id });
    return { person, created: false, previous: data.previous?.person_id === person.id ? data.previous : undefined };
  }
  const proof = PROVING_METHODS.has(row.method) ? row.method : data.handle_proof;
  if (!handle || !proof) throw unauthorized('this challenge proves no handle: nobody to sign in');
  if (data.recovery && !(await findPersonByHandle(ctx, org.id, handle))) throw unauthorized('incorrect code');
  return signInByProof(ctx, org, handle, proof, data.previous);
}

/**
 * The person of the completed proof a challenge follows (`after`), with the authentications of that proof: a password
 * or passkey set after a code is the same person's, never one the proof did not sign in.
 */
export async function afterProof(ctx: Ctx, row: ChallengeRow): Promise<{ person: PersonRow; authentications: UserTokenClaims['authentications'] }> {
  const first = challengeData(row).after;
  const proof = first ? await ctx.db.selectFrom('challenges').selectAll().where('id', '=', first).executeTakeFirst() : undefined;
  if (!proof || proof.org_id !== row.org_id || proof.status !== 'completed' || !proof.person_id) throw forbidden('prove the address first: open the link sent to it');
  const person = await getPerson(ctx, proof.person_id);
  if (!person) throw notFound('person no longer exists');
  if (!person.active) throw answer('signInAwaitingApproval', { person_id: person.id });
  const previous = challengeData(proof).previous;
  const carried = previous?.person_id === person.id ? previous.authentications : [];
  return { person, authentications: [...carried, { method: proof.method, handle: proof.handle_value ?? undefined }] };
}

/** Signs the person of a completed challenge in and returns the token. */
export async function finishSignIn(ctx: Ctx, row: ChallengeRow, method: string): Promise<string> {
  const resolved = await resolveChallengePerson(ctx, row);
  const data = challengeData(row);
  // A proof that another challenge follows: that challenge's person is this one's.
  if (data.chain || data.recovery) await ctx.db.updateTable('challenges').set({ person_id: resolved.person.id }).where('id', '=', row.id).execute();
  const fromProvider = data.sso_attributes;
  if (fromProvider && typeof fromProvider === 'object') {
    await writeBuckets(ctx, resolved.person.id, { end_user_read_only: fromProvider as Record<string, unknown> }, false, 'admin');
  }
  const token = await issueToken(ctx, resolved.person, { method, handle: rowHandle(row)?.value }, { firstToken: resolved.created, previous: resolved.previous, oid: row.org_id });
  // Tokens the OIDC provider issued at this sign-in: kept for the person (GET /sso/oidc/tokens).
  if (data.idp_tokens) await storeIdpTokens(ctx, row.org_id, row.id, resolved.person.id, data.idp_tokens as PendingIdpTokens);
  if (typeof data.sso_provider === 'string' && typeof data.sso_subject === 'string') await linkFederatedIdentity(ctx, row.org_id, data.sso_provider, data.sso_subject, resolved.person.id);
  return token;
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
  if (t === undefined) return undefined;
  const listed = listedLinkRedirect(org, t);
  return listed ?? checkRedirect(ctx, org, t, 'factor.options.redirect_target');
}

/**
 * A redirect target the organization listed in `authn_link_allowed_redirect_uris`: same scheme, host and port as a listed
 * URI, and a path equal to its path or below it (a listed `https://app.example.com/auth` accepts `/auth` and `/auth/done`,
 * not `/authx` nor another host).
 */
function listedLinkRedirect(org: Org, value: unknown): string | undefined {
  const listed = org.settings.authn_link_allowed_redirect_uris;
  if (!listed?.length || typeof value !== 'string' || /[\u0000-\u001f\u007f\\]/.test(value)) return undefined;
  let target: URL;
  try {
    target = new URL(value);
  } catch {
    return undefined;
  }
  if (!/^https?:$/.test(target.protocol) || target.username || target.password) return undefined;
  for (const uri of listed) {
    const allowed = new URL(uri);
    const base = allowed.pathname.endsWith('/') ? allowed.pathname : `${allowed.pathname}/`;
    if (allowed.origin === target.origin && (target.pathname === allowed.pathname || target.pathname.startsWith(base))) return target.href;
  }
  return undefined;
}

/** Answer checkers per challenge type; each returns the token. */
export type AttestationHandler = (ctx: Ctx, row: ChallengeRow, data: Record<string, unknown>) => Promise<string>;

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
