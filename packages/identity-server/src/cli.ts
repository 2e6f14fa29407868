#!/usr/bin/env node
import { resolve } from 'node:path';
import { DEFAULT_API_PORT, DEFAULT_DATA_DIR, DEFAULT_DEV_API_KEY, startIdentityServer } from './index.js';
import type { TrustProxy } from './app.js';

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || (name === 'KEYWAY_API_PORT' && n > 65535)) {
    console.error(`${name} must be a non-negative integer${name === 'KEYWAY_API_PORT' ? ' up to 65535' : ''}, got "${raw}"`);
    process.exit(2);
  }
  return n;
}

const env = process.env;

/** `KEYWAY_TRUST_PROXY`: a comma-separated list of proxy addresses, CIDR ranges or names. */
function trustProxyEnv(): TrustProxy | undefined {
  const raw = env.KEYWAY_TRUST_PROXY?.trim();
  if (!raw) return undefined;
  const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = list.find((s) => !/^(loopback|linklocal|uniquelocal|[0-9a-fA-F.:]+(\/\d{1,3})?)$/.test(s));
  if (bad !== undefined) {
    console.error(`KEYWAY_TRUST_PROXY must be a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal; "${bad}" is none of them`);
    process.exit(2);
  }
  return list;
}
const trustProxy = trustProxyEnv();
const devMode = env.NODE_ENV !== 'production';
const port = intEnv('KEYWAY_API_PORT', DEFAULT_API_PORT);
const corsOrigins = env.KEYWAY_CORS_ORIGINS?.split(',').map((s) => s.trim()).filter(Boolean);
const apiKey = env.KEYWAY_API_KEY ?? (devMode ? DEFAULT_DEV_API_KEY : undefined);
// Draining lets balancers stop sending before the server closes: production waits 5 s, development (one process, no
// balancer) none.
const drainSeconds = intEnv('KEYWAY_DRAIN_SECONDS', devMode ? 0 : 5);
/** An integer env var that must be at least `min`; `what` says what it counts. */
function atLeastEnv(name: string, fallback: number, min: number, what: string): number {
  const n = intEnv(name, fallback);
  if (n < min) {
    console.error(`${name} must be at least ${min} (${what}), got "${env[name]}"`);
    process.exit(2);
  }
  return n;
}
const passkeyTimeoutSeconds = atLeastEnv('KEYWAY_PASSKEY_TIMEOUT_SECONDS', 120, 1, 'seconds a passkey prompt waits');
const webhooks = {
  retryBaseMs: atLeastEnv('KEYWAY_WEBHOOK_RETRY_BASE_MS', 10_000, 1, 'milliseconds before the first retry of a webhook delivery'),
  maxAttempts: atLeastEnv('KEYWAY_WEBHOOK_MAX_ATTEMPTS', 8, 1, 'attempts of a webhook delivery before it is a dead letter'),
  pollMs: atLeastEnv('KEYWAY_WEBHOOK_POLL_MS', 1000, 1, 'milliseconds between looks for due webhook deliveries'),
  claimMarginMs: intEnv('KEYWAY_WEBHOOK_CLAIM_MARGIN_MS', 30_000),
};

const server = await startIdentityServer({
  port,
  host: env.KEYWAY_API_HOST ?? 'localhost',
  dataDir: env.DATA_DIR ? resolve(env.DATA_DIR) : DEFAULT_DATA_DIR,
  ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
  ...(env.KEYWAY_ORG_ID ? { orgId: env.KEYWAY_ORG_ID } : {}),
  ...(corsOrigins ? { corsOrigins } : {}),
  ...(env.KEYWAY_PUBLIC_URL ? { publicUrl: env.KEYWAY_PUBLIC_URL } : {}),
  ...(apiKey ? { apiKey } : {}),
  devMode,
  limits: {
    perIpPerMinute: intEnv('KEYWAY_RATE_LIMIT_PER_IP', 120),
    perHandlePerMinute: intEnv('KEYWAY_RATE_LIMIT_PER_HANDLE', 10),
    lockoutThreshold: intEnv('KEYWAY_LOCKOUT_THRESHOLD', 10),
    lockoutBaseSeconds: intEnv('KEYWAY_LOCKOUT_BASE_SECONDS', 300),
    lockoutMaxSeconds: intEnv('KEYWAY_LOCKOUT_MAX_SECONDS', 86_400),
    passkeyTimeoutSeconds,
  },
  webhooks,
  logger: env.KEYWAY_LOG === '1',
  ...(trustProxy !== undefined ? { trustProxy } : {}),
  ...(env.KEYWAY_SMTP_URL ? { smtp: { url: env.KEYWAY_SMTP_URL, from: env.KEYWAY_SMTP_FROM ?? 'Keyway <no-reply@keyway.dev>' } } : {}),
  ...(env.KEYWAY_METRICS_TOKEN ? { metricsToken: env.KEYWAY_METRICS_TOKEN } : {}),
  mail: {
    smtpTimeoutMs: Math.max(1, intEnv('KEYWAY_SMTP_TIMEOUT_MS', 5000)),
    retryBaseMs: Math.max(1, intEnv('KEYWAY_MAIL_RETRY_BASE_MS', 5000)),
    retryMaxMs: Math.max(1, intEnv('KEYWAY_MAIL_RETRY_MAX_MS', 60_000)),
    pollMs: Math.max(1, intEnv('KEYWAY_MAIL_POLL_MS', 1000)),
  },
  ...(env.KEYWAY_OPENAPI_PATH ? { openapiPath: resolve(env.KEYWAY_OPENAPI_PATH) } : {}),
});

console.log(`Keyway API listening on ${server.url}`);
console.log(`  organization id: ${server.orgId}`);
console.log(`  storage:         ${env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : `SQLite in ${env.DATA_DIR ? resolve(env.DATA_DIR) : DEFAULT_DATA_DIR}`}`);
if (env.KEYWAY_SMTP_URL) console.log(`  e-mail:          SMTP (${new URL(env.KEYWAY_SMTP_URL).host})`);
if (devMode) {
  console.log(`  dev mailbox:     ${server.url}/dev/mailbox`);
  if (!env.KEYWAY_API_KEY) console.log(`  dev API key:     ${DEFAULT_DEV_API_KEY}`);
}

// SIGTERM (an orchestrator, a rolling restart): drain first, so that balancers stop sending here before the server
// closes; SIGINT (Ctrl+C) or a second signal: close at once. Either way requests in progress finish.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    const drain = signal === 'SIGTERM' && !stopping && drainSeconds > 0;
    stopping = true;
    if (drain) console.log(`draining for ${drainSeconds} s (readiness answers 503), then stopping`);
    void (drain ? server.drain(drainSeconds * 1000) : server.close()).then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`stopping failed: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  });
}
