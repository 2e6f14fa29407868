import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import type { Ctx, Org, OrgSettings } from '../context.js';
import type { Database } from '../db/schema.js';
import { nowIso } from '../context.js';
import { sha256 } from '../crypto/secrets.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { requireApiKey } from '../http/guards.js';
import { BUCKETS } from '../persons/attributes.js';
import type { PasswordRule } from '../signin/factors/password-hashing.js';
import { checkTokenTemplate } from '../tokens/token-template.js';
import { loadOrg, updateSettings, writeOrganization } from './settings.js';
import { parseHandle, type Handle } from '../persons/handles.js';
import { createPersonFrom } from '../persons/person-store.js';
import type { Wire } from '../http/wire.js';
import { filterOrganizations } from '../persons/scim-filter.js';

// Management API: the organization itself, its suborganizations (the tree), and its settings (allowed domains, token
// template, API key, sign-in configuration).

/** The sign-in configuration under the public reference's names, and under the names this server used before. */
const configOut = (ctx: Ctx, s: OrgSettings) => ({
  deny_self_registration: s.self_registration === false,
  new_person_handle_patterns: s.handle_patterns ?? [],
  token_duration: s.token_duration_seconds ?? 3600,
  allowed_factor_methods: s.allowed_factors ?? [],
  requires_manual_approval: s.auto_activate === false,
  authn_link_allowed_redirect_uris: s.authn_link_allowed_redirect_uris ?? [],
  ...(s.authn_redirect_page_ui_config ? { authn_redirect_page_ui_config: s.authn_redirect_page_ui_config } : {}),
  sudo_mode_duration: s.sudo_mode_duration ?? 0,
  canonical_identity_ai_matching_enabled: s.canonical_identity_ai_matching_enabled ?? false,
  from_email: ctx.mailer.fromAddress,
  from_phone_number_sms: '',
  allow_self_registration: s.self_registration !== false,
  require_approval_for_new_persons: s.auto_activate === false,
  handle_patterns: s.handle_patterns ?? [],
  token_duration_seconds: s.token_duration_seconds ?? 3600,
  allowed_factors: s.allowed_factors ?? [],
  password_validation_rules: s.password_validation_rules ?? [],
  groups_claim_name: s.groups_claim_name ?? 'groups',
  implicit_credential_sign_up: s.implicit_credential_sign_up ?? false,
});

/** A setting given under its public reference name and its former name: the two must agree (400 otherwise). */
function either<T>(doc: { name: string; value: T | undefined }, former: { name: string; value: T | undefined }): T | undefined {
  if (doc.value !== undefined && former.value !== undefined && JSON.stringify(doc.value) !== JSON.stringify(former.value)) {
    throw badRequest(`${doc.name} and ${former.name} (its former name) disagree: give one of them`);
  }
  return doc.value ?? former.value;
}

/** A deletion confirmed more than five minutes away from the server's clock is refused (a stale or replayed request). */
function checkConfirmation(timestamp: string | undefined): void {
  if (timestamp === undefined) return;
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) throw badRequest(`confirmation_timestamp "${timestamp}" is not an RFC 3339 date-time`);
  if (Math.abs(Date.now() - at) > 5 * 60_000) throw badRequest(`confirmation_timestamp ${timestamp} is more than five minutes away from the server's clock (${nowIso()})`);
}

/** Everything stored for one organization, then the organization. */
async function deleteOrganizationData(trx: Transaction<Database>, orgId: string): Promise<void> {
  const persons = trx.selectFrom('persons').select('id').where('org_id', '=', orgId);
  for (const t of ['credentials', 'attributes', 'consents', 'person_grants', 'sso_oidc_tokens', 'oauth_refresh_tokens'] as const) await trx.deleteFrom(t).where('person_id', 'in', persons).execute();
  await trx.deleteFrom('webhook_triggers').where('webhook_id', 'in', trx.selectFrom('webhooks').select('id').where('org_id', '=', orgId)).execute();
  for (const t of ['handles', 'persons', 'groups', 'rbac_permissions', 'rbac_roles', 'org_attributes', 'webhooks', 'webhook_deliveries', 'external_credentials', 'monthly_active', 'challenges', 'events', 'mailbox', 'sso_oidc_tokens', 'oauth_refresh_tokens', 'org_person_counts', 'federated_identities'] as const) {
    await trx.deleteFrom(t).where('org_id', '=', orgId).execute();
  }
  await trx.deleteFrom('organizations').where('id', '=', orgId).execute();
}

/**
 * The organization whose persons a new suborganization shares: `persons_org_id` (the parent, or an organization of the
 * parent's own pool: persons the parent already reaches), or the parent with `share_person_pool`.
 */
function personPoolOf(parent: Org, personsOrgId: string | undefined, sharePersonPool: boolean | undefined): string | undefined {
  if (personsOrgId === undefined) return sharePersonPool ? parent.id : undefined;
  if (personsOrgId !== parent.id && !(parent.settings.person_pool_orgs_ids ?? []).includes(personsOrgId)) {
    throw badRequest(`persons_org_id "${personsOrgId}" is neither this organization nor an organization of its person pool`);
  }
  return personsOrgId;
}

