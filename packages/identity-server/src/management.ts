import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, OAuthClient, Org, OrgSettings, UiConfiguration } from './context.js';
import { issueOAuthTokens } from './oauth/routes.js';
import { revokeFamily } from './oauth/refresh-tokens.js';
import { checkRedirect, nowIso, reloadAllowedDomains } from './context.js';
import { ApiError, badRequest, notFound, page } from './http/errors.js';
import { parseHandle, type Handle } from './persons/handles.js';
import type { PasswordRule } from './signin/factors/password-hashing.js';
import { credentialOut, getPerson, type PersonRow } from './persons/persons.js';
import { compileFilter, type FilterSubject } from './persons/scim-filter.js';
import { sha256 } from './crypto/secrets.js';
import { requireApiKey } from './events/routes.js';
import { addConsents, BUCKETS, checkBucket, deleteBucket, listConsents, readBuckets, removeConsents, splitList, writeBuckets, type AttributeOwner } from './persons/me.js';
import { directIdFor, rulesOf, sendPasswordResetLink, setPassword } from './signin/factors/password.js';
import { failedRules } from './signin/factors/password-hashing.js';
import type { OidcProviderConfig, SamlProviderConfig } from './sso/flows.js';
import { parseIdpMetadata } from './sso/saml-metadata.js';
import { checkTokenTemplate, RESERVED_CLAIMS } from './tokens/token-template.js';
import { isOutboundRefused, outboundFetch } from './http/outbound.js';
import { grantsOf, rbacPool, registerRbacRoutes, requireDefined, setGrants } from './organizations/rbac.js';

interface PersonBody {
  active?: boolean;
  region?: string;
  handles: Array<{ type: string; value: string }>;
  groups?: string[];
  roles?: string[];
  attributes?: Record<string, Record<string, unknown>>;
}

const conflict = (message: string) => new ApiError(409, message);


/** Makes sure every named group exists in the organization's group list. */
async function registerGroups(ctx: Ctx, org: Org, names: string[]): Promise<void> {
  const now = nowIso();
  for (const name of names) {
    await ctx.db.insertInto('groups').values({ org_id: org.id, name, description: null, created_at: now }).onConflict((oc) => oc.columns(['org_id', 'name']).doNothing()).execute();
  }
}

/** Rewrites an organization's settings and forgets the cached copy. */
export async function updateSettings(ctx: Ctx, org: Org, change: (s: OrgSettings) => void): Promise<OrgSettings> {
  const settings = structuredClone(org.settings);
  change(settings);
  await ctx.db.updateTable('organizations').set({ settings: JSON.stringify(settings) }).where('id', '=', org.id).execute();
  ctx.orgs.delete(org.id);
  return settings;
}

async function personOut(ctx: Ctx, p: PersonRow) {
  const handles = await ctx.db.selectFrom('handles').select(['type', 'value']).where('person_id', '=', p.id).orderBy('created_at').execute();
  const attrs = await ctx.db.selectFrom('attributes').select(['bucket', 'name', 'value']).where('person_id', '=', p.id).execute();
  const attributes: Record<string, Record<string, unknown>> = {};
  for (const a of attrs) (attributes[a.bucket] ??= {})[a.name] = JSON.parse(a.value) as unknown;
  const roles = await grantsOf(ctx.db, p.id, 'role');
  return { person_id: p.id, active: p.active === 1, person_type: p.person_type, region: p.region, handles, groups: JSON.parse(p.groups) as string[], roles, attributes };
}

async function orgPerson(ctx: Ctx, org: Org, id: string): Promise<PersonRow> {
  const p = await getPerson(ctx, id);
  if (!p || p.org_id !== org.id) throw notFound(`person "${id}" does not exist`);
  return p;
}

async function assertHandlesFree(ctx: Ctx, org: Org, handles: Handle[], personId?: string): Promise<void> {
  for (const h of handles) {
    const owner = await ctx.db.selectFrom('handles').select('person_id').where('org_id', '=', org.id).where('type', '=', h.type).where('value', '=', h.value).executeTakeFirst();
    if (owner && owner.person_id !== personId) throw conflict('person exists');
  }
}

const configOut = (s: OrgSettings) => ({
  allow_self_registration: s.self_registration !== false,
  require_approval_for_new_persons: s.auto_activate === false,
  handle_patterns: s.handle_patterns ?? [],
  token_duration_seconds: s.token_duration_seconds ?? 3600,
  allowed_factors: s.allowed_factors ?? [],
  password_validation_rules: s.password_validation_rules ?? [],
  groups_claim_name: s.groups_claim_name ?? 'groups',
});

/** Well-known issuers of providers that speak OpenID Connect. */
const KNOWN_ISSUERS: Record<string, string> = {
  google: 'https://accounts.google.com',
  apple: 'https://appleid.apple.com',
  gitlab: 'https://gitlab.com',
  line: 'https://access.line.me',
};

const oidcOut = (p: OidcProviderConfig & { label?: string; created_at?: string }) => ({
  client_id: p.client_id,
  label: p.label ?? p.client_id,
  provider: p.provider,
  issuer: p.issuer,
  ...(p.scopes ? { scopes: p.scopes } : {}),
  ...(p.created_at ? { created_at: p.created_at } : {}),
});

/** A list kept in the organization's settings (identity provider credentials), addressed by one id field. */
function settingsCollection<T extends object>(ctx: Ctx, key: 'oidc_providers' | 'saml_providers' | 'oauth_clients', idOf: (item: T) => string, what: string) {
  const list = (o: Org) => ((o.settings[key] ?? []) as unknown[]) as T[];
  const write = (o: Org, items: T[]) =>
    updateSettings(ctx, o, (s) => {
      (s as Record<string, unknown>)[key] = items;
    });
  return {
    list,
    one(o: Org, id: string): T {
      const found = list(o).find((p) => idOf(p) === id);
      if (!found) throw notFound(`${what} "${id}" do not exist`);
      return found;
    },
    add: (o: Org, item: T) => write(o, [...list(o), item]),
    replace: (o: Org, item: T) => write(o, list(o).map((p) => (idOf(p) === idOf(item) ? item : p))),
    async remove(o: Org, id: string) {
      this.one(o, id);
      await write(o, list(o).filter((p) => idOf(p) !== id));
    },
  };
}

