// A database that is away (PostgreSQL restarting, a network cut, a SQLite file that became read-only or a full disk)
// is not the client's fault nor a bug of ours: the request answers 503 with Retry-After and says what is wrong, and the
// next request tries again (the PostgreSQL pool drops broken connections by itself; SQLite retries the write).

/** Seconds a client is told to wait (`Retry-After`) when the database is away. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** PostgreSQL SQLSTATEs of a server that is away or refusing connections (class 08, shutdown, too many clients). */
const PG_AWAY = /^(08...|57P01|57P02|57P03|53300)$/;
/** Node socket errors on the way to the database. */
const SOCKET_AWAY = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** What node-postgres says when a connection ends, cannot be made in time, or a query gets no answer in time. */
const PG_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Client was closed)/;

/**
 * What to tell a client when `err` (or what caused it) means the database cannot be used right now; undefined for
 * every other error.
 */
export function databaseUnavailable(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = String((e as { code?: unknown }).code ?? '');
    const message = String((e as { message?: unknown }).message ?? '');
    if (code.startsWith('SQLITE_')) {
      if (code === 'SQLITE_FULL') return 'the database cannot be written: the disk is full. Writes work again once space is freed';
      if (code.startsWith('SQLITE_READONLY')) return 'the database file is read-only: the server cannot write to it until its permissions are mended';
      if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN') return `the database file cannot be read or written (${code})`;
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'the database is busy';
      return undefined;
    }
    if (PG_AWAY.test(code)) return `the database is unavailable (PostgreSQL ${code}: ${message})`;
    // A socket error of our own connection (depth 0); an outbound call's (fetch's TypeError) carries it as a cause.
    if (depth === 0 && SOCKET_AWAY.has(code)) return `the database is unavailable (${code})`;
    if (PG_MESSAGES.test(message)) return `the database is unavailable (${message.split('\n')[0]})`;
  }
  return undefined;
}
