// Types of seed.mjs (plain JavaScript, shared with bench/server.mjs).
export interface SeedOptions {
  orgId: string;
  count: number;
  /** Lowercase letters, digits and dashes (default `seed`). */
  prefix?: string;
}
export declare function seedStatements(dialect: 'sqlite' | 'postgres', opts: SeedOptions): string[];
export declare function seedPersons(exec: (statement: string) => Promise<unknown>, dialect: 'sqlite' | 'postgres', opts: SeedOptions): Promise<void>;
export declare function seeded(i: number, prefix?: string): { person_id: string; email: string };
