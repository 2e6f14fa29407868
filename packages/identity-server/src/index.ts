import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp, type TrustProxy } from './app.js';
import type { Ctx, Limits, OrgSettings } from './context.js';
import { REVOCATION_POLL_MS } from './tokens/revocations.js';
import { SETTINGS_POLL_MS, getOrgSettings, loadOrg, invalidate, pollSettingsVersion, reloadAllowedDomains, writeOrganization } from './organizations/settings.js';
import { openDatabase, type Db } from './db/index.js';
import { purgeExpired } from './db/maintenance.js';
import { unlessBusy } from './db/locks.js';
import { Mailer, type MailOptions, type SmtpOptions } from './email/mailer.js';
import { DEFAULT_OPENAPI_PATH, OpenApiContract } from './openapi.js';
import { RateLimiter } from './http/rate-limit.js';
import { sha256 } from './crypto/secrets.js';
import { RESERVED_CLAIMS, renderTokenTemplate } from './tokens/token-template.js';
import { effectivePermissions, grantsOf } from './organizations/rbac.js';
import { WebhookService, type WebhookOptions } from './webhooks/service.js';
import { Sealer } from './crypto/sealed.js';
import { TokenService } from './tokens/token-service.js';
import { Operations } from './ops/operations.js';

/** Default port of the Keyway identity server (`KEYWAY_API_PORT`). */
export const DEFAULT_API_PORT = 8787;
/** Id of the development organization seeded on start when `KEYWAY_ORG_ID` is not set. */
export const DEFAULT_DEV_ORG_ID = 'org_keyway_dev';
/** Management API key of the development organization (dev mode only) when `KEYWAY_DEV_API_KEY` is not set. */
export const DEFAULT_DEV_API_KEY = 'kw_dev_api_key_not_secret';
/** OAuth2 client of the seeded organization for the hosted login; in dev mode any redirect URI on an allowed origin works. */
export const DEFAULT_DEV_OAUTH_CLIENT_ID = 'keyway-dev-client';
/** Origins allowed by CORS in development when none are configured (the docs site's dev server). */
export const DEFAULT_DEV_CORS_ORIGINS = ['http://localhost:3000', 'http://127.0.0.1:3000'];
/** `.data` at the repository root. */
export const DEFAULT_DATA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../.data');

export const DEFAULT_LIMITS: Limits = {
  perIpPerMinute: 120,
  perHandlePerMinute: 10,
  maxAttempts: 5,
  codeTtlSeconds: 600,
  lockoutThreshold: 10,
  lockoutBaseSeconds: 300,
  lockoutMaxSeconds: 86_400,
  passkeyTimeoutSeconds: 120,
};

export interface IdentityServerOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  databaseUrl?: string;
  orgId?: string;
  devMode?: boolean;
  corsOrigins?: string[];
  publicUrl?: string;
  /** Management API key of the seeded organization (defaults to {@link DEFAULT_DEV_API_KEY} in dev mode). */
  apiKey?: string;
  /** Abuse limits; see {@link DEFAULT_LIMITS}. */
  limits?: Partial<Limits>;
  /** User token lifetime in seconds (default 3600). */
  tokenTtlSeconds?: number;
  /** Signing key rotation period in seconds (default 7 days). */
  keyRotationSeconds?: number;
  /** Fastify request logging (default off). */
  logger?: boolean;
  /**
   * Proxies in front of the server whose `X-Forwarded-For` gives the client's address (the per-IP rate limit counts
   * clients by it): addresses, CIDR ranges or `loopback`/`linklocal`/`uniquelocal`. Default
   * none: the address is the TCP peer's, and a forged X-Forwarded-For changes nothing. `KEYWAY_TRUST_PROXY`.
   */
  trustProxy?: TrustProxy;
  /** Send emails by SMTP (besides recording them in the mailbox). */
  smtp?: SmtpOptions;
  /** Outbox timing: SMTP timeout, retry backoff, polling; see {@link MailOptions}. */
  mail?: MailOptions;
  /**
   * The REST contract whose schemas validate the requests and that declares the CORS headers (default: `openapi.yaml` of
   * `@keyway/api`). A missing or unreadable document stops the start with an error naming it.
   */
  openapiPath?: string;
  /** Webhook delivery timing (retry backoff, attempts, polling); see {@link WebhookOptions}. */
  webhooks?: WebhookOptions;
  /**
   * Bearer token that `/metrics` asks for (`KEYWAY_METRICS_TOKEN`). Without it `/metrics` is open in development and not
   * served in production.
   */
  metricsToken?: string;
  /** AES-256 key of secrets stored in the database (64 hex characters or base64); default `KEYWAY_SECRETS_KEY`, else `<dataDir>/secrets.key`. */
  secretsKey?: string;
}

