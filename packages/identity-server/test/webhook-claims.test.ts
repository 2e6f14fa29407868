import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { claimDue } from '../src/webhooks/claims.js';
import { BACKENDS, useTestServer } from './helpers.js';

// PostgreSQL claims due webhook deliveries in batches (`for update skip locked`): replicas polling at the same time
// share the due deliveries out, none claimed twice, each pushed past its webhook's timeout.
describe.runIf(BACKENDS.includes('postgres'))('claiming webhook deliveries (postgres)', () => {
  const t = useTestServer('postgres');

  it('two replicas polling at once claim 16 and the rest, never the same delivery', async () => {
    const db = t.server.db;
    await sql`insert into webhook_deliveries (id, webhook_id, org_id, event_type, event, status, attempts, next_attempt_at, created_at)
              select 'due-' || i, 'gone', ${t.server.orgId}, 'E', '{}', 'pending', 2, '2020-01-01T00:00:00.000Z', '2020-01-01' from generate_series(1, 20) as i`.execute(db);
    const [a, b] = await Promise.all([claimDue(db, 30_000, 16), claimDue(db, 30_000, 16)]);
    const ids = [...a!, ...b!].map((d) => d.id);
    expect([a!.length, b!.length].sort((x, y) => x - y)).toEqual([4, 16]);
    expect(new Set(ids).size).toBe(20);
    expect(new Set([...a!, ...b!].map((d) => d.attempts))).toEqual(new Set([2]));
    const rows = await db.selectFrom('webhook_deliveries').select(['attempts', 'next_attempt_at']).where('id', 'like', 'due-%').execute();
    expect(rows.every((r) => r.attempts === 3 && r.next_attempt_at > new Date(Date.now() + 25_000).toISOString())).toBe(true);
    expect(await claimDue(db, 30_000, 16)).toEqual([]);
  });
});
