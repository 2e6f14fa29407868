import { randomUUID } from 'node:crypto';
import type { Ctx, Org } from '../context.js';
import { nowIso } from '../context.js';
import { answer, badRequest, conflict, notFound } from '../http/errors.js';
import { rbacPool, requireDefined, setGrants } from '../organizations/rbac.js';
import { BUCKETS, writeBuckets } from './attributes.js';
import { parseHandle, type Handle } from './handles.js';
import { regionOf, regionOrDefault } from './regions.js';
import { getPerson, handleRow, type PersonRow } from './persons.js';
import { managementProof } from './proofs.js';
import type { Schema } from '../http/wire.js';
import { personsOut } from './person-list.js';
import { readCredentialImports, storeImportedCredentials } from './credential-import.js';

// Persons as the management API writes them: a whole person (handles, groups, roles, attributes) at once.

export type PersonBody = Schema<'PersonCreate'>;

/** Makes sure every named group exists in the organization's group list. */
export async function registerGroups(ctx: Ctx, org: Org, names: string[]): Promise<void> {
  const now = nowIso();
  for (const name of names) {
    await ctx.db.insertInto('groups').values({ org_id: org.id, name, description: null, created_at: now }).onConflict((oc) => oc.columns(['org_id', 'name']).doNothing()).execute();
  }
}

/** A person as the management API shows it. */
export async function personOut(ctx: Ctx, p: PersonRow) {
  return (await personsOut(ctx, [p]))[0]!;
}

/** A person of this organization; 404 otherwise. */
export async function orgPerson(ctx: Ctx, org: Org, id: string): Promise<PersonRow> {
  const p = await getPerson(ctx, id);
  if (!p || p.org_id !== org.id) throw notFound(`person "${id}" does not exist`);
  return p;
}

/** 409 `person exists` when a handle belongs to another person of the organization. */
export async function assertHandlesFree(ctx: Ctx, org: Org, handles: Handle[], personId?: string): Promise<void> {
  for (const h of handles) {
    const owner = await ctx.db.selectFrom('handles').select('person_id').where('org_id', '=', org.id).where('type', '=', h.type).where('value', '=', h.value).executeTakeFirst();
    if (owner && owner.person_id !== personId) throw answer('personExists');
  }
}

/** Checks a person body (buckets, roles) before anything is written. */
export async function checkPersonBody(ctx: Ctx, org: Org, body: PersonBody): Promise<Handle[]> {
  for (const b of Object.keys(body.attributes ?? {})) if (!(BUCKETS as readonly string[]).includes(b)) throw badRequest(`unknown attribute bucket "${b}"`);
  if (body.roles?.length) await requireDefined(ctx.db, await rbacPool(ctx, org), 'role', body.roles);
  return (body.handles ?? []).map((h) => parseHandle(h));
}
/** Creates a person from a checked body; 409 when a handle is taken (also when another request took it meanwhile). */
export async function createPersonFrom(ctx: Ctx, org: Org, body: PersonBody, handles: Handle[]): Promise<PersonRow> {
  const credentials = readCredentialImports(body.credentials);
  await assertHandlesFree(ctx, org, handles);
  await registerGroups(ctx, org, body.groups ?? []);
  const now = nowIso();
  const person: PersonRow = { id: `pid:${randomUUID()}`, org_id: org.id, person_type: 'regular', active: body.active === false ? 0 : 1, region: regionOrDefault(body.region), groups: JSON.stringify(body.groups ?? []), created_at: now };
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await trx.insertInto('persons').values(person).execute();
      for (const [i, h] of handles.entries()) await trx.insertInto('handles').values(handleRow(org.id, person.id, h, managementProof(body.handles?.[i]))).execute();
      for (const [bucket, attrs] of Object.entries(body.attributes ?? {})) {
        for (const [name, value] of Object.entries(attrs)) await trx.insertInto('attributes').values({ person_id: person.id, bucket, name, value: JSON.stringify(value), updated_at: now }).execute();
      }
      for (const role of new Set(body.roles ?? [])) await trx.insertInto('person_grants').values({ person_id: person.id, kind: 'role', name: role }).execute();
      await storeImportedCredentials(trx, person.id, credentials);
    });
  } catch (err) {
    if (await ctx.db.selectFrom('persons').select('id').where('id', '=', person.id).executeTakeFirst()) throw err;
    await assertHandlesFree(ctx, org, handles);
    throw err;
  }
  await ctx.webhooks.emit(org.id, 'PersonCreated_v1', { person_id: person.id, person_type: person.person_type, source: 'management' });
  return person;
}

/**
 * Idempotent create-or-update keyed by the handles: none known → created; all known ones on one person → that person
 * updated; handles of several persons → 409.
 */
export async function upsertPerson(ctx: Ctx, org: Org, body: PersonBody): Promise<PersonRow> {
  const handles = await checkPersonBody(ctx, org, body);
  const owners = new Set<string>();
  for (const h of handles) {
    const row = await ctx.db.selectFrom('handles').select('person_id').where('org_id', '=', org.id).where('type', '=', h.type).where('value', '=', h.value).executeTakeFirst();
    if (row) owners.add(row.person_id);
  }
  if (owners.size > 1) throw conflict(`the handles belong to ${owners.size} different persons: ${[...owners].join(', ')}`);
  const [ownerId] = [...owners];
  if (!ownerId) return createPersonFrom(ctx, org, body, handles);
  const p = await orgPerson(ctx, org, ownerId);
  const credentials = readCredentialImports(body.credentials);
  const now = nowIso();
  await registerGroups(ctx, org, body.groups ?? []);
  await ctx.db.transaction().execute(async (trx) => {
    for (const [i, h] of handles.entries()) {
      const proof = managementProof(body.handles?.[i]);
      await trx.insertInto('handles').values(handleRow(org.id, p.id, h, proof)).onConflict((oc) => oc.columns(['org_id', 'type', 'value']).doNothing()).execute();
      // A handle the person already holds becomes verified when the source system says so.
      if (proof) await trx.updateTable('handles').set({ verified_at: now, verified_by: proof }).where('org_id', '=', org.id).where('type', '=', h.type).where('value', '=', h.value).where('person_id', '=', p.id).where('verified_at', 'is', null).execute();
    }
    const set: Partial<PersonRow> = {};
    if (body.active !== undefined) set.active = body.active ? 1 : 0;
    if (body.region !== undefined) set.region = regionOf(body.region);
    if (body.groups !== undefined) set.groups = JSON.stringify(body.groups);
    if (Object.keys(set).length) await trx.updateTable('persons').set(set).where('id', '=', p.id).execute();
    await storeImportedCredentials(trx, p.id, credentials);
  });
  if (body.roles !== undefined) await setGrants(ctx, org, p.id, 'role', body.roles);
  if (body.attributes) await writeBuckets(ctx, p.id, body.attributes, false, 'admin');
  return (await getPerson(ctx, p.id))!;
}
