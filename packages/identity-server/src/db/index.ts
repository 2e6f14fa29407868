import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { Database } from './schema.js';
import { migrationProvider, type DialectName } from './migrations.js';
import { NoEmptyListsPlugin } from './empty-lists.js';

export type { Database } from './schema.js';
export type Db = Kysely<Database>;

export interface OpenedDatabase {
  db: Db;
  dialect: DialectName;
  /** Where the data lives, for the start-up banner (file path or a password-free connection URL). */
  location: string;
  /** PostgreSQL's connection pool now (metrics); undefined on SQLite. */
  poolStats?: () => PoolStats;
}

export interface PoolStats {
  /** Connections open. */
  total: number;
  /** Open and unused. */
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
  /** Most connections the pool opens. */
  max: number;
}

/**
 * How long a request waits for a PostgreSQL connection, and for a query's answer, before it fails with 503 (a database
 * that went away answers at once with a refused connection; one that hangs would otherwise hold requests forever).
 */
export const PG_CONNECT_TIMEOUT_MS = 5000;
export const PG_QUERY_TIMEOUT_MS = 30_000;
const PG_POOL_MAX = 10;

/** Opens PostgreSQL when `databaseUrl` is given, else SQLite at `<dataDir>/identity.sqlite` (WAL), then migrates. */
export async function openDatabase(opts: { dataDir: string; databaseUrl?: string | undefined }): Promise<OpenedDatabase> {
  let opened: OpenedDatabase;
  if (opts.databaseUrl) {
    const pg = await import('pg');
    const Pool = pg.default.Pool;
    const pool = new Pool({ connectionString: opts.databaseUrl, max: PG_POOL_MAX, connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS, query_timeout: PG_QUERY_TIMEOUT_MS });
    // A connection the server lost (a database restart, a terminated backend, a network cut): the pool drops it and
    // opens a new one for the next query. node-postgres emits 'error' on the pool for an idle connection and on the
    // connection itself while one is checked out (a query in flight gets the error too); without listeners either would
    // end the process (#38).
    pool.on('error', () => undefined);
    pool.on('connect', (client) => void client.on('error', () => undefined));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [new NoEmptyListsPlugin()] });
    opened = {
      db,
      dialect: 'postgres',
      location: redactUrl(opts.databaseUrl),
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: PG_POOL_MAX }),
    };
  } else {
    const { default: SQLite } = await import('better-sqlite3');
    mkdirSync(opts.dataDir, { recursive: true });
    const file = join(opts.dataDir, 'identity.sqlite');
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    // SQLite's own lower() folds ASCII letters only; filters compare case-insensitively like JavaScript does (and the
    // handles_org_lower_value index is built with this one). Deterministic, so indexes may use it.
    sqlite.function('lower', { deterministic: true }, (s: unknown) => (s === null ? null : String(s).toLowerCase()));
    // Kysely prepares every query afresh; a query's text repeats (parameters are bound), so its statement is kept and
    // reused: preparing was a tenth of a sign-in's CPU (#43). Bounded: the set is dropped when it grows past 2,000 texts
    // (queries with a variable number of parameters make new texts). SQLite re-prepares a kept statement by itself
    // after a schema change.
    const statements = new Map<string, ReturnType<typeof sqlite.prepare>>();
    const database = {
      close: () => sqlite.close(),
      prepare(text: string) {
        let stmt = statements.get(text);
        if (!stmt) {
          if (statements.size >= 2000) statements.clear();
          stmt = sqlite.prepare(text);
          statements.set(text, stmt);
        }
        return stmt;
      },
    };
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }), plugins: [new NoEmptyListsPlugin()] });
    opened = { db, dialect: 'sqlite', location: file };
  }
  // Kysely looks for its migration tables across every schema; pin them to ours so that several schemas of one
  // PostgreSQL database (one per deployment or test) each get their own.
  const schema =
    opened.dialect === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(opened.db)).rows[0]?.s
      : undefined;
  const migrator = new Migrator({
    db: opened.db,
    provider: migrationProvider(opened.dialect),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error } = await migrator.migrateToLatest();
  if (error) {
    await opened.db.destroy();
    throw error instanceof Error ? error : new Error(`database migration failed: ${String(error)}`);
  }
  return opened;
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgresql (unparseable URL)';
  }
}
