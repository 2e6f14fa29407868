import type { Ctx } from '../context.js';
import { nowIso } from '../context.js';

// A person's identities at SSO providers (#36): once a provider's subject has signed a person in (its address proved,
// or asserted verified by a provider the organization trusts for it), the same subject signs the same person in,
// whatever address the provider sends later.

/** The key of a provider in `federated_identities`: `oidc:<client id>` or `saml:<provider credentials id>`. */
export const providerKey = (method: 'oidc' | 'saml', id: string) => `${method}:${id}`;

/** The person a provider's subject signed in before, if any (and if that person still exists). */
export async function federatedPerson(ctx: Ctx, orgId: string, provider: string, subject: string): Promise<string | undefined> {
  const row = await ctx.db.selectFrom('federated_identities').select('person_id').where('org_id', '=', orgId).where('provider', '=', provider).where('subject', '=', subject).executeTakeFirst();
  return row?.person_id;
}

/** Remembers that the provider's subject is the person (the first link stays: a subject never moves to another person). */
export async function linkFederatedIdentity(ctx: Ctx, orgId: string, provider: string, subject: string, personId: string): Promise<void> {
  await ctx.db
    .insertInto('federated_identities')
    .values({ org_id: orgId, provider, subject, person_id: personId, created_at: nowIso() })
    .onConflict((oc) => oc.columns(['org_id', 'provider', 'subject']).doNothing())
    .execute();
}
