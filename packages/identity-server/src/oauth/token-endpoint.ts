import formbody from '@fastify/formbody';
import { decodeJwt } from 'jose';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Ctx, OAuthClient, Org } from '../context.js';
import { hashSecret, sameDigest } from '../crypto/secrets.js';
import { ApiError, answerMessage, badRequest, errorEnvelope } from '../http/errors.js';
import { describeValidation, type ValidationIssue } from '../http/validation.js';
import { getPerson } from '../persons/persons.js';
import { challengeData } from '../signin/challenges.js';
import type { UserTokenClaims } from '../tokens/token-service.js';
import { authenticateClient, s256, str, twoClientAuthentications, type OAuthRequest } from './protocol.js';
import { consumeRefreshToken, familyRevoked, findRefreshToken, refreshEnabled, revokeFamily } from './refresh-tokens.js';
import { noteClientUse } from './client-usage.js';
import { issueOAuthTokens } from './tokens.js';
import type { Wire } from '../http/wire.js';

// The OAuth2 token endpoint (`/oauth2/tokens`: authorization code with PKCE, refresh token with rotation, client
// credentials) and RFC 7662 introspection / RFC 7009 revocation.

type Form = Record<string, string>;
type Caller = { org: Org; client: OAuthClient };
/** An OAuth error answer: RFC 6749 fields plus the Keyway envelope's errors. */
type OAuthError = (status: number, error: string, description: string) => FastifyReply;

/** RFC 6749 §6 with rotation (OAuth 2.0 Security BCP §4.14). */
async function refreshTokenGrant(ctx: Ctx, caller: Caller, b: Form, reply: FastifyReply, oauthError: OAuthError) {
  // RFC 6749 §6 with rotation (OAuth 2.0 Security BCP §4.14): each refresh token works once; using one again
  // revokes its whole family, since either the client or an attacker holds a copy.
  const { client, org } = caller;
  if (!b.refresh_token) return oauthError(400, 'invalid_request', 'refresh_token is required');
  const row = await findRefreshToken(ctx, b.refresh_token);
  if (!row || row.org_id !== org.id) return oauthError(400, 'invalid_grant', 'refresh token is not valid');
  if (row.client_id !== client.client_id) return oauthError(400, 'invalid_grant', 'refresh token was issued to another client');
  if (row.status === 'revoked') return oauthError(400, 'invalid_grant', 'refresh token has been revoked');
  const reused = async () => {
    await revokeFamily(ctx, row.family_id);
    return oauthError(400, 'invalid_grant', 'refresh token was already used: every token of this grant has been revoked');
  };
  if (row.status === 'used') return reused();
  if (Date.parse(row.expires_at) <= Date.now()) return oauthError(400, 'invalid_grant', 'refresh token has expired');
  if (!refreshEnabled(client)) return oauthError(400, 'unauthorized_client', 'this client is not allowed the refresh_token grant');
  const granted = row.scope.split(' ').filter(Boolean);
  const requested = (b.scope ?? '').split(' ').filter(Boolean);
  const outside = requested.filter((x) => !granted.includes(x));
  if (outside.length) return oauthError(400, 'invalid_scope', `scopes not granted by this refresh token: ${outside.join(' ')}`);
  const person = await getPerson(ctx, row.person_id);
  if (!person || !person.active) return oauthError(400, 'invalid_grant', person ? answerMessage('signInAwaitingApproval', { person_id: person.id }) : 'person no longer exists');
  // Of two concurrent uses only one wins; the other is a reuse.
  if (!(await consumeRefreshToken(ctx, row.id))) return reused();
  const scope = (requested.length ? requested : granted).join(' ');
  try {
    const out = await issueOAuthTokens(ctx, client, person, JSON.parse(row.authentications) as UserTokenClaims['authentications'], {
      scope,
      idToken: scope.split(' ').includes('openid'),
      // The person signed in once, for the original grant: every refresh keeps that time (OpenID Connect Core §12.2).
      authTime: row.auth_time === null ? Math.floor(Date.parse(row.created_at) / 1000) : Number(row.auth_time),
      sessionId: row.session_id ?? undefined,
      refresh: { org, familyId: row.family_id, grantScope: row.scope },
    });
    // A reuse revoked the family while this rotation ran: the new tokens go with it.
    if (await familyRevoked(ctx, row.family_id)) {
      await revokeFamily(ctx, row.family_id);
      return oauthError(400, 'invalid_grant', 'refresh token has been revoked');
    }
    reply.header('cache-control', 'no-store');
    return out;
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return oauthError(400, 'invalid_grant', err.message);
    throw err;
  }
}

