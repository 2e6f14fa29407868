import type { Ctx } from '../context.js';

/** The sealing context of an external credential's secret: bound to its organization and id. */
export const externalCredentialContext = (c: { org_id: string; id: string }) => `external_credentials:${c.org_id}:${c.id}`;

/** The secret (`json_blob`) of an organization's external credential, or undefined when it has none of that id. */
export async function externalCredentialSecret(ctx: Ctx, orgId: string, id: string): Promise<Record<string, unknown> | undefined> {
  const row = await ctx.db.selectFrom('external_credentials').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  return row ? ctx.sealer.open<Record<string, unknown>>(row.secret_fields, externalCredentialContext(row)) : undefined;
}
