import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { loadOrg, nowIso, requireUser } from '../context.js';
import { badRequest, forbidden } from '../http/errors.js';
import { credentialOut } from './persons.js';
import * as S from '../http/schemas.js';

export const BUCKETS = [
  'end_user_read_write',
  'end_user_read_only',
  'end_user_no_access',
  'person_pool-end_user_read_write',
  'person_pool-end_user_read_only',
  'person_pool-end_user_no_access',
] as const;
export const DEFAULT_BUCKET = 'end_user_read_write';
const MAX_VALUE_BYTES = 16 * 1024;

/**
 * Bucket access (§6): for the end person itself read-write, read-only or no access; the organization (`'admin'`)
 * reads and writes every bucket.
 */
export function checkBucket(bucket: string, access: 'read' | 'write' | 'admin'): void {
  if (!(BUCKETS as readonly string[]).includes(bucket)) {
    throw badRequest(`unknown attribute bucket "${bucket}": use one of ${BUCKETS.join(', ')}`);
  }
  if (access === 'admin') return;
  if (bucket.endsWith('end_user_no_access')) throw forbidden(`attribute bucket "${bucket}" is not accessible to end users`);
  if (access === 'write' && bucket.endsWith('end_user_read_only')) throw forbidden(`attribute bucket "${bucket}" is read-only for end users`);
}

export function splitList(raw: string | string[] | undefined, what: string): string[] | undefined {
  if (raw === undefined) return undefined;
  // Comma-joined (`a,b`) or repeated (`x=a&x=b`, an array here), or both.
  const items = (Array.isArray(raw) ? raw : [raw]).flatMap((r) => r.split(',')).map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw badRequest(`${what} must list at least one name (comma-separated)`);
  return items;
}

function encodeValue(bucket: string, name: string, value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw badRequest(`attribute "${name}" in bucket "${bucket}" has no JSON value`);
  if (Buffer.byteLength(json) > MAX_VALUE_BYTES) throw badRequest(`attribute "${name}" in bucket "${bucket}" is larger than ${MAX_VALUE_BYTES} bytes`);
  return json;
}

/** Whose attributes: a person's (a person id) or an organization's (`{ orgId }`). */
export type AttributeOwner = string | { orgId: string };

/** The table and key column of an owner's attributes (both tables share the other columns). */
function store(owner: AttributeOwner) {
  return typeof owner === 'string'
    ? { table: 'attributes' as const, key: 'person_id' as const, id: owner }
    : { table: 'org_attributes' as unknown as 'attributes', key: 'org_id' as unknown as 'person_id', id: owner.orgId };
}

export async function readBuckets(ctx: Ctx, owner: AttributeOwner, buckets: string[], names?: string[]): Promise<Record<string, Record<string, unknown>>> {
  const s = store(owner);
  let q = ctx.db.selectFrom(s.table).select(['bucket', 'name', 'value']).where(s.key, '=', s.id).where('bucket', 'in', buckets);
  if (names) q = q.where('name', 'in', names);
  const rows = await q.execute();
  const out: Record<string, Record<string, unknown>> = {};
  for (const b of buckets) out[b] = {};
  for (const r of rows) out[r.bucket]![r.name] = JSON.parse(r.value) as unknown;
  return out;
}

/** Writes attributes of several buckets in one transaction; `replace` empties each bucket first (PUT). */
export async function writeBuckets(ctx: Ctx, owner: AttributeOwner, body: Record<string, Record<string, unknown>>, replace: boolean, access: 'write' | 'admin' = 'write'): Promise<void> {
  const s = store(owner);
  const entries = Object.entries(body);
  for (const [bucket, attrs] of entries) {
    checkBucket(bucket, access);
    for (const [name, value] of Object.entries(attrs)) encodeValue(bucket, name, value);
  }
  const now = nowIso();
  await ctx.db.transaction().execute(async (trx) => {
    for (const [bucket, attrs] of entries) {
      if (replace) await trx.deleteFrom(s.table).where(s.key, '=', s.id).where('bucket', '=', bucket).execute();
      for (const [name, value] of Object.entries(attrs)) {
        const v = encodeValue(bucket, name, value);
        await trx
          .insertInto(s.table)
          .values({ [s.key]: s.id, bucket, name, value: v, updated_at: now } as { person_id: string; bucket: string; name: string; value: string; updated_at: string })
          .onConflict((oc) => oc.columns([s.key, 'bucket', 'name']).doUpdateSet({ value: v, updated_at: now }))
          .execute();
      }
    }
  });
}

/** Deletes the named attributes of a bucket, or the whole bucket. */
export async function deleteBucket(ctx: Ctx, owner: AttributeOwner, bucket: string, names?: string[]): Promise<void> {
  const s = store(owner);
  let q = ctx.db.deleteFrom(s.table).where(s.key, '=', s.id).where('bucket', '=', bucket);
  if (names) q = q.where('name', 'in', names);
  await q.execute();
}

export const listConsents = async (ctx: Ctx, personId: string) => ({
  consents: await ctx.db.selectFrom('consents').select(['consent_level', 'created_at']).where('person_id', '=', personId).orderBy('consent_level').execute(),
});
export const addConsents = async (ctx: Ctx, personId: string, levels: string[], replace: boolean) => {
  const now = nowIso();
  await ctx.db.transaction().execute(async (trx) => {
    if (replace) await trx.deleteFrom('consents').where('person_id', '=', personId).where('consent_level', 'not in', levels.length ? levels : ['']).execute();
    for (const level of new Set(levels)) {
      await trx.insertInto('consents').values({ person_id: personId, consent_level: level, created_at: now }).onConflict((oc) => oc.columns(['person_id', 'consent_level']).doNothing()).execute();
    }
  });
};

