import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.js';
import { requireApiKey, requireUser } from '../http/guards.js';
import * as S from '../http/schemas.js';
import { addConsents, listConsents, removeConsents } from './consents.js';
import { orgPerson } from './person-store.js';
import type { Wire } from '../http/wire.js';

/** The signed-in person's own GDPR consent (`/consent/gdpr`, bearer user token). */
export function registerOwnConsentRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/consent/gdpr', async (req) => {
    const claims = await requireUser(ctx, req);
    return { result: await listConsents(ctx, claims.person_id) };
  });
  app.post<Wire<'/consent/gdpr', 'post'>>('/consent/gdpr', { schema: { body: S.consentBody } }, async (req, reply) => {
    const claims = await requireUser(ctx, req);
    await addConsents(ctx, claims.person_id, req.body.consent_levels, false);
    reply.code(201);
    return { result: await listConsents(ctx, claims.person_id) };
  });
  app.put<Wire<'/consent/gdpr', 'put'>>('/consent/gdpr', { schema: { body: S.consentBody } }, async (req) => {
    const claims = await requireUser(ctx, req);
    await addConsents(ctx, claims.person_id, req.body.consent_levels, true);
    return { result: await listConsents(ctx, claims.person_id) };
  });
  app.delete<Wire<'/consent/gdpr', 'delete'>>(
    '/consent/gdpr',
    { schema: { querystring: { type: 'object', additionalProperties: false, properties: { consent_levels: S.commaOrRepeatedList, deleteAll: { enum: ['true', 'false'] } } } } },
    async (req, reply) => {
      const claims = await requireUser(ctx, req);
      await removeConsents(ctx, claims.person_id, req.query);
      return reply.code(204).send();
    },
  );
}

/** Management API: a person's GDPR consent. */
export function registerManagedConsentRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  app.get<Wire<'/persons/{person_id}/consent/gdpr', 'get'>>('/persons/:person_id/consent/gdpr', async (req) => {
    const p = await orgPerson(ctx, await admin(req), req.params.person_id);
    return { result: await listConsents(ctx, p.id) };
  });
  const adminConsents = (replace: boolean) => async (req: FastifyRequest<Wire<'/persons/{person_id}/consent/gdpr', 'put'>>, reply: FastifyReply) => {
    const p = await orgPerson(ctx, await admin(req), req.params.person_id);
    await addConsents(ctx, p.id, req.body.consent_levels, replace);
    // The public reference answers 201 to adding levels (POST) and 200 to setting them (PUT).
    if (!replace) reply.code(201);
    return { result: await listConsents(ctx, p.id) };
  };
  app.post('/persons/:person_id/consent/gdpr', adminConsents(false));
  app.put('/persons/:person_id/consent/gdpr', adminConsents(true));
  app.delete<Wire<'/persons/{person_id}/consent/gdpr', 'delete'>>('/persons/:person_id/consent/gdpr', async (req, reply) => {
    const p = await orgPerson(ctx, await admin(req), req.params.person_id);
    await removeConsents(ctx, p.id, req.query);
    return reply.code(204).send();
  });
}
