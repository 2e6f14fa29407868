import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { nowIso } from '../context.js';
import { badRequest, notFound } from '../http/errors.js';
import { requireApiKey } from '../http/guards.js';
import { checkRedirect } from '../http/origins.js';
import { directIdFor, RESET_PAGE_PATH, sendPasswordResetLink } from '../signin/one-time-sign-in.js';
import { rulesOf, setPassword, storePasswordHash } from '../signin/factors/password.js';
import { failedRules, importableHash } from '../signin/factors/password-hashing.js';
import { checkCustomClaims } from '../tokens/token-template.js';
import { parseHandle } from './handles.js';
import { credentialOut, type PersonRow } from './persons.js';
import { readCredentialImport, storeImportedCredentials, type ImportedCredential } from './credential-import.js';
import { CREDENTIAL_PREFIX } from '../signin/factors/webauthn.js';
import { orgPerson } from './person-store.js';
import type { Wire } from '../http/wire.js';

// Management API: a person's credentials (list, remove, set or import a password or TOTP secret, force a password
// change, send a reset link) and tokens made for them (direct-id links, minted tokens).

/** Listing, removing and setting credentials. */
export function registerCredentialRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  app.get<Wire<'/persons/{person_id}/credentials', 'get'>>('/persons/:person_id/credentials', async (req) => {
    const p = await orgPerson(ctx, await admin(req), req.params.person_id);
    const creds = await ctx.db.selectFrom('credentials').selectAll().where('person_id', '=', p.id).orderBy('created_at').execute();
    return { result: creds.map(credentialOut) };
  });
  app.delete<Wire<'/persons/{person_id}/credentials/{credential_id}', 'delete'>>('/persons/:person_id/credentials/:credential_id', async (req, reply) => {
    const p = await orgPerson(ctx, await admin(req), req.params.person_id);
    const res = await ctx.db.deleteFrom('credentials').where('person_id', '=', p.id).where('id', '=', req.params.credential_id).executeTakeFirst();
    if (Number(res.numDeletedRows) !== 1) throw notFound(`person "${p.id}" has no credential "${req.params.credential_id}"`);
    return reply.code(204).send();
  });
  app.delete<Wire<'/persons/{person_id}/credentials', 'delete'>>('/persons/:person_id/credentials', async (req, reply) => {
    const p = await orgPerson(ctx, await admin(req), req.params.person_id);
    await ctx.db.deleteFrom('credentials').where('person_id', '=', p.id).execute();
    return reply.code(204).send();
  });
  app.put<Wire<'/persons/{person_id}/credentials/password', 'put'>>('/persons/:person_id/credentials/password', async (req) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    const body = req.body;
    if ('params' in body) {
      // The public reference's shape: a password credential carrying a hash another system made.
      if (body.type !== 'password') throw badRequest(`type "${body.type}": this call sets a password; create other credentials with POST /persons/{person_id}/credentials`);
      await storePasswordHash(ctx, p.id, importableHash(body.params.password_hash), body.label, 'management');
    } else {
      if (!body.skip_validation) {
        const failed = failedRules(body.password, rulesOf(org));
        if (failed.length) throw badRequest(`password does not satisfy the validation rules: ${failed.join(', ')}`);
      }
      await setPassword(ctx, p.id, body.password, body.label, 'management');
    }
    const cred = await ctx.db.selectFrom('credentials').selectAll().where('person_id', '=', p.id).where('type', '=', 'password').executeTakeFirstOrThrow();
    return { result: credentialOut(cred) };
  });
  // Sets a password (hashed here), or imports a TOTP secret or a credential another system made (see credential-import.ts).
  app.post<Wire<'/persons/{person_id}/credentials', 'post'>>(
    '/persons/:person_id/credentials',
    async (req, reply) => {
      const p = await orgPerson(ctx, await admin(req), req.params.person_id);
      const body = req.body;
      let type: string = 'password';
      let id: string | undefined;
      if ('password' in body) await setPassword(ctx, p.id, body.password, body.label ?? 'Password', 'management');
      else {
        const imported: ImportedCredential = 'secret' in body
          ? { type: 'totp', label: body.label ?? 'Authenticator app', secret: { secret: body.secret.replace(/=+$/, ''), last_time_step: 0, recovery_hashes: [] }, total: 0 }
          : readCredentialImport(body);
        await ctx.db.transaction().execute((trx) => storeImportedCredentials(trx, p.id, [imported]));
        type = imported.type;
        if (imported.type === 'public-key') id = CREDENTIAL_PREFIX + imported.passkey.credential_id;
      }
      const query = ctx.db.selectFrom('credentials').selectAll().where('person_id', '=', p.id);
      const cred = await (id ? query.where('id', '=', id) : query.where('type', '=', type)).executeTakeFirstOrThrow();
      reply.code(201);
      return { result: credentialOut(cred) };
    },
  );
}

