import type { Ctx } from '../context.js';

// `last_used` of an OAuth2 client: when it last obtained tokens (code exchange, refresh, client credentials, mint).
// Written at most once a minute per client and process, so a busy client costs one small upsert a minute, not one
// per token; the value is therefore exact to the minute. Kept out of the organization's settings on purpose: a
// settings write makes every replica reload the organization.

const WRITE_EVERY_MS = 60_000;
const written = new WeakMap<Ctx, Map<string, number>>();

/** Records that the client obtained tokens now (throttled; never fails the token request). */
export async function noteClientUse(ctx: Ctx, orgId: string, clientId: string): Promise<void> {
  let seen = written.get(ctx);
  if (!seen) written.set(ctx, (seen = new Map()));
  const key = `${orgId} ${clientId}`;
  const now = Date.now();
  if (now - (seen.get(key) ?? 0) < WRITE_EVERY_MS) return;
  seen.set(key, now);
  const last_used = new Date(now).toISOString();
  await ctx.db
    .insertInto('oauth_client_usage')
    .values({ org_id: orgId, client_id: clientId, last_used })
    .onConflict((oc) => oc.columns(['org_id', 'client_id']).doUpdateSet({ last_used }))
    .execute()
    .catch(() => seen.delete(key));
}

/** `last_used` of the organization's clients, by client id. */
export async function lastUsedOf(ctx: Ctx, orgId: string): Promise<Map<string, string>> {
  const rows = await ctx.db.selectFrom('oauth_client_usage').select(['client_id', 'last_used']).where('org_id', '=', orgId).execute();
  return new Map(rows.map((r) => [r.client_id, r.last_used]));
}