/**
 * The administrators of a new organization: active persons of it, in its group `admins` (their `groups` claim says so).
 * A person of a shared pool with the same handle is not changed: the new organization's own person signs in first.
 */
async function addAdmins(ctx: Ctx, orgId: string, handles: Handle[]): Promise<void> {
  const org = await loadOrg(ctx, orgId);
  if (!org) throw notFound(`organization "${orgId}" does not exist`);
  const unique = [...new Map(handles.map((h) => [`${h.type}:${h.value}`, h])).values()];
  for (const handle of unique) await createPersonFrom(ctx, org, { active: true, handles: [{ type: handle.type, value: handle.value }], groups: ['admins'] }, [handle]);
}

/** `/organizations` and `/organizations/suborganizations`. */
export function registerOrganizationTreeRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  const orgOut = (o: Org) => ({
    id: o.id,
    parent_id: o.parent_id,
    org_name: o.org_name,
    tenant_name: o.tenant_name,
    persons_pool_org_ids: o.settings.person_pool_orgs_ids ?? [],
    group_pool_org_ids: [o.id],
    inherits_rbac_pools: o.settings.rbac_pool_org_id !== undefined,
  });
  const children = async (id: string) => (await ctx.db.selectFrom('organizations').selectAll().where('parent_id', '=', id).orderBy('created_at').execute()).map((r) => ({ id: r.id, parent_id: r.parent_id, org_name: r.org_name, tenant_name: r.tenant_name }));
  app.get('/organizations', async (req) => {
    const org = await admin(req);
    return { result: { ...orgOut(org), managed_organizations: await children(org.id) } };
  });
  // Deletes the organization and everything stored for it (with `delete_suborganizations`, its whole subtree, deepest
  // first, in one transaction); its API key stops working with it.
  app.delete<Wire<'/organizations', 'delete'>>('/organizations', async (req, reply) => {
    const org = await admin(req);
    checkConfirmation(req.query.confirmation_timestamp);
    const subs = await children(org.id);
    if (subs.length && req.query.delete_suborganizations !== true) {
      throw conflict(`organization "${org.id}" has ${subs.length} suborganization${subs.length > 1 ? 's' : ''} (${subs.map((x) => x.id).join(', ')}): delete them first, or pass delete_suborganizations=true`);
    }
    const subtree: string[] = [];
    for (let level = [org.id]; level.length; ) {
      subtree.push(...level);
      level = (await ctx.db.selectFrom('organizations').select('id').where('parent_id', 'in', level).execute()).map((r) => r.id);
    }
    await writeOrganization(ctx, async (trx) => {
      for (const id of subtree.reverse()) await deleteOrganizationData(trx, id);
    });
    return reply.code(204).send();
  });
  app.get<Wire<'/organizations/suborganizations', 'get'>>('/organizations/suborganizations', async (req) => {
    const org = await admin(req);
    // The document answers the ids; `GET /organizations` lists them with their names.
    return { result: filterOrganizations(await children(org.id), req.query.filter).map((o) => o.id) };
  });
  app.post<Wire<'/organizations/suborganizations', 'post'>>(
    '/organizations/suborganizations',
    async (req, reply) => {
      const parent = await admin(req);
      const b = req.body;
      const name = b.sub_org_name ?? b.org_name;
      if (name === undefined) throw badRequest('name the new organization with sub_org_name');
      if (b.sub_org_name !== undefined && b.org_name !== undefined && b.sub_org_name !== b.org_name) throw badRequest('sub_org_name and org_name (its former name) disagree: give one of them');
      const pool = personPoolOf(parent, b.persons_org_id, b.share_person_pool);
      if (b.groups_org_id !== undefined || b.share_group_pool === true) throw badRequest('groups_org_id: this server shares no group pools (each organization has its own groups); leave it out');
      const admins = (b.admins ?? []).map((h) => parseHandle(h));
      const apiKey = `kw_${randomBytes(24).toString('base64url')}`;
      const id = `org_${randomBytes(10).toString('hex')}`;
      const settings: OrgSettings = {
        self_registration: parent.settings.self_registration,
        auto_activate: parent.settings.auto_activate,
        api_key_sha256: sha256(apiKey),
        ...(pool ? { person_pool_orgs_ids: [pool] } : {}),
        ...(b.inherit_rbac_pools ?? b.inherits_rbac_pools ? { rbac_pool_org_id: parent.id } : {}),
      };
      const tenant = b.tenant_name ?? name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
      await writeOrganization(ctx, (trx) => trx.insertInto('organizations').values({ id, parent_id: parent.id, org_name: name, tenant_name: tenant || id, settings: JSON.stringify(settings), created_at: nowIso() }).execute());
      if (admins.length) await addAdmins(ctx, id, admins);
      return { result: { id, parent_id: parent.id, org_name: name, tenant_name: tenant || id, api_key: apiKey } };
    },
  );
}

