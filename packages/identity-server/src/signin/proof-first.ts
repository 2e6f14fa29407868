import type { Ctx } from '../context.js';
import { badRequest } from '../http/errors.js';
import { assertHandleAllowed } from '../persons/proofs.js';
import type { ChallengeOut, StartRequest } from './challenges.js';
import { linkFactor } from './factors/otp.js';

// Credentials that prove nothing about a handle (a password, a passkey) reach a handle only after a proof (#36).

/**
 * The answer to `/id` when a password or passkey would reach a handle not yet proved by the caller: a sign-in link sent
 * to the handle (a `proxy` challenge the client polls), then the challenge that sets the credential (clients process
 * challenges in order). A link rather than a code because every client completes a proxy challenge without a screen of
 * its own (the published React form shows only "you will receive an email to verify your address" there), and the
 * link's page names the sign-in before it is confirmed. Confirming signs the owner in: the handle's holder, a new person
 * (sign-up), or the signed-in person of the previous token, who gets the handle. The second challenge is bound to that
 * proof (`after`) and acts on the person the proof signed in, never on one looked up by handle when it is answered: a
 * challenge opened before the owner signs up cannot be finished after.
 */
export async function proofFirst(ctx: Ctx, r: StartRequest, then: (after: string) => Promise<ChallengeOut>): Promise<ChallengeOut[]> {
  const handle = r.handle!;
  if (handle.type === 'username') throw badRequest('a username cannot be proved: sign in first, then add the credential with your token');
  assertHandleAllowed(r.org, handle);
  const channel = handle.type === 'email_address' ? 'email' : 'sms';
  const [proof] = await linkFactor(channel).start(ctx, { ...r, method: channel === 'email' ? 'email_link' : 'sms_link', options: {}, chain: true });
  return [proof!, await then(proof!.id)];
}

/**
 * Whether a password or passkey `/id` signs up rather than in: the client says so (`factor.options.sign_up`), or the
 * organization's `implicit_credential_sign_up` lets a handle without that credential sign up (its answers then tell
 * whether a handle has one: the README's "Handles belong to who proved them").
 */
export function wantsSignUp(r: StartRequest, hasCredential: boolean): boolean {
  return r.options.sign_up === true || (r.org.settings.implicit_credential_sign_up === true && !hasCredential);
}
