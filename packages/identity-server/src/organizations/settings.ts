import { sql, type Transaction } from 'kysely';
import type { Ctx, Org, OrgSettings } from '../context.js';
import type { Database } from '../db/schema.js';
import { notFound } from '../http/errors.js';

// The one owner of organization settings and of their cache. Organizations are read from the database and kept in
// `ctx.orgs`. Every write of an organization goes through `writeOrganization`: in one transaction it bumps the single
// `settings_version` row (which also serializes writers on every replica), re-reads the row it changes and writes it,
// so a replica holding an old copy never writes old values back. Each replica polls that version every
// `SETTINGS_POLL_MS` and drops its whole cache when it moved: a change made anywhere is seen everywhere within
// `SETTINGS_STALENESS_MS` (and at once on the replica that made it).

/** How often each replica reads the settings version (one primary-key row). */
export const SETTINGS_POLL_MS = 500;
/** The bound the READMEs state: a change to an organization is seen by every replica within this. */
export const SETTINGS_STALENESS_MS = 1000;

/** Per server: the version last seen and a generation counter that stops a read begun before a drop from being cached. */
const watches = new WeakMap<Ctx, { version: string | undefined; generation: number; polling: boolean }>();
const watchOf = (ctx: Ctx) => {
  let w = watches.get(ctx);
  if (!w) watches.set(ctx, (w = { version: undefined, generation: 0, polling: false }));
  return w;
};

/** The organization (cached), or undefined when there is none with this id. */
export async function loadOrg(ctx: Ctx, id: string): Promise<Org | undefined> {
  const cached = ctx.orgs.get(id);
  if (cached) return cached;
  const generation = watchOf(ctx).generation;
  const row = await ctx.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const org: Org = { id: row.id, parent_id: row.parent_id, org_name: row.org_name, tenant_name: row.tenant_name, settings: JSON.parse(row.settings) as OrgSettings };
  if (watchOf(ctx).generation === generation) ctx.orgs.set(id, org);
  return org;
}

/**
 * Reads the settings version and, when another write happened since the last look (on any replica), drops every cached
 * organization and reloads the allowed domains. Called every {@link SETTINGS_POLL_MS} by the server.
 */
export async function pollSettingsVersion(ctx: Ctx): Promise<void> {
  const w = watchOf(ctx);
  if (w.polling) return;
  w.polling = true;
  try {
    const row = await ctx.db.selectFrom('settings_version').select('version').where('id', '=', 1).executeTakeFirst();
    const version = String(row?.version ?? 0);
    if (w.version !== undefined && version !== w.version) {
      invalidate(ctx);
      await reloadAllowedDomains(ctx);
    }
    w.version = version;
  } finally {
    w.polling = false;
  }
}

/**
 * Writes organizations in one transaction that first bumps the settings version (the other replicas then drop their
 * copies; concurrent writers wait for each other), then forgets the local copies and reloads the allowed domains.
 */
export async function writeOrganization<T>(ctx: Ctx, write: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const result = await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('settings_version').set({ version: sql<number>`version + 1` }).where('id', '=', 1).execute();
    return write(trx);
  });
  invalidate(ctx);
  await reloadAllowedDomains(ctx);
  return result;
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
  watchOf(ctx).generation += 1;
  if (id === undefined) ctx.orgs.clear();
  else ctx.orgs.delete(id);
}

/**
 * Rewrites an organization's settings: `change` is applied to the settings as stored now (never to a cached copy, which
 * may be older), under the settings-version lock. 404 when the organization was deleted meanwhile.
 */
export async function updateSettings(ctx: Ctx, org: Org, change: (s: OrgSettings) => void): Promise<OrgSettings> {
  return writeOrganization(ctx, async (trx) => {
    const row = await trx.selectFrom('organizations').select('settings').where('id', '=', org.id).executeTakeFirst();
    if (!row) throw notFound(`organization "${org.id}" does not exist`);
    const settings = JSON.parse(row.settings) as OrgSettings;
    change(settings);
    await trx.updateTable('organizations').set({ settings: JSON.stringify(settings) }).where('id', '=', org.id).execute();
    return settings;
  });
}

/** A list kept in the organization's settings (identity provider credentials), addressed by one id field. */
export function settingsCollection<T extends object>(ctx: Ctx, key: 'oidc_providers' | 'saml_providers' | 'oauth_clients', idOf: (item: T) => string, what: string) {
  const list = (o: Org) => ((o.settings[key] ?? []) as unknown[]) as T[];
  // Each change is made to the list as stored now, so changes made meanwhile on another replica are kept.
  const write = (o: Org, edit: (items: T[]) => T[]) =>
    updateSettings(ctx, o, (s) => {
      (s as Record<string, unknown>)[key] = edit(((s[key] ?? []) as unknown[]) as T[]);
    });
  return {
    list,
    one(o: Org, id: string): T {
      const found = list(o).find((p) => idOf(p) === id);
      if (!found) throw notFound(`${what} "${id}" do not exist`);
      return found;
    },
    add: (o: Org, item: T) => write(o, (items) => [...items, item]),
    replace: (o: Org, item: T) => write(o, (items) => items.map((p) => (idOf(p) === idOf(item) ? item : p))),
    async remove(o: Org, id: string) {
      this.one(o, id);
      await write(o, (items) => items.filter((p) => idOf(p) !== id));
    },
  };
}
