import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, OrgSettings } from '../context.js';
import { nowIso } from '../context.js';
import { conflict, notFound, page } from '../http/errors.js';
import { requireApiKey } from '../http/guards.js';
import { parseHandle } from './handles.js';
import { getPerson, type PersonRow } from './persons.js';
import { assertHandlesFree, checkPersonBody, createPersonFrom, orgPerson, personOut, registerGroups, upsertPerson, type PersonBody } from './person-store.js';
import { parseFilter } from './scim-filter.js';
import { listPersons, personsOut } from './person-list.js';

// Management API: persons (SCIM-filtered list, create, create-or-update, read, change, delete), their handles, their
// groups and the organizations they may sign in to.

/** `/persons` and `/persons/:person_id`. */
export function registerPersonRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  app.post<{ Body: PersonBody }>('/persons', async (req, reply) => {
    const org = await admin(req);
    const person = await createPersonFrom(ctx, org, req.body, await checkPersonBody(ctx, org, req.body));
    reply.code(201);
    return { result: await personOut(ctx, person) };
  });

  // Idempotent create-or-update keyed by the handles: none known → created; all known ones on one person → that person updated.
  app.put<{ Body: PersonBody }>('/persons', async (req) => ({ result: await personOut(ctx, await upsertPerson(ctx, await admin(req), req.body)) }));

  app.get<{ Querystring: { filter?: string; limit?: number; offset?: number } }>('/persons', async (req) => {
    const org = await admin(req);
    const limit = Number(req.query.limit ?? 100);
    const offset = Number(req.query.offset ?? 0);
    const filter = req.query.filter ? parseFilter(req.query.filter) : undefined;
    const { rows, total } = await listPersons(ctx, org.id, { filter, limit, offset });
    return page(await personsOut(ctx, rows), limit, offset, total);
  });

  app.get<{ Params: { person_id: string } }>('/persons/:person_id', async (req) => {
    const org = await admin(req);
    return { result: await personOut(ctx, await orgPerson(ctx, org, req.params.person_id)) };
  });

  app.patch<{ Params: { person_id: string }; Body: { active?: boolean; region?: string } }>('/persons/:person_id', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    const set: Partial<PersonRow> = {};
    if (req.body.active !== undefined) set.active = req.body.active ? 1 : 0;
    if (req.body.region !== undefined) set.region = req.body.region;
    if (Object.keys(set).length) await ctx.db.updateTable('persons').set(set).where('id', '=', p.id).execute();
    return { result: await personOut(ctx, (await getPerson(ctx, p.id))!) };
  });

  app.delete<{ Params: { person_id: string } }>('/persons/:person_id', async (req, reply) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    await ctx.db.transaction().execute(async (trx) => {
      for (const t of ['handles', 'credentials', 'attributes', 'consents', 'person_grants', 'sso_oidc_tokens', 'oauth_refresh_tokens'] as const) await trx.deleteFrom(t).where('person_id', '=', p.id).execute();
      await trx.deleteFrom('persons').where('id', '=', p.id).execute();
    });
    await ctx.webhooks.emit(org.id, 'PersonDeleted_v1', { person_id: p.id });
    return reply.code(204).send();
  });
}

/** A person's handles, groups and organizations. */
export function registerPersonHandleRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  const listHandles = (id: string) => ctx.db.selectFrom('handles').select(['type', 'value']).where('person_id', '=', id).orderBy('created_at').execute();
  app.get<{ Params: { person_id: string } }>('/persons/:person_id/handles', async (req) => {
    const org = await admin(req);
    return { result: await listHandles((await orgPerson(ctx, org, req.params.person_id)).id) };
  });
  app.post<{ Params: { person_id: string }; Body: { handles: Array<{ type: string; value: string }> } }>('/persons/:person_id/handles', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    const handles = req.body.handles.map((h) => parseHandle(h));
    await assertHandlesFree(ctx, org, handles, p.id);
    const now = nowIso();
    for (const h of handles) {
      await ctx.db
        .insertInto('handles')
        .values({ id: randomUUID(), org_id: org.id, person_id: p.id, type: h.type, value: h.value, created_at: now })
        .onConflict((oc) => oc.columns(['org_id', 'type', 'value']).doNothing())
        .execute();
    }
    return { result: await listHandles(p.id) };
  });
  app.delete<{ Params: { person_id: string; handle: string } }>('/persons/:person_id/handles/:handle', async (req, reply: FastifyReply) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    const sep = req.params.handle.indexOf(':');
    const h = parseHandle({ type: req.params.handle.slice(0, sep), value: req.params.handle.slice(sep + 1) });
    const all = await listHandles(p.id);
    if (!all.some((x) => x.type === h.type && x.value === h.value)) throw notFound(`person "${p.id}" has no handle ${h.type}:${h.value}`);
    if (all.length === 1) throw conflict('cannot remove the last handle of a person');
    await ctx.db.deleteFrom('handles').where('person_id', '=', p.id).where('type', '=', h.type).where('value', '=', h.value).execute();
    return reply.code(204).send();
  });

  app.get<{ Params: { person_id: string } }>('/persons/:person_id/groups', async (req) => {
    const org = await admin(req);
    return { result: JSON.parse((await orgPerson(ctx, org, req.params.person_id)).groups) as string[] };
  });
  app.put<{ Params: { person_id: string }; Body: { groups: string[] } }>('/persons/:person_id/groups', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    await registerGroups(ctx, org, req.body.groups);
    await ctx.db.updateTable('persons').set({ groups: JSON.stringify(req.body.groups) }).where('id', '=', p.id).execute();
    return { result: req.body.groups };
  });
  app.get<{ Params: { person_id: string } }>('/persons/:person_id/organizations', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    // The home organization, and every organization that pools its persons.
    const rows = await ctx.db.selectFrom('organizations').selectAll().orderBy('created_at').execute();
    const pooling = rows.filter((r) => r.id === p.org_id || ((JSON.parse(r.settings) as OrgSettings).person_pool_orgs_ids ?? []).includes(p.org_id));
    return { result: pooling.map((r) => ({ id: r.id, org_name: r.org_name, tenant_name: r.tenant_name, person_id: p.id })) };
  });
}