/** Password rotation and reset links. */
export function registerPasswordResetRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  // Marks the password compromised: password sign-ins are refused until a new one is set; with a handle, a reset link goes out now.
  app.post<Wire<'/persons/{person_id}/credentials/password-rotate', 'post'>>(
    '/persons/:person_id/credentials/password-rotate',
    async (req) => {
      const org = await admin(req);
      const p = await orgPerson(ctx, org, req.params.person_id);
      if (!(await passwordOf(p))) throw notFound(`person "${p.id}" has no password`);
      const reset = req.body?.handle ? await ownedResetHandle(org, p, req.body.handle, req.body.redirect_target) : undefined;
      await requireRotation(p, req.body?.reason ?? null);
      if (reset) await sendPasswordResetLink(ctx, org, p.id, reset.handle, reset.target);
      return { result: { rotation_required: true } };
    },
  );
  const passwordOf = (p: PersonRow) => ctx.db.selectFrom('credentials').selectAll().where('person_id', '=', p.id).where('type', '=', 'password').executeTakeFirst();
  /** Refuses sign-ins with the current password (if any) until a new one is set. */
  const requireRotation = async (p: PersonRow, reason: string | null) => {
    const cred = await passwordOf(p);
    if (!cred) return;
    const secret = { ...(JSON.parse(cred.secret) as Record<string, unknown>), rotation_required: true, rotation_reason: reason };
    await ctx.db.updateTable('credentials').set({ secret: JSON.stringify(secret) }).where('id', '=', cred.id).execute();
  };
  /** The handle a reset link goes to when none is named: the person's first e-mail address, else phone number. */
  const firstReachableHandle = async (p: PersonRow) => {
    const rows = await ctx.db.selectFrom('handles').select(['type', 'value']).where('person_id', '=', p.id).where('type', 'in', ['email_address', 'phone_number']).orderBy('created_at').execute();
    const pick = rows.find((h) => h.type === 'email_address') ?? rows[0];
    if (!pick) throw badRequest(`person "${p.id}" has no e-mail address or phone number to send a reset link to`);
    return pick;
  };
  /** A handle of the person that can receive a reset link, with the page that completes the reset. */
  const ownedResetHandle = async (org: Org, p: PersonRow, raw: { type: string; value: string }, redirectTarget: string | undefined) => {
    const handle = parseHandle(raw);
    if (handle.type === 'username') throw badRequest('a password reset link goes to an email address or phone number');
    const owns = await ctx.db.selectFrom('handles').select('id').where('person_id', '=', p.id).where('type', '=', handle.type).where('value', '=', handle.value).executeTakeFirst();
    if (!owns) throw notFound(`person "${p.id}" has no handle ${handle.type}:${handle.value}`);
    if (!redirectTarget) throw badRequest('redirect_target is required: the page of your application that completes the reset with the SDK');
    return { handle, target: checkRedirect(ctx, org, redirectTarget, 'redirect_target') };
  };
  app.post<Wire<'/persons/{person_id}/credentials/password-reset', 'post'>>(
    '/persons/:person_id/credentials/password-reset',
    async (req, reply) => {
      const org = await admin(req);
      const p = await orgPerson(ctx, org, req.params.person_id);
      // Without redirect_target, the link opens this server's own reset page (signin/password-reset-page.ts).
      const page = req.body.redirect_target ?? `${ctx.publicUrl}${RESET_PAGE_PATH}`;
      const { handle, target } = await ownedResetHandle(org, p, req.body.reset_handle ?? req.body.handle ?? (await firstReachableHandle(p)), page);
      if (req.body.force_change) await requireRotation(p, 'password reset requested with force_change');
      await sendPasswordResetLink(ctx, org, p.id, handle, target);
      reply.code(202);
      return { result: { sent_to: handle } };
    },
  );
}

/** Direct-id links and tokens minted for a person. */
export function registerPersonTokenRoutes(app: FastifyInstance, ctx: Ctx): void {
  const admin = (req: FastifyRequest) => requireApiKey(ctx, req);
  app.post<Wire<'/persons/{person_id}/direct-id', 'post'>>('/persons/:person_id/direct-id', async (req, reply) => {
    const org = await admin(req);
    const p = await orgPerson(ctx, org, req.params.person_id);
    reply.code(201);
    return { result: await directIdFor(ctx, org, p.id, req.body?.duration_secs ?? 300) };
  });

  app.post<Wire<'/persons/{person_id}/mint-token', 'post'>>(
    '/persons/:person_id/mint-token',
    async (req, reply) => {
      const org = await admin(req);
      const p = await orgPerson(ctx, org, req.params.person_id);
      const custom = checkCustomClaims(req.body?.custom_claims ?? {}, org.settings.groups_claim_name);
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
      reply.code(201);
      return { result: token };
    },
  );
}
