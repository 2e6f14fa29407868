import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.js';
import { requireApiKey, requireUser } from '../http/guards.js';
import * as S from '../http/schemas.js';
import { BUCKETS, checkBucket, DEFAULT_BUCKET, deleteBucket, readBuckets, splitList, writeBuckets, type AttributeOwner } from './attributes.js';
import { orgPerson } from './person-store.js';
import type { Wire } from '../http/wire.js';

/** The signed-in person's own attributes (`/attributes`, bearer user token): end-user access rules per bucket. */
export function registerOwnAttributeRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get<Wire<'/attributes', 'get'>>(
    '/attributes',
    { schema: { querystring: { type: 'object', additionalProperties: false, properties: { buckets: S.commaList } } } },
    async (req) => {
      const claims = await requireUser(ctx, req);
      const buckets = splitList(req.query.buckets, 'buckets') ?? [DEFAULT_BUCKET];
      for (const b of buckets) checkBucket(b, 'read');
      return { result: await readBuckets(ctx, claims.person_id, buckets) };
    },
  );
  const writeAll = (replace: boolean) => async (req: FastifyRequest<Wire<'/attributes', 'put'>>) => {
    const claims = await requireUser(ctx, req);
    await writeBuckets(ctx, claims.person_id, req.body, replace);
    return { result: await readBuckets(ctx, claims.person_id, Object.keys(req.body)) };
  };
  app.put('/attributes', { schema: { body: S.bucketsBody } }, writeAll(true));
  app.patch('/attributes', { schema: { body: S.bucketsBody } }, writeAll(false));

  const bucketParams = { type: 'object', required: ['bucket_name'], properties: { bucket_name: { type: 'string', maxLength: 64 } } };
  const attrQuery = { type: 'object', additionalProperties: false, properties: { attributes: S.commaList } };
  app.get<Wire<'/attributes/{bucket_name}', 'get'>>(
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
  const writeOne = (replace: boolean) => async (req: FastifyRequest<Wire<'/attributes/{bucket_name}', 'put'>>) => {
    const claims = await requireUser(ctx, req);
    await writeBuckets(ctx, claims.person_id, { [req.params.bucket_name]: req.body }, replace);
    const out = await readBuckets(ctx, claims.person_id, [req.params.bucket_name]);
    return { result: out[req.params.bucket_name] };
  };
  app.put('/attributes/:bucket_name', { schema: { params: bucketParams, body: S.bucketBody } }, writeOne(true));
  app.patch('/attributes/:bucket_name', { schema: { params: bucketParams, body: S.bucketBody } }, writeOne(false));
  app.delete<Wire<'/attributes/{bucket_name}', 'delete'>>(
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

}

/**
 * Attribute routes under `base` (a person's or the organization's): every bucket, multi- and single-bucket reads and
 * writes. They are typed by the person's operations; the organization's take the same query and bodies.
 */
function registerAdminAttributeRoutes(app: FastifyInstance, ctx: Ctx, base: string, ownerOf: (req: FastifyRequest) => Promise<AttributeOwner>): void {
  app.get<Wire<'/persons/{person_id}/attributes', 'get'>>(`${base}/attributes`, async (req) => {
    const owner = await ownerOf(req);
    const buckets = splitList(req.query.buckets, 'buckets') ?? [...BUCKETS];
    for (const b of buckets) checkBucket(b, 'admin');
    return { result: await readBuckets(ctx, owner, buckets) };
  });
  // Writes answer 204 without a body, as the public reference does; the GET of the same path reads them back.
  const writeAll = (replace: boolean) => async (req: FastifyRequest<Wire<'/persons/{person_id}/attributes', 'put'>>, reply: FastifyReply) => {
    const owner = await ownerOf(req);
    await writeBuckets(ctx, owner, req.body, replace, 'admin');
    return reply.code(204).send();
  };
  app.put(`${base}/attributes`, writeAll(true));
  app.patch(`${base}/attributes`, writeAll(false));
  app.get<Wire<'/persons/{person_id}/attributes/{bucket_name}', 'get'>>(`${base}/attributes/:bucket_name`, async (req) => {
    const owner = await ownerOf(req);
    checkBucket(req.params.bucket_name, 'admin');
    const out = await readBuckets(ctx, owner, [req.params.bucket_name], splitList(req.query.attributes, 'attributes'));
    return { result: out[req.params.bucket_name] };
  });
  const writeOne = (replace: boolean) => async (req: FastifyRequest<Wire<'/persons/{person_id}/attributes/{bucket_name}', 'put'>>, reply: FastifyReply) => {
    const owner = await ownerOf(req);
    await writeBuckets(ctx, owner, { [req.params.bucket_name]: req.body }, replace, 'admin');
    return reply.code(204).send();
  };
  app.put(`${base}/attributes/:bucket_name`, writeOne(true));
  app.patch(`${base}/attributes/:bucket_name`, writeOne(false));
  app.delete<Wire<'/persons/{person_id}/attributes/{bucket_name}', 'delete'>>(`${base}/attributes/:bucket_name`, async (req, reply) => {
    const owner = await ownerOf(req);
    checkBucket(req.params.bucket_name, 'admin');
    await deleteBucket(ctx, owner, req.params.bucket_name, splitList(req.query.attributes, 'attributes'));
    return reply.code(204).send();
  });
}

/** Management API: a person's attributes (every bucket, as the organization sees them) and the organization's own. */
export function registerManagedAttributeRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  registerAdminAttributeRoutes(app, ctx, '/persons/:person_id', async (req) => (await orgPerson(ctx, await admin(req), (req.params as { person_id: string }).person_id)).id);
  registerAdminAttributeRoutes(app, ctx, '/organizations', async (req) => ({ orgId: (await admin(req)).id }));
}
