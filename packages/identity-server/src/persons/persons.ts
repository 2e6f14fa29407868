import { randomUUID } from 'node:crypto';
import type { Ctx, Org } from '../context.js';
import type { PersonTable } from '../db/schema.js';
import { nowIso } from '../context.js';
import type { Handle } from './handles.js';
import { regionOrDefault } from './regions.js';
import type { Authentication, UserTokenClaims } from '../tokens/token-service.js';

export type PersonRow = PersonTable;

/** The person holding a handle, with when that handle was proved (`handle_verified_at`, null when it was not). */
export async function findPersonByHandle(ctx: Ctx, orgId: string, handle: Handle): Promise<(PersonRow & { handle_verified_at?: string | null | undefined }) | undefined> {
  return ctx.db
    .selectFrom('handles')
    .innerJoin('persons', 'persons.id', 'handles.person_id')
    .selectAll('persons')
    .select('handles.verified_at as handle_verified_at')
    .where('handles.org_id', '=', orgId)
    .where('handles.type', '=', handle.type)
    .where('handles.value', '=', handle.value)
    .executeTakeFirst();
}

export async function getPerson(ctx: Ctx, id: string): Promise<PersonRow | undefined> {
  return ctx.db.selectFrom('persons').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Creates a person (optionally with a first handle) in one transaction. `proof` says how the handle was proved (#36):
 * a sign-up creates persons only with a proved handle.
 */
export async function createPerson(
  ctx: Ctx,
  org: Org,
  opts: { type: 'regular' | 'anonymous'; region?: string | undefined; handle?: Handle | undefined; proof?: string | undefined },
): Promise<PersonRow> {
  const now = nowIso();
  const person: PersonRow = {
    id: `pid:${randomUUID()}`,
    org_id: org.id,
    person_type: opts.type,
    active: org.settings.auto_activate === false && opts.type === 'regular' ? 0 : 1,
    region: regionOrDefault(opts.region),
    groups: '[]',
    created_at: now,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('persons').values(person).execute();
    if (opts.handle) await trx.insertInto('handles').values(handleRow(org.id, person.id, opts.handle, opts.proof)).execute();
  });
  await ctx.webhooks.emit(org.id, 'PersonCreated_v1', { person_id: person.id, person_type: person.person_type, source: 'sign_up' });
  return person;
}

/** A handles row; `proof` (how it was proved) marks it verified now. */
export function handleRow(orgId: string, personId: string, handle: Handle, proof?: string | undefined) {
  const now = nowIso();
  return { id: randomUUID(), org_id: orgId, person_id: personId, type: handle.type, value: handle.value, created_at: now, ...(proof ? { verified_at: now, verified_by: proof } : {}) };
}

/** Adds a handle to a person, unless the handle is already someone's (the caller checks whose). */
export async function addHandle(ctx: Ctx, orgId: string, personId: string, handle: Handle, proof?: string | undefined): Promise<void> {
  await ctx.db
    .insertInto('handles')
    .values(handleRow(orgId, personId, handle, proof))
    .onConflict((oc) => oc.columns(['org_id', 'type', 'value']).doNothing())
    .execute();
}

/** Signs a user token for the person, carrying the authentications of a previous token of the same person. */
export async function issueToken(
  ctx: Ctx,
  person: PersonRow,
  auth: Authentication,
  opts: { firstToken: boolean; previous?: Pick<UserTokenClaims, 'authentications'> | undefined; oid?: string; extraClaims?: Record<string, unknown> },
): Promise<string> {
  const authentications = [...(opts.previous?.authentications ?? []), auth];
  const methods = [...new Set(authentications.map((a) => a.method))];
  const oid = opts.oid ?? person.org_id;
  // Signed first: a sync hook may refuse the token, and then nothing is recorded.
  const token = await ctx.tokens.sign({
    ...opts.extraClaims,
    person_id: person.id,
    oid,
    first_token: opts.firstToken,
    authenticated_methods: methods,
    authentications,
    person_type: person.person_type,
    groups: JSON.parse(person.groups) as string[],
  });
  await ctx.webhooks.emit(oid, 'AuthenticationSucceeded_v1', { person_id: person.id, method: auth.method, first_token: opts.firstToken });
  await ctx.db.insertInto('monthly_active').values({ org_id: oid, month: new Date().toISOString().slice(0, 7), person_id: person.id }).onConflict((oc) => oc.doNothing()).execute();
  return token;
}

/** Parameters that are secret material: never part of a read (#15 §5), even in rows stored before the rule. */
const SECRET_PARAMS = ['password_hash', 'secret', 'hash', 'recovery_codes', 'recovery_hashes'];

/** The algorithm of a PHC hash string (`$scrypt$…` → `scrypt`; bcrypt's `$2b$…` → `bcrypt`). */
export function hashAlgorithm(phc: string): string {
  const id = /^\$([a-z0-9-]+)\$/.exec(phc)?.[1] ?? 'scrypt';
  return /^2[aby]?$/.test(id) ? 'bcrypt' : id.startsWith('pbkdf2') ? 'pbkdf2' : id;
}

/**
 * A credential as the API shows it (§3: id, last_used, type, label, params). Secrets are written, never read back:
 * a password credential shows how it is hashed, not the hash.
 */
export function credentialOut(c: { id: string; last_used: string | null; type: string; label: string; params: string }) {
  const params = JSON.parse(c.params) as Record<string, unknown>;
  if (c.type === 'password' && typeof params.password_hash === 'string') params.hash_algorithm ??= hashAlgorithm(params.password_hash);
  for (const k of SECRET_PARAMS) delete params[k];
  return { id: c.id, last_used: c.last_used, type: c.type, label: c.label, params };
}
