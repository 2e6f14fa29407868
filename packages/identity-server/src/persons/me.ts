import type { FastifyInstance } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { requireUser } from '../http/guards.js';
import { loadOrg } from '../organizations/settings.js';
import { BUCKETS, readBuckets } from './attributes.js';
import { credentialOut } from './persons.js';
import { handleOut } from './proofs.js';

// `/me`: the signed-in person, their handles, credentials and organizations.

function hierarchyEntry(org: Org, all: Org[], personOrgId: string) {
  return {
    id: org.id,
    parent_id: org.parent_id,
    name: org.org_name,
    tenant_name: org.tenant_name,
    children_ids: all.filter((o) => o.parent_id === org.id).map((o) => o.id),
    person_pool_orgs_ids: org.settings.person_pool_orgs_ids ?? [],
    group_pool_orgs_ids: [],
    manager_org_id: org.parent_id,
    person_in_manager_org: org.parent_id !== null && org.parent_id === personOrgId,
    inherits_rbac_pools: false,
  };
}

/** The person's organization and every organization below it. */
async function orgTree(ctx: Ctx, rootId: string): Promise<Org[]> {
  const rows = await ctx.db.selectFrom('organizations').select('id').execute();
  const all: Org[] = [];
  for (const r of rows) {
    const o = await loadOrg(ctx, r.id);
    if (o) all.push(o);
  }
  const out: Org[] = [];
  const queue = [rootId];
  while (queue.length) {
    const id = queue.shift()!;
    const org = all.find((o) => o.id === id);
    if (!org || out.includes(org)) continue;
    out.push(org);
    for (const child of all) if (child.parent_id === id) queue.push(child.id);
  }
  return out;
}

/** `/me` and `/me/orgs` (bearer user token). */
export function registerMeRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/me', async (req) => {
    const claims = await requireUser(ctx, req);
    const person = await ctx.db.selectFrom('persons').selectAll().where('id', '=', claims.person_id).executeTakeFirstOrThrow();
    const handles = (await ctx.db.selectFrom('handles').select(['type', 'value', 'verified_at']).where('person_id', '=', person.id).orderBy('created_at').execute()).map(handleOut);
    const creds = await ctx.db.selectFrom('credentials').selectAll().where('person_id', '=', person.id).orderBy('created_at').execute();
    const readable = BUCKETS.filter((b) => !b.endsWith('no_access'));
    const attributes = await readBuckets(ctx, person.id, [...readable]);
    const tree = await orgTree(ctx, person.org_id);
    const own = tree[0];
    return {
      result: {
        person: {
          active: person.active === 1,
          person_id: person.id,
          person_type: person.person_type,
          region: person.region,
          handles,
          groups: JSON.parse(person.groups) as string[],
          attributes,
        },
        organizations: own
          ? [{ id: own.id, parent_id: own.parent_id, org_name: own.org_name, tenant_name: own.tenant_name, managed_organizations: tree.slice(1).map((o) => ({ id: o.id, parent_id: o.parent_id, org_name: o.org_name, tenant_name: o.tenant_name })) }]
          : [],
        handles,
        credentials: creds.map(credentialOut),
      },
    };
  });

  app.get('/me/orgs', async (req) => {
    const claims = await requireUser(ctx, req);
    const tree = await orgTree(ctx, claims.oid);
    return { result: { org_hierarchy: tree.map((o) => hierarchyEntry(o, tree, claims.oid)) } };
  });
}
