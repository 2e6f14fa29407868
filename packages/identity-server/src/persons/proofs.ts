import type { Ctx, Org } from '../context.js';
import { nowIso } from '../context.js';
import { answer, forbidden } from '../http/errors.js';
import type { UserTokenClaims } from '../tokens/token-service.js';
import type { Handle } from './handles.js';
import { addHandle, createPerson, findPersonByHandle, getPerson, type PersonRow } from './persons.js';

// A handle belongs to a person only once its owner has proved it (#36). The one rule, applied on every path that
// signs someone in by a handle: a code or link answered, an identity provider the organization trusts for the address,
// or (management) the organization itself. Factors that prove nothing about a handle (password, passkey, TOTP) never
// create a person reachable by a handle, nor attach one: they come after a proof (signin/proof-first.ts).

/** Sign-in methods whose message reaches the handle itself: answering them proves the handle. */
export const PROVING_METHODS: ReadonlySet<string> = new Set(['otp_via_email', 'otp_via_sms', 'email_link', 'sms_link']);

/** The proof a management caller gives when the system the person comes from verified the handle. */
export const MANAGEMENT_PROOF = 'management';

/** The proof of a handle given to the management API: `verified: true` says the system it comes from verified it. */
export const managementProof = (given: unknown): string | undefined =>
  given !== null && typeof given === 'object' && (given as { verified?: unknown }).verified === true ? MANAGEMENT_PROOF : undefined;

/** 403 `person cannot be registered` when the organization's handle patterns refuse the handle. */
export function assertHandleAllowed(org: Org, handle: Handle): void {
  const patterns = org.settings.handle_patterns ?? [];
  if (patterns.length && !patterns.some((p) => new RegExp(p, 'u').test(handle.value))) throw answer('handlePatternNotAllowed');
}

/** Who a proved handle signs in, and what the proof changed. */
export interface ProvedSignIn {
  person: PersonRow;
  created: boolean;
  /** The previous token, when it is the same person's (step-up): its authentications carry over. */
  previous: UserTokenClaims | undefined;
}

/**
 * Who a handle its owner has just proved signs in: the person holding the handle (its first proof is recorded, see
 * {@link recordProof}); else, with a previous token of this organization, that person, who gets the handle (an anonymous
 * one becomes regular); else a new person (sign-up), when the organization allows self-registration. Handles added at
 * sign-in, like those of a sign-up, must match the organization's handle patterns.
 */
export async function signInByProof(ctx: Ctx, org: Org, handle: Handle, proof: string, previous: UserTokenClaims | undefined): Promise<ProvedSignIn> {
  const prev = previous && previous.oid === org.id ? previous : undefined;
  let holder = await findPersonByHandle(ctx, org.id, handle);
  // Person pools: persons of the listed organizations sign in here as themselves.
  for (const poolOrg of org.settings.person_pool_orgs_ids ?? []) {
    if (holder) break;
    holder = await findPersonByHandle(ctx, poolOrg, handle);
  }
  let result: ProvedSignIn;
  // A proof asked for with a signed-in person's token never hands that tab another person's session (#36): the
  // address is someone else's account, which its owner signs in to without that token.
  if (holder && prev && prev.person_type !== 'anonymous' && holder.id !== prev.person_id) throw forbidden('this address belongs to another account: sign out, then sign in with it');
  if (holder) {
    // The common case, a handle proved before, costs nothing more than the lookup.
    if (!holder.handle_verified_at) await recordProof(ctx, holder, handle, proof);
    const { handle_verified_at: _proved, ...person } = holder;
    result = { person, created: false, previous: prev?.person_id === holder.id ? prev : undefined };
  } else {
    assertHandleAllowed(org, handle);
    const prevPerson = prev ? await getPerson(ctx, prev.person_id) : undefined;
    result = prevPerson ? await attachProved(ctx, org, prevPerson, handle, proof, prev!) : await signUp(ctx, org, handle, proof);
  }
  const { person, created } = result;
  if (!person.active) throw created ? answer('signUpAwaitingApproval') : answer('signInAwaitingApproval', { person_id: person.id });
  return result;
}

