import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, OrgSettings } from '../context.js';
import { nowIso } from '../context.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { keyedPage, readPage } from '../http/pagination.js';
import { requireApiKey } from '../http/guards.js';
import { parseHandle } from './handles.js';
import { regionOf } from './regions.js';
import { splitList } from './attributes.js';
import { addHandle, getPerson, type PersonRow } from './persons.js';
import { handleOut, managementProof } from './proofs.js';
import { assertHandlesFree, checkPersonBody, createPersonFrom, orgPerson, personOut, registerGroups, upsertPerson, type PersonBody } from './person-store.js';
import { filterOrganizations, parseFilter, type Filter } from './scim-filter.js';
import { listPersons, personsOut } from './person-list.js';
import type { Wire } from '../http/wire.js';

// Management API: persons (SCIM-filtered list, create, create-or-update, read, change, delete), their handles, their
// groups and the organizations they may sign in to.

const PARTS = ['handles', 'groups', 'roles', 'attributes'] as const;
type Part = (typeof PARTS)[number];

/**
 * The listing's filter: `filter`, and the narrower parameters of the public reference as the same tree (`all_regions`
 * changes nothing: every region is in this one store).
 */
function listingFilter(q: { filter?: string; handle?: string; ids?: string | string[]; all_person_types?: boolean }): Filter | undefined {
  const parts: Filter[] = [];
  if (q.filter) parts.push(parseFilter(q.filter));
  if (q.handle !== undefined) {
    const sep = q.handle.indexOf(':');
    if (sep < 1) throw badRequest(`handle "${q.handle}" must be type:value, e.g. email_address:ada@example.com`);
    const h = parseHandle({ type: q.handle.slice(0, sep), value: q.handle.slice(sep + 1) });
    parts.push({ kind: 'and', left: { kind: 'eq', attr: 'handles.type', value: h.type }, right: { kind: 'eq', attr: 'handles.value', value: h.value.toLowerCase() } });
  }
  const ids = splitList(q.ids, 'ids');
  if (ids) {
    if (ids.length > 100) throw badRequest(`ids lists ${ids.length} persons; at most 100`);
    parts.push(ids.map((id): Filter => ({ kind: 'eq', attr: 'person_id', value: id.toLowerCase() })).reduce((left, right) => ({ kind: 'or', left, right })));
  }
  if (q.all_person_types === false) parts.push({ kind: 'eq', attr: 'person_type', value: 'regular' });
  return parts.length ? parts.reduce((left, right) => ({ kind: 'and', left, right })) : undefined;
}

/** The parts of a person `fields` asks for (every part when absent); an unknown name answers 400. */
function personFields(raw: string | string[] | undefined): readonly Part[] {
  const names = splitList(raw, 'fields');
  if (!names) return PARTS;
  const unknown = names.filter((n) => !(PARTS as readonly string[]).includes(n));
  if (unknown.length) throw badRequest(`fields: unknown part${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')} (use ${PARTS.join(', ')})`);
  return names as Part[];
}

/** A person with only the parts asked for (its id, activity, type and region always). */
function project<P extends Record<Part, unknown>>(person: P, fields: readonly Part[]): Partial<P> {
  const out: Partial<P> = { ...person };
  for (const part of PARTS) if (!fields.includes(part)) delete out[part];
  return out;
}

