import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { nowIso } from '../context.js';
import { conflict, notFound } from '../http/errors.js';
import { offsetPage, readOffsetPage } from '../http/pagination.js';
import { requireApiKey } from '../http/guards.js';
import { orgPerson } from './person-store.js';
import { groupMembersQuery } from './person-list.js';
import type { Wire } from '../http/wire.js';

/** Management API: groups of the organization; memberships live on the persons (and go into their tokens). */
export function registerGroupRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  const groupOut = (g: { name: string; description: string | null; created_at: string }, membersCount: number) => ({ name: g.name, ...(g.description ? { description: g.description } : {}), created: g.created_at, members_count: membersCount });
  const groupRow = async (org: Org, name: string) => {
    const g = await ctx.db.selectFrom('groups').selectAll().where('org_id', '=', org.id).where('name', '=', name).executeTakeFirst();
    if (!g) throw notFound(`group "${name}" does not exist`);
    return g;
  };
  const members = (org: Org, name: string) => groupMembersQuery(ctx.db, ctx.dialect, org.id, name);
  const countMembers = async (org: Org, name: string) => Number((await members(org, name).select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow()).n);
  // The public reference answers these changes with the envelope alone (no `result`).
  const done = (reply: FastifyReply, status: number) => reply.code(status).send({});
  const setGroups = (id: string, groups: string[]) => ctx.db.updateTable('persons').set({ groups: JSON.stringify(groups) }).where('id', '=', id).execute();

  app.post<Wire<'/groups', 'post'>>('/groups', async (req, reply) => {
    const org = await admin(req);
    const exists = await ctx.db.selectFrom('groups').select('name').where('org_id', '=', org.id).where('name', '=', req.body.name).executeTakeFirst();
    if (exists) throw conflict(`group "${req.body.name}" already exists`);
    const row = { org_id: org.id, name: req.body.name, description: req.body.description ?? null, created_at: nowIso() };
    await ctx.db.insertInto('groups').values(row).execute();
    reply.code(201);
    return { result: groupOut(row, 0) };
  });
  app.get<Wire<'/groups', 'get'>>('/groups', async (req) => {
    const org = await admin(req);
    const { limit, offset } = readOffsetPage(req.query);
    const all = await ctx.db.selectFrom('groups').selectAll().where('org_id', '=', org.id).orderBy('name').execute();
    return offsetPage(all.slice(offset, offset + limit).map((g) => g.name), limit, offset, all.length);
  });
  app.get<Wire<'/groups/{group_name}', 'get'>>('/groups/:group_name', async (req) => {
    const org = await admin(req);
    return { result: groupOut(await groupRow(org, req.params.group_name), await countMembers(org, req.params.group_name)) };
  });
  app.delete<Wire<'/groups/{group_name}', 'delete'>>('/groups/:group_name', async (req, reply) => {
    const org = await admin(req);
    await groupRow(org, req.params.group_name);
    for (const p of await members(org, req.params.group_name).select(['id', 'groups']).execute()) await setGroups(p.id, (JSON.parse(p.groups) as string[]).filter((g) => g !== req.params.group_name));
    await ctx.db.deleteFrom('groups').where('org_id', '=', org.id).where('name', '=', req.params.group_name).execute();
    return done(reply, 200);
  });
  app.post<Wire<'/groups/{group_name}/persons', 'post'>>('/groups/:group_name/persons', async (req, reply) => {
    const org = await admin(req);
    await groupRow(org, req.params.group_name);
    const persons = await Promise.all(req.body.persons.map((id) => orgPerson(ctx, org, id)));
    for (const p of persons) {
      const groups = JSON.parse(p.groups) as string[];
      if (!groups.includes(req.params.group_name)) await setGroups(p.id, [...groups, req.params.group_name]);
    }
    return done(reply, 201);
  });
  app.get<Wire<'/groups/{group_name}/persons', 'get'>>('/groups/:group_name/persons', async (req) => {
    const org = await admin(req);
    await groupRow(org, req.params.group_name);
    const { limit, offset } = readOffsetPage(req.query);
    const rows = await members(org, req.params.group_name).select('persons.id').orderBy('persons.created_at').orderBy('persons.id').limit(limit).offset(offset).execute();
    return offsetPage(rows.map((r) => r.id), limit, offset, await countMembers(org, req.params.group_name));
  });
  app.delete<Wire<'/groups/{group_name}/persons/{person_id}', 'delete'>>('/groups/:group_name/persons/:person_id', async (req, reply) => {
    const org = await admin(req);
    await groupRow(org, req.params.group_name);
    const p = await orgPerson(ctx, org, req.params.person_id);
    const groups = JSON.parse(p.groups) as string[];
    if (!groups.includes(req.params.group_name)) throw notFound(`person "${p.id}" is not in group "${req.params.group_name}"`);
    await setGroups(p.id, groups.filter((g) => g !== req.params.group_name));
    return done(reply, 200);
  });
}
