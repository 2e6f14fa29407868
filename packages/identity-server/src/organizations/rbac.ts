import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { loadOrg, nowIso } from '../context.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { ApiError, badRequest, notFound } from '../http/errors.js';
import { requireApiKey } from '../events/routes.js';

type Db = Kysely<Database>;
type Kind = 'role' | 'permission';

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

const describe = (r: { name: string; description: string | null; created_at: string }) => ({ name: r.name, ...(r.description ? { description: r.description } : {}), created_at: r.created_at });
const roleOut = (r: RoleRow) => ({ ...describe(r), permissions: JSON.parse(r.permissions) as string[] });

/** Rows of the pool, the nearest organization's definition winning when a name is defined twice. */
async function visible<T extends { org_id: string; name: string }>(pool: string[], rows: Promise<T[]>): Promise<T[]> {
  const byName = new Map<string, T>();
  for (const r of (await rows).sort((a, b) => pool.indexOf(a.org_id) - pool.indexOf(b.org_id))) if (!byName.has(r.name)) byName.set(r.name, r);
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}
const permissionsOf = (db: Db, pool: string[]) => visible(pool, db.selectFrom('rbac_permissions').selectAll().where('org_id', 'in', pool).execute());
const rolesOf = (db: Db, pool: string[]) => visible(pool, db.selectFrom('rbac_roles').selectAll().where('org_id', 'in', pool).execute());