/** Machine to machine (RFC 6749 §4.4). */
async function clientCredentialsGrant(ctx: Ctx, caller: Caller, b: Form, reply: FastifyReply, oauthError: OAuthError) {
  // Machine to machine: a confidential client that authenticated with its secret gets a token for itself.
  const { client, org } = caller;
  if (client.public || !client.secret_sha256) return oauthError(400, 'unauthorized_client', 'public clients cannot use client_credentials: they hold no secret');
  if (!(client.grant_types ?? []).includes('client_credentials')) return oauthError(400, 'unauthorized_client', 'this client is not allowed the client_credentials grant');
  const requested = (b.scope ?? '').split(' ').filter(Boolean);
  const allowed = client.scopes ?? [];
  const outside = requested.filter((x) => !allowed.includes(x));
  if (outside.length) return oauthError(400, 'invalid_scope', `scopes not granted to this client: ${outside.join(' ')}`);
  const scope = (requested.length ? requested : allowed).join(' ');
  const ttl = client.access_token_duration ?? ctx.tokens.opts.ttlSeconds;
  const access_token = await ctx.tokens.signJwt({ client_id: client.client_id, oid: org.id, scope }, { use: 'client', subject: client.client_id, audience: org.id, ttlSeconds: ttl });
  await noteClientUse(ctx, org.id, client.client_id);
  reply.header('cache-control', 'no-store');
  return { access_token, token_type: 'bearer', expires_in: ttl, scope };
}

/** What the server keeps of an authorization request and, once exchanged, what its code gave. */
type CodeData = OAuthRequest & {
  authentications: UserTokenClaims['authentications'];
  auth_time?: number;
  /** The session (its token's jti) the code was authorized in. */
  parent_jti?: string;
  issued?: { access_jti: string; access_exp: number; family_id?: string };
  replayed?: boolean;
};

async function revokeIssued(ctx: Ctx, issued: NonNullable<CodeData['issued']>): Promise<void> {
  await ctx.tokens.revoke({ jti: issued.access_jti, exp: issued.access_exp });
  if (issued.family_id) await revokeFamily(ctx, issued.family_id);
}

/**
 * A code presented a second time: either the client or someone who copied it holds the tokens of the first exchange,
 * so they are revoked (RFC 6749 §4.1.2, RFC 9700 §4.2.4), and the code is marked so that an exchange still under way
 * revokes its own tokens when it ends.
 */
async function replayed(ctx: Ctx, codeId: string, data: CodeData, oauthError: OAuthError) {
  const row = await ctx.db.selectFrom('challenges').select('data').where('id', '=', codeId).executeTakeFirst();
  const current = row ? (JSON.parse(row.data) as CodeData) : data;
  await ctx.db.updateTable('challenges').set({ data: JSON.stringify({ ...current, replayed: true }) }).where('id', '=', codeId).execute();
  if (current.issued) await revokeIssued(ctx, current.issued);
  return oauthError(400, 'invalid_grant', 'authorization code was already used: the tokens it gave have been revoked');
}

