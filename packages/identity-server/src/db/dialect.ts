/** The storage backends: SQLite by default, PostgreSQL with `DATABASE_URL`. */
export type DialectName = 'sqlite' | 'postgres';
