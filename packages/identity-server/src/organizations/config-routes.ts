import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx, Org, OrgSettings } from '../context.js';
import { nowIso } from '../context.js';
import { loadOrg } from './settings.js';
import { externalCredentialContext } from './external-credentials.js';
import type { ExternalCredentialTable } from '../db/schema.js';
import { badRequest, notFound } from '../http/errors.js';
import { DEFAULT_TEMPLATES, LEGACY_TEMPLATE_NAMES, REQUIRED_PLACEHOLDER, storedTemplate, TEMPLATE_NAMES, type EmailTemplate, type TemplateName } from '../email/templates.js';
import { requireApiKey } from '../http/guards.js';
import { updateSettings } from './settings.js';
import type { Wire } from '../http/wire.js';

type Fields = Record<string, string | number | boolean>;

/** The pricing tiers the quota endpoints report. */
export const PRICING_TIERS = [
  { name: 'free', monthly_active_persons: 1000, suborganizations: 0, api_calls_per_minute: 600, price_per_month_usd: 0 },
  { name: 'growth', monthly_active_persons: 10_000, suborganizations: 10, api_calls_per_minute: 6000, price_per_month_usd: 240 },
  { name: 'enterprise', monthly_active_persons: 1_000_000, suborganizations: 1000, api_calls_per_minute: 60_000, price_per_month_usd: 2400 },
].map((t) => ({ ...t, max_suborganizations: t.suborganizations, custom_templates_allowed: true, nhi_external_connections_allowed: false }));

export interface KycConfig {
  mobile_redirect_base_url?: string;
  enabled: boolean;
  provider?: 'none' | 'document_check' | 'bank_id';
  required_for_registration?: boolean;
  allowed_document_countries?: string[];
}

/** An external credential under the public reference's names and ours; the secret is never returned, only its top-level names. */
const credentialOut = (c: ExternalCredentialTable, secretNames: string[]) => ({
  external_cred_id: c.id,
  organization_id: c.org_id,
  extcred_label: c.label,
  extcred_provider: c.provider,
  extcred_type: c.cred_type,
  id: c.id,
  label: c.label,
  ...(c.type ? { type: c.type } : {}),
  public_fields: JSON.parse(c.public_fields) as Fields,
  secret_field_names: secretNames,
  created_at: c.created_at,
});