/** Attribute routes under `base` (a person's or the organization's): every bucket, multi- and single-bucket reads and writes. */
function registerAdminAttributeRoutes(app: FastifyInstance, ctx: Ctx, base: string, ownerOf: (req: FastifyRequest) => Promise<AttributeOwner>): void {
  app.get<{ Querystring: { buckets?: string } }>(`${base}/attributes`, async (req) => {
    const owner = await ownerOf(req);
    const buckets = splitList(req.query.buckets, 'buckets') ?? [...BUCKETS];
    for (const b of buckets) checkBucket(b, 'admin');
    return { result: await readBuckets(ctx, owner, buckets) };
  });
  const writeAll = (replace: boolean) => async (req: FastifyRequest<{ Body: Record<string, Record<string, unknown>> }>) => {
    const owner = await ownerOf(req);
    await writeBuckets(ctx, owner, req.body, replace, 'admin');
    return { result: await readBuckets(ctx, owner, Object.keys(req.body)) };
  };
  app.put(`${base}/attributes`, writeAll(true));
  app.patch(`${base}/attributes`, writeAll(false));
  app.get<{ Params: { bucket_name: string }; Querystring: { attributes?: string } }>(`${base}/attributes/:bucket_name`, async (req) => {
    const owner = await ownerOf(req);
    checkBucket(req.params.bucket_name, 'admin');
    const out = await readBuckets(ctx, owner, [req.params.bucket_name], splitList(req.query.attributes, 'attributes'));
    return { result: out[req.params.bucket_name] };
  });
  const writeOne = (replace: boolean) => async (req: FastifyRequest<{ Params: { bucket_name: string }; Body: Record<string, unknown> }>) => {
    const owner = await ownerOf(req);
    await writeBuckets(ctx, owner, { [req.params.bucket_name]: req.body }, replace, 'admin');
    return { result: (await readBuckets(ctx, owner, [req.params.bucket_name]))[req.params.bucket_name] };
  };
  app.put(`${base}/attributes/:bucket_name`, writeOne(true));
  app.patch(`${base}/attributes/:bucket_name`, writeOne(false));
  app.delete<{ Params: { bucket_name: string }; Querystring: { attributes?: string } }>(`${base}/attributes/:bucket_name`, async (req, reply) => {
    const owner = await ownerOf(req);
    checkBucket(req.params.bucket_name, 'admin');
    await deleteBucket(ctx, owner, req.params.bucket_name, splitList(req.query.attributes, 'attributes'));
    return reply.code(204).send();
  });
}

