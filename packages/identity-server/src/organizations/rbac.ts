import type { Ctx, Org } from '../context.js';
import { nowIso } from '../context.js';
import { loadOrg } from './settings.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { ApiError, badRequest, notFound } from '../http/errors.js';

type Db = Kysely<Database>;
export type Kind = 'role' | 'permission';

/** The organization followed by the organizations whose roles and permissions it inherits (its RBAC pool). */
export async function rbacPool(ctx: Ctx, org: Org): Promise<string[]> {
  const ids = [org.id];
  let next = org.settings.rbac_pool_org_id;
  while (next && !ids.includes(next)) {
    ids.push(next);
    next = (await loadOrg(ctx, next))?.settings.rbac_pool_org_id;
  }
  return ids;
}

interface RoleRow {
  org_id: string;
  name: string;
  description: string | null;
  permissions: string;
  created_at: string;
}

/** A permission (or the common part of a role) as the API shows it: `created` is the public reference's name. */
export const describe = (r: { name: string; description: string | null; created_at: string }) => ({ name: r.name, ...(r.description ? { description: r.description } : {}), created: r.created_at });
export const roleOut = (r: RoleRow) => ({ ...describe(r), permissions: JSON.parse(r.permissions) as string[] });

/** Rows of the pool, the nearest organization's definition winning when a name is defined twice. */
async function visible<T extends { org_id: string; name: string }>(pool: string[], rows: Promise<T[]>): Promise<T[]> {
  const byName = new Map<string, T>();
  for (const r of (await rows).sort((a, b) => pool.indexOf(a.org_id) - pool.indexOf(b.org_id))) if (!byName.has(r.name)) byName.set(r.name, r);
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}
export const permissionsOf = (db: Db, pool: string[]) => visible(pool, db.selectFrom('rbac_permissions').selectAll().where('org_id', 'in', pool).execute());
export const rolesOf = (db: Db, pool: string[]) => visible(pool, db.selectFrom('rbac_roles').selectAll().where('org_id', 'in', pool).execute());

/** 400 naming the first name that is not defined in the pool. */
export async function requireDefined(db: Db, pool: string[], kind: Kind, names: string[]): Promise<void> {
  const known = new Set((await (kind === 'role' ? rolesOf(db, pool) : permissionsOf(db, pool))).map((r) => r.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) throw badRequest(`unknown ${kind}${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (create ${unknown.length > 1 ? 'them' : 'it'} first with POST /rbac/${kind}s)`);
}

export const grantsOf = async (db: Db, personId: string, kind: Kind): Promise<string[]> =>
  (await db.selectFrom('person_grants').select('name').where('person_id', '=', personId).where('kind', '=', kind).orderBy('name').execute()).map((r) => r.name);

/**
 * Replaces a person's roles or additional permissions (every name must exist in the organization's RBAC pool).
 * `precondition` sees the current names inside the writing transaction (the person's row locked on PostgreSQL; SQLite
 * runs one write transaction at a time) and may refuse the change by throwing.
 */
export async function setGrants(ctx: Ctx, org: Org, personId: string, kind: Kind, names: string[], precondition?: (current: string[]) => void): Promise<string[]> {
  await requireDefined(ctx.db, await rbacPool(ctx, org), kind, names);
  await ctx.db.transaction().execute(async (trx) => {
    if (precondition) {
      const lock = trx.selectFrom('persons').select('id').where('id', '=', personId);
      await (ctx.dialect === 'postgres' ? lock.forUpdate() : lock).execute();
      precondition(await grantsOf(trx, personId, kind));
    }
    await trx.deleteFrom('person_grants').where('person_id', '=', personId).where('kind', '=', kind).execute();
    for (const name of new Set(names)) await trx.insertInto('person_grants').values({ person_id: personId, kind, name }).execute();
  });
  return [...new Set(names)].sort();
}

/** Effective permissions of a person: permission → what grants it (role names, or `additional`). */
export async function effectivePermissions(ctx: Ctx, org: Org, personId: string): Promise<Record<string, string[]>> {
  const pool = await rbacPool(ctx, org);
  const defined = new Set((await permissionsOf(ctx.db, pool)).map((p) => p.name));
  const roles = new Map((await rolesOf(ctx.db, pool)).map((r) => [r.name, JSON.parse(r.permissions) as string[]]));
  const sources: Record<string, string[]> = {};
  const grant = (permission: string, source: string) => {
    if (defined.has(permission)) (sources[permission] ??= []).push(source);
  };
  for (const role of await grantsOf(ctx.db, personId, 'role')) for (const p of roles.get(role) ?? []) grant(p, role);
  for (const p of await grantsOf(ctx.db, personId, 'permission')) grant(p, 'additional');
  return Object.fromEntries(Object.entries(sources).sort(([a], [b]) => a.localeCompare(b)));
}
