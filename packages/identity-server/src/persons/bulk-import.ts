import { randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { nowIso } from '../context.js';
import { ApiError, badRequest } from '../http/errors.js';
import { parseHandle, type Handle } from './handles.js';
import { DEFAULT_REGION, regionOf } from './regions.js';
import { BUCKETS } from './attributes.js';
import { rbacPool } from '../organizations/rbac.js';
import type { Db } from '../db/index.js';
import { requireApiKey } from '../http/guards.js';

export const MAX_IMPORT_ROWS = 10_000;
const NAME = /^[A-Za-z0-9_.:-]{1,128}$/;
const ATTRIBUTE = /^attr:([^:]+):([A-Za-z0-9_.-]{1,128})$/;
const TEMPLATE = 'handle_type,handle_value,active,region,groups,roles,attr:end_user_read_only:plan\nemail_address,ada@example.com,true,europe-belgium,editors;reviewers,reader,pro\n';
const CHUNK = 400;

interface Row {
  row: number;
  handle: Handle;
  active?: boolean;
  region?: string;
  groups?: string[];
  roles?: string[];
  attributes: Array<{ bucket: string; name: string; value: string }>;
}

/** A cell as an attribute value: JSON when it is JSON (numbers, booleans, objects, quoted strings), else the text. */
function cellValue(cell: string): string {
  try {
    JSON.parse(cell);
    return cell;
  } catch {
    return JSON.stringify(cell);
  }
}

const list = (cell: string | undefined, what: string) => {
  if (cell === undefined || cell.trim() === '') return undefined;
  const items = cell.split(';').map((x) => x.trim()).filter(Boolean);
  const bad = items.find((x) => !NAME.test(x));
  if (bad) throw badRequest(`${what}: "${bad}" is not a valid name (letters, digits and _ . : -)`);
  return [...new Set(items)];
};

/** Checks one CSV row; throws an ApiError naming what is wrong. */
function readRow(header: string[], cells: string[], row: number, roles: Set<string>): Row {
  if (cells.length !== header.length) throw badRequest(`has ${cells.length} columns, the header has ${header.length}`);
  const get = (col: string) => {
    const i = header.indexOf(col);
    return i < 0 ? undefined : cells[i];
  };
  const handle = parseHandle({ type: (get('handle_type') ?? '').trim(), value: (get('handle_value') ?? '').trim() });
  const out: Row = { row, handle, attributes: [] };
  const active = get('active')?.trim().toLowerCase();
  if (active) {
    if (active !== 'true' && active !== 'false') throw badRequest(`active must be true or false, not "${active}"`);
    out.active = active === 'true';
  }
  const region = get('region')?.trim();
  if (region) out.region = regionOf(region);
  const groups = list(get('groups'), 'groups');
  if (groups) out.groups = groups;
  const rowRoles = list(get('roles'), 'roles');
  const unknown = rowRoles?.find((r) => !roles.has(r));
  if (unknown) throw badRequest(`unknown role "${unknown}"`);
  if (rowRoles) out.roles = rowRoles;
  header.forEach((col, i) => {
    const m = ATTRIBUTE.exec(col);
    const cell = cells[i]!;
    if (m && cell !== '') out.attributes.push({ bucket: m[1]!, name: m[2]!, value: cellValue(cell) });
  });
  return out;
}

/**
 * `GET /persons/bulk-import` (the CSV template) and `POST /persons/bulk-import` (multipart part `persons`, the public
 * reference's name, or Keyway's earlier `file`): valid rows are imported or update the person owning the handle, bad
 * rows are reported.
 */
export function registerBulkImportRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/persons/bulk-import', async (req, reply) => {
    await requireApiKey(ctx, req);
    return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="persons-import.csv"').send(TEMPLATE);
  });

  /** The CSV part as text; a body the multipart parser cannot read (no boundary, cut short) is the sender's error. */
  async function readCsvPart(req: FastifyRequest): Promise<string> {
    try {
      const part = await req.file();
      if (!part || !['persons', 'file'].includes(part.fieldname)) throw badRequest('multipart body has no part named "persons" (or "file")');
      return (await part.toBuffer()).toString('utf8').replace(/^\uFEFF/, '');
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (err instanceof ApiError || (status !== undefined && status < 500)) throw err;
      throw badRequest(`multipart body could not be read: ${(err as Error).message}`);
    }
  }

  void app.register(async (scope) => {
    await scope.register(multipart, { limits: { files: 1, fileSize: 16 * 1024 * 1024, fields: 5 } });
    scope.post('/persons/bulk-import', async (req) => {
      const org = await requireApiKey(ctx, req);
      if (!req.isMultipart()) throw new ApiError(415, 'send the CSV as multipart/form-data with a part named "persons"');
      const text = await readCsvPart(req);
      let records: string[][];
      try {
        records = parse(text, { relax_column_count: true, skip_empty_lines: true, bom: true }) as string[][];
      } catch (err) {
        throw badRequest(`file is not valid CSV: ${(err as Error).message}`);
      }
      const header = (records.shift() ?? []).map((h) => h.trim());
      for (const required of ['handle_type', 'handle_value']) if (!header.includes(required)) throw badRequest(`the header row has no "${required}" column (GET /persons/bulk-import gives the template)`);
      for (const col of header) {
        const m = ATTRIBUTE.exec(col);
        if (m) {
          if (!(BUCKETS as readonly string[]).includes(m[1]!)) throw badRequest(`column "${col}": unknown attribute bucket "${m[1]}"`);
        } else if (!['handle_type', 'handle_value', 'active', 'region', 'groups', 'roles'].includes(col)) {
          throw badRequest(`unknown column "${col}" (use handle_type, handle_value, active, region, groups, roles or attr:<bucket>:<name>)`);
        }
      }
      if (records.length > MAX_IMPORT_ROWS) throw badRequest(`the file has ${records.length} rows; at most ${MAX_IMPORT_ROWS} are imported at once`);
      return { result: await importRows(ctx, org, header, records) };
    });
  });
}

