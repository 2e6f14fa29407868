// Bulk seeding for the scale tests (test/scale.test.ts) and the server benchmark (bench/server.mjs): `count` persons
// of one organization, each with one e-mail handle, written by two INSERT … SELECT statements that the database
// expands itself (`generate_series` on PostgreSQL, a recursive CTE on SQLite): 10⁵ persons take seconds where 10⁵
// API calls would take minutes. Plain JavaScript so that the benchmark script can import it; types in seed.d.mts.
//
// Person i (1 … count) is predictable, so a test can compute what it expects:
//   id          pid:<prefix>-<i on 7 digits>
//   handle      <prefix>-<i on 7 digits>@seed.example (email_address)
//   region      us-iowa when i is odd, else europe-belgium
//   groups      ["tenth"] when i is a multiple of 10, else []
//   created_at  2020-01-01T00:00:00Z + i seconds (GET /persons lists newest first: i descending)
// The rows match the `persons` and `handles` tables of src/db/migrations.ts; nothing else is written.

const SAFE = /^[A-Za-z0-9_:.-]+$/;

/** The SQL statements that seed the persons (values are checked, then written inline: no parameters to bind). */
export function seedStatements(dialect, { orgId, count, prefix = 'seed' }) {
  if (!SAFE.test(orgId)) throw new Error(`seed: organization id ${JSON.stringify(orgId)} has characters the seed does not quote`);
  if (!/^[a-z0-9-]+$/.test(prefix)) throw new Error(`seed: prefix must be lowercase letters, digits and dashes, got ${JSON.stringify(prefix)}`);
  if (!Number.isInteger(count) || count < 1) throw new Error(`seed: count must be a positive integer, got ${count}`);
  const pg = dialect === 'postgres';
  const num = pg ? `lpad(i::text, 7, '0')` : `printf('%07d', i)`;
  const at = pg ? `to_char(timestamp '2020-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : `strftime('%Y-%m-%dT%H:%M:%fZ', 1577836800 + i, 'unixepoch')`;
  const head = pg ? '' : `with recursive s(i) as (select 1 union all select i + 1 from s where i < ${count}) `;
  const from = pg ? `generate_series(1, ${count}) as i` : 's';
  const statements = [
    `${head}insert into persons (id, org_id, person_type, active, region, groups, created_at)
     select 'pid:${prefix}-' || ${num}, '${orgId}', 'regular', 1,
            case when i % 2 = 1 then 'us-iowa' else 'europe-belgium' end,
            case when i % 10 = 0 then '["tenth"]' else '[]' end, ${at}
     from ${from}`,
    `${head}insert into handles (id, org_id, person_id, type, value, created_at)
     select 'hid:${prefix}-' || ${num}, '${orgId}', 'pid:${prefix}-' || ${num}, 'email_address', '${prefix}-' || ${num} || '@seed.example', ${at}
     from ${from}`,
  ];
  // Fresh statistics, so that the planner sees the new size at once (autovacuum would catch up later).
  if (pg) statements.push('analyze persons', 'analyze handles');
  return statements;
}

/** Seeds the persons through `exec` (runs one SQL statement). */
export async function seedPersons(exec, dialect, opts) {
  for (const statement of seedStatements(dialect, opts)) await exec(statement);
}

/** The id and handle of seeded person `i`. */
export function seeded(i, prefix = 'seed') {
  const n = String(i).padStart(7, '0');
  return { person_id: `pid:${prefix}-${n}`, email: `${prefix}-${n}@seed.example` };
}
