import type { Ctx, Org, OrgSettings } from '../context.js';
import { notFound } from '../http/errors.js';

// The one owner of organization settings and of their cache. Organizations are read from the database once and kept
// in `ctx.orgs`; every change goes through `updateSettings` (or `invalidate` after a direct write), so a cached copy is
// never older than the last change made through this server.

/** The organization (cached), or undefined when there is none with this id. */
export async function loadOrg(ctx: Ctx, id: string): Promise<Org | undefined> {
  const cached = ctx.orgs.get(id);
  if (cached) return cached;
  const row = await ctx.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const org: Org = { id: row.id, parent_id: row.parent_id, org_name: row.org_name, tenant_name: row.tenant_name, settings: JSON.parse(row.settings) as OrgSettings };
  ctx.orgs.set(id, org);
  return org;
}

/** Reloads the union of allowed domains (after an organization changed its list). */
export async function reloadAllowedDomains(ctx: Ctx): Promise<void> {
  const rows = await ctx.db.selectFrom('organizations').select('settings').execute();
  ctx.allowedDomains.clear();
  for (const r of rows) for (const d of (JSON.parse(r.settings) as OrgSettings).allowed_domains ?? []) ctx.allowedDomains.add(d);
}

/** The settings of an organization (cached), or undefined when there is none with this id. */
export async function getOrgSettings(ctx: Ctx, id: string): Promise<OrgSettings | undefined> {
  return (await loadOrg(ctx, id))?.settings;
}

/** Forgets the cached copy of one organization (after its row changed), or of every organization. */
export function invalidate(ctx: Ctx, id?: string): void {
  if (id === undefined) ctx.orgs.clear();
  else ctx.orgs.delete(id);
}

/** Rewrites an organization's settings and forgets the cached copy. */
export async function updateSettings(ctx: Ctx, org: Org, change: (s: OrgSettings) => void): Promise<OrgSettings> {
  const settings = structuredClone(org.settings);
  change(settings);
  await ctx.db.updateTable('organizations').set({ settings: JSON.stringify(settings) }).where('id', '=', org.id).execute();
  invalidate(ctx, org.id);
  return settings;
}

/** A list kept in the organization's settings (identity provider credentials), addressed by one id field. */
export function settingsCollection<T extends object>(ctx: Ctx, key: 'oidc_providers' | 'saml_providers' | 'oauth_clients', idOf: (item: T) => string, what: string) {
  const list = (o: Org) => ((o.settings[key] ?? []) as unknown[]) as T[];
  const write = (o: Org, items: T[]) =>
    updateSettings(ctx, o, (s) => {
      (s as Record<string, unknown>)[key] = items;
    });
  return {
    list,
    one(o: Org, id: string): T {
      const found = list(o).find((p) => idOf(p) === id);
      if (!found) throw notFound(`${what} "${id}" do not exist`);
      return found;
    },
    add: (o: Org, item: T) => write(o, [...list(o), item]),
    replace: (o: Org, item: T) => write(o, list(o).map((p) => (idOf(p) === idOf(item) ? item : p))),
    async remove(o: Org, id: string) {
      this.one(o, id);
      await write(o, list(o).filter((p) => idOf(p) !== id));
    },
  };
}