/** External credentials (the secret sealed with AES-256-GCM, never returned). */
export function registerExternalCredentialRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  const context = externalCredentialContext;
  const secretOf = (c: ExternalCredentialTable) => ctx.sealer.open<Record<string, unknown>>(c.secret_fields, context(c));
  const out = (c: ExternalCredentialTable) => credentialOut(c, Object.keys(secretOf(c)).sort());
  const one = async (org: Org, id: string) => {
    const row = await ctx.db.selectFrom('external_credentials').selectAll().where('org_id', '=', org.id).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(`external credential "${id}" does not exist`);
    return row;
  };

  app.get('/organizations/config/external-credentials', async (req) => {
    const org = await admin(req);
    return { result: (await ctx.db.selectFrom('external_credentials').selectAll().where('org_id', '=', org.id).orderBy('created_at').orderBy('id').execute()).map(out) };
  });
  app.post<Wire<'/organizations/config/external-credentials', 'post'>>('/organizations/config/external-credentials', async (req, reply) => {
    const org = await admin(req);
    const b = req.body;
    // The public reference's form (provider, type, json_blob) or ours (type, label, fields); never half of each.
    const documentForm = b.extcred_provider !== undefined || b.extcred_type !== undefined || b.json_blob !== undefined;
    if (documentForm && (b.extcred_provider === undefined || b.extcred_type === undefined || b.json_blob === undefined)) throw badRequest('give extcred_provider, extcred_type and json_blob together');
    if (!documentForm && b.type === undefined) throw badRequest('give extcred_provider, extcred_type and json_blob (or the former type and label)');
    if (documentForm && (b.type !== undefined || b.secret_fields !== undefined)) throw badRequest('type and secret_fields belong to the former form: use extcred_type and json_blob');
    const label = b.extcred_label ?? b.label ?? (documentForm ? `${b.extcred_provider} ${b.extcred_type}` : undefined);
    if (label === undefined) throw badRequest('give extcred_label');
    const id = randomUUID();
    const row: ExternalCredentialTable = {
      id,
      org_id: org.id,
      label,
      type: b.type ?? '',
      provider: b.extcred_provider ?? 'generic',
      cred_type: b.extcred_type ?? 'json_credentials',
      public_fields: JSON.stringify(b.public_fields ?? {}),
      secret_fields: ctx.sealer.seal(b.json_blob ?? b.secret_fields ?? {}, context({ org_id: org.id, id })),
      created_at: nowIso(),
    };
    await ctx.db.insertInto('external_credentials').values(row).execute();
    reply.code(201);
    return { result: [id] };
  });
  app.get<Wire<'/organizations/config/external-credentials/{cred_id}', 'get'>>('/organizations/config/external-credentials/:cred_id', async (req) => ({ result: out(await one(await admin(req), req.params.cred_id)) }));
  app.patch<Wire<'/organizations/config/external-credentials/{cred_id}', 'patch'>>('/organizations/config/external-credentials/:cred_id', async (req, reply) => {
    const org = await admin(req);
    const row = await one(org, req.params.cred_id);
    const b = req.body;
    const secret = b.json_blob ?? { ...secretOf(row), ...b.secret_fields };
    const label = b.extcred_label ?? b.label ?? row.label;
    const public_fields = b.public_fields !== undefined ? JSON.stringify(b.public_fields) : row.public_fields;
    await ctx.db.updateTable('external_credentials').set({ label, public_fields, secret_fields: ctx.sealer.seal(secret, context(row)) }).where('id', '=', row.id).execute();
    return reply.code(204).send();
  });
  app.delete<Wire<'/organizations/config/external-credentials', 'delete'>>('/organizations/config/external-credentials', async (req, reply) => {
    const org = await admin(req);
    if (req.query.deleteAll === true) {
      await ctx.db.deleteFrom('external_credentials').where('org_id', '=', org.id).execute();
      return reply.code(204).send();
    }
    const id = req.query.credentialId ?? req.query.cred_id;
    if (id === undefined) throw badRequest('name the external credential to remove with credentialId (or pass deleteAll=true)');
    const row = await one(org, id);
    await ctx.db.deleteFrom('external_credentials').where('id', '=', row.id).execute();
    return reply.code(204).send();
  });
}

/** Pricing tiers are reported (the organization's `pricing_tier` setting, default free); this server enforces none of their limits. */
export function registerQuotaRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  app.get('/organizations/quota/all-tiers', async (req) => {
    await admin(req);
    return { result: PRICING_TIERS };
  });
  /** The tier of the root of the organization's hierarchy. */
  const tierOf = async (org: Org) => {
    for (let parent = org.parent_id; parent; ) {
      const up = await loadOrg(ctx, parent);
      if (!up) break;
      org = up;
      parent = up.parent_id;
    }
    return PRICING_TIERS.find((t) => t.name === org.settings.pricing_tier) ?? PRICING_TIERS[0]!;
  };
  app.get('/organizations/quota/current-tier', async (req) => ({ result: await tierOf(await admin(req)) }));
  app.get('/organizations/quota/usage', async (req) => {
    const org = await admin(req);
    const now = new Date();
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const month = start.toISOString().slice(0, 7);
    // The organization and every organization below it.
    const ids = [org.id];
    for (let i = 0; i < ids.length; i++) ids.push(...(await ctx.db.selectFrom('organizations').select('id').where('parent_id', '=', ids[i]!).execute()).map((r) => r.id));
    const organizations = [];
    for (const id of ids) {
      const active = await ctx.db.selectFrom('monthly_active').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', id).where('month', '=', month).executeTakeFirst();
      const persons = await ctx.db.selectFrom('persons').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', id).executeTakeFirst();
      organizations.push({ id, monthly_active_persons: Number(active?.n ?? 0), persons: Number(persons?.n ?? 0) });
    }
    const total = organizations.reduce((sum, o) => sum + o.monthly_active_persons, 0);
    const groups = await ctx.db.selectFrom('groups').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', 'in', ids).executeTakeFirst();
    return {
      result: {
        period_start: start.toISOString(),
        period_end: end.toISOString(),
        organizations,
        total_monthly_active_persons: total,
        num_persons: organizations.reduce((sum, o) => sum + o.persons, 0),
        num_groups: Number(groups?.n ?? 0),
        num_suborganizations: ids.length - 1,
        pricing_tier_details: await tierOf(org),
      },
    };
  });
}