/** 400 naming the first name that is not defined in the pool. */
export async function requireDefined(db: Db, pool: string[], kind: Kind, names: string[]): Promise<void> {
  const known = new Set((await (kind === 'role' ? rolesOf(db, pool) : permissionsOf(db, pool))).map((r) => r.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) throw badRequest(`unknown ${kind}${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (create ${unknown.length > 1 ? 'them' : 'it'} first with POST /rbac/${kind}s)`);
}

export const grantsOf = async (db: Db, personId: string, kind: Kind): Promise<string[]> =>
  (await db.selectFrom('person_grants').select('name').where('person_id', '=', personId).where('kind', '=', kind).orderBy('name').execute()).map((r) => r.name);

/** Replaces a person's roles or additional permissions (every name must exist in the organization's RBAC pool). */
export async function setGrants(ctx: Ctx, org: Org, personId: string, kind: Kind, names: string[]): Promise<string[]> {
  await requireDefined(ctx.db, await rbacPool(ctx, org), kind, names);
  await ctx.db.transaction().execute(async (trx) => {
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

/**
 * RBAC of the management API: permissions and roles of the organization (inherited by suborganizations created with
 * `inherits_rbac_pools`), a person's roles, additional and effective permissions, and `POST /rbac/check`.
 */
export function registerRbacRoutes(app: FastifyInstance, ctx: Ctx, orgPerson: (org: Org, id: string) => Promise<{ id: string }>): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  const assertNew = async (table: 'rbac_permissions' | 'rbac_roles', org: Org, name: string) => {
    const taken = await ctx.db.selectFrom(table).select('name').where('org_id', '=', org.id).where('name', '=', name).executeTakeFirst();
    if (taken) throw new ApiError(409, `${table === 'rbac_roles' ? 'role' : 'permission'} "${name}" already exists`);
  };

  // ---------- permissions ----------
  const ownPermission = async (org: Org, name: string) => {
    const row = await ctx.db.selectFrom('rbac_permissions').selectAll().where('org_id', '=', org.id).where('name', '=', name).executeTakeFirst();
    if (!row) throw notFound(`permission "${name}" does not exist in this organization`);
    return row;
  };
  app.post<{ Body: { name: string; description?: string } }>('/rbac/permissions', async (req, reply) => {
    const org = await admin(req);
    await assertNew('rbac_permissions', org, req.body.name);
    const row = { org_id: org.id, name: req.body.name, description: req.body.description ?? null, created_at: nowIso() };
    await ctx.db.insertInto('rbac_permissions').values(row).execute();
    reply.code(201);
    return { result: describe(row) };
  });
  app.get('/rbac/permissions', async (req) => {
    const org = await admin(req);
    return { result: (await permissionsOf(ctx.db, await rbacPool(ctx, org))).map(describe) };
  });
  app.get<{ Params: { permission_name: string } }>('/rbac/permissions/:permission_name', async (req) => {
    const org = await admin(req);
    const row = (await permissionsOf(ctx.db, await rbacPool(ctx, org))).find((p) => p.name === req.params.permission_name);
    if (!row) throw notFound(`permission "${req.params.permission_name}" does not exist`);
    return { result: describe(row) };
  });
  app.patch<{ Params: { permission_name: string }; Body: { description: string } }>('/rbac/permissions/:permission_name', async (req) => {
    const org = await admin(req);
    const row = await ownPermission(org, req.params.permission_name);
    await ctx.db.updateTable('rbac_permissions').set({ description: req.body.description }).where('org_id', '=', org.id).where('name', '=', row.name).execute();
    return { result: describe({ ...row, description: req.body.description }) };
  });
  app.delete<{ Params: { permission_name: string } }>('/rbac/permissions/:permission_name', async (req, reply) => {
    const org = await admin(req);
    const { name } = await ownPermission(org, req.params.permission_name);
    await ctx.db.transaction().execute(async (trx) => {
      for (const role of await trx.selectFrom('rbac_roles').selectAll().where('org_id', '=', org.id).execute()) {
        const permissions = JSON.parse(role.permissions) as string[];
        if (permissions.includes(name)) {
          await trx.updateTable('rbac_roles').set({ permissions: JSON.stringify(permissions.filter((p) => p !== name)) }).where('org_id', '=', org.id).where('name', '=', role.name).execute();
        }
      }
      const holders = trx.selectFrom('persons').select('id').where('org_id', '=', org.id);
      await trx.deleteFrom('person_grants').where('kind', '=', 'permission').where('name', '=', name).where('person_id', 'in', holders).execute();
      await trx.deleteFrom('rbac_permissions').where('org_id', '=', org.id).where('name', '=', name).execute();
    });
    return reply.code(204).send();
  });

  // ---------- roles ----------
  const ownRole = async (org: Org, name: string) => {
    const row = await ctx.db.selectFrom('rbac_roles').selectAll().where('org_id', '=', org.id).where('name', '=', name).executeTakeFirst();
    if (!row) throw notFound(`role "${name}" does not exist in this organization`);
    return row;
  };
  app.post<{ Body: { name: string; description?: string; permissions?: string[] } }>('/rbac/roles', async (req, reply) => {
    const org = await admin(req);
    await assertNew('rbac_roles', org, req.body.name);
    const permissions = req.body.permissions ?? [];
    await requireDefined(ctx.db, await rbacPool(ctx, org), 'permission', permissions);
    const row = { org_id: org.id, name: req.body.name, description: req.body.description ?? null, permissions: JSON.stringify(permissions), created_at: nowIso() };
    await ctx.db.insertInto('rbac_roles').values(row).execute();
    reply.code(201);
    return { result: roleOut(row) };
  });
  app.get('/rbac/roles', async (req) => {
    const org = await admin(req);
    return { result: (await rolesOf(ctx.db, await rbacPool(ctx, org))).map(roleOut) };
  });
  app.get<{ Params: { role_name: string } }>('/rbac/roles/:role_name', async (req) => {
    const org = await admin(req);
    const row = (await rolesOf(ctx.db, await rbacPool(ctx, org))).find((r) => r.name === req.params.role_name);
    if (!row) throw notFound(`role "${req.params.role_name}" does not exist`);
    return { result: roleOut(row) };
  });
  app.patch<{ Params: { role_name: string }; Body: { description?: string; permissions?: string[] } }>('/rbac/roles/:role_name', async (req) => {
    const org = await admin(req);
    const row = await ownRole(org, req.params.role_name);
    if (req.body.permissions) await requireDefined(ctx.db, await rbacPool(ctx, org), 'permission', req.body.permissions);
    const next = {
      ...row,
      ...(req.body.description !== undefined ? { description: req.body.description } : {}),
      ...(req.body.permissions ? { permissions: JSON.stringify(req.body.permissions) } : {}),
    };
    await ctx.db.updateTable('rbac_roles').set({ description: next.description, permissions: next.permissions }).where('org_id', '=', org.id).where('name', '=', row.name).execute();
    return { result: roleOut(next) };
  });
  app.delete<{ Params: { role_name: string } }>('/rbac/roles/:role_name', async (req, reply) => {
    const org = await admin(req);
    const { name } = await ownRole(org, req.params.role_name);
    await ctx.db.transaction().execute(async (trx) => {
      const holders = trx.selectFrom('persons').select('id').where('org_id', '=', org.id);
      await trx.deleteFrom('person_grants').where('kind', '=', 'role').where('name', '=', name).where('person_id', 'in', holders).execute();
      await trx.deleteFrom('rbac_roles').where('org_id', '=', org.id).where('name', '=', name).execute();
    });
    return reply.code(204).send();
  });

  // ---------- a person's roles and permissions ----------
  for (const [path, kind, field] of [['roles', 'role', 'roles'], ['additional-permissions', 'permission', 'permissions']] as const) {
    app.get<{ Params: { person_id: string } }>(`/persons/:person_id/${path}`, async (req) => {
      const org = await admin(req);
      return { result: await grantsOf(ctx.db, (await orgPerson(org, req.params.person_id)).id, kind) };
    });
    app.put<{ Params: { person_id: string }; Body: Record<typeof field, string[]> }>(`/persons/:person_id/${path}`, async (req) => {
      const org = await admin(req);
      const p = await orgPerson(org, req.params.person_id);
      return { result: await setGrants(ctx, org, p.id, kind, req.body[field]) };
    });
  }
  app.get<{ Params: { person_id: string } }>('/persons/:person_id/permissions', async (req) => {
    const org = await admin(req);
    const sources = await effectivePermissions(ctx, org, (await orgPerson(org, req.params.person_id)).id);
    return { result: { permissions: Object.keys(sources), sources } };
  });
  app.post<{ Body: { person_id: string; permission: string } }>('/rbac/check', async (req) => {
    const org = await admin(req);
    const sources = await effectivePermissions(ctx, org, (await orgPerson(org, req.body.person_id)).id);
    const grantedBy = sources[req.body.permission] ?? [];
    return { result: { allowed: grantedBy.length > 0, granted_by: grantedBy } };
  });
}
