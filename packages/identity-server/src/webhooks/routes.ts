import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { nowIso } from '../context.js';
import type { WebhookDeliveryTable, WebhookTable } from '../db/schema.js';
import { ApiError, badRequest, notFound } from '../http/errors.js';
import { requireApiKey } from '../http/guards.js';
import { assertPublicUrl } from '../http/outbound.js';
import { offsetPage, readOffsetPage } from '../http/pagination.js';
import { IDEMPOTENCY_HEADER, SYNC_HOOKS, type WebhookEvent } from './service.js';
import type { Schema, Wire } from '../http/wire.js';

/** A webhook as created or changed (the checks are the same; creation also needs the required fields). */
type WebhookBody = Schema<'WebhookPatch'>;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Headers the delivery sets itself. */
const OWN_HEADERS = new Set(['content-type', 'content-length', 'host', 'keyway-webhook-id', 'keyway-delivery-id', 'keyway-event-type', 'keyway-sync-hook', IDEMPOTENCY_HEADER]);

const webhookOut = (w: WebhookTable) => ({
  id: w.id,
  name: w.name,
  ...(w.description ? { description: w.description } : {}),
  target_url: w.target_url,
  custom_headers: JSON.parse(w.custom_headers) as Record<string, string[]>,
  timeout: `${w.timeout}s`,
  created_at: w.created_at,
});

/** A delivery as the management API lists it (fields without a value are left out). */
const deliveryOut = (d: WebhookDeliveryTable) => ({
  id: d.id,
  webhook_id: d.webhook_id,
  event_id: (JSON.parse(d.event) as WebhookEvent).id,
  event_type: d.event_type,
  status: d.status,
  attempts: d.attempts,
  ...(d.last_status !== null ? { last_status: d.last_status } : {}),
  ...(d.last_error !== null ? { last_error: d.last_error } : {}),
  ...(d.status === 'pending' ? { next_attempt_at: d.next_attempt_at } : {}),
  created_at: d.created_at,
  ...(d.delivered_at !== null ? { delivered_at: d.delivered_at } : {}),
});

/** Seconds of a timeout given as `"10s"` or `10` (the contract checks the form and the range). */
const seconds = (timeout: string | number): number => (typeof timeout === 'number' ? timeout : Number.parseInt(timeout, 10));

/** 400 naming what is wrong with a webhook's target URL or custom headers. */
function checkBody(ctx: Ctx, body: WebhookBody): void {
  if (body.target_url) {
    const url = new URL(body.target_url);
    if (url.protocol !== 'https:' && !(ctx.devMode && url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
      throw badRequest('target_url must be an https URL (plain http is accepted for localhost in development only)');
    }
    // In production an internal address written as an IP literal is refused here already; names are checked on the
    // address they resolve to, at every delivery (src/http/outbound.ts).
    if (!ctx.devMode) {
      try {
        assertPublicUrl(url);
      } catch (err) {
        throw badRequest(`target_url: ${(err as Error).message}`);
      }
    }
  }
  for (const name of Object.keys(body.custom_headers ?? {})) {
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/.test(name)) throw badRequest(`custom_headers: "${name}" is not a valid header name`);
    if (OWN_HEADERS.has(name.toLowerCase())) throw badRequest(`custom_headers: "${name}" is set by Keyway and cannot be overridden`);
  }
  for (const [name, values] of Object.entries(body.custom_headers ?? {})) {
    if (values.some((v) => /[\r\n\0]/.test(v))) throw badRequest(`custom_headers: a value of "${name}" contains a line break`);
  }
}

async function hookOf(ctx: Ctx, org: Org, id: string) {
  const row = await ctx.db.selectFrom('webhooks').selectAll().where('org_id', '=', org.id).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`webhook "${id}" does not exist`);
  return row;
}

