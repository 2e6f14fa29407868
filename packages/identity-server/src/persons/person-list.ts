import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Ctx } from '../context.js';
import type { Database, Db } from '../db/index.js';
import type { DialectName } from '../db/migrations.js';
import type { Start } from '../http/pagination.js';
import type { PersonRow } from './persons.js';
import { handleOut } from './proofs.js';
import { matches, type Comparison, type Filter } from './scim-filter.js';

// `GET /persons` in SQL (#23): the SCIM filter becomes a WHERE clause, the page is `limit/offset` (or a start after a sort key) in SQL and the
// persons of a page are read in three queries whatever the page size. The indexes it relies on are in
// src/db/growth.ts, and test/indexes.test.ts checks the plans.

type Where = RawBuilder<SqlBool>;
const TRUE: Where = sql<SqlBool>`1 = 1`;
const FALSE: Where = sql<SqlBool>`1 = 0`;

/** `lower(<column>)` as the handles_org_lower_value index stores it (the "C" collation on PostgreSQL). */
const lowered = (dialect: DialectName, column: RawBuilder<unknown>) => (dialect === 'postgres' ? sql`(lower(${column}) collate "C")` : sql`lower(${column})`);

/** The smallest string above every string that starts with `prefix` (code point order), or none. */
function prefixEnd(prefix: string): string | undefined {
  const chars = Array.from(prefix);
  let cp = chars.pop()!.codePointAt(0)! + 1;
  if (cp === 0xd800) cp = 0xe000;
  return cp > 0x10ffff ? undefined : chars.join('') + String.fromCodePoint(cp);
}

/** A comparison of one text value (already lowered on both sides) as SQL. */
function compare(dialect: DialectName, f: { kind: 'eq' | 'co' | 'sw'; value: string }, low: RawBuilder<unknown>): Where {
  if (f.kind === 'eq') return sql<SqlBool>`${low} = ${f.value}`;
  if (f.kind === 'co') return dialect === 'postgres' ? sql<SqlBool>`strpos(${low}, ${f.value}) > 0` : sql<SqlBool>`instr(${low}, ${f.value}) > 0`;
  if (!f.value) return TRUE;
  // A prefix is a range, which the index on lower(value) answers in order.
  const end = prefixEnd(f.value);
  return end === undefined ? sql<SqlBool>`${low} >= ${f.value}` : sql<SqlBool>`${low} >= ${f.value} and ${low} < ${end}`;
}

/** The persons of `orgId` having a handle whose value (or type) passes the test. */
function withHandle(dialect: DialectName, orgId: string, column: 'value' | 'type', test: (low: RawBuilder<unknown>) => Where): Where {
  const low = column === 'value' ? lowered(dialect, sql.ref('h.value')) : sql`lower(h.type)`;
  return sql<SqlBool>`persons.id in (select h.person_id from handles h where h.org_id = ${orgId} and ${test(low)})`;
}

/** The persons one of whose groups (a JSON array of names) passes the test (given each name, lowercased unless `exact`). */
function withGroup(dialect: DialectName, test: (name: RawBuilder<unknown>) => Where, exact = false): Where {
  const fold = (name: RawBuilder<unknown>) => (exact ? name : sql`lower(${name})`);
  return dialect === 'postgres'
    ? sql<SqlBool>`exists (select 1 from jsonb_array_elements_text(persons.groups::jsonb) g(v) where ${test(fold(sql`g.v`))})`
    : sql<SqlBool>`exists (select 1 from json_each(persons.groups) g where ${test(fold(sql`g.value`))})`;
}

/** The members of a group (its exact name), oldest first, as a query to page or count. */
export function groupMembersQuery(db: Db, dialect: DialectName, orgId: string, group: string) {
  return db.selectFrom('persons').where('persons.org_id', '=', orgId).where(withGroup(dialect, (name) => sql<SqlBool>`${name} = ${group}`, true));
}

/** One comparison or `pr` as SQL. */
function comparison(dialect: DialectName, orgId: string, f: Comparison): Where {
  const positive = f.kind === 'pr' ? f : { kind: f.kind === 'ne' ? ('eq' as const) : f.kind, value: f.value };
  const test = (low: RawBuilder<unknown>) => (positive.kind === 'pr' ? sql<SqlBool>`${low} <> ''` : compare(dialect, positive, low));
  let where: Where;
  switch (f.attr) {
    case 'handles.value':
    case 'handles.type':
      where = withHandle(dialect, orgId, f.attr === 'handles.value' ? 'value' : 'type', test);
      break;
    case 'groups':
      where = withGroup(dialect, test);
      break;
    case 'active': {
      // Two possible values: decide in JavaScript which of them pass.
      if (positive.kind === 'pr') return TRUE;
      const passes = (v: string) => matches(positive, v) !== (f.kind === 'ne');
      const [yes, no] = [passes('true'), passes('false')];
      return yes && no ? TRUE : yes ? sql<SqlBool>`persons.active = 1` : no ? sql<SqlBool>`persons.active = 0` : FALSE;
    }
    default:
      where = test(sql`lower(${sql.ref(`persons.${f.attr === 'person_id' ? 'id' : f.attr}`)})`);
  }
  return f.kind === 'ne' ? sql<SqlBool>`not (${where})` : where;
}

