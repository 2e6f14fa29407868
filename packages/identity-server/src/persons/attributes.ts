import type { Ctx } from '../context.js';
import { nowIso } from '../context.js';
import { badRequest, forbidden } from '../http/errors.js';

// Attributes (spec §6 buckets) of a person or of an organization: which buckets exist, who may read and write each,
// and their storage.

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
