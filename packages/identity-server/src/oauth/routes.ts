import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { forbidden } from '../http/errors.js';
import { requireOrg, requireUser } from '../http/guards.js';
import * as S from '../http/schemas.js';
import { loadOrg } from '../organizations/settings.js';
import { getPerson } from '../persons/persons.js';
import { verifiedHandles } from '../persons/proofs.js';
import { createChallenge } from '../signin/challenges.js';

// A person's token for another organization (`/token`, suborganizations and person pools) and OpenID Connect userinfo.

/** Token for another organization of the person (suborganization or person pool); v2 wraps it in a token container. */
export function registerOrgTokenRoutes(app: FastifyInstance, ctx: Ctx): void {
  const tokenFor = (version: 1 | 2) => async (req: FastifyRequest) => {
    const claims = await requireUser(ctx, req);
    const target = await requireOrg(ctx, req);
    let allowed = target.id === claims.oid || (target.settings.person_pool_orgs_ids ?? []).includes(claims.oid);
    for (let o: Org | undefined = target; !allowed && o?.parent_id; ) {
      o = await loadOrg(ctx, o.parent_id);
      if (o?.id === claims.oid) allowed = true;
    }
    if (!allowed) throw forbidden(`person has no access to organization "${target.id}"`);
    const required = target.settings.required_factor;
    if (required && !claims.authenticated_methods.includes(required.method)) {
      const row = await createChallenge(ctx, { org: target, type: 'authn_context_update', method: required.method, personId: claims.person_id });
      return {
        result: {
          type: 'challenge_list',
          challenges: [{ id: row.id, type: 'authn_context_update', authentication_method: required.method, options: { target_org_id: target.id, factor: { method: required.method, options: required.options ?? {} } } }],
        },
      };
    }
    const person = await getPerson(ctx, claims.person_id);
    const personType = person?.person_type ?? claims.person_type;
    const userToken = await ctx.tokens.sign({
      person_id: claims.person_id,
      oid: target.id,
      first_token: false,
      authenticated_methods: claims.authenticated_methods,
      authentications: claims.authentications,
      person_type: personType,
      groups: person ? (JSON.parse(person.groups) as string[]) : [],
    });
    // Derived tokens: revoking the caller's token (or signing out) revokes them.
    if (version === 1) {
      await ctx.tokens.recordDerived(userToken, claims.jti);
      return { result: { type: 'token', token: userToken } };
    }
    const container = await ctx.tokens.signJwt(
      { user_token: userToken, oid: target.id, person_id: claims.person_id, person_type: personType },
      { use: 'container', subject: claims.person_id, audience: target.id },
    );
    const containerJti = await ctx.tokens.recordDerived(container, claims.jti);
    await ctx.tokens.recordDerived(userToken, containerJti);
    return { result: { type: 'token', token: container } };
  };
  app.get('/token', tokenFor(1));
  app.get('/token/v2', tokenFor(2));
  // The published client asks with POST and its CSRF/PKCE metadata in the body (spec §7 names GET): both are served.
  app.post('/token/v2', { schema: { body: S.tokenForOrgRequest } }, tokenFor(2));
}

/** OpenID Connect userinfo for access tokens of the hosted login (any valid user token works the same way). */
export function registerUserinfoRoutes(app: FastifyInstance, ctx: Ctx): void {
  const userinfo = async (req: FastifyRequest, reply: FastifyReply) => {
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const v = token ? await ctx.tokens.validate(token, 'userinfo') : undefined;
    if (!v?.valid) {
      reply.header('www-authenticate', 'Bearer error="invalid_token"');
      return reply.code(401).send({ error: 'invalid_token', error_description: v ? v.invalidity_reason : 'missing bearer access token' });
    }
    const person = await getPerson(ctx, v.claims.person_id);
    if (!person) return reply.code(401).send({ error: 'invalid_token', error_description: 'token person no longer exists' });
    const { email, phone, username } = await verifiedHandles(ctx, person.id);
    reply.header('cache-control', 'no-store');
    return {
      sub: person.id,
      // Who answers, for whom (the token's client; a plain user token's audience is its organization) and in which organization.
      iss: ctx.publicUrl,
      aud: v.claims.client_id ?? v.claims.oid,
      org_id: v.claims.oid,
      // Whether each was proved (#36): a code or link answered, a trusted provider, or the organization's import saying so.
      ...(email ? { email: email.value, email_verified: email.verified } : {}),
      ...(phone ? { phone_number: phone.value, phone_number_verified: phone.verified } : {}),
      ...(username ? { preferred_username: username, username } : {}),
      groups: JSON.parse(person.groups) as string[],
    };
  };
  app.get('/oauth2/userinfo', userinfo);
  app.post('/oauth2/userinfo', userinfo);
}