/** A parsed SCIM filter as a WHERE clause on `persons` (case-insensitive, as the parser lowercased the values). */
export function filterWhere(dialect: DialectName, orgId: string, f: Filter): Where {
  if ('left' in f) {
    const [l, r] = [filterWhere(dialect, orgId, f.left), filterWhere(dialect, orgId, f.right)];
    return f.kind === 'and' ? sql<SqlBool>`(${l} and ${r})` : sql<SqlBool>`(${l} or ${r})`;
  }
  return comparison(dialect, orgId, f);
}

/** The persons of the organization passing the filter, as a query to page or count. */
export function personsQuery(db: Db, dialect: DialectName, orgId: string, filter?: Filter): SelectQueryBuilder<Database, 'persons', object> {
  const base = db.selectFrom('persons').where('persons.org_id', '=', orgId);
  return filter ? base.where(filterWhere(dialect, orgId, filter)) : base;
}

/**
 * The ids (and sort keys) of one page, newest first (`created_at desc, id`), from the index alone
 * (persons_org_created holds org_id, created_at and id): an offset steps over index entries, never over rows, and a
 * start after a sort key seeks straight to it (`created_at <= c` bounds the index range; the `or` settles ties).
 */
export function pageIdsQuery(db: Db, dialect: DialectName, orgId: string, opts: { filter?: Filter | undefined; limit: number; start: Start }) {
  let q = personsQuery(db, dialect, orgId, opts.filter).select(['persons.id', 'persons.created_at']).orderBy('persons.created_at', 'desc').orderBy('persons.id').limit(opts.limit);
  const { after, offset } = opts.start;
  if (after) {
    const [createdAt, id] = after.map(String) as [string, string];
    q = q.where('persons.created_at', '<=', createdAt).where(sql<SqlBool>`(persons.created_at < ${createdAt} or persons.id > ${id})`);
  } else if (offset) q = q.offset(offset);
  return q;
}

/**
 * One page, the exact number of persons passing the filter, and the sort key to continue from when more follow
 * (one id more than the page is read to know).
 */
export async function listPersons(ctx: Ctx, orgId: string, opts: { filter?: Filter | undefined; limit: number; start: Start }): Promise<{ rows: PersonRow[]; total: number; nextKey: string[] | undefined }> {
  const found = await pageIdsQuery(ctx.db, ctx.dialect, orgId, { ...opts, limit: opts.limit + 1 }).execute();
  const pageIds = found.slice(0, opts.limit);
  const last = pageIds[pageIds.length - 1];
  const nextKey = found.length > opts.limit && last ? [last.created_at, last.id] : undefined;
  // Two steps rather than one `id in (subquery)`: the rows are then read by primary key whatever the planner thinks.
  const ids = pageIds.map((r) => r.id);
  const rows = ids.length ? await ctx.db.selectFrom('persons').selectAll().where('id', 'in', ids).orderBy('created_at', 'desc').orderBy('id').execute() : [];
  // Unfiltered: the count the triggers keep (a million persons are not counted per request).
  const total = opts.filter
    ? (await personsQuery(ctx.db, ctx.dialect, orgId, opts.filter).select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow()).n
    : ((await ctx.db.selectFrom('org_person_counts').select('persons').where('org_id', '=', orgId).executeTakeFirst())?.persons ?? 0);
  return { rows, total: Number(total), nextKey };
}

/** Persons as the management API shows them: handles, attributes and roles of all of them in three queries. */
export async function personsOut(ctx: Ctx, persons: PersonRow[]) {
  const ids = persons.map((p) => p.id);
  const [handles, attrs, roles] = ids.length
    ? await Promise.all([
        ctx.db.selectFrom('handles').select(['person_id', 'type', 'value', 'verified_at']).where('person_id', 'in', ids).orderBy('created_at').execute(),
        ctx.db.selectFrom('attributes').select(['person_id', 'bucket', 'name', 'value']).where('person_id', 'in', ids).execute(),
        ctx.db.selectFrom('person_grants').select(['person_id', 'name']).where('person_id', 'in', ids).where('kind', '=', 'role').orderBy('name').execute(),
      ])
    : [[], [], []];
  const of = <T extends { person_id: string }>(rows: T[]) => {
    const by = new Map<string, T[]>();
    for (const r of rows) by.set(r.person_id, [...(by.get(r.person_id) ?? []), r]);
    return (id: string) => by.get(id) ?? [];
  };
  const [handlesOf, attrsOf, rolesOf] = [of(handles), of(attrs), of(roles)];
  return persons.map((p) => {
    const attributes: Record<string, Record<string, unknown>> = {};
    for (const a of attrsOf(p.id)) (attributes[a.bucket] ??= {})[a.name] = JSON.parse(a.value) as unknown;
    return {
      person_id: p.id, active: p.active === 1, person_type: p.person_type, region: p.region,
      handles: handlesOf(p.id).map(handleOut),
      groups: JSON.parse(p.groups) as string[], roles: rolesOf(p.id).map((r) => r.name), attributes,
    };
  });
}
