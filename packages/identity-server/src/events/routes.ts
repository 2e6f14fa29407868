import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { nowIso } from '../context.js';
import { loadOrg } from '../organizations/settings.js';
import { bearerToken, clientIp, requireOrg } from '../http/guards.js';
import { badRequest, notFound, unauthorized } from '../http/errors.js';
import { keyedPage, readPage } from '../http/pagination.js';
import * as S from '../http/schemas.js';
import { requireApiKey } from '../http/guards.js';
import { sha256 } from '../crypto/secrets.js';
import type { Member, Schema, Wire } from '../http/wire.js';
import { eventsQuery } from './store.js';

/** Older clients name the event beside `event_data`; spec §3 and the published client put it inside. */
type AnalyticsEvent = Member<Schema<'AnalyticsEvent'>, 'organization_id'>;


/** The event's name: beside `event_data` or inside it (the schema requires one of the two). */
const eventName = (e: AnalyticsEvent): string => e.event_name ?? String(e.event_data?.event_name);

export function registerEventRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.register(async (scope) => {
    // Browsers sending beacons use text/plain; its body is still JSON.
    scope.addContentTypeParser('text/plain', { parseAs: 'string' }, (_req, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(Object.assign(new Error('malformed JSON body'), { statusCode: 400 }), undefined);
      }
    });
    const ingest = (source: string) => async (req: FastifyRequest<{ Body: AnalyticsEvent | AnalyticsEvent[] }>) => {
      const events = Array.isArray(req.body) ? req.body : [req.body];
      await ctx.limiter.hit('events-ip', clientIp(req), ctx.limits.perIpPerMinute * 20, 'analytics events from this address');
      const headerOrg = req.headers['keyway-orgid'];
      const orgIds = new Set(events.map((e) => e.organization_id ?? (typeof headerOrg === 'string' ? headerOrg : undefined)));
      for (const id of orgIds) {
        if (!id) throw badRequest('organization_id is missing: send it in each event or the Keyway-OrgID header');
        if (!(await loadOrg(ctx, id))) throw notFound(`organization "${id}" does not exist`);
      }
      let personId: string | null = null;
      const token = (() => {
        try {
          return bearerToken(req);
        } catch {
          return undefined;
        }
      })();
      if (token) {
        const v = await ctx.tokens.validate(token, 'person');
        if (v.valid) personId = v.claims.person_id;
      }
      const now = nowIso();
      await ctx.db
        .insertInto('events')
        .values(
          events.map((e) => ({
            org_id: e.organization_id ?? (headerOrg as string),
            source,
            name: eventName(e),
            person_id: personId,
            payload: JSON.stringify(e),
            created_at: now,
          })),
        )
        .execute();
      for (const e of events) await ctx.webhooks.emit(e.organization_id ?? (headerOrg as string), eventName(e), { source, person_id: personId, event: e });
      return { result: { accepted: events.length } };
    };
    scope.post('/actions/sdk', { schema: { body: S.eventsBody } }, ingest('sdk'));
    scope.post('/events', { schema: { body: S.eventsBody } }, ingest('events'));
  });

  registerEventListing(app, ctx);
}

/** `GET /events`: newest first, by offset or by cursor (the id of the last event shown). */
function registerEventListing(app: FastifyInstance, ctx: Ctx): void {
  app.get<Wire<'/events', 'get'>>(
    '/events',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            event_name: { type: 'string', maxLength: 128 },
            limit: { type: 'integer', minimum: 1, maximum: 1000 },
            offset: { type: 'integer', minimum: 0 },
            cursor: { type: 'string', maxLength: 512 },
          },
        },
      },
    },
    async (req) => {
      const org = await requireApiKey(ctx, req);
      const request = readPage(req.query, (key) => key.length === 1 && Number.isSafeInteger(key[0]));
      const { limit, start } = request;
      const base = eventsQuery(ctx.db, org.id, req.query.event_name);
      const total = await base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
      // Newest first by id; a cursor holds the id of the last event shown (one more is read to know whether any follows).
      let query = base.selectAll().orderBy('id', 'desc').limit(limit + 1);
      query = start.after ? query.where('id', '<', start.after[0] as number) : query.offset(start.offset);
      const found = await query.execute();
      const rows = found.slice(0, limit);
      const events = rows.map((r) => ({ id: r.id, source: r.source, event_name: r.name, person_id: r.person_id, created_at: r.created_at, event: JSON.parse(r.payload) as unknown }));
      const last = rows[rows.length - 1];
      return keyedPage(events, request, Number(total.n), found.length > limit && last ? [last.id] : undefined);
    },
  );
}
