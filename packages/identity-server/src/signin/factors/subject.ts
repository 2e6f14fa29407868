import type { Ctx } from '../../context.js';
import { badRequest } from '../../http/errors.js';
import { findPersonByHandle, getPerson, type PersonRow } from '../../persons/persons.js';
import type { StartRequest } from '../challenges.js';

// Who a password or TOTP factor is about, and their stored credential of that kind.

export interface CredentialRow {
  id: string;
  person_id: string;
  type: string;
  params: string;
  secret: string;
}

/** The person's stored password or TOTP credential. */
export async function credentialOf(ctx: Ctx, personId: string, type: 'password' | 'totp'): Promise<CredentialRow | undefined> {
  return ctx.db.selectFrom('credentials').select(['id', 'person_id', 'type', 'params', 'secret']).where('person_id', '=', personId).where('type', '=', type).executeTakeFirst();
}

/**
 * The person a password/TOTP factor is about: the handle's owner, else the person of the previous token.
 * `signedIn` tells whether the caller already proved to be that person (previous token of the same person).
 */
export async function subjectOf(ctx: Ctx, r: StartRequest): Promise<{ person: PersonRow | undefined; signedIn: boolean }> {
  const prev = r.previous && r.previous.oid === r.org.id ? r.previous : undefined;
  const byHandle = r.handle ? await findPersonByHandle(ctx, r.org.id, r.handle) : undefined;
  if (byHandle) return { person: byHandle, signedIn: prev?.person_id === byHandle.id };
  if (r.handle) return { person: undefined, signedIn: false };
  if (!prev) throw badRequest(`${r.method} needs a handle, or a previous token of the signed-in person`);
  return { person: await getPerson(ctx, prev.person_id), signedIn: true };
}
