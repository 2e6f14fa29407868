import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Selectable } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Ctx, Org } from '../context.js';
import { nowIso } from '../context.js';
import { ApiError, badRequest, notFound } from '../http/errors.js';
import { requireApiKey } from '../http/guards.js';
import { orgPerson } from '../persons/person-store.js';
import { describe, effectivePermissions, grantsOf, permissionsOf, rbacPool, requireDefined, roleOut, rolesOf, setGrants } from './rbac.js';
import type { Wire } from '../http/wire.js';
import { checkIfMatch, etagOf, sendEtag } from '../http/etag.js';

// RBAC of the management API: permissions and roles of the organization (inherited by suborganizations created with
// `inherits_rbac_pools`), a person's roles, additional and effective permissions, and `POST /rbac/check`.

/** 409 when the organization already has a permission or role of this name. */
async function assertNew(ctx: Ctx, table: 'rbac_permissions' | 'rbac_roles', org: Org, name: string): Promise<void> {
  const taken = await ctx.db.selectFrom(table).select('name').where('org_id', '=', org.id).where('name', '=', name).executeTakeFirst();
  if (taken) throw new ApiError(409, `${table === 'rbac_roles' ? 'role' : 'permission'} "${name}" already exists`);
}

/**
 * Changes an organization's own permission or role under `If-Match`: the row is read (locked on PostgreSQL) in the
 * transaction that writes it, its ETag is that of its answer (`shown`), and the answer carries the new ETag. 404 when
 * the organization has no such row of its own.
 */
async function changeOwn<T extends 'rbac_permissions' | 'rbac_roles'>(
  ctx: Ctx, req: FastifyRequest, reply: FastifyReply, table: T, org: Org, name: string,
  shown: (row: Selectable<Database[T]>) => unknown,
  change: (row: Selectable<Database[T]>) => Partial<Selectable<Database[T]>>,
): Promise<FastifyReply> {
  const after = await ctx.db.transaction().execute(async (trx) => {
    const read = trx.selectFrom(table as 'rbac_roles').selectAll().where('org_id', '=', org.id).where('name', '=', name);
    const row = (await (ctx.dialect === 'postgres' ? read.forUpdate() : read).executeTakeFirst()) as Selectable<Database[T]> | undefined;
    if (!row) throw notFound(`${table === 'rbac_roles' ? 'role' : 'permission'} "${name}" does not exist in this organization`);
    checkIfMatch(req, etagOf(shown(row)));
    const set = change(row);
    if (Object.keys(set).length) await trx.updateTable(table as 'rbac_roles').set(set as object).where('org_id', '=', org.id).where('name', '=', name).execute();
    return { ...row, ...set };
  });
  return sendEtag(reply, shown(after)).code(204).send();
}

