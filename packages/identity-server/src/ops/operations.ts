import { sql } from 'kysely';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Ctx } from '../context.js';
import type { PoolStats } from '../db/index.js';
import { databaseUnavailable } from '../db/unavailable.js';
import { sameDigest, sha256 } from '../crypto/secrets.js';

// A replica's state as an operator (or a balancer, or Kubernetes) sees it (routes in ops/routes.ts): is the process
// alive, may it take requests (not when it drains before stopping, nor when its database does not answer), and how is
// it doing (Prometheus metrics).

/** How long a readiness answer is reused (a balancer polling several times a second costs one query per period). */
const READY_CACHE_MS = 500;
/** A database that does not answer a readiness probe within this is reported unavailable. */
const READY_PROBE_TIMEOUT_MS = 2000;

export interface OperationsOptions {
  /** The PostgreSQL pool now; undefined on SQLite. */
  poolStats?: (() => PoolStats) | undefined;
  /**
   * Who may read `/metrics`: `open` (development), a bearer token (`KEYWAY_METRICS_TOKEN`), or nobody (production without
   * a token: `/metrics` is not served).
   */
  metrics: 'open' | { token: string } | 'off';
}

/** A replica's state as operators see it; `drain()` is called when the process is asked to stop (SIGTERM). */
export class Operations {
  private drainingSince: number | undefined;
  private ready: { at: number; answer: Promise<string | undefined> } | undefined;
  private registry: Registry | undefined;
  private requests: { count: Counter<'method' | 'route' | 'status'>; seconds: Histogram<'method' | 'route'> } | undefined;

  constructor(
    private readonly ctx: Ctx,
    readonly opts: OperationsOptions,
  ) {}

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  /** From now on readiness answers 503 and every answer closes its connection; requests are still served. */
  drain(): void {
    this.drainingSince ??= Date.now();
  }

  /** Why this replica should not take requests now, or undefined when it should. */
  notReadyBecause(): Promise<string | undefined> {
    if (this.draining) return Promise.resolve('draining: this replica is shutting down and takes no new requests');
    const now = Date.now();
    if (!this.ready || now - this.ready.at >= READY_CACHE_MS) this.ready = { at: now, answer: this.probeDatabase() };
    return this.ready.answer;
  }

  private async probeDatabase(): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`the database did not answer within ${READY_PROBE_TIMEOUT_MS} ms`), READY_PROBE_TIMEOUT_MS);
    });
    try {
      return await Promise.race([sql`select 1`.execute(this.ctx.db).then(() => undefined), timeout]);
    } catch (err) {
      return databaseUnavailable(err) ?? `the database answered an error: ${(err as Error).message}`;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Counts an answer as it is sent (only once `/metrics` was read once: a server nobody scrapes pays nothing); its time is
   * from the request to the start of the answer.
   */
  observe(req: FastifyRequest, reply: FastifyReply): void {
    if (!this.requests) return;
    const route = req.routeOptions.url ?? 'unmatched';
    this.requests.count.inc({ method: req.method, route, status: String(reply.statusCode) });
    this.requests.seconds.observe({ method: req.method, route }, reply.elapsedTime / 1000);
  }

  /** The metrics registry, made on the first scrape. */
  metrics(): Registry {
    if (this.registry) return this.registry;
    const register = new Registry();
    collectDefaultMetrics({ register, prefix: 'keyway_' });
    this.requests = {
      count: new Counter({ name: 'keyway_http_requests_total', help: 'Requests answered, by route template and status.', labelNames: ['method', 'route', 'status'], registers: [register] }),
      seconds: new Histogram({
        name: 'keyway_http_request_duration_seconds',
        help: 'Time from a request to its answer, by route template.',
        labelNames: ['method', 'route'],
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [register],
      }),
    };
    const ops = this;
    new Gauge({ name: 'keyway_draining', help: '1 while this replica drains before stopping.', registers: [register], collect() { this.set(ops.draining ? 1 : 0); } });
    new Gauge({
      name: 'keyway_revocations_in_memory',
      help: 'Revoked tokens and subject bounds held in memory for validations.',
      labelNames: ['kind'],
      registers: [register],
      collect() {
        const size = ops.ctx.tokens.revocations.size();
        this.set({ kind: 'token' }, size.tokens);
        this.set({ kind: 'subject' }, size.bounds);
      },
    });
    const pool = this.opts.poolStats;
    if (pool) {
      new Gauge({
        name: 'keyway_db_pool_connections',
        help: 'PostgreSQL connections of this replica: open, idle, and the most it opens.',
        labelNames: ['state'],
        registers: [register],
        collect() {
          const s = pool();
          this.set({ state: 'open' }, s.total);
          this.set({ state: 'idle' }, s.idle);
          this.set({ state: 'max' }, s.max);
        },
      });
      new Gauge({ name: 'keyway_db_pool_waiting', help: 'Queries waiting for a PostgreSQL connection.', registers: [register], collect() { this.set(pool().waiting); } });
    }
    this.statusGauge(register, 'keyway_webhook_deliveries', 'Stored webhook deliveries not delivered: pending (waiting for their next attempt), failed (the dead letters).', 'webhook_deliveries', 'delivered');
    this.statusGauge(register, 'keyway_mail_outbox', 'Stored e-mails and SMS not sent: pending (waiting for their next attempt), failed (given up).', 'mailbox', 'sent');
    this.registry = register;
    return register;
  }

  /** A gauge of a table's rows by `status`, leaving out the rows in status `done` (read at each scrape). */
  private statusGauge(register: Registry, name: string, help: string, table: 'webhook_deliveries' | 'mailbox', done: string): void {
    const db = this.ctx.db;
    new Gauge({
      name,
      help,
      labelNames: ['status'],
      registers: [register],
      async collect() {
        this.reset();
        const rows = await db.selectFrom(table).select(['status', (eb) => eb.fn.countAll<number>().as('n')]).where('status', '!=', done).groupBy('status').execute().catch(() => []);
        for (const r of rows) this.set({ status: r.status }, Number(r.n));
      },
    });
  }

  /** Whether the caller may read `/metrics`. */
  mayReadMetrics(req: FastifyRequest): boolean {
    const m = this.opts.metrics;
    if (m === 'open') return true;
    if (m === 'off') return false;
    const given = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    return given !== undefined && sameDigest(sha256(given), sha256(m.token));
  }
}