/** Webhooks of the organization and the verification keys. */
export function registerWebhookRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  // Static path first: Fastify prefers it to /:webhook_id anyway, but keep the intent visible.
  app.get('/organizations/webhooks/verification-jwks', async (req) => {
    await admin(req);
    return ctx.webhooks.jwks(); // the bare key set, as the public document answers it
  });

  app.post<Wire<'/organizations/webhooks', 'post'>>('/organizations/webhooks', async (req, reply) => {
    const org = await admin(req);
    checkBody(ctx, req.body);
    const row: WebhookTable = {
      id: randomUUID(),
      org_id: org.id,
      name: req.body.name,
      description: req.body.description ?? null,
      target_url: req.body.target_url,
      custom_headers: JSON.stringify(req.body.custom_headers ?? {}),
      timeout: req.body.timeout === undefined ? 10 : seconds(req.body.timeout),
      created_at: nowIso(),
    };
    await ctx.db.insertInto('webhooks').values(row).execute();
    reply.code(201);
    return { result: webhookOut(row) };
  });
  app.get('/organizations/webhooks', async (req) => {
    const org = await admin(req);
    return { result: (await ctx.db.selectFrom('webhooks').selectAll().where('org_id', '=', org.id).orderBy('created_at').orderBy('id').execute()).map(webhookOut) };
  });
  app.get<Wire<'/organizations/webhooks/{webhook_id}', 'get'>>('/organizations/webhooks/:webhook_id', async (req) => ({ result: webhookOut(await hookOf(ctx, await admin(req), req.params.webhook_id)) }));
  app.patch<Wire<'/organizations/webhooks/{webhook_id}', 'patch'>>('/organizations/webhooks/:webhook_id', async (req) => {
    const org = await admin(req);
    const row = await hookOf(ctx, org, req.params.webhook_id);
    checkBody(ctx, req.body);
    const next: WebhookTable = {
      ...row,
      ...(req.body.name !== undefined ? { name: req.body.name } : {}),
      ...(req.body.description !== undefined ? { description: req.body.description } : {}),
      ...(req.body.target_url !== undefined ? { target_url: req.body.target_url } : {}),
      ...(req.body.custom_headers !== undefined ? { custom_headers: JSON.stringify(req.body.custom_headers) } : {}),
      ...(req.body.timeout !== undefined ? { timeout: seconds(req.body.timeout) } : {}),
    };
    const { id, org_id, created_at, ...changes } = next;
    await ctx.db.updateTable('webhooks').set(changes).where('id', '=', id).where('org_id', '=', org_id).execute();
    void created_at;
    return { result: webhookOut(next) };
  });
  app.delete<Wire<'/organizations/webhooks/{webhook_id}', 'delete'>>('/organizations/webhooks/:webhook_id', async (req, reply) => {
    const org = await admin(req);
    const row = await hookOf(ctx, org, req.params.webhook_id);
    await ctx.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('webhook_triggers').where('webhook_id', '=', row.id).execute();
      await trx.updateTable('webhook_deliveries').set({ status: 'failed', last_error: 'the webhook was deleted' }).where('webhook_id', '=', row.id).where('status', '=', 'pending').execute();
      await trx.deleteFrom('webhooks').where('id', '=', row.id).execute();
    });
    return reply.code(204).send();
  });
}

/** A webhook's deliveries (newest first; `status=failed` is the dead-letter list) and the replay of a dead letter. */
export function registerWebhookDeliveryRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  app.get<Wire<'/organizations/webhooks/{webhook_id}/deliveries', 'get'>>('/organizations/webhooks/:webhook_id/deliveries', async (req) => {
    const row = await hookOf(ctx, await admin(req), req.params.webhook_id);
    const { limit, offset } = readOffsetPage(req.query);
    // Sync hook calls are recorded in the same table but are not deliveries of events: never listed, never replayed.
    // (Event names have no colon, so `_` matching any character here matches nothing else.)
    let list = ctx.db.selectFrom('webhook_deliveries').where('webhook_id', '=', row.id).where('event_type', 'not like', 'sync_hook:%');
    if (req.query.status !== undefined) list = list.where('status', '=', req.query.status);
    const page = await list.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
    const { total } = await list.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow();
    return offsetPage(page.map(deliveryOut), limit, offset, Number(total));
  });
  app.post<Wire<'/organizations/webhooks/{webhook_id}/deliveries/{delivery_id}/replay', 'post'>>('/organizations/webhooks/:webhook_id/deliveries/:delivery_id/replay', async (req) => {
    const row = await hookOf(ctx, await admin(req), req.params.webhook_id);
    return { result: deliveryOut(await ctx.webhooks.replay(row.id, req.params.delivery_id)) };
  });
}

