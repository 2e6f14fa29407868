import { randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Db } from '../db/index.js';
import type { DialectName } from '../db/migrations.js';
import { claimDue, claimOne, dueDeliveries } from './claims.js';
import { singleRound } from '../db/rounds.js';
import { isOutboundRefused, outboundFetch } from '../http/outbound.js';
import { ApiError, forbidden, notFound } from '../http/errors.js';
import type { WebhookDeliveryTable } from '../db/schema.js';

export interface WebhookOptions {
  /** Delay before the first retry; each further retry doubles it (capped at one hour), then jitter takes up to half of it off. Default 10 s. */
  retryBaseMs?: number;
  /** Attempts before a delivery is recorded as failed. Default 8. */
  maxAttempts?: number;
  /** How often due deliveries are looked for (retries, and deliveries queued by other processes). Default 1 s. */
  pollMs?: number;
  /**
   * How long past the webhook's timeout an attempt stays claimed by the process sending it: an attempt cut short by a
   * crash is due again after timeout + this. Default 30 s.
   */
  claimMarginMs?: number;
  /** Refuse internal addresses (loopback, private, link-local, metadata) at connect time; on in production. */
  refuseInternal?: boolean;
}

export interface WebhookEvent {
  id: string;
  type: string;
  org_id: string;
  created_at: string;
  test: boolean;
  data: Record<string, unknown>;
}

/** Points of a flow where `sync_hook` triggers are called. */
export const SYNC_HOOKS = ['token_minted'] as const;
export type SyncHookName = (typeof SYNC_HOOKS)[number];

/** What a sync hook may answer (200, JSON): claims to add, or `allow: false` to refuse the operation. */
interface SyncHookAnswer {
  allow?: unknown;
  reason?: unknown;
  claims?: unknown;
}

const SIGNING_ALG = 'ES256';
const MAX_BACKOFF_MS = 3600_000;
/** Deliveries one process sends at once. */
const MAX_IN_FLIGHT = 16;
/** The header every attempt and replay of a delivery carries: the event id, the same each time. */
export const IDEMPOTENCY_HEADER = 'keyway-idempotency-key';

/**
 * Wait before the next attempt after `attempts` failed ones: exponential backoff (`baseMs` · 2^(attempts-1), at most
 * an hour) with "equal jitter": a random point in its upper half, so receivers coming back are not hit by every
 * delivery at the same instant and the wait is never shorter than half the backoff. `random` is in [0, 1).
 */
export function retryDelay(baseMs: number, attempts: number, random: () => number = Math.random): number {
  const backoff = Math.min(baseMs * 2 ** Math.max(attempts - 1, 0), MAX_BACKOFF_MS);
  return Math.round(backoff / 2 + (backoff / 2) * random());
}

/**
 * Webhook deliveries: every event an organization's webhooks are triggered by becomes one stored delivery per webhook,
 * sent as a JWT (ES256, keys published at `/organizations/webhooks/verification-jwks`) and retried with exponential
 * backoff until the receiver answers 2xx or the attempts run out. Deliveries live in the database, so nothing queued
 * is lost when the process stops; a delivery interrupted mid-send becomes due again after its timeout.
 */
/** What a delivery that got no answer records: the timeout, a refused internal address, or the connection error code. */
function failureText(err: unknown, timeout: number): string {
  if (isOutboundRefused(err)) return 'not called: the target resolves to a loopback, private, link-local or metadata address';
  if ((err as Error).name === 'TimeoutError') return `no answer within ${timeout} s`;
  const cause = (err as { cause?: { code?: string } }).cause?.code;
  return `could not connect${cause ? ` (${cause})` : ''}`;
}

export class WebhookService {
  private key?: Promise<{ kid: string; privateKey: CryptoKey }>;
  private readonly rounds = singleRound(() => this.deliverDue());
  /** Wakes a round that waits for a send to end (kick). */
  private wake: (() => void) | undefined;
  readonly retryBaseMs: number;
  readonly maxAttempts: number;
  readonly pollMs: number;
  readonly claimMarginMs: number;
  private readonly send: ReturnType<typeof outboundFetch>;

  constructor(
    private readonly db: Db,
    private readonly issuer: () => string,
    opts: WebhookOptions = {},
    private readonly dialect: DialectName = 'sqlite',
  ) {
    this.retryBaseMs = opts.retryBaseMs ?? 10_000;
    this.maxAttempts = opts.maxAttempts ?? 8;
    this.pollMs = opts.pollMs ?? 1000;
    this.claimMarginMs = opts.claimMarginMs ?? 30_000;
    this.send = outboundFetch(opts.refuseInternal ?? false);
  }