/** `/persons` and `/persons/:person_id`. */
export function registerPersonRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  app.post<Wire<'/persons', 'post'>>('/persons', async (req, reply) => {
    const org = await admin(req);
    const person = await createPersonFrom(ctx, org, req.body, await checkPersonBody(ctx, org, req.body));
    reply.code(201);
    return { result: await personOut(ctx, person) };
  });

  // Idempotent create-or-update keyed by the handles: none known → created; all known ones on one person → that person updated.
  app.put<Wire<'/persons', 'put'>>('/persons', async (req) => ({ result: await personOut(ctx, await upsertPerson(ctx, await admin(req), req.body)) }));

  app.get<Wire<'/persons', 'get'>>('/persons', async (req) => {
    const org = await admin(req);
    const request = readPage(req.query, (key) => key.length === 2 && key.every((v) => typeof v === 'string'));
    const fields = personFields(req.query.fields);
    const filter = listingFilter(req.query);
    const { rows, total, nextKey } = await listPersons(ctx, org.id, { filter, limit: request.limit, start: request.start });
    return keyedPage((await personsOut(ctx, rows)).map((p) => project(p, fields)), request, total, nextKey);
  });

  app.get<Wire<'/persons/{person_id}', 'get'>>('/persons/:person_id', async (req) => {
    const org = await admin(req);
    const fields = personFields(req.query.fields);
    return { result: project(await personOut(ctx, await orgPerson(ctx, org, req.params.person_id)), fields) };
  });

  app.patch<Wire<'/persons/{person_id}', 'patch'>>('/persons/:person_id', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    const set: Partial<PersonRow> = {};
    if (req.body.active !== undefined) set.active = req.body.active ? 1 : 0;
    if (req.body.region !== undefined) set.region = regionOf(req.body.region);
    if (Object.keys(set).length) await ctx.db.updateTable('persons').set(set).where('id', '=', p.id).execute();
    return { result: await personOut(ctx, (await getPerson(ctx, p.id))!) };
  });

  app.delete<Wire<'/persons/{person_id}', 'delete'>>('/persons/:person_id', async (req, reply) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    await ctx.db.transaction().execute(async (trx) => {
      for (const t of ['handles', 'credentials', 'attributes', 'consents', 'person_grants', 'sso_oidc_tokens', 'oauth_refresh_tokens', 'federated_identities'] as const) await trx.deleteFrom(t).where('person_id', '=', p.id).execute();
      await trx.deleteFrom('persons').where('id', '=', p.id).execute();
    });
    await ctx.webhooks.emit(org.id, 'PersonDeleted_v1', { person_id: p.id });
    return reply.code(204).send();
  });
}

/** A person's handles, groups and organizations. */
export function registerPersonHandleRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  const listHandles = async (id: string) => (await ctx.db.selectFrom('handles').select(['type', 'value', 'verified_at']).where('person_id', '=', id).orderBy('created_at').execute()).map(handleOut);
  app.get<Wire<'/persons/{person_id}/handles', 'get'>>('/persons/:person_id/handles', async (req) => {
    const org = await admin(req);
    return { result: await listHandles((await orgPerson(ctx, org, req.params.person_id)).id) };
  });
  app.post<Wire<'/persons/{person_id}/handles', 'post'>>('/persons/:person_id/handles', async (req, reply) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    // A list of handles (the public reference), or Keyway's earlier `{handles: [...]}`.
    const given = Array.isArray(req.body) ? req.body : req.body.handles;
    const handles = given.map((h) => parseHandle(h));
    await assertHandlesFree(ctx, org, handles, p.id);
    // The organization assigns them; `verified: true` says the system they come from verified them.
    for (const [i, h] of handles.entries()) await addHandle(ctx, org.id, p.id, h, managementProof(given[i]));
    return reply.code(204).send();
  });
  app.delete<Wire<'/persons/{person_id}/handles/{handle}', 'delete'>>('/persons/:person_id/handles/:handle', async (req, reply: FastifyReply) => {
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

  app.get<Wire<'/persons/{person_id}/groups', 'get'>>('/persons/:person_id/groups', async (req) => {
    const org = await admin(req);
    return { result: JSON.parse((await orgPerson(ctx, org, req.params.person_id)).groups) as string[] };
  });
  app.put<Wire<'/persons/{person_id}/groups', 'put'>>('/persons/:person_id/groups', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    const groups = req.body.groups ?? [];
    await registerGroups(ctx, org, groups);
    await ctx.db.updateTable('persons').set({ groups: JSON.stringify(groups) }).where('id', '=', p.id).execute();
    return { result: groups };
  });
  app.get<Wire<'/persons/{person_id}/organizations', 'get'>>('/persons/:person_id/organizations', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    // The home organization, and every organization that pools its persons.
    const rows = await ctx.db.selectFrom('organizations').selectAll().orderBy('created_at').execute();
    const pooling = rows.filter((r) => r.id === p.org_id || ((JSON.parse(r.settings) as OrgSettings).person_pool_orgs_ids ?? []).includes(p.org_id));
    const named = (r: (typeof rows)[number]) => ({ id: r.id, org_name: r.org_name, tenant_name: r.tenant_name, ...(r.parent_id ? { parent_id: r.parent_id } : {}) });
    return {
      result: filterOrganizations(pooling, req.query.filter).map((r) => ({
        ...named(r),
        person_id: p.id,
        managed_organizations: rows.filter((c) => c.parent_id === r.id).map(named),
      })),
    };
  });
}