/** A webhook's triggers, and `POST /test-events`. */
export function registerWebhookTriggerRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  const triggersOf = (id: string) =>
    ctx.db.selectFrom('webhook_triggers').select(['trigger_type', 'trigger_name']).where('webhook_id', '=', id).orderBy('trigger_type').orderBy('trigger_name').execute();
  app.get<Wire<'/organizations/webhooks/{webhook_id}/triggers', 'get'>>('/organizations/webhooks/:webhook_id/triggers', async (req) => {
    const row = await hookOf(ctx, await admin(req), req.params.webhook_id);
    return { result: await triggersOf(row.id) };
  });
  app.post<Wire<'/organizations/webhooks/{webhook_id}/triggers', 'post'>>('/organizations/webhooks/:webhook_id/triggers', async (req, reply) => {
    const row = await hookOf(ctx, await admin(req), req.params.webhook_id);
    const { trigger_type, trigger_name } = req.body;
    if (trigger_type === 'sync_hook' && !(SYNC_HOOKS as readonly string[]).includes(trigger_name)) {
      throw badRequest(`unknown sync hook "${trigger_name}": this server calls sync hooks at ${SYNC_HOOKS.join(', ')}`);
    }
    const exists = (await triggersOf(row.id)).some((t) => t.trigger_type === trigger_type && t.trigger_name === trigger_name);
    if (exists) throw new ApiError(409, `webhook "${row.id}" already has the ${trigger_type} trigger "${trigger_name}"`);
    await ctx.db.insertInto('webhook_triggers').values({ webhook_id: row.id, trigger_type, trigger_name, created_at: nowIso() }).execute();
    reply.code(201);
    return { result: { trigger_type, trigger_name } };
  });
  app.delete<Wire<'/organizations/webhooks/{webhook_id}/triggers', 'delete'>>('/organizations/webhooks/:webhook_id/triggers', async (req, reply) => {
    const row = await hookOf(ctx, await admin(req), req.params.webhook_id);
    // The trigger is named in the query (as the public reference does) or, as before, in the body.
    const trigger_type = req.query.trigger_type ?? req.body?.trigger_type;
    const trigger_name = req.query.trigger_name ?? req.body?.trigger_name;
    if (trigger_type === undefined || trigger_name === undefined) throw badRequest('name the trigger to remove with the trigger_type and trigger_name query parameters');
    const res = await ctx.db
      .deleteFrom('webhook_triggers')
      .where('webhook_id', '=', row.id)
      .where('trigger_type', '=', trigger_type)
      .where('trigger_name', '=', trigger_name)
      .executeTakeFirst();
    if (Number(res.numDeletedRows) !== 1) throw notFound(`webhook "${row.id}" has no ${trigger_type} trigger "${trigger_name}"`);
    return reply.code(204).send();
  });

  app.post<Wire<'/test-events', 'post'>>('/test-events', async (req, reply) => {
    const org = await admin(req);
    const generated: Array<{ event_id: string; event_name: string; organization_id: string; timestamp: string }> = [];
    for (const { event_name, count = 1, duplicates = false, analytics_correlation_id } of req.body) {
      const events = Array.from({ length: count }, (_, i) => ({
        id: randomUUID(),
        data: { test: true, sequence: i + 1, ...(analytics_correlation_id !== undefined ? { analytics_correlation_id } : {}) },
      }));
      const timestamp = nowIso();
      await ctx.db
        .insertInto('events')
        .values(events.map((e) => ({ org_id: org.id, source: 'test', name: event_name, person_id: null, payload: JSON.stringify({ ...e.data, event_id: e.id }), created_at: timestamp })))
        .execute();
      await ctx.webhooks.emitEvents(org.id, event_name, events, { test: true, copies: duplicates ? 2 : 1, at: timestamp });
      for (const e of events) generated.push({ event_id: e.id, event_name, organization_id: org.id, timestamp });
    }
    reply.code(201);
    return { result: generated };
  });
}