/** Allowed domains, token template, API key, attribute buckets. */
export function registerOrganizationSettingsRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  // Allowed domains: redirect targets, passkey origins and CORS for this organization.
  app.get('/organizations/config/domains', async (req) => ({ result: (await admin(req)).settings.allowed_domains ?? [] }));
  app.post<Wire<'/organizations/config/domains', 'post'>>('/organizations/config/domains', async (req, reply) => {
    const org = await admin(req);
    await updateSettings(ctx, org, (s) => {
      const current = new Set(req.query.overwrite === true ? [] : (s.allowed_domains ?? []));
      for (const d of req.body?.domains ?? []) current.add(d.toLowerCase());
      s.allowed_domains = [...current].sort();
    });
    return reply.code(204).send();
  });
  app.delete<Wire<'/organizations/config/domains', 'delete'>>('/organizations/config/domains', async (req, reply) => {
    const org = await admin(req);
    const named = [...(req.query.domain === undefined ? [] : [req.query.domain]), ...(req.body?.domains ?? [])].map((d) => d.toLowerCase());
    if (!named.length && req.query.deleteAll !== true) throw badRequest('name the domains to remove: the domain query parameter, a body {"domains": [...]}, or deleteAll=true');
    await updateSettings(ctx, org, (s) => {
      s.allowed_domains = req.query.deleteAll === true ? [] : (s.allowed_domains ?? []).filter((d) => !named.includes(d));
    });
    return reply.code(204).send();
  });

  app.get('/organizations/config/token-template', async (req) => ({ result: { content: (await admin(req)).settings.token_template ?? '{}' } }));
  app.put<Wire<'/organizations/config/token-template', 'put'>>('/organizations/config/token-template', async (req, reply) => {
    const org = await admin(req);
    checkTokenTemplate(req.body.content, org.settings.groups_claim_name);
    await updateSettings(ctx, org, (s) => {
      s.token_template = req.body.content;
    });
    return reply.code(204).send();
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
    const org = await admin(req);
    return {
      result: BUCKETS.map((name) => {
        const access = name.endsWith('read_write') ? 'read_write' : name.endsWith('read_only') ? 'read_only' : 'no_access';
        const pooled = name.startsWith('person_pool-');
        return { name, end_user_permissions: access, sharing_scope: pooled ? 'person_pool' : 'organization', owner_organization_id: org.id, end_user_access: access, shared_with_person_pool: pooled };
      }),
    };
  });

}

/** The sign-in configuration: `GET` and `PATCH /organizations/config`. */
export function registerOrganizationConfigRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  app.get('/organizations/config', async (req) => ({ result: configOut(ctx, (await admin(req)).settings) }));
  app.patch<Wire<'/organizations/config', 'patch'>>(
    '/organizations/config',
    async (req, reply) => {
      const org = await admin(req);
      const b = req.body;
      const denied = either({ name: 'deny_self_registration', value: b.deny_self_registration }, { name: 'allow_self_registration', value: b.allow_self_registration === undefined ? undefined : !b.allow_self_registration });
      const approval = either({ name: 'requires_manual_approval', value: b.requires_manual_approval }, { name: 'require_approval_for_new_persons', value: b.require_approval_for_new_persons });
      const patterns = either({ name: 'new_person_handle_patterns', value: b.new_person_handle_patterns }, { name: 'handle_patterns', value: b.handle_patterns });
      const duration = either({ name: 'token_duration', value: b.token_duration }, { name: 'token_duration_seconds', value: b.token_duration_seconds });
      const factors = either({ name: 'allowed_factor_methods', value: b.allowed_factor_methods }, { name: 'allowed_factors', value: b.allowed_factors });
      for (const p of [...(patterns ?? []), ...(b.password_validation_rules ?? []).map((r) => r.pattern)]) {
        try {
          new RegExp(p, 'u');
        } catch {
          throw badRequest(`pattern ${JSON.stringify(p)} is not a valid regular expression`);
        }
      }
      await updateSettings(ctx, org, (s) => {
        if (denied !== undefined) s.self_registration = !denied;
        if (approval !== undefined) s.auto_activate = !approval;
        if (patterns !== undefined) s.handle_patterns = patterns;
        if (duration !== undefined) s.token_duration_seconds = duration;
        if (factors !== undefined) s.allowed_factors = factors;
        if (b.authn_link_allowed_redirect_uris !== undefined) s.authn_link_allowed_redirect_uris = b.authn_link_allowed_redirect_uris;
        if (b.authn_redirect_page_ui_config !== undefined) s.authn_redirect_page_ui_config = b.authn_redirect_page_ui_config;
        if (b.sudo_mode_duration !== undefined) s.sudo_mode_duration = b.sudo_mode_duration;
        if (b.canonical_identity_ai_matching_enabled !== undefined) s.canonical_identity_ai_matching_enabled = b.canonical_identity_ai_matching_enabled;
        if (b.password_validation_rules !== undefined) s.password_validation_rules = b.password_validation_rules;
        if (b.groups_claim_name !== undefined) s.groups_claim_name = b.groups_claim_name;
        if (b.implicit_credential_sign_up !== undefined) s.implicit_credential_sign_up = b.implicit_credential_sign_up;
      });
      return reply.code(204).send();
    },
  );
}