  /** The newest signing key, created on first use. */
  private signingKey(): Promise<{ kid: string; privateKey: CryptoKey }> {
    this.key ??= (async () => {
      let row = await this.db.selectFrom('webhook_signing_keys').selectAll().orderBy('created_at', 'desc').executeTakeFirst();
      if (!row) {
        const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
        const kid = `wh-${randomUUID()}`;
        row = { kid, private_jwk: JSON.stringify(await exportJWK(privateKey)), public_jwk: JSON.stringify({ ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' }), created_at: new Date().toISOString() };
        await this.db.insertInto('webhook_signing_keys').values(row).onConflict((oc) => oc.column('kid').doNothing()).execute();
      }
      return { kid: row.kid, privateKey: (await importJWK(JSON.parse(row.private_jwk) as JWK, SIGNING_ALG)) as CryptoKey };
    })();
    return this.key;
  }

  async jwks(): Promise<{ keys: JWK[] }> {
    await this.signingKey();
    const rows = await this.db.selectFrom('webhook_signing_keys').select('public_jwk').orderBy('created_at', 'desc').execute();
    return { keys: rows.map((r) => JSON.parse(r.public_jwk) as JWK) };
  }

  /** Queues the event for every webhook of the organization that has an `event` trigger of that name. Returns how many. */
  emit(orgId: string, type: string, data: Record<string, unknown>, opts: { test?: boolean } = {}): Promise<number> {
    return this.emitMany(orgId, type, [data], opts);
  }

  /** Queues one event per data object (same type), looking the triggered webhooks up once. Returns the deliveries queued. */
  emitMany(orgId: string, type: string, datas: Array<Record<string, unknown>>, opts: { test?: boolean } = {}): Promise<number> {
    return this.emitEvents(orgId, type, datas.map((data) => ({ id: randomUUID(), data })), opts);
  }

  /**
   * Queues events whose ids (and time, `at`) the caller chose. `copies: 2` queues each delivery twice with the same event id (test
   * events with `duplicates`, so a receiver can check it handles an event once).
   */
  async emitEvents(orgId: string, type: string, events: Array<{ id: string; data: Record<string, unknown> }>, opts: { test?: boolean; copies?: number; at?: string } = {}): Promise<number> {
    if (!events.length) return 0;
    const hooks = await this.db
      .selectFrom('webhooks')
      .innerJoin('webhook_triggers', 'webhook_triggers.webhook_id', 'webhooks.id')
      .select('webhooks.id')
      .where('webhooks.org_id', '=', orgId)
      .where('webhook_triggers.trigger_type', '=', 'event')
      .where('webhook_triggers.trigger_name', '=', type)
      .execute();
    if (!hooks.length) return 0;
    const now = opts.at ?? new Date().toISOString();
    const copies = Array.from({ length: opts.copies ?? 1 });
    const rows = events.flatMap(({ id, data }) => {
      const event: WebhookEvent = { id, type, org_id: orgId, created_at: now, test: opts.test === true, data };
      return hooks.flatMap((h) => copies.map(() => ({ id: randomUUID(), webhook_id: h.id, org_id: orgId, event_type: type, event: JSON.stringify(event), status: 'pending', attempts: 0, next_attempt_at: now, last_error: null, last_status: null, created_at: now, delivered_at: null })));
    });
    for (let i = 0; i < rows.length; i += 500) await this.db.insertInto('webhook_deliveries').values(rows.slice(i, i + 500)).execute();
    this.kick();
    return rows.length;
  }

  /**
   * Calls the organization's webhooks that have a `sync_hook` trigger of that name, all at once, and waits for them (at
   * most each webhook's timeout). Each call is a POST of a signed JWT (the same keys as deliveries; `aud` = target URL)
   * carrying `trigger_name`, `person_id` and the operation's `data`. A 200 JSON answer `{"claims": {...}}` adds claims
   * (names in `reserved` are dropped; later webhooks win over earlier ones on the same name); `{"allow": false, "reason"}`
   * refuses the operation with 403. Anything else (error status, timeout, not JSON) is ignored: the operation goes on
   * without that hook's claims. Every call is recorded in `webhook_deliveries` (event type `sync_hook:<name>`).
   */
  async callSyncHooks(orgId: string, name: SyncHookName, personId: string, data: Record<string, unknown>, reserved: (claim: string) => boolean): Promise<Record<string, unknown>> {
    const hooks = await this.db
      .selectFrom('webhooks')
      .innerJoin('webhook_triggers', 'webhook_triggers.webhook_id', 'webhooks.id')
      .select(['webhooks.id', 'webhooks.name', 'webhooks.target_url', 'webhooks.custom_headers', 'webhooks.timeout'])
      .where('webhooks.org_id', '=', orgId)
      .where('webhook_triggers.trigger_type', '=', 'sync_hook')
      .where('webhook_triggers.trigger_name', '=', name)
      .orderBy('webhooks.created_at')
      .orderBy('webhooks.id')
      .execute();
    if (!hooks.length) return {};
    const key = await this.signingKey();
    const outcomes = await Promise.all(
      hooks.map(async (hook) => {
        const callId = randomUUID();
        const startedAt = new Date().toISOString();
        const jwt = await new SignJWT({ webhook_id: hook.id, trigger_type: 'sync_hook', trigger_name: name, org_id: orgId, person_id: personId, data })
          .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: 'JWT' })
          .setIssuer(this.issuer())
          .setAudience(hook.target_url)
          .setIssuedAt()
          .setJti(callId)
          .setExpirationTime(`${hook.timeout + 60}s`)
          .sign(key.privateKey);
        const headers: Record<string, string> = {};
        for (const [h, values] of Object.entries(JSON.parse(hook.custom_headers) as Record<string, string[]>)) headers[h] = values.join(', ');
        Object.assign(headers, { 'content-type': 'application/jwt', 'keyway-webhook-id': hook.id, 'keyway-delivery-id': callId, 'keyway-sync-hook': name });
        let status: number | null = null;
        let note: string | null = null;
        let claims: Record<string, unknown> = {};
        let denied: string | undefined;
        try {
          const res = await this.send(hook.target_url, { method: 'POST', headers, body: jwt, redirect: 'manual', signal: AbortSignal.timeout(hook.timeout * 1000) });
          status = res.status;
          const text = res.status >= 200 && res.status <= 299 ? await res.text() : (await res.body?.cancel(), '');
          if (status < 200 || status > 299) note = `receiver answered ${status}: answer ignored`;
          else {
            let answer: SyncHookAnswer | undefined;
            try {
              answer = JSON.parse(text) as SyncHookAnswer;
            } catch {
              answer = undefined;
            }
            if (!answer || typeof answer !== 'object' || Array.isArray(answer)) note = 'answer is not a JSON object: ignored';
            else if (answer.allow === false) {
              denied = typeof answer.reason === 'string' && answer.reason.trim() ? answer.reason.trim().slice(0, 200) : 'no reason given';
              note = `refused: ${denied}`;
            } else if (answer.claims !== undefined && (!answer.claims || typeof answer.claims !== 'object' || Array.isArray(answer.claims))) {
              note = '"claims" is not a JSON object: ignored';
            } else {
              const given = (answer.claims ?? {}) as Record<string, unknown>;
              const dropped = Object.keys(given).filter(reserved);
              claims = Object.fromEntries(Object.entries(given).filter(([k]) => !reserved(k)));
              if (dropped.length) note = `reserved claims ignored: ${dropped.join(', ')}`;
            }
          }
        } catch (err) {
          note = `${failureText(err, hook.timeout)}: ignored`;
        }
        const ok = status !== null && status >= 200 && status <= 299 && (!note || note.startsWith('reserved') || note.startsWith('refused'));
        await this.db
          .insertInto('webhook_deliveries')
          .values({
            id: callId, webhook_id: hook.id, org_id: orgId, event_type: `sync_hook:${name}`, event: JSON.stringify({ trigger_name: name, person_id: personId, data }),
            status: ok ? 'delivered' : 'failed', attempts: 1, next_attempt_at: startedAt, last_status: status, last_error: note, created_at: startedAt, delivered_at: ok ? new Date().toISOString() : null,
          })
          .execute();
        return { hook, claims, denied };
      }),
    );
    const refusal = outcomes.find((o) => o.denied !== undefined);
    if (refusal) throw forbidden(`refused by the sync hook "${refusal.hook.name}": ${refusal.denied}`);
    return Object.assign({}, ...outcomes.map((o) => o.claims)) as Record<string, unknown>;
  }

  /** Starts a delivery round unless one is running; a round in progress waiting on slow receivers looks again. */
  kick(): void {
    this.wake?.();
    this.rounds.kick();
  }

  /** Waits for the round in progress (tests, shutdown). */
  idle(): Promise<void> {
    return this.rounds.idle();
  }

  /**
   * Sends every due delivery once, at most {@link MAX_IN_FLIGHT} at a time. A slot that frees is filled at once: a
   * receiver that hangs until its timeout holds one slot, not the deliveries of every other webhook behind it.
   */
  async deliverDue(): Promise<void> {
    const inFlight = new Map<string, Promise<void>>();
    for (;;) {
      const room = MAX_IN_FLIGHT - inFlight.size;
      let started = 0;
      if (room > 0) {
        // PostgreSQL claims a batch in one statement; SQLite (one writer at a time anyway) claims each attempt.
        const claimed = this.dialect === 'postgres';
        const due = claimed ? await claimDue(this.db, this.claimMarginMs, room) : await dueDeliveries(this.db, room).select(['id', 'attempts']).execute();
        for (const d of due) {
          // SQLite: a delivery being sent may still look due until its attempt claims it.
          if (inFlight.has(d.id)) continue;
          const sending = this.attempt(d.id, d.attempts, claimed)
            .catch(() => undefined)
            .finally(() => inFlight.delete(d.id));
          inFlight.set(d.id, sending);
          started++;
        }
      }
      if (!inFlight.size) return;
      // Nothing new was due, or no room: wait for a send to end, or for a kick (a new event, the poll), before looking
      // again.
      if (!started || inFlight.size >= MAX_IN_FLIGHT) {
        await Promise.race([...inFlight.values(), new Promise<void>((resolve) => (this.wake = resolve))]);
        this.wake = undefined;
      }
    }
  }

  private async attempt(id: string, attempts: number, claimed: boolean): Promise<void> {
    const hook = await this.db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhooks', 'webhooks.id', 'webhook_deliveries.webhook_id')
      .select(['webhooks.id as webhook_id', 'webhooks.target_url', 'webhooks.custom_headers', 'webhooks.timeout', 'webhook_deliveries.event'])
      .where('webhook_deliveries.id', '=', id)
      .executeTakeFirst();
    if (!hook) {
      await this.db.updateTable('webhook_deliveries').set({ status: 'failed', last_error: 'the webhook was deleted' }).where('id', '=', id).execute();
      return;
    }
    if (!claimed && !(await claimOne(this.db, id, attempts, hook.timeout, this.claimMarginMs))) return;

    const event = JSON.parse(hook.event) as WebhookEvent;
    const key = await this.signingKey();
    const jwt = await new SignJWT({ webhook_id: hook.webhook_id, delivery_id: id, attempt: attempts + 1, event })
      .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: 'JWT' })
      .setIssuer(this.issuer())
      .setAudience(hook.target_url)
      .setIssuedAt()
      .setJti(id)
      .setExpirationTime('1h')
      .sign(key.privateKey);
    const headers: Record<string, string> = {};
    for (const [name, values] of Object.entries(JSON.parse(hook.custom_headers) as Record<string, string[]>)) headers[name] = values.join(', ');
    Object.assign(headers, { 'content-type': 'application/jwt', 'keyway-webhook-id': hook.webhook_id, 'keyway-delivery-id': id, 'keyway-event-type': event.type, [IDEMPOTENCY_HEADER]: event.id });
    let error: string | undefined;
    let status: number | null = null;
    try {
      const res = await this.send(hook.target_url, { method: 'POST', headers, body: jwt, redirect: 'manual', signal: AbortSignal.timeout(hook.timeout * 1000) });
      status = res.status;
      await res.body?.cancel();
      if (res.status < 200 || res.status > 299) error = `receiver answered ${res.status}`;
    } catch (err) {
      error = failureText(err, hook.timeout);
    }
    const now = new Date();
    if (!error) {
      await this.db.updateTable('webhook_deliveries').set({ status: 'delivered', delivered_at: now.toISOString(), last_status: status, last_error: null }).where('id', '=', id).execute();
      return;
    }
    const failed = attempts + 1 >= this.maxAttempts;
    await this.db
      .updateTable('webhook_deliveries')
      .set({ status: failed ? 'failed' : 'pending', next_attempt_at: new Date(now.getTime() + retryDelay(this.retryBaseMs, attempts + 1)).toISOString(), last_status: status, last_error: error })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Queues a dead letter again: a `failed` delivery of the webhook becomes `pending` with its attempts reset, due now,
   * carrying the same event (and event id, the idempotency key). 404 when the webhook has no such delivery; 409 when it
   * is not failed or is a sync hook call.
   */
  async replay(webhookId: string, deliveryId: string): Promise<WebhookDeliveryTable> {
    const row = await this.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).where('id', '=', deliveryId).executeTakeFirst();
    if (!row) throw notFound(`webhook "${webhookId}" has no delivery "${deliveryId}"`);
    if (row.event_type.startsWith('sync_hook:')) throw new ApiError(409, `delivery "${deliveryId}" is a sync hook call: only event deliveries are replayed`);
    if (row.status !== 'failed') throw new ApiError(409, `delivery "${deliveryId}" is ${row.status}: only failed deliveries are replayed`);
    const now = new Date().toISOString();
    const replayed = { status: 'pending', attempts: 0, next_attempt_at: now, last_error: null, last_status: null } as const;
    // Only if still failed: two replays at once queue it once.
    const res = await this.db.updateTable('webhook_deliveries').set(replayed).where('id', '=', deliveryId).where('status', '=', 'failed').executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new ApiError(409, `delivery "${deliveryId}" was replayed already`);
    this.kick();
    return { ...row, ...replayed };
  }
}