/** RFC 6749 §4.1.3 with PKCE (RFC 7636, S256 only). */
async function authorizationCodeGrant(ctx: Ctx, caller: Caller, b: Form, reply: FastifyReply, oauthError: OAuthError) {
  if (!(caller.client.grant_types ?? ['authorization_code']).includes('authorization_code')) return oauthError(400, 'unauthorized_client', 'this client is not allowed the authorization_code grant');
  b.client_id = caller.client.client_id;
  for (const f of ['code', 'redirect_uri'] as const) {
    if (!b[f]) return oauthError(400, 'invalid_request', `${f} is required`);
  }
  const [id, secret] = b.code!.split('.', 2);
  const row = id ? await ctx.db.selectFrom('challenges').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
  if (!row || row.type !== 'oauth_code' || !secret || row.secret_hash === null || !sameDigest(hashSecret(row.id, secret), row.secret_hash)) {
    return oauthError(400, 'invalid_grant', 'authorization code is not valid');
  }
  const data = challengeData(row) as unknown as CodeData;
  if (row.status !== 'pending') return replayed(ctx, row.id, data, oauthError);
  if (Date.parse(row.expires_at) <= Date.now()) return oauthError(400, 'invalid_grant', 'authorization code has expired');
  if (data.client_id !== b.client_id || data.redirect_uri !== b.redirect_uri) return oauthError(400, 'invalid_grant', 'client_id or redirect_uri does not match the authorization request');
  if (data.code_challenge === undefined) {
    // Authorized without PKCE: only a confidential client, authenticated with its secret, may redeem the code.
    if (caller.client.public || !caller.client.secret_sha256) return oauthError(400, 'invalid_grant', 'code_verifier is required');
    if (b.code_verifier) return oauthError(400, 'invalid_grant', 'the authorization request had no code_challenge: send no code_verifier');
  } else {
    if (!b.code_verifier) return oauthError(400, 'invalid_request', 'code_verifier is required');
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(b.code_verifier) || s256(b.code_verifier) !== data.code_challenge) return oauthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge');
  }
  const consumed = await ctx.db.updateTable('challenges').set({ status: 'completed' }).where('id', '=', row.id).where('status', '=', 'pending').executeTakeFirst();
  if (Number(consumed.numUpdatedRows) !== 1) return replayed(ctx, row.id, data, oauthError);
  const parent = data.parent_jti;
  if (parent && (await ctx.tokens.isRevoked(parent))) return oauthError(400, 'invalid_grant', 'the session that authorized this code has ended');
  const person = await getPerson(ctx, row.person_id!);
  if (!person || !person.active) return oauthError(400, 'invalid_grant', person ? answerMessage('signInAwaitingApproval', { person_id: person.id }) : 'person no longer exists');
  reply.header('cache-control', 'no-store');
  try {
    const out = await issueOAuthTokens(ctx, caller.client, person, data.authentications, { scope: data.scope, nonce: data.nonce, idToken: true, authTime: data.auth_time, sessionId: data.parent_jti, refresh: { org: caller.org, grantScope: data.scope } });
    // What the code gave, so that a replay of the code can take it back (RFC 6749 §4.1.2).
    const access = decodeJwt(out.access_token);
    const family = out.refresh_token ? (await findRefreshToken(ctx, out.refresh_token))?.family_id : undefined;
    const issued: CodeData['issued'] = { access_jti: String(access.jti), access_exp: Number(access.exp), ...(family ? { family_id: family } : {}) };
    await ctx.db.updateTable('challenges').set({ data: JSON.stringify({ ...data, issued }) }).where('id', '=', row.id).execute();
    // A replay that came while these tokens were being issued found nothing to revoke yet: look again.
    const again = await ctx.db.selectFrom('challenges').select('data').where('id', '=', row.id).executeTakeFirst();
    if (again && (JSON.parse(again.data) as CodeData).replayed) {
      await revokeIssued(ctx, issued);
      return oauthError(400, 'invalid_grant', 'authorization code was used twice: the tokens it gave have been revoked');
    }
    return out;
  } catch (err) {
    // A sync hook refused the token.
    if (err instanceof ApiError && err.status === 403) return oauthError(400, 'invalid_grant', err.message);
    throw err;
  }
}

/**
 * `/oauth2/tokens/revoke-all`: every token this client holds for one person (or the client itself, for client
 * credentials tokens), optionally only those issued before `until`.
 */
function registerRevokeAll(scope: FastifyInstance, ctx: Ctx): void {
  scope.post<Wire<'/oauth2/tokens/revoke-all', 'post'>>(
    '/oauth2/tokens/revoke-all',
    { schema: { body: { type: 'object', additionalProperties: false, properties: { person_id: str, subject: str, until: { type: 'string', format: 'date-time' }, client_id: str, client_secret: str } } } },
    async (req, reply) => {
      const caller = await authenticateClient(ctx, req, req.body);
      if (!caller || caller.client.public || !caller.client.secret_sha256) {
        return invalidClient(reply, 'client authentication failed (a confidential client with its secret is required)');
      }
      const subject = req.body.person_id ?? req.body.subject;
      if (!subject) throw badRequest('body is missing required field "person_id"');
      if (req.body.person_id && req.body.subject && req.body.person_id !== req.body.subject) throw badRequest('person_id and subject name different persons: give one of them');
      const until = req.body.until === undefined ? Date.now() : Date.parse(req.body.until);
      if (until > Date.now() + 1000) throw badRequest('until must not be in the future');
      await ctx.tokens.revokeAll(caller.client.client_id, subject, Math.floor(until / 1000));
      await ctx.db
        .updateTable('oauth_refresh_tokens')
        .set({ status: 'revoked' })
        .where('org_id', '=', caller.org.id)
        .where('client_id', '=', caller.client.client_id)
        .where('person_id', '=', subject)
        .where('status', '=', 'active')
        .where('created_at', '<', new Date(until).toISOString())
        .execute();
      return reply.code(200).send();
    },
  );
}