/** Who owns the chunk's handles already: one query per handle type on the unique (org_id, type, value) index. */
async function ownersOf(db: Db, orgId: string, chunk: Row[]): Promise<Map<string, string>> {
  const owners = new Map<string, string>();
  for (const type of new Set(chunk.map((r) => r.handle.type))) {
    const values = chunk.filter((r) => r.handle.type === type).map((r) => r.handle.value);
    for (const h of await db.selectFrom('handles').select(['type', 'value', 'person_id']).where('org_id', '=', orgId).where('type', '=', type).where('value', 'in', values).execute()) owners.set(`${h.type}:${h.value}`, h.person_id);
  }
  return owners;
}

async function importRows(ctx: Ctx, org: Org, header: string[], records: string[][]) {
  const roles = new Set((await ctx.db.selectFrom('rbac_roles').select('name').where('org_id', 'in', await rbacPool(ctx, org)).execute()).map((r) => r.name));
  const failures: Array<{ row: number; message: string; cells: string[] }> = [];
  const rows: Row[] = [];
  const seen = new Map<string, number>();
  records.forEach((cells, i) => {
    const row = i + 2; // row 1 is the header
    try {
      const r = readRow(header, cells, row, roles);
      const key = `${r.handle.type}:${r.handle.value}`;
      const first = seen.get(key);
      if (first !== undefined) throw badRequest(`handle ${key} already appears in row ${first}`);
      seen.set(key, row);
      rows.push(r);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      failures.push({ row, message: err.message, cells });
    }
  });

  const now = nowIso();
  const created: string[] = [];
  const groupNames = new Set(rows.flatMap((r) => r.groups ?? []));
  for (const name of groupNames) {
    await ctx.db.insertInto('groups').values({ org_id: org.id, name, description: null, created_at: now }).onConflict((oc) => oc.columns(['org_id', 'name']).doNothing()).execute();
  }
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    await ctx.db.transaction().execute(async (trx) => {
      const owners = await ownersOf(trx, org.id, chunk);
      const persons = [], handles = [], attributes = [], grants = [];
      for (const r of chunk) {
        const existing = owners.get(`${r.handle.type}:${r.handle.value}`);
        if (existing) {
          // Known handle: update that person with what the row gives.
          const set: { active?: number; region?: string; groups?: string } = {};
          if (r.active !== undefined) set.active = r.active ? 1 : 0;
          if (r.region) set.region = r.region;
          if (r.groups) set.groups = JSON.stringify(r.groups);
          if (Object.keys(set).length) await trx.updateTable('persons').set(set).where('id', '=', existing).execute();
          if (r.roles) {
            await trx.deleteFrom('person_grants').where('person_id', '=', existing).where('kind', '=', 'role').execute();
            for (const name of r.roles) await trx.insertInto('person_grants').values({ person_id: existing, kind: 'role', name }).execute();
          }
          for (const a of r.attributes) {
            await trx
              .insertInto('attributes')
              .values({ person_id: existing, bucket: a.bucket, name: a.name, value: a.value, updated_at: now })
              .onConflict((oc) => oc.columns(['person_id', 'bucket', 'name']).doUpdateSet({ value: a.value, updated_at: now }))
              .execute();
          }
          continue;
        }
        const id = `pid:${randomUUID()}`;
        created.push(id);
        persons.push({ id, org_id: org.id, person_type: 'regular', active: r.active === false ? 0 : 1, region: r.region ?? DEFAULT_REGION, groups: JSON.stringify(r.groups ?? []), created_at: now });
        handles.push({ id: randomUUID(), org_id: org.id, person_id: id, type: r.handle.type, value: r.handle.value, created_at: now });
        for (const a of r.attributes) attributes.push({ person_id: id, bucket: a.bucket, name: a.name, value: a.value, updated_at: now });
        for (const name of r.roles ?? []) grants.push({ person_id: id, kind: 'role' as const, name });
      }
      // Multi-row inserts, kept under the bind-parameter limits of SQLite and PostgreSQL.
      for (const [table, values, width] of [['persons', persons, 7], ['handles', handles, 6], ['attributes', attributes, 5], ['person_grants', grants, 3]] as const) {
        const per = Math.floor(30_000 / width);
        for (let j = 0; j < values.length; j += per) await trx.insertInto(table).values(values.slice(j, j + per) as never).execute();
      }
    });
  }
  await ctx.webhooks.emitMany(org.id, 'PersonCreated_v1', created.map((person_id) => ({ person_id, person_type: 'regular', source: 'bulk_import' })));
  failures.sort((a, b) => a.row - b.row);
  return {
    successful_imports: rows.length,
    failed_imports: failures.length,
    // The header and the refused rows as sent: fix them and send this file again.
    ...(failures.length ? { failed_csv: stringify([header, ...failures.map((f) => f.cells)]) } : {}),
    failures: failures.map(({ row, message }) => ({ row, message })),
  };
}