export interface IdentityServer {
  url: string;
  orgId: string;
  app: FastifyInstance;
  /** The database (for tests and tooling: e.g. creating suborganizations). Call `reloadOrganizations()` after changing organizations. */
  db: Db;
  reloadOrganizations(): void;
  /**
   * Stops taking new requests the way a balancer notices: readiness answers 503 "draining" and every answer closes its
   * connection for `ms` while requests are still served; then closes (requests in progress finish, pools close).
   */
  drain(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Creates or updates the development organization (idempotent). */
async function seedOrg(ctx: Ctx, id: string, apiKey: string | undefined): Promise<void> {
  await writeOrganization(ctx, async (trx) => {
    const existing = await trx.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
    const settings: OrgSettings = existing ? (JSON.parse(existing.settings) as OrgSettings) : { self_registration: true, auto_activate: true };
    settings.oauth_clients ??= [{ client_id: DEFAULT_DEV_OAUTH_CLIENT_ID, name: 'Keyway docs', redirect_uris: [], public: true, scopes: ['openid', 'email'], grant_types: ['authorization_code'] }];
    if (apiKey) settings.api_key_sha256 = sha256(apiKey);
    if (existing) {
      await trx.updateTable('organizations').set({ settings: JSON.stringify(settings) }).where('id', '=', id).execute();
    } else {
      await trx
        .insertInto('organizations')
        .values({ id, parent_id: null, org_name: 'Keyway Dev', tenant_name: 'keyway-dev', settings: JSON.stringify(settings), created_at: new Date().toISOString() })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    }
  });
}

/** How long closing waits for requests in progress before it drops the connections still open. */
const CLOSE_GRACE_MS = 3000;

/**
 * Closes the HTTP server: no new connection, requests in progress may finish. A connection whose request was answered
 * before its body arrived (refused on its headers) is not idle to Node until the client sends the rest, which it may
 * never do; after a grace period such connections are dropped, so shutdown always ends.
 */
async function closeApp(app: FastifyInstance): Promise<void> {
  const force = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(force);
  }
}

/**
 * The token service: lifetimes, groups claim and template claims come from the organization's cached settings; sync
 * hooks may add claims. `ctxOf` gives the server's context once it exists (the service is made before it).
 */
function newTokenService(db: Db, dialect: Ctx['dialect'], issuer: string, opts: IdentityServerOptions, ctxOf: () => Ctx): TokenService {
  const settingsOf = (oid: string) => getOrgSettings(ctxOf(), oid);
  return new TokenService(db, {
    issuer,
    dialect,
    ttlSeconds: opts.tokenTtlSeconds ?? 3600,
    rotationSeconds: opts.keyRotationSeconds ?? 7 * 24 * 3600,
    groupsClaimFor: async (oid) => (await settingsOf(oid))?.groups_claim_name,
    ttlFor: async (oid) => (await settingsOf(oid))?.token_duration_seconds,
    templateClaimsFor: async (oid, personId) => {
      const org = await loadOrg(ctxOf(), oid);
      const raw = org?.settings.token_template;
      if (!org || !raw) return {};
      const rows = await db.selectFrom('attributes').select(['bucket', 'name', 'value']).where('person_id', '=', personId).execute();
      const attributes: Record<string, Record<string, unknown>> = {};
      for (const r of rows) (attributes[r.bucket] ??= {})[r.name] = JSON.parse(r.value) as unknown;
      const permissions = Object.keys(await effectivePermissions(ctxOf(), org, personId));
      return renderTokenTemplate(JSON.parse(raw) as Record<string, unknown>, { attributes, roles: await grantsOf(db, personId, 'role'), permissions });
    },
    syncHookClaimsFor: async (claims) => {
      const groupsClaim = (await settingsOf(claims.oid))?.groups_claim_name ?? 'groups';
      return ctxOf().webhooks.callSyncHooks(claims.oid, 'token_minted', claims.person_id, { token: claims }, (c) => RESERVED_CLAIMS.has(c) || c === groupsClaim);
    },
  });
}

/**
 * The stored outboxes (webhook deliveries; mail the SMTP server did not take yet), sent in background rounds: one at
 * once, which takes up what an earlier run of this server or another replica left due, then one every poll.
 */
function pollOutboxes(ctx: Ctx, timers: NodeJS.Timeout[]): void {
  for (const outbox of [ctx.webhooks, ctx.mailer]) {
    timers.push(setInterval(() => outbox.kick(), outbox.pollMs).unref());
    outbox.kick();
  }
}

/** What `startIdentityServer` answers: the running server, its drain and its close (each step once). */
function serverHandle(ctx: Ctx, app: FastifyInstance, operations: Operations, timers: NodeJS.Timeout[], where: { url: string; orgId: string }): IdentityServer {
  let closing: Promise<void> | undefined;
  const server: IdentityServer = {
    ...where,
    app,
    db: ctx.db,
    reloadOrganizations: () => {
      invalidate(ctx);
      void reloadAllowedDomains(ctx);
    },
    async drain(ms) {
      operations.drain();
      await new Promise((r) => setTimeout(r, ms));
      await server.close();
    },
    close() {
      closing ??= (async () => {
        for (const t of timers) clearInterval(t);
        await closeApp(app);
        await ctx.webhooks.idle();
        await ctx.mailer.idle();
        ctx.mailer.close();
        await ctx.db.destroy();
      })();
      return closing;
    },
  };
  return server;
}

/** Starts the Keyway API server: opens and migrates the database, seeds the organization, listens. */
export async function startIdentityServer(opts: IdentityServerOptions = {}): Promise<IdentityServer> {
  const devMode = opts.devMode ?? process.env.NODE_ENV !== 'production';
  const host = opts.host ?? '127.0.0.1';
  const orgId = opts.orgId ?? DEFAULT_DEV_ORG_ID;
  let contract: OpenApiContract;
  try {
    contract = OpenApiContract.load(opts.openapiPath ?? DEFAULT_OPENAPI_PATH);
  } catch (err) {
    throw new Error(`Keyway identity server cannot start: ${(err as Error).message}. Its management API and request validation come from this document (KEYWAY_OPENAPI_PATH or the openapiPath option names another one).`, { cause: err });
  }
  const { db, dialect, poolStats } = await openDatabase({ dataDir: opts.dataDir ?? DEFAULT_DATA_DIR, databaseUrl: opts.databaseUrl });
  let app: FastifyInstance | undefined;
  const timers: NodeJS.Timeout[] = [];
  try {
    // The issuer must be known before listening; with port 0 it is fixed up after listen.
    const provisionalUrl = opts.publicUrl ?? `http://${host}:${opts.port ?? DEFAULT_API_PORT}`;
    const tokens = newTokenService(db, dialect, provisionalUrl, opts, () => ctx);
    const ctx: Ctx = {
      db,
      dialect,
      tokens,
      mailer: new Mailer(db, opts.smtp, opts.mail),
      limiter: new RateLimiter(db),
      limits: { ...DEFAULT_LIMITS, ...opts.limits },
      publicUrl: provisionalUrl,
      devMode,
      corsOrigins: opts.corsOrigins ?? (devMode ? DEFAULT_DEV_CORS_ORIGINS : []),
      orgs: new Map(),
      allowedDomains: new Set(),
      webhooks: new WebhookService(db, () => ctx.publicUrl, { refuseInternal: !devMode, ...opts.webhooks }, dialect),
      sealer: Sealer.fromConfig(opts.secretsKey ?? process.env.KEYWAY_SECRETS_KEY, opts.dataDir ?? DEFAULT_DATA_DIR),
    };
    await tokens.init();
    await seedOrg(ctx, orgId, opts.apiKey ?? (devMode ? DEFAULT_DEV_API_KEY : undefined));
    await pollSettingsVersion(ctx);
    const operations = new Operations(ctx, { poolStats, metrics: opts.metricsToken ? { token: opts.metricsToken } : devMode ? 'open' : 'off' });
    app = await buildApp(ctx, { corsOrigins: ctx.corsOrigins, contract, logger: opts.logger ?? false, trustProxy: opts.trustProxy, operations });
    await app.listen({ port: opts.port ?? DEFAULT_API_PORT, host });
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : (opts.port ?? DEFAULT_API_PORT);
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    if (!opts.publicUrl) {
      ctx.publicUrl = url;
      tokens.opts.issuer = url;
    }
    timers.push(setInterval(() => void tokens.rotateIfDue().catch(() => undefined), 3600_000).unref());
    // Replicas sharing the database: one purges at a time, the others skip that round.
    timers.push(setInterval(() => void unlessBusy(db, dialect, 'purge', (trx) => purgeExpired(trx)).catch(() => undefined), 600_000).unref());
    timers.push(setInterval(() => void pollSettingsVersion(ctx).catch(() => undefined), SETTINGS_POLL_MS).unref());
    // Revocations made by other replicas (a failed read is retried; validations read themselves once memory is stale).
    timers.push(setInterval(() => void tokens.revocations.catchUp().catch(() => undefined), REVOCATION_POLL_MS).unref());
    pollOutboxes(ctx, timers);
    return serverHandle(ctx, app, operations, timers, { url, orgId });
  } catch (err) {
    for (const t of timers) clearInterval(t);
    if (app) await closeApp(app).catch(() => undefined);
    await db.destroy();
    throw err;
  }
}

export { ApiError } from './http/errors.js';
export type { Limits, OrgSettings } from './context.js';
export type { TrustProxy } from './app.js';
export type { Db } from './db/index.js';
