import type { Ctx } from '../context.js';
import { nowIso } from '../context.js';
import { badRequest } from '../http/errors.js';
import { splitList } from './attributes.js';

// GDPR consent levels a person gave (their own calls and the management API).

/** The consent levels of a person. */
export const listConsents = async (ctx: Ctx, personId: string) => ({
  consents: await ctx.db.selectFrom('consents').select(['consent_level', 'created_at']).where('person_id', '=', personId).orderBy('consent_level').execute(),
});
/** Adds consent levels; with `replace`, the person's levels become exactly these. */
export const addConsents = async (ctx: Ctx, personId: string, levels: string[], replace: boolean) => {
  const now = nowIso();
  await ctx.db.transaction().execute(async (trx) => {
    if (replace) await trx.deleteFrom('consents').where('person_id', '=', personId).where('consent_level', 'not in', levels.length ? levels : ['']).execute();
    for (const level of new Set(levels)) {
      await trx.insertInto('consents').values({ person_id: personId, consent_level: level, created_at: now }).onConflict((oc) => oc.columns(['person_id', 'consent_level']).doNothing()).execute();
    }
  });
};

/** Removes the listed consent levels, or all with `deleteAll=true` (exactly one of the two). */
export async function removeConsents(ctx: Ctx, personId: string, query: { consent_levels?: string | string[]; deleteAll?: string | boolean }): Promise<void> {
  const levels = splitList(query.consent_levels, 'consent_levels');
  const all = String(query.deleteAll) === 'true';
  if (all && levels) throw badRequest('give either consent_levels or deleteAll=true, not both');
  if (!all && !levels) throw badRequest('give consent_levels (comma-separated) or deleteAll=true');
  let q = ctx.db.deleteFrom('consents').where('person_id', '=', personId);
  if (levels) q = q.where('consent_level', 'in', levels);
  await q.execute();
}