/** Management API (`Keyway-OrgID` + `Keyway-API-Key`): persons, handles, groups, suborganizations, configuration, OIDC providers. */
export function registerManagementRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  registerRbacRoutes(app, ctx, (org, id) => orgPerson(ctx, org, id));

  /** Checks a person body (buckets, roles) before anything is written. */
  const checkPersonBody = async (org: Org, body: PersonBody) => {
    for (const b of Object.keys(body.attributes ?? {})) if (!(BUCKETS as readonly string[]).includes(b)) throw badRequest(`unknown attribute bucket "${b}"`);
    if (body.roles?.length) await requireDefined(ctx.db, await rbacPool(ctx, org), 'role', body.roles);
    return body.handles.map((h) => parseHandle(h));
  };
  const createPersonFrom = async (org: Org, body: PersonBody, handles: Handle[]) => {
    await assertHandlesFree(ctx, org, handles);
    await registerGroups(ctx, org, body.groups ?? []);
    const now = nowIso();
    const person: PersonRow = { id: `pid:${randomUUID()}`, org_id: org.id, person_type: 'regular', active: body.active === false ? 0 : 1, region: body.region ?? 'eu-west', groups: JSON.stringify(body.groups ?? []), created_at: now };
    try {
      await ctx.db.transaction().execute(async (trx) => {
        await trx.insertInto('persons').values(person).execute();
        for (const h of handles) await trx.insertInto('handles').values({ id: randomUUID(), org_id: org.id, person_id: person.id, type: h.type, value: h.value, created_at: now }).execute();
        for (const [bucket, attrs] of Object.entries(body.attributes ?? {})) {
          for (const [name, value] of Object.entries(attrs)) await trx.insertInto('attributes').values({ person_id: person.id, bucket, name, value: JSON.stringify(value), updated_at: now }).execute();
        }
        for (const role of new Set(body.roles ?? [])) await trx.insertInto('person_grants').values({ person_id: person.id, kind: 'role', name: role }).execute();
      });
    } catch (err) {
      if (await ctx.db.selectFrom('persons').select('id').where('id', '=', person.id).executeTakeFirst()) throw err;
      await assertHandlesFree(ctx, org, handles);
      throw err;
    }
    await ctx.webhooks.emit(org.id, 'PersonCreated_v1', { person_id: person.id, person_type: person.person_type, source: 'management' });
    return person;
  };

  app.post<{ Body: PersonBody }>('/persons', async (req, reply) => {
    const org = await admin(req);
    const person = await createPersonFrom(org, req.body, await checkPersonBody(org, req.body));
    reply.code(201);
    return { result: await personOut(ctx, person) };
  });

  // Idempotent create-or-update keyed by the handles: none known → created; all known ones on one person → that person updated.
  app.put<{ Body: PersonBody }>('/persons', async (req) => {
    const org = await admin(req);
    const handles = await checkPersonBody(org, req.body);
    const owners = new Set<string>();
    for (const h of handles) {
      const row = await ctx.db.selectFrom('handles').select('person_id').where('org_id', '=', org.id).where('type', '=', h.type).where('value', '=', h.value).executeTakeFirst();
      if (row) owners.add(row.person_id);
    }
    if (owners.size > 1) throw conflict(`the handles belong to ${owners.size} different persons: ${[...owners].join(', ')}`);
    const [ownerId] = [...owners];
    if (!ownerId) return { result: await personOut(ctx, await createPersonFrom(org, req.body, handles)) };
    const p = await orgPerson(ctx, org, ownerId);
    const now = nowIso();
    await registerGroups(ctx, org, req.body.groups ?? []);
    await ctx.db.transaction().execute(async (trx) => {
      for (const h of handles) {
        await trx.insertInto('handles').values({ id: randomUUID(), org_id: org.id, person_id: p.id, type: h.type, value: h.value, created_at: now }).onConflict((oc) => oc.columns(['org_id', 'type', 'value']).doNothing()).execute();
      }
      const set: Partial<PersonRow> = {};
      if (req.body.active !== undefined) set.active = req.body.active ? 1 : 0;
      if (req.body.region !== undefined) set.region = req.body.region;
      if (req.body.groups !== undefined) set.groups = JSON.stringify(req.body.groups);
      if (Object.keys(set).length) await trx.updateTable('persons').set(set).where('id', '=', p.id).execute();
    });
    if (req.body.roles !== undefined) await setGrants(ctx, org, p.id, 'role', req.body.roles);
    if (req.body.attributes) await writeBuckets(ctx, p.id, req.body.attributes, false, 'admin');
    return { result: await personOut(ctx, (await getPerson(ctx, p.id))!) };
  });

  app.get<{ Querystring: { filter?: string; limit?: number; offset?: number } }>('/persons', async (req) => {
    const org = await admin(req);
    const test = req.query.filter ? compileFilter(req.query.filter) : () => true;
    const limit = Number(req.query.limit ?? 100);
    const offset = Number(req.query.offset ?? 0);
    const rows = await ctx.db.selectFrom('persons').selectAll().where('org_id', '=', org.id).orderBy('created_at', 'desc').orderBy('id').execute();
    const handles = await ctx.db.selectFrom('handles').select(['person_id', 'type', 'value']).where('org_id', '=', org.id).execute();
    const byPerson = new Map<string, Array<{ type: string; value: string }>>();
    for (const h of handles) byPerson.set(h.person_id, [...(byPerson.get(h.person_id) ?? []), { type: h.type, value: h.value }]);
    const matching = rows.filter((p) => {
      const subject: FilterSubject = { person_id: p.id, active: p.active === 1, person_type: p.person_type, region: p.region, handles: byPerson.get(p.id) ?? [], groups: JSON.parse(p.groups) as string[] };
      return test(subject);
    });
    return page(await Promise.all(matching.slice(offset, offset + limit).map((p) => personOut(ctx, p))), limit, offset, matching.length);
  });

  app.get<{ Params: { person_id: string } }>('/persons/:person_id', async (req) => {
    const org = await admin(req);
    return { result: await personOut(ctx, await orgPerson(ctx, org, req.params.person_id)) };
  });

  app.patch<{ Params: { person_id: string }; Body: { active?: boolean; region?: string } }>('/persons/:person_id', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    const set: Partial<PersonRow> = {};
    if (req.body.active !== undefined) set.active = req.body.active ? 1 : 0;
    if (req.body.region !== undefined) set.region = req.body.region;
    if (Object.keys(set).length) await ctx.db.updateTable('persons').set(set).where('id', '=', p.id).execute();
    return { result: await personOut(ctx, (await getPerson(ctx, p.id))!) };
  });

  app.delete<{ Params: { person_id: string } }>('/persons/:person_id', async (req, reply) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    await ctx.db.transaction().execute(async (trx) => {
      for (const t of ['handles', 'credentials', 'attributes', 'consents', 'person_grants', 'sso_oidc_tokens', 'oauth_refresh_tokens'] as const) await trx.deleteFrom(t).where('person_id', '=', p.id).execute();
      await trx.deleteFrom('persons').where('id', '=', p.id).execute();
    });
    await ctx.webhooks.emit(org.id, 'PersonDeleted_v1', { person_id: p.id });
    return reply.code(204).send();
  });

  const listHandles = (id: string) => ctx.db.selectFrom('handles').select(['type', 'value']).where('person_id', '=', id).orderBy('created_at').execute();
  app.get<{ Params: { person_id: string } }>('/persons/:person_id/handles', async (req) => {
    const org = await admin(req);
    return { result: await listHandles((await orgPerson(ctx, org, req.params.person_id)).id) };
  });
  app.post<{ Params: { person_id: string }; Body: { handles: Array<{ type: string; value: string }> } }>('/persons/:person_id/handles', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    const handles = req.body.handles.map((h) => parseHandle(h));
    await assertHandlesFree(ctx, org, handles, p.id);
    const now = nowIso();
    for (const h of handles) {
      await ctx.db
        .insertInto('handles')
        .values({ id: randomUUID(), org_id: org.id, person_id: p.id, type: h.type, value: h.value, created_at: now })
        .onConflict((oc) => oc.columns(['org_id', 'type', 'value']).doNothing())
        .execute();
    }
    return { result: await listHandles(p.id) };
  });
  app.delete<{ Params: { person_id: string; handle: string } }>('/persons/:person_id/handles/:handle', async (req, reply: FastifyReply) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    const sep = req.params.handle.indexOf(':');
    const h = parseHandle({ type: req.params.handle.slice(0, sep), value: req.params.handle.slice(sep + 1) });
    const all = await listHandles(p.id);
    if (!all.some((x) => x.type === h.type && x.value === h.value)) throw notFound(`person "${p.id}" has no handle ${h.type}:${h.value}`);
    if (all.length === 1) throw conflict('cannot remove the last handle of a person');
    await ctx.db.deleteFrom('handles').where('person_id', '=', p.id).where('type', '=', h.type).where('value', '=', h.value).execute();
    return reply.code(204).send();
  });

  app.get<{ Params: { person_id: string } }>('/persons/:person_id/groups', async (req) => {
    const org = await admin(req);
    return { result: JSON.parse((await orgPerson(ctx, org, req.params.person_id)).groups) as string[] };
  });
  app.put<{ Params: { person_id: string }; Body: { groups: string[] } }>('/persons/:person_id/groups', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    await registerGroups(ctx, org, req.body.groups);
    await ctx.db.updateTable('persons').set({ groups: JSON.stringify(req.body.groups) }).where('id', '=', p.id).execute();
    return { result: req.body.groups };
  });

  // Groups of the organization; memberships live on the persons (and go into their tokens).
  const groupOut = (g: { name: string; description: string | null; created_at: string }) => ({ name: g.name, ...(g.description ? { description: g.description } : {}), created_at: g.created_at });
  const groupRow = async (org: Org, name: string) => {
    const g = await ctx.db.selectFrom('groups').selectAll().where('org_id', '=', org.id).where('name', '=', name).executeTakeFirst();
    if (!g) throw notFound(`group "${name}" does not exist`);
    return g;
  };
  const members = async (org: Org, name: string) =>
    (await ctx.db.selectFrom('persons').selectAll().where('org_id', '=', org.id).orderBy('created_at').orderBy('id').execute()).filter((p) => (JSON.parse(p.groups) as string[]).includes(name));
  const setGroups = (id: string, groups: string[]) => ctx.db.updateTable('persons').set({ groups: JSON.stringify(groups) }).where('id', '=', id).execute();

  app.post<{ Body: { name: string; description?: string } }>('/groups', async (req, reply) => {
    const org = await admin(req);
    const exists = await ctx.db.selectFrom('groups').select('name').where('org_id', '=', org.id).where('name', '=', req.body.name).executeTakeFirst();
    if (exists) throw conflict(`group "${req.body.name}" already exists`);
    const row = { org_id: org.id, name: req.body.name, description: req.body.description ?? null, created_at: nowIso() };
    await ctx.db.insertInto('groups').values(row).execute();
    reply.code(201);
    return { result: groupOut(row) };
  });
  app.get<{ Querystring: { limit?: number; offset?: number } }>('/groups', async (req) => {
    const org = await admin(req);
    const limit = Number(req.query.limit ?? 100);
    const offset = Number(req.query.offset ?? 0);
    const all = await ctx.db.selectFrom('groups').selectAll().where('org_id', '=', org.id).orderBy('name').execute();
    return page(all.slice(offset, offset + limit).map(groupOut), limit, offset, all.length);
  });
  app.get<{ Params: { group_name: string } }>('/groups/:group_name', async (req) => ({ result: groupOut(await groupRow(await admin(req), req.params.group_name)) }));
  app.delete<{ Params: { group_name: string } }>('/groups/:group_name', async (req, reply) => {
    const org = await admin(req);
    await groupRow(org, req.params.group_name);
    for (const p of await members(org, req.params.group_name)) await setGroups(p.id, (JSON.parse(p.groups) as string[]).filter((g) => g !== req.params.group_name));
    await ctx.db.deleteFrom('groups').where('org_id', '=', org.id).where('name', '=', req.params.group_name).execute();
    return reply.code(204).send();
  });
  app.post<{ Params: { group_name: string }; Body: { persons: string[] } }>('/groups/:group_name/persons', async (req, reply) => {
    const org = await admin(req);
    await groupRow(org, req.params.group_name);
    const persons = await Promise.all(req.body.persons.map((id) => orgPerson(ctx, org, id)));
    for (const p of persons) {
      const groups = JSON.parse(p.groups) as string[];
      if (!groups.includes(req.params.group_name)) await setGroups(p.id, [...groups, req.params.group_name]);
    }
    return reply.code(204).send();
  });
  app.get<{ Params: { group_name: string }; Querystring: { limit?: number; offset?: number } }>('/groups/:group_name/persons', async (req) => {
    const org = await admin(req);
    await groupRow(org, req.params.group_name);
    const limit = Number(req.query.limit ?? 100);
    const offset = Number(req.query.offset ?? 0);
    const all = await members(org, req.params.group_name);
    return page(await Promise.all(all.slice(offset, offset + limit).map((p) => personOut(ctx, p))), limit, offset, all.length);
  });
  app.delete<{ Params: { group_name: string; person_id: string } }>('/groups/:group_name/persons/:person_id', async (req, reply) => {
    const org = await admin(req);
    await groupRow(org, req.params.group_name);
    const p = await orgPerson(ctx, org, req.params.person_id);
    const groups = JSON.parse(p.groups) as string[];
    if (!groups.includes(req.params.group_name)) throw notFound(`person "${p.id}" is not in group "${req.params.group_name}"`);
    await setGroups(p.id, groups.filter((g) => g !== req.params.group_name));
    return reply.code(204).send();
  });

  // A person's attributes (every bucket, as the organization sees them) and the organization's own attributes.
  registerAdminAttributeRoutes(app, ctx, '/persons/:person_id', async (req) => (await orgPerson(ctx, await admin(req), (req.params as { person_id: string }).person_id)).id);
  registerAdminAttributeRoutes(app, ctx, '/organizations', async (req) => ({ orgId: (await admin(req)).id }));

  app.get<{ Params: { person_id: string } }>('/persons/:person_id/consent/gdpr', async (req) => {
    const p = await orgPerson(ctx, await admin(req), req.params.person_id);
    return { result: await listConsents(ctx, p.id) };
  });
  const adminConsents = (replace: boolean) => async (req: FastifyRequest<{ Params: { person_id: string }; Body: { consent_levels: string[] } }>) => {
    const p = await orgPerson(ctx, await admin(req), req.params.person_id);
    await addConsents(ctx, p.id, req.body.consent_levels, replace);
    return { result: await listConsents(ctx, p.id) };
  };
  app.post('/persons/:person_id/consent/gdpr', adminConsents(false));
  app.put('/persons/:person_id/consent/gdpr', adminConsents(true));
  app.delete<{ Params: { person_id: string }; Querystring: { consent_levels?: string; deleteAll?: string | boolean } }>('/persons/:person_id/consent/gdpr', async (req, reply) => {
    const p = await orgPerson(ctx, await admin(req), req.params.person_id);
    await removeConsents(ctx, p.id, req.query);
    return reply.code(204).send();
  });

  app.get<{ Params: { person_id: string } }>('/persons/:person_id/credentials', async (req) => {
    const p = await orgPerson(ctx, await admin(req), req.params.person_id);
    const creds = await ctx.db.selectFrom('credentials').selectAll().where('person_id', '=', p.id).orderBy('created_at').execute();
    return { result: creds.map(credentialOut) };
  });
  app.delete<{ Params: { person_id: string; credential_id: string } }>('/persons/:person_id/credentials/:credential_id', async (req, reply) => {
    const p = await orgPerson(ctx, await admin(req), req.params.person_id);
    const res = await ctx.db.deleteFrom('credentials').where('person_id', '=', p.id).where('id', '=', req.params.credential_id).executeTakeFirst();
    if (Number(res.numDeletedRows) !== 1) throw notFound(`person "${p.id}" has no credential "${req.params.credential_id}"`);
    return reply.code(204).send();
  });
  app.delete<{ Params: { person_id: string } }>('/persons/:person_id/credentials', async (req, reply) => {
    const p = await orgPerson(ctx, await admin(req), req.params.person_id);
    await ctx.db.deleteFrom('credentials').where('person_id', '=', p.id).execute();
    return reply.code(204).send();
  });
  app.put<{ Params: { person_id: string }; Body: { password: string; skip_validation?: boolean } }>('/persons/:person_id/credentials/password', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    if (!req.body.skip_validation) {
      const failed = failedRules(req.body.password, rulesOf(org));
      if (failed.length) throw badRequest(`password does not satisfy the validation rules: ${failed.join(', ')}`);
    }
    await setPassword(ctx, p.id, req.body.password);
    const cred = await ctx.db.selectFrom('credentials').selectAll().where('person_id', '=', p.id).where('type', '=', 'password').executeTakeFirstOrThrow();
    return { result: credentialOut(cred) };
  });
  // Imports a password (hashed here) or a TOTP secret, e.g. when migrating from another system.
  app.post<{ Params: { person_id: string }; Body: { type: 'password'; label?: string; password: string } | { type: 'totp'; label?: string; secret: string } }>(
    '/persons/:person_id/credentials',
    async (req, reply) => {
      const p = await orgPerson(ctx, await admin(req), req.params.person_id);
      const body = req.body;
      if (body.type === 'password') {
        await setPassword(ctx, p.id, body.password, body.label ?? 'Password');
      } else {
        const now = nowIso();
        await ctx.db.transaction().execute(async (trx) => {
          await trx.deleteFrom('credentials').where('person_id', '=', p.id).where('type', '=', 'totp').execute();
          await trx
            .insertInto('credentials')
            .values({
              id: randomUUID(), person_id: p.id, type: 'totp', label: body.label ?? 'Authenticator app',
              params: JSON.stringify({ recovery_codes_total: 0, recovery_codes_unused: 0 }),
              secret: JSON.stringify({ secret: body.secret.replace(/=+$/, ''), last_time_step: 0, recovery_hashes: [] }),
              created_at: now, last_used: null,
            })
            .execute();
        });
      }
      const cred = await ctx.db.selectFrom('credentials').selectAll().where('person_id', '=', p.id).where('type', '=', body.type).executeTakeFirstOrThrow();
      reply.code(201);
      return { result: credentialOut(cred) };
    },
  );
  // Marks the password compromised: password sign-ins are refused until a new one is set; with a handle, a reset link goes out now.
  app.post<{ Params: { person_id: string }; Body: { handle?: { type: string; value: string }; reason?: string; redirect_target?: string } | null }>(
    '/persons/:person_id/credentials/password-rotate',
    async (req) => {
      const org = await admin(req);
      const p = await orgPerson(ctx, org, req.params.person_id);
      const cred = await ctx.db.selectFrom('credentials').selectAll().where('person_id', '=', p.id).where('type', '=', 'password').executeTakeFirst();
      if (!cred) throw notFound(`person "${p.id}" has no password`);
      const reset = req.body?.handle ? await ownedResetHandle(org, p, req.body.handle, req.body.redirect_target) : undefined;
      const secret = { ...(JSON.parse(cred.secret) as Record<string, unknown>), rotation_required: true, rotation_reason: req.body?.reason ?? null };
      await ctx.db.updateTable('credentials').set({ secret: JSON.stringify(secret) }).where('id', '=', cred.id).execute();
      if (reset) await sendPasswordResetLink(ctx, org, p.id, reset.handle, reset.target);
      return { result: { rotation_required: true } };
    },
  );
  /** A handle of the person that can receive a reset link, with the page that completes the reset. */
  const ownedResetHandle = async (org: Org, p: PersonRow, raw: { type: string; value: string }, redirectTarget: string | undefined) => {
    const handle = parseHandle(raw);
    if (handle.type === 'username') throw badRequest('a password reset link goes to an email address or phone number');
    const owns = await ctx.db.selectFrom('handles').select('id').where('person_id', '=', p.id).where('type', '=', handle.type).where('value', '=', handle.value).executeTakeFirst();
    if (!owns) throw notFound(`person "${p.id}" has no handle ${handle.type}:${handle.value}`);
    if (!redirectTarget) throw badRequest('redirect_target is required: the page of your application that completes the reset with the SDK');
    return { handle, target: checkRedirect(ctx, org, redirectTarget, 'redirect_target') };
  };
  app.post<{ Params: { person_id: string }; Body: { handle: { type: string; value: string }; redirect_target?: string } }>(
    '/persons/:person_id/credentials/password-reset',
    async (req, reply) => {
      const org = await admin(req);
      const p = await orgPerson(ctx, org, req.params.person_id);
      const { handle, target } = await ownedResetHandle(org, p, req.body.handle, req.body.redirect_target);
      await sendPasswordResetLink(ctx, org, p.id, handle, target);
      reply.code(202);
      return { result: { sent_to: handle } };
    },
  );
  app.get<{ Params: { person_id: string } }>('/persons/:person_id/organizations', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    // The home organization, and every organization that pools its persons.
    const rows = await ctx.db.selectFrom('organizations').selectAll().orderBy('created_at').execute();
    const pooling = rows.filter((r) => r.id === p.org_id || ((JSON.parse(r.settings) as OrgSettings).person_pool_orgs_ids ?? []).includes(p.org_id));
    return { result: pooling.map((r) => ({ id: r.id, org_name: r.org_name, tenant_name: r.tenant_name, person_id: p.id })) };
  });
  app.post<{ Params: { person_id: string } }>('/persons/:person_id/direct-id', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    return { result: { direct_id: await directIdFor(ctx, org, p.id) } };
  });

  app.post<{ Params: { person_id: string }; Body: { authenticated_methods?: string[]; custom_claims?: Record<string, unknown>; expiry_seconds?: number } | null }>(
    '/persons/:person_id/mint-token',
    async (req) => {
      const org = await admin(req);
      const p = await orgPerson(ctx, org, req.params.person_id);
      const custom = req.body?.custom_claims ?? {};
      const reserved = Object.keys(custom).filter((k) => RESERVED_CLAIMS.has(k) || k === (org.settings.groups_claim_name ?? 'groups'));
      if (reserved.length) throw badRequest(`custom_claims may not set reserved claims: ${reserved.join(', ')}`);
      const methods = req.body?.authenticated_methods ?? ['api'];
      const token = await ctx.tokens.sign(
        {
          ...custom,
          person_id: p.id,
          oid: org.id,
          first_token: false,
          authenticated_methods: methods,
          authentications: methods.map((method) => ({ method })),
          person_type: p.person_type,
          groups: JSON.parse(p.groups) as string[],
        },
        req.body?.expiry_seconds,
      );
      return { result: { token } };
    },
  );

  // Organizations.
  const orgOut = (o: Org) => ({ id: o.id, parent_id: o.parent_id, org_name: o.org_name, tenant_name: o.tenant_name });
  const children = async (id: string) => (await ctx.db.selectFrom('organizations').selectAll().where('parent_id', '=', id).orderBy('created_at').execute()).map((r) => ({ id: r.id, parent_id: r.parent_id, org_name: r.org_name, tenant_name: r.tenant_name }));
  app.get('/organizations', async (req) => {
    const org = await admin(req);
    return { result: { ...orgOut(org), managed_organizations: await children(org.id) } };
  });
  // Deletes the organization and everything stored for it; its API key stops working with it.
  app.delete('/organizations', async (req, reply) => {
    const org = await admin(req);
    const subs = await children(org.id);
    if (subs.length) throw conflict(`organization "${org.id}" has ${subs.length} suborganization${subs.length > 1 ? 's' : ''} (${subs.map((x) => x.id).join(', ')}): delete them first`);
    await ctx.db.transaction().execute(async (trx) => {
      const persons = trx.selectFrom('persons').select('id').where('org_id', '=', org.id);
      for (const t of ['credentials', 'attributes', 'consents', 'person_grants', 'sso_oidc_tokens', 'oauth_refresh_tokens'] as const) await trx.deleteFrom(t).where('person_id', 'in', persons).execute();
      await trx.deleteFrom('webhook_triggers').where('webhook_id', 'in', trx.selectFrom('webhooks').select('id').where('org_id', '=', org.id)).execute();
      for (const t of ['handles', 'persons', 'groups', 'rbac_permissions', 'rbac_roles', 'org_attributes', 'webhooks', 'webhook_deliveries', 'external_credentials', 'monthly_active', 'challenges', 'events', 'mailbox', 'sso_oidc_tokens', 'oauth_refresh_tokens'] as const) {
        await trx.deleteFrom(t).where('org_id', '=', org.id).execute();
      }
      await trx.deleteFrom('organizations').where('id', '=', org.id).execute();
    });
    ctx.orgs.delete(org.id);
    await reloadAllowedDomains(ctx);
    return reply.code(204).send();
  });
  app.get('/organizations/suborganizations', async (req) => {
    const org = await admin(req);
    return { result: await children(org.id) };
  });
  app.post<{ Body: { org_name: string; tenant_name?: string; share_person_pool?: boolean; share_group_pool?: boolean; inherits_rbac_pools?: boolean } }>(
    '/organizations/suborganizations',
    async (req, reply) => {
      const parent = await admin(req);
      const apiKey = `kw_${randomBytes(24).toString('base64url')}`;
      const id = `org_${randomBytes(10).toString('hex')}`;
      const settings: OrgSettings = {
        self_registration: parent.settings.self_registration,
        auto_activate: parent.settings.auto_activate,
        api_key_sha256: sha256(apiKey),
        ...(req.body.share_person_pool ? { person_pool_orgs_ids: [parent.id] } : {}),
        ...(req.body.inherits_rbac_pools ? { rbac_pool_org_id: parent.id } : {}),
      };
      const tenant = req.body.tenant_name ?? req.body.org_name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
      await ctx.db.insertInto('organizations').values({ id, parent_id: parent.id, org_name: req.body.org_name, tenant_name: tenant || id, settings: JSON.stringify(settings), created_at: nowIso() }).execute();
      reply.code(201);
      return { result: { id, parent_id: parent.id, org_name: req.body.org_name, tenant_name: tenant || id, api_key: apiKey } };
    },
  );

  // Allowed domains: redirect targets, passkey origins and CORS for this organization.
  app.get('/organizations/config/domains', async (req) => ({ result: { domains: (await admin(req)).settings.allowed_domains ?? [] } }));
  const changeDomains = (add: boolean) => async (req: FastifyRequest<{ Body: { domains: string[] } }>) => {
    const org = await admin(req);
    const settings = await updateSettings(ctx, org, (s) => {
      const current = new Set(s.allowed_domains ?? []);
      for (const d of req.body.domains) {
        if (add) current.add(d.toLowerCase());
        else current.delete(d.toLowerCase());
      }
      s.allowed_domains = [...current].sort();
    });
    await reloadAllowedDomains(ctx);
    return { result: { domains: settings.allowed_domains ?? [] } };
  };
  app.post('/organizations/config/domains', changeDomains(true));
  app.delete('/organizations/config/domains', changeDomains(false));

  app.get('/organizations/config/token-template', async (req) => ({ result: { content: (await admin(req)).settings.token_template ?? '{}' } }));
  app.put<{ Body: { content: string } }>('/organizations/config/token-template', async (req) => {
    const org = await admin(req);
    checkTokenTemplate(req.body.content, org.settings.groups_claim_name);
    await updateSettings(ctx, org, (s) => {
      s.token_template = req.body.content;
    });
    return { result: { content: req.body.content } };
  });

  app.put('/organizations/api-keys', async (req) => {
    const org = await admin(req);
    const apiKey = `kw_${randomBytes(24).toString('base64url')}`;
    await updateSettings(ctx, org, (s) => {
      s.api_key_sha256 = sha256(apiKey);
    });
    return { result: { api_key: apiKey, created_at: nowIso() } };
  });
  app.get('/organizations/attribute-buckets', async (req) => {
    await admin(req);
    return {
      result: BUCKETS.map((name) => ({
        name,
        end_user_access: name.endsWith('read_write') ? 'read_write' : name.endsWith('read_only') ? 'read_only' : 'no_access',
        shared_with_person_pool: name.startsWith('person_pool-'),
      })),
    };
  });

  app.get('/organizations/config', async (req) => ({ result: configOut((await admin(req)).settings) }));
  app.patch<{ Body: { allow_self_registration?: boolean; require_approval_for_new_persons?: boolean; handle_patterns?: string[]; token_duration_seconds?: number; allowed_factors?: string[]; password_validation_rules?: PasswordRule[]; groups_claim_name?: string } }>(
    '/organizations/config',
    async (req) => {
      const org = await admin(req);
      const b = req.body;
      for (const p of [...(b.handle_patterns ?? []), ...(b.password_validation_rules ?? []).map((r) => r.pattern)]) {
        try {
          new RegExp(p, 'u');
        } catch {
          throw badRequest(`pattern ${JSON.stringify(p)} is not a valid regular expression`);
        }
      }
      const settings = await updateSettings(ctx, org, (s) => {
        if (b.allow_self_registration !== undefined) s.self_registration = b.allow_self_registration;
        if (b.require_approval_for_new_persons !== undefined) s.auto_activate = !b.require_approval_for_new_persons;
        if (b.handle_patterns !== undefined) s.handle_patterns = b.handle_patterns;
        if (b.token_duration_seconds !== undefined) s.token_duration_seconds = b.token_duration_seconds;
        if (b.allowed_factors !== undefined) s.allowed_factors = b.allowed_factors;
        if (b.password_validation_rules !== undefined) s.password_validation_rules = b.password_validation_rules;
        if (b.groups_claim_name !== undefined) s.groups_claim_name = b.groups_claim_name;
      });
      return { result: configOut(settings) };
    },
  );

  // SAML identity providers used by the `saml` factor, configured from their metadata.
  type StoredSaml = SamlProviderConfig & { label: string; idp_metadata_url?: string; attribute_mapping?: Record<string, string>; created_at: string };
  const saml = settingsCollection<StoredSaml>(ctx, 'saml_providers', (p) => p.provider_credentials_id, 'SAML provider credentials');
  const samlOut = (p: StoredSaml) => ({
    id: p.provider_credentials_id,
    label: p.label,
    ...(p.idp_metadata_url ? { idp_metadata_url: p.idp_metadata_url } : {}),
    idp_entity_id: p.idp_issuer ?? '',
    sp_entity_id: `${ctx.publicUrl}/sso/saml/metadata`,
    sp_acs_url: `${ctx.publicUrl}/sso/saml/acs`,
    attribute_mapping: p.attribute_mapping ?? {},
    created_at: p.created_at,
  });
  /** Metadata from the request: inline XML, or fetched from its URL (plain http only in development). */
  const metadataOf = async (b: { idp_metadata_url?: string; idp_metadata_xml?: string }) => {
    if (b.idp_metadata_xml) return parseIdpMetadata(b.idp_metadata_xml);
    if (!b.idp_metadata_url) throw badRequest('give idp_metadata_xml or idp_metadata_url');
    if (new URL(b.idp_metadata_url).protocol !== 'https:' && !ctx.devMode) throw badRequest('idp_metadata_url must use https');
    // Internal addresses are refused in production (checked at connect time); the error never repeats what an
    // address answered.
    const res = await outboundFetch(!ctx.devMode)(b.idp_metadata_url, { signal: AbortSignal.timeout(10_000) }).catch((err: unknown) => {
      if (isOutboundRefused(err)) throw badRequest(`idp_metadata_url: ${(err as Error).message}`);
      return undefined;
    });
    if (!res?.ok) throw badRequest(`IdP metadata could not be fetched from ${b.idp_metadata_url}`);
    return parseIdpMetadata(await res.text());
  };
  app.get('/organizations/sso/saml/provider-credentials', async (req) => ({ result: saml.list(await admin(req)).map(samlOut) }));
  app.post<{ Body: { label: string; idp_metadata_url?: string; idp_metadata_xml?: string; attribute_mapping?: Record<string, string> } }>(
    '/organizations/sso/saml/provider-credentials',
    async (req, reply) => {
      const org = await admin(req);
      const md = await metadataOf(req.body);
      const entry: StoredSaml = {
        provider_credentials_id: `saml_${randomBytes(8).toString('hex')}`,
        entry_point: md.ssoUrl,
        idp_cert: md.certificates,
        idp_issuer: md.entityId,
        label: req.body.label,
        created_at: nowIso(),
        ...(req.body.idp_metadata_url ? { idp_metadata_url: req.body.idp_metadata_url } : {}),
        ...(req.body.attribute_mapping ? { attribute_mapping: req.body.attribute_mapping } : {}),
      };
      await saml.add(org, entry);
      reply.code(201);
      return { result: samlOut(entry) };
    },
  );
  app.get<{ Params: { saml_provider_credentials_id: string } }>('/organizations/sso/saml/provider-credentials/:saml_provider_credentials_id', async (req) => ({
    result: samlOut(saml.one(await admin(req), req.params.saml_provider_credentials_id)),
  }));
  app.patch<{ Params: { saml_provider_credentials_id: string }; Body: { label?: string; idp_metadata_url?: string; idp_metadata_xml?: string; attribute_mapping?: Record<string, string> } }>(
    '/organizations/sso/saml/provider-credentials/:saml_provider_credentials_id',
    async (req) => {
      const org = await admin(req);
      const current: StoredSaml = { ...saml.one(org, req.params.saml_provider_credentials_id) };
      if (req.body.idp_metadata_xml || req.body.idp_metadata_url) {
        const md = await metadataOf(req.body);
        Object.assign(current, { entry_point: md.ssoUrl, idp_cert: md.certificates, idp_issuer: md.entityId });
        if (req.body.idp_metadata_url) current.idp_metadata_url = req.body.idp_metadata_url;
      }
      if (req.body.label) current.label = req.body.label;
      if (req.body.attribute_mapping) current.attribute_mapping = req.body.attribute_mapping;
      await saml.replace(org, current);
      return { result: samlOut(current) };
    },
  );
  app.delete<{ Params: { saml_provider_credentials_id: string } }>('/organizations/sso/saml/provider-credentials/:saml_provider_credentials_id', async (req, reply) => {
    await saml.remove(await admin(req), req.params.saml_provider_credentials_id);
    return reply.code(204).send();
  });

  // OAuth2 clients of the hosted login.
  const clients = settingsCollection<OAuthClient>(ctx, 'oauth_clients', (c) => c.client_id, 'OAuth2 client');
  const clientOut = (c: OAuthClient) => ({
    client_id: c.client_id,
    client_name: c.name,
    scopes: c.scopes ?? ['openid'],
    grant_types: c.grant_types ?? ['authorization_code'],
    response_types: ['code'],
    redirect_uris: c.redirect_uris,
    public: c.public ?? false,
    access_token_duration: c.access_token_duration ?? 3600,
    refresh_token_duration: c.refresh_token_duration ?? 0,
    ...(c.secret_last4 ? { client_secret_last4: c.secret_last4 } : {}),
  });
  const unsupportedGrants = (grants: string[] | undefined, isPublic: boolean | undefined) => {
    if (grants?.includes('refresh_token') && !grants.includes('authorization_code')) throw badRequest('grant_types: refresh_token needs authorization_code (refresh tokens are issued with the authorization code grant)');
    if (isPublic && grants?.includes('client_credentials')) throw badRequest('grant_types: client_credentials needs a confidential client (public: false)');
  };
  app.get('/oauth2/clients', async (req) => ({ result: clients.list(await admin(req)).map(clientOut) }));
  app.post<{ Body: { client_name: string; scopes: string[]; grant_types: string[]; redirect_uris?: string[]; public?: boolean; access_token_duration?: number; refresh_token_duration?: number } }>(
    '/oauth2/clients',
    async (req, reply) => {
      const org = await admin(req);
      const b = req.body;
      unsupportedGrants(b.grant_types, b.public);
      const secret = `kwcs_${randomBytes(24).toString('base64url')}`;
      const client: OAuthClient = {
        client_id: `kwc_${randomBytes(10).toString('hex')}`,
        name: b.client_name,
        redirect_uris: b.redirect_uris ?? [],
        public: b.public ?? false,
        scopes: b.scopes,
        grant_types: b.grant_types,
        access_token_duration: b.access_token_duration ?? 3600,
        // Refresh tokens live 30 days unless told otherwise; 0 turns them off.
        refresh_token_duration: b.refresh_token_duration ?? (b.grant_types.includes('refresh_token') ? 30 * 24 * 3600 : 0),
        secret_sha256: sha256(secret),
        secret_last4: secret.slice(-4),
        created_at: nowIso(),
      };
      await clients.add(org, client);
      reply.code(201);
      return { result: { ...clientOut(client), client_secret: secret } };
    },
  );
  app.get<{ Params: { oauth_client_id: string } }>('/oauth2/clients/:oauth_client_id', async (req) => ({ result: clientOut(clients.one(await admin(req), req.params.oauth_client_id)) }));
  app.patch<{ Params: { oauth_client_id: string }; Body: { client_name?: string; scopes?: string[]; redirect_uris?: string[]; access_token_duration?: number; refresh_token_duration?: number } }>(
    '/oauth2/clients/:oauth_client_id',
    async (req) => {
      const org = await admin(req);
      const { client_name, ...rest } = req.body;
      const current: OAuthClient = { ...clients.one(org, req.params.oauth_client_id), ...rest, ...(client_name ? { name: client_name } : {}) };
      await clients.replace(org, current);
      return { result: clientOut(current) };
    },
  );
  app.delete<{ Params: { oauth_client_id: string } }>('/oauth2/clients/:oauth_client_id', async (req, reply) => {
    const org = await admin(req);
    await clients.remove(org, req.params.oauth_client_id);
    const families = await ctx.db.selectFrom('oauth_refresh_tokens').select('family_id').distinct().where('org_id', '=', org.id).where('client_id', '=', req.params.oauth_client_id).where('status', '!=', 'revoked').execute();
    for (const f of families) await revokeFamily(ctx, f.family_id);
    return reply.code(204).send();
  });
  app.put<{ Params: { oauth_client_id: string } }>('/oauth2/clients/:oauth_client_id/secret', async (req) => {
    const org = await admin(req);
    const secret = `kwcs_${randomBytes(24).toString('base64url')}`;
    const current: OAuthClient = { ...clients.one(org, req.params.oauth_client_id), secret_sha256: sha256(secret), secret_last4: secret.slice(-4) };
    await clients.replace(org, current);
    return { result: { ...clientOut(current), client_secret: secret } };
  });

  app.get<{ Params: { oauth_client_id: string } }>('/oauth2/clients/:oauth_client_id/ui-configuration', async (req) => {
    const c = clients.one(await admin(req), req.params.oauth_client_id);
    return { result: { logo_url: null, title: `Sign in to ${c.name}`, factors: ['otp_via_email'], show_keyway_branding: true, ...c.ui_configuration } };
  });
  app.put<{ Params: { oauth_client_id: string }; Body: UiConfiguration }>('/oauth2/clients/:oauth_client_id/ui-configuration', async (req) => {
    const org = await admin(req);
    const c = clients.one(org, req.params.oauth_client_id);
    const allowed = org.settings.allowed_factors ?? [];
    const refused = (req.body.factors ?? []).filter((f) => allowed.length && !allowed.includes(f));
    if (refused.length) throw badRequest(`factors not allowed by the organization config (allowed_factors): ${refused.join(', ')}`);
    await clients.replace(org, { ...c, ui_configuration: req.body });
    return { result: req.body };
  });
  app.post<{ Body: { client_id: string; person_id: string; scopes?: string[]; include_id_token?: boolean } }>('/oauth2/tokens/mint', async (req) => {
    const org = await admin(req);
    const client = clients.one(org, req.body.client_id);
    const person = await orgPerson(ctx, org, req.body.person_id);
    const scopes = req.body.scopes ?? client.scopes ?? ['openid'];
    const outside = scopes.filter((x) => !(client.scopes ?? ['openid']).includes(x));
    if (outside.length) throw badRequest(`scopes not granted to client "${client.client_id}": ${outside.join(', ')}`);
    return { result: await issueOAuthTokens(ctx, client, person, [{ method: 'api' }], { scope: scopes.join(' '), idToken: req.body.include_id_token !== false && scopes.includes('openid') }) };
  });

  // OIDC provider credentials used by the `oidc` factor.
  type StoredOidc = OidcProviderConfig & { label?: string; created_at?: string };
  const oidc = settingsCollection<StoredOidc>(ctx, 'oidc_providers', (p) => p.client_id, 'OIDC provider credentials');
  app.get('/organizations/sso/oidc/provider-credentials', async (req) => ({ result: oidc.list(await admin(req)).map(oidcOut) }));
  app.post<{ Body: { client_id: string; client_secret: string; label: string; provider: string; issuer?: string; scopes?: string[] } }>(
    '/organizations/sso/oidc/provider-credentials',
    async (req, reply) => {
      const org = await admin(req);
      const b = req.body;
      const issuer = b.issuer ?? KNOWN_ISSUERS[b.provider];
      if (!issuer) throw badRequest(`issuer is required for provider "${b.provider}"`);
      if (oidc.list(org).some((p) => p.client_id === b.client_id)) throw conflict(`OIDC provider credentials "${b.client_id}" already exist`);
      const entry: StoredOidc = { provider: b.provider, client_id: b.client_id, client_secret: b.client_secret, issuer, label: b.label, created_at: nowIso(), ...(b.scopes ? { scopes: b.scopes } : {}) };
      await oidc.add(org, entry);
      reply.code(201);
      return { result: oidcOut(entry) };
    },
  );
  app.get<{ Params: { oauth_client_id: string } }>('/organizations/sso/oidc/provider-credentials/:oauth_client_id', async (req) => ({
    result: oidcOut(oidc.one(await admin(req), req.params.oauth_client_id)),
  }));
  app.patch<{ Params: { oauth_client_id: string }; Body: { client_secret?: string; label?: string; scopes?: string[] } }>(
    '/organizations/sso/oidc/provider-credentials/:oauth_client_id',
    async (req) => {
      const org = await admin(req);
      const current = { ...oidc.one(org, req.params.oauth_client_id), ...req.body };
      await oidc.replace(org, current);
      return { result: oidcOut(current) };
    },
  );
  app.delete<{ Params: { oauth_client_id: string } }>('/organizations/sso/oidc/provider-credentials/:oauth_client_id', async (req, reply) => {
    await oidc.remove(await admin(req), req.params.oauth_client_id);
    return reply.code(204).send();
  });

}
