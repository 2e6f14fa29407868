import { randomBytes } from 'node:crypto';
import type { IdentityServerOptions } from '../src/index.js';
import { api, freshStorage, startTestServer, type TestServer } from './helpers.js';

/** Why the multi-replica suites do not run, or undefined when they do (they need PostgreSQL). */
export const REPLICAS_SKIP_REASON = process.env.TEST_DATABASE_URL ? undefined : 'skipped: TEST_DATABASE_URL is unset (replicas share one PostgreSQL schema)';

export interface Replicas {
  servers: TestServer[];
  calls: Array<ReturnType<typeof api>>;
  /** Stops every replica, then drops the shared schema. */
  stop(): Promise<void>;
}

/**
 * `n` identity servers in this process on ONE PostgreSQL schema, as `npm run start:cluster` runs them: the same
 * database, the same secrets key and the same public URL (the token issuer), each on its own loopback port.
 */
export async function startReplicas(n: number, opts: IdentityServerOptions = {}): Promise<Replicas> {
  const storage = await freshStorage('postgres');
  const shared = { ...storage, cleanup: async () => {} };
  const secretsKey = randomBytes(32).toString('hex');
  const servers: TestServer[] = [];
  try {
    servers.push(await startTestServer('postgres', { secretsKey, ...opts }, shared));
    // The others start one after another: each start migrates (a no-op once done) and seeds the organization.
    for (let i = 1; i < n; i++) servers.push(await startTestServer('postgres', { secretsKey, publicUrl: servers[0]!.url, ...opts }, shared));
  } catch (err) {
    for (const s of servers) await s.close();
    await storage.cleanup();
    throw err;
  }
  return {
    servers,
    calls: servers.map((s) => api(s)),
    async stop() {
      for (const s of servers) await s.close();
      await storage.cleanup();
    },
  };
}

/** Polls `probe` until it answers true or `ms` pass; answers how long it took, or undefined when it never did. */
export async function within(ms: number, probe: () => Promise<boolean>): Promise<number | undefined> {
  const started = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - started;
    if (Date.now() - started > ms) return undefined;
    await new Promise((r) => setTimeout(r, 50));
  }
}