/** The signed-in (or anonymous) person of the previous token gets the proved handle. */
async function attachProved(ctx: Ctx, org: Org, person: PersonRow, handle: Handle, proof: string, prev: UserTokenClaims): Promise<ProvedSignIn> {
  await addHandle(ctx, org.id, person.id, handle, proof);
  const holder = await findPersonByHandle(ctx, org.id, handle);
  // Another proof of the same handle won the race: its holder signs in.
  if (holder && holder.id !== person.id) return { person: holder, created: false, previous: undefined };
  if (person.person_type !== 'anonymous') return { person, created: false, previous: prev };
  await ctx.db.updateTable('persons').set({ person_type: 'regular' }).where('id', '=', person.id).execute();
  // The anonymous token the sign-up was made with is not the new account's session: whoever else held it (a token
  // planted in the browser) keeps nothing.
  await ctx.tokens.revoke(prev);
  await signOutEverywhere(ctx, person.id);
  return { person: { ...person, person_type: 'regular' }, created: true, previous: prev };
}

/** A new person whose first handle is proved. */
async function signUp(ctx: Ctx, org: Org, handle: Handle, proof: string): Promise<ProvedSignIn> {
  if (org.settings.self_registration === false) throw answer('selfRegistrationNotAllowed');
  try {
    return { person: await createPerson(ctx, org, { type: 'regular', handle, proof }), created: true, previous: undefined };
  } catch (err) {
    // Another sign-up for the same new handle won the race: use its person.
    const person = await findPersonByHandle(ctx, org.id, handle);
    if (!person) throw err;
    return { person, created: false, previous: undefined };
  }
}

/**
 * Records a proof of a handle the person already holds. Its first proof, on a person none of whose handles anyone had
 * proved before (an import of the organization, or a row stored before proofs existed), undoes what someone else may
 * have made meanwhile: every earlier token of the person is revoked, and credentials of unknown origin (stored before
 * proofs existed) are removed; credentials the organization imported stay.
 */
async function recordProof(ctx: Ctx, person: PersonRow, handle: Handle, proof: string): Promise<void> {
  const handles = await ctx.db.selectFrom('handles').select(['id', 'type', 'value', 'verified_at']).where('person_id', '=', person.id).execute();
  const row = handles.find((h) => h.type === handle.type && h.value === handle.value);
  if (!row || row.verified_at) return;
  const res = await ctx.db.updateTable('handles').set({ verified_at: nowIso(), verified_by: proof }).where('id', '=', row.id).where('verified_at', 'is', null).executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1 || handles.some((h) => h.verified_at)) return;
  await ctx.db.deleteFrom('credentials').where('person_id', '=', person.id).where('source', 'is', null).execute();
  await signOutEverywhere(ctx, person.id);
}

/**
 * Ends every session of a person issued before the current second: their tokens of every client and first-party, and
 * their OAuth refresh tokens (a first proof of their handle, a new password, an anonymous person signing up).
 */
export async function signOutEverywhere(ctx: Ctx, personId: string): Promise<void> {
  await ctx.tokens.revokePerson(personId);
  await ctx.db.updateTable('oauth_refresh_tokens').set({ status: 'revoked' }).where('person_id', '=', personId).where('status', '=', 'active').execute();
}

/** A handle as answers show it: type, value and whether it was proved. */
export const handleOut = (h: { type: string; value: string; verified_at?: string | null | undefined }) => ({ type: h.type as Handle['type'], value: h.value, verified: h.verified_at != null });

/** Whether and how each handle of a person was proved, for `email_verified` and `phone_number_verified`. */
export async function verifiedHandles(ctx: Ctx, personId: string) {
  const rows = await ctx.db.selectFrom('handles').select(['type', 'value', 'verified_at']).where('person_id', '=', personId).orderBy('created_at').execute();
  const first = (type: string) => rows.find((h) => h.type === type);
  const email = first('email_address');
  const phone = first('phone_number');
  return {
    email: email ? { value: email.value, verified: email.verified_at != null } : undefined,
    phone: phone ? { value: phone.value, verified: phone.verified_at != null } : undefined,
    username: first('username')?.value,
  };
}