/** E-mail templates and the KYC configuration. */
export function registerTemplateAndKycRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  // Message templates: the organization's replacement, else the built-in one. Legacy names (`otp_via_email` …) name the
  // same e-mail templates; a replacement is stored under the public reference's name.
  const templateOut = (org: Org, name: TemplateName) => {
    const custom = storedTemplate(org.settings.email_templates, name);
    return { name, ...(custom ?? DEFAULT_TEMPLATES[name]), customized: custom !== undefined };
  };
  const templateName = (raw: string): TemplateName => {
    if ((TEMPLATE_NAMES as readonly string[]).includes(raw)) return raw as TemplateName;
    const legacy = LEGACY_TEMPLATE_NAMES[raw];
    if (!legacy) throw notFound(`template "${raw}" does not exist (use one of ${TEMPLATE_NAMES.join(', ')})`);
    return legacy;
  };
  app.get('/organizations/config/templates', async (req) => {
    await admin(req);
    return { result: [...TEMPLATE_NAMES] };
  });
  app.get<Wire<'/organizations/config/templates/{template_name}', 'get'>>('/organizations/config/templates/:template_name', async (req) => ({ result: templateOut(await admin(req), templateName(req.params.template_name)) }));
  // Changes the fields given; the rest stays as it is (the replacement, else the built-in text).
  app.put<Wire<'/organizations/config/templates/{template_name}', 'put'>>('/organizations/config/templates/:template_name', async (req, reply) => {
    const org = await admin(req);
    const name = templateName(req.params.template_name);
    const b = req.body ?? {};
    const given = b.body ?? b.html_body;
    const bodyField = b.body !== undefined ? 'body' : 'html_body';
    const needed = REQUIRED_PLACEHOLDER[name];
    const has = (s: string | undefined) => s === undefined || new RegExp(`\\{\\{\\s*${needed}\\s*\\}\\}`).test(s);
    if (needed && !has(given)) throw badRequest(`${bodyField} of the ${name} template must contain {{ ${needed} }}`);
    if (needed && !has(b.text_body)) throw badRequest(`text_body of the ${name} template must contain {{ ${needed} }}`);
    const current = storedTemplate(org.settings.email_templates, name) ?? DEFAULT_TEMPLATES[name];
    // A new body makes the old plain-text alternative stale: it is derived from the new body unless one is given.
    const textBody = b.text_body ?? (given === undefined ? current.text_body : undefined);
    const senderName = b.sender_name ?? current.sender_name;
    const subject = b.subject ?? current.subject;
    const stored: EmailTemplate = {
      ...(subject !== undefined ? { subject } : {}),
      body: given ?? current.body,
      ...(textBody !== undefined ? { text_body: textBody } : {}),
      ...(senderName !== undefined ? { sender_name: senderName } : {}),
      updated_at: nowIso(),
    };
    await updateSettings(ctx, org, (s) => {
      const legacy = Object.keys(LEGACY_TEMPLATE_NAMES).find((k) => LEGACY_TEMPLATE_NAMES[k] === name);
      const { [legacy ?? name]: _old, ...others } = s.email_templates ?? {};
      s.email_templates = { ...others, [name]: stored };
    });
    return reply.code(204).send();
  });

  const kycOut = (s: OrgSettings): Required<Omit<KycConfig, 'mobile_redirect_base_url'>> & Pick<KycConfig, 'mobile_redirect_base_url'> => ({ enabled: false, provider: 'none', required_for_registration: false, allowed_document_countries: [], ...s.kyc });
  app.get('/organizations/config/kyc', async (req) => ({ result: kycOut((await admin(req)).settings) }));
  app.patch<Wire<'/organizations/config/kyc', 'patch'>>('/organizations/config/kyc', async (req, reply) => {
    await updateSettings(ctx, await admin(req), (s) => {
      s.kyc = { enabled: false, ...s.kyc, ...req.body };
    });
    return reply.code(204).send();
  });
}