/** An OAuth error answer (RFC 6749 §5.2): its fields plus the Keyway envelope's errors, never cached. */
const sendOAuthError = (reply: FastifyReply, status: number, error: string, description: string) =>
  reply.code(status).header('cache-control', 'no-store').send({ error, error_description: description, ...errorEnvelope(status, description) });

/** The answer to a client that did not authenticate (RFC 6749 §5.2: 401 with the scheme it may use). */
function invalidClient(reply: FastifyReply, description = 'client authentication failed') {
  return sendOAuthError(reply.header('www-authenticate', 'Basic realm="keyway", charset="UTF-8"'), 401, 'invalid_client', description);
}

const TWO_AUTHENTICATIONS = 'the client authenticated twice (HTTP Basic and client_secret in the form): use one method';

/** Whether a token was issued to this client: an access or client-credentials token naming it. */
const issuedTo = (claims: { client_id?: string | undefined }, client: OAuthClient) => claims.client_id === client.client_id;

/** RFC 7662 introspection and RFC 7009 revocation. */
function registerIntrospectionAndRevocation(scope: FastifyInstance, ctx: Ctx): void {
  // RFC 7662 introspection and RFC 7009 revocation, for authenticated clients of the organization that issued the
  // token. Unknown fields are ignored (RFC 6749 §3.2: extensions the server does not know).
  const tokenForm = { type: 'object', required: ['token'], properties: { token: { type: 'string', maxLength: 16384 }, token_type_hint: str, client_id: str, client_secret: str } };
  const introspectForm = { ...tokenForm, properties: { ...tokenForm.properties, scope: str } };
  scope.post<Wire<'/oauth2/tokens/introspect', 'post'>>('/oauth2/tokens/introspect', { schema: { body: introspectForm } }, async (req, reply) => {
    if (twoClientAuthentications(req, req.body)) return sendOAuthError(reply, 400, 'invalid_request', TWO_AUTHENTICATIONS);
    const caller = await authenticateClient(ctx, req, req.body);
    if (!caller) return invalidClient(reply);
    // A confidential client (a resource server) may introspect any token of its organization; a public one, which
    // anybody can name, only the tokens issued to it (RFC 7662 §2.1: the caller must be authorized to ask).
    const confidential = !caller.client.public && !!caller.client.secret_sha256;
    // `scope`: the scopes the token must carry to be reported active.
    const required = (req.body.scope ?? '').split(' ').filter(Boolean);
    const carries = (granted: string | undefined) => required.every((x) => (granted ?? 'openid').split(' ').includes(x));
    const refresh = await findRefreshToken(ctx, req.body.token!);
    if (refresh) {
      const active = refresh.status === 'active' && refresh.org_id === caller.org.id && Date.parse(refresh.expires_at) > Date.now() && (confidential || refresh.client_id === caller.client.client_id);
      if (!active || !carries(refresh.scope)) return { active: false };
      return { active: true, sub: refresh.person_id, client_id: refresh.client_id, exp: Math.floor(Date.parse(refresh.expires_at) / 1000), iat: Math.floor(Date.parse(refresh.created_at) / 1000), iss: ctx.publicUrl, token_type: 'refresh_token', scope: refresh.scope };
    }
    const v = await ctx.tokens.validate(req.body.token!, 'introspect');
    if (!v.valid || v.claims.oid !== caller.org.id || !carries(v.claims.scope) || (!confidential && !issuedTo(v.claims, caller.client))) return { active: false };
    const c = v.claims;
    return { active: true, sub: c.sub, client_id: c.client_id ?? caller.client.client_id, exp: c.exp, iat: c.iat, iss: c.iss, token_type: 'bearer', scope: c.scope ?? 'openid' };
  });
  scope.post<Wire<'/oauth2/tokens/revoke', 'post'>>('/oauth2/tokens/revoke', { schema: { body: tokenForm } }, async (req, reply) => {
    if (twoClientAuthentications(req, req.body)) return sendOAuthError(reply, 400, 'invalid_request', TWO_AUTHENTICATIONS);
    const caller = await authenticateClient(ctx, req, req.body);
    if (!caller) return invalidClient(reply);
    // RFC 7009 §2.1: the token must have been issued to the client that asks. Another client's token is refused
    // (`unauthorized_client`) and stays valid; unknown, expired or already revoked tokens answer 200 (nothing to do).
    const refused = () => sendOAuthError(reply, 400, 'unauthorized_client', 'this token was not issued to this client');
    // A refresh token of this client: its whole family goes, with the access tokens issued alongside.
    const refresh = await findRefreshToken(ctx, req.body.token!);
    if (refresh) {
      if (refresh.org_id !== caller.org.id) return reply.code(200).send();
      if (refresh.client_id !== caller.client.client_id) return refused();
      await revokeFamily(ctx, refresh.family_id);
      return reply.code(200).send();
    }
    const v = await ctx.tokens.validate(req.body.token!, 'introspect');
    if (!v.valid || v.claims.oid !== caller.org.id) return reply.code(200).send();
    // A first-party user token names no client: any client of its organization may end it (a sign-out of the
    // organization's own app); a token issued to a client, only that client.
    if (v.claims.client_id !== undefined && !issuedTo(v.claims, caller.client)) return refused();
    await ctx.tokens.revoke(v.claims);
    return reply.code(200).send();
  });
}