/** Removes the listed consent levels, or all with `deleteAll=true` (exactly one of the two). */
export async function removeConsents(ctx: Ctx, personId: string, query: { consent_levels?: string | string[]; deleteAll?: string | boolean }): Promise<void> {
  const levels = splitList(query.consent_levels, 'consent_levels');
  const all = String(query.deleteAll) === 'true';
  if (all && levels) throw badRequest('give either consent_levels or deleteAll=true, not both');
  if (!all && !levels) throw badRequest('give consent_levels (comma-separated) or deleteAll=true');
  let q = ctx.db.deleteFrom('consents').where('person_id', '=', personId);
  if (levels) q = q.where('consent_level', 'in', levels);
  await q.execute();
}

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

export function registerMeRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/me', async (req) => {
    const claims = await requireUser(ctx, req);
    const person = await ctx.db.selectFrom('persons').selectAll().where('id', '=', claims.person_id).executeTakeFirstOrThrow();
    const handles = await ctx.db.selectFrom('handles').select(['type', 'value']).where('person_id', '=', person.id).orderBy('created_at').execute();
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

  // Attributes (§6 buckets).
  app.get<{ Querystring: { buckets?: string } }>(
    '/attributes',
    { schema: { querystring: { type: 'object', additionalProperties: false, properties: { buckets: S.commaList } } } },
    async (req) => {
      const claims = await requireUser(ctx, req);
      const buckets = splitList(req.query.buckets, 'buckets') ?? [DEFAULT_BUCKET];
      for (const b of buckets) checkBucket(b, 'read');
      return { result: await readBuckets(ctx, claims.person_id, buckets) };
    },
  );
  const writeAll = (replace: boolean) => async (req: FastifyRequest<{ Body: Record<string, Record<string, unknown>> }>) => {
    const claims = await requireUser(ctx, req);
    await writeBuckets(ctx, claims.person_id, req.body, replace);
    return { result: await readBuckets(ctx, claims.person_id, Object.keys(req.body)) };
  };
  app.put('/attributes', { schema: { body: S.bucketsBody } }, writeAll(true));
  app.patch('/attributes', { schema: { body: S.bucketsBody } }, writeAll(false));

  const bucketParams = { type: 'object', required: ['bucket_name'], properties: { bucket_name: { type: 'string', maxLength: 64 } } };
  const attrQuery = { type: 'object', additionalProperties: false, properties: { attributes: S.commaList } };
  app.get<{ Params: { bucket_name: string }; Querystring: { attributes?: string } }>(
    '/attributes/:bucket_name',
    { schema: { params: bucketParams, querystring: attrQuery } },
    async (req) => {
      const claims = await requireUser(ctx, req);
      checkBucket(req.params.bucket_name, 'read');
      const names = splitList(req.query.attributes, 'attributes');
      const out = await readBuckets(ctx, claims.person_id, [req.params.bucket_name], names);
      return { result: out[req.params.bucket_name] };
    },
  );
  const writeOne = (replace: boolean) => async (req: FastifyRequest<{ Params: { bucket_name: string }; Body: Record<string, unknown> }>) => {
    const claims = await requireUser(ctx, req);
    await writeBuckets(ctx, claims.person_id, { [req.params.bucket_name]: req.body }, replace);
    const out = await readBuckets(ctx, claims.person_id, [req.params.bucket_name]);
    return { result: out[req.params.bucket_name] };
  };
  app.put('/attributes/:bucket_name', { schema: { params: bucketParams, body: S.bucketBody } }, writeOne(true));
  app.patch('/attributes/:bucket_name', { schema: { params: bucketParams, body: S.bucketBody } }, writeOne(false));
  app.delete<{ Params: { bucket_name: string }; Querystring: { attributes?: string } }>(
    '/attributes/:bucket_name',
    { schema: { params: bucketParams, querystring: attrQuery } },
    async (req) => {
      const claims = await requireUser(ctx, req);
      checkBucket(req.params.bucket_name, 'write');
      const names = splitList(req.query.attributes, 'attributes');
      let q = ctx.db.deleteFrom('attributes').where('person_id', '=', claims.person_id).where('bucket', '=', req.params.bucket_name);
      if (names) q = q.where('name', 'in', names);
      await q.execute();
      const out = await readBuckets(ctx, claims.person_id, [req.params.bucket_name]);
      return { result: out[req.params.bucket_name] };
    },
  );

  // GDPR consent.
  app.get('/consent/gdpr', async (req) => {
    const claims = await requireUser(ctx, req);
    return { result: await listConsents(ctx, claims.person_id) };
  });
  app.post<{ Body: { consent_levels: string[] } }>('/consent/gdpr', { schema: { body: S.consentBody } }, async (req) => {
    const claims = await requireUser(ctx, req);
    await addConsents(ctx, claims.person_id, req.body.consent_levels, false);
    return { result: await listConsents(ctx, claims.person_id) };
  });
  app.put<{ Body: { consent_levels: string[] } }>('/consent/gdpr', { schema: { body: S.consentBody } }, async (req) => {
    const claims = await requireUser(ctx, req);
    await addConsents(ctx, claims.person_id, req.body.consent_levels, true);
    return { result: await listConsents(ctx, claims.person_id) };
  });
  app.delete<{ Querystring: { consent_levels?: string | string[]; deleteAll?: string | boolean } }>(
    '/consent/gdpr',
    { schema: { querystring: { type: 'object', additionalProperties: false, properties: { consent_levels: S.commaOrRepeatedList, deleteAll: { enum: ['true', 'false'] } } } } },
    async (req) => {
      const claims = await requireUser(ctx, req);
      await removeConsents(ctx, claims.person_id, req.query);
      return { result: await listConsents(ctx, claims.person_id) };
    },
  );

}