/** `/rbac/permissions`. */
export function registerPermissionRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  const ownPermission = async (org: Org, name: string) => {
    const row = await ctx.db.selectFrom('rbac_permissions').selectAll().where('org_id', '=', org.id).where('name', '=', name).executeTakeFirst();
    if (!row) throw notFound(`permission "${name}" does not exist in this organization`);
    return row;
  };
  app.post<Wire<'/rbac/permissions', 'post'>>('/rbac/permissions', async (req, reply) => {
    const org = await admin(req);
    await assertNew(ctx, 'rbac_permissions', org, req.body.name);
    const row = { org_id: org.id, name: req.body.name, description: req.body.description ?? null, created_at: nowIso() };
    await ctx.db.insertInto('rbac_permissions').values(row).execute();
    return reply.code(204).send();
  });
  app.get('/rbac/permissions', async (req) => {
    const org = await admin(req);
    return { result: (await permissionsOf(ctx.db, await rbacPool(ctx, org))).map((p) => p.name) };
  });
  app.get<Wire<'/rbac/permissions/{permission_name}', 'get'>>('/rbac/permissions/:permission_name', async (req, reply) => {
    const org = await admin(req);
    const row = (await permissionsOf(ctx.db, await rbacPool(ctx, org))).find((p) => p.name === req.params.permission_name);
    if (!row) throw notFound(`permission "${req.params.permission_name}" does not exist`);
    sendEtag(reply, describe(row));
    return { result: describe(row) };
  });
  app.patch<Wire<'/rbac/permissions/{permission_name}', 'patch'>>('/rbac/permissions/:permission_name', async (req, reply) => {
    const org = await admin(req);
    const { description } = req.body;
    return changeOwn(ctx, req, reply, 'rbac_permissions', org, req.params.permission_name, describe, () => (description !== undefined ? { description } : {}));
  });
  app.delete<Wire<'/rbac/permissions/{permission_name}', 'delete'>>('/rbac/permissions/:permission_name', async (req, reply) => {
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
}

/** `/rbac/roles`. */
export function registerRoleRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  const ownRole = async (org: Org, name: string) => {
    const row = await ctx.db.selectFrom('rbac_roles').selectAll().where('org_id', '=', org.id).where('name', '=', name).executeTakeFirst();
    if (!row) throw notFound(`role "${name}" does not exist in this organization`);
    return row;
  };
  app.post<Wire<'/rbac/roles', 'post'>>('/rbac/roles', async (req, reply) => {
    const org = await admin(req);
    await assertNew(ctx, 'rbac_roles', org, req.body.name);
    const permissions = req.body.permissions ?? [];
    await requireDefined(ctx.db, await rbacPool(ctx, org), 'permission', permissions);
    const row = { org_id: org.id, name: req.body.name, description: req.body.description ?? null, permissions: JSON.stringify(permissions), created_at: nowIso() };
    await ctx.db.insertInto('rbac_roles').values(row).execute();
    return reply.code(204).send();
  });
  app.get('/rbac/roles', async (req) => {
    const org = await admin(req);
    return { result: (await rolesOf(ctx.db, await rbacPool(ctx, org))).map((r) => r.name) };
  });
  app.get<Wire<'/rbac/roles/{role_name}', 'get'>>('/rbac/roles/:role_name', async (req, reply) => {
    const org = await admin(req);
    const row = (await rolesOf(ctx.db, await rbacPool(ctx, org))).find((r) => r.name === req.params.role_name);
    if (!row) throw notFound(`role "${req.params.role_name}" does not exist`);
    sendEtag(reply, roleOut(row));
    return { result: roleOut(row) };
  });
  app.patch<Wire<'/rbac/roles/{role_name}', 'patch'>>('/rbac/roles/:role_name', async (req, reply) => {
    const org = await admin(req);
    const { description, permissions } = req.body;
    await ownRole(org, req.params.role_name); // 404 before a 400 about the permissions
    if (permissions) await requireDefined(ctx.db, await rbacPool(ctx, org), 'permission', permissions);
    return changeOwn(ctx, req, reply, 'rbac_roles', org, req.params.role_name, roleOut, () => ({
      ...(description !== undefined ? { description } : {}),
      ...(permissions ? { permissions: JSON.stringify(permissions) } : {}),
    }));
  });
  app.delete<Wire<'/rbac/roles/{role_name}', 'delete'>>('/rbac/roles/:role_name', async (req, reply) => {
    const org = await admin(req);
    const { name } = await ownRole(org, req.params.role_name);
    await ctx.db.transaction().execute(async (trx) => {
      const holders = trx.selectFrom('persons').select('id').where('org_id', '=', org.id);
      await trx.deleteFrom('person_grants').where('kind', '=', 'role').where('name', '=', name).where('person_id', 'in', holders).execute();
      await trx.deleteFrom('rbac_roles').where('org_id', '=', org.id).where('name', '=', name).execute();
    });
    return reply.code(204).send();
  });
}

/** What the ETag of a person's roles or additional permissions covers: the names in code-point order (the databases' collations differ). */
const grantsState = (names: string[]) => [...names].sort();

/** A person's roles, additional and effective permissions, and `/rbac/check`. */
export function registerPersonGrantRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  const person = (org: Org, id: string) => orgPerson(ctx, org, id);
  for (const [path, kind, field] of [['roles', 'role', 'roles'], ['additional-permissions', 'permission', 'permissions']] as const) {
    app.get<{ Params: { person_id: string } }>(`/persons/:person_id/${path}`, async (req, reply) => {
      const org = await admin(req);
      const names = await grantsOf(ctx.db, (await person(org, req.params.person_id)).id, kind);
      sendEtag(reply, grantsState(names));
      return { result: names };
    });
    app.put<{ Params: { person_id: string }; Body: Record<typeof field, string[]> }>(`/persons/:person_id/${path}`, async (req, reply) => {
      const org = await admin(req);
      const p = await person(org, req.params.person_id);
      const names = await setGrants(ctx, org, p.id, kind, req.body[field], (current) => checkIfMatch(req, etagOf(grantsState(current))));
      return sendEtag(reply, grantsState(names)).code(204).send();
    });
  }
  app.get<Wire<'/persons/{person_id}/permissions', 'get'>>('/persons/:person_id/permissions', async (req) => {
    const org = await admin(req);
    return { result: Object.keys(await effectivePermissions(ctx, org, (await person(org, req.params.person_id)).id)) };
  });
  app.post<Wire<'/rbac/check', 'post'>>('/rbac/check', async (req) => {
    const org = await admin(req);
    const sources = await effectivePermissions(ctx, org, (await person(org, req.body.person_id)).id);
    // `permission_name` is the public reference's field; `permission` is Keyway's earlier name (the contract takes one of the two).
    const grantedBy = sources['permission_name' in req.body ? req.body.permission_name : req.body.permission] ?? [];
    return { result: { granted: grantedBy.length > 0, granted_by: grantedBy } };
  });
}