/** Introspection, revocation, and the token endpoint (form-encoded posts). */
export async function tokenEndpointRoutes(scope: FastifyInstance, { ctx }: { ctx: Ctx }): Promise<void> {
  await scope.register(formbody, { bodyLimit: 16 * 1024 });
  registerIntrospectionAndRevocation(scope, ctx);
  registerRevokeAll(scope, ctx);
  // RFC 6749 §4.1.3 with PKCE (RFC 7636, S256 only); answers in OAuth's shape plus the Keyway envelope's errors.
  const GRANTS = ['authorization_code', 'client_credentials', 'refresh_token'];
  scope.post<Wire<'/oauth2/tokens', 'post'>>(
    '/oauth2/tokens',
    {
      // The contract validates the form; its verdict is answered in OAuth's terms below (RFC 6749 §5.2), after the
      // grant type and the client: an unsupported grant is `unsupported_grant_type`, a failed authentication
      // `invalid_client`, anything else malformed `invalid_request`. Unknown fields are ignored (§3.2).
      attachValidation: true,
      schema: {
        body: {
          type: 'object',
          required: ['grant_type'],
          properties: { grant_type: str, code: str, code_verifier: str, client_id: str, client_secret: str, redirect_uri: str, scope: str, refresh_token: { type: 'string', maxLength: 4096 } },
        },
      },
    },
    async (req, reply) => {
      const b = (req.body ?? {}) as Form;
      const oauthError: OAuthError = (status, error, description) => sendOAuthError(reply, status, error, description);
      if (typeof b.grant_type === 'string' && !GRANTS.includes(b.grant_type)) return oauthError(400, 'unsupported_grant_type', 'grant_type must be authorization_code, client_credentials or refresh_token');
      if (req.validationError) {
        const issues = (req.validationError.validation ?? []) as ValidationIssue[];
        const message = req.body === undefined ? 'request body is missing: send the form fields with Content-Type: application/x-www-form-urlencoded' : describeValidation('body', issues);
        return oauthError(400, 'invalid_request', message);
      }
      if (twoClientAuthentications(req, b)) return oauthError(400, 'invalid_request', TWO_AUTHENTICATIONS);
      const caller = await authenticateClient(ctx, req, b);
      if (!caller) return invalidClient(reply);
      if (b.grant_type === 'refresh_token') return refreshTokenGrant(ctx, caller, b, reply, oauthError);
      if (b.grant_type === 'client_credentials') return clientCredentialsGrant(ctx, caller, b, reply, oauthError);
      return authorizationCodeGrant(ctx, caller, b, reply, oauthError);
    },
  );
}
