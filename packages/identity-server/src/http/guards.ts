import type { FastifyRequest } from 'fastify';
import type { Ctx, Org } from '../context.js';
import { sha256 } from '../crypto/secrets.js';
import { apiKeyDigestSql } from '../db/compat.js';
import { loadOrg } from '../organizations/settings.js';
import type { UserTokenClaims } from '../tokens/token-service.js';
import { answer, badRequest, forbidden, notFound, unauthorized } from './errors.js';

// Who is calling: the organization header, the management API key, the bearer user token.

export const ORG_HEADER = 'keyway-orgid';

/** The organization named by the `Keyway-OrgID` header; 400 when missing, 404 when unknown. */
export async function requireOrg(ctx: Ctx, req: FastifyRequest): Promise<Org> {
  const raw = req.headers[ORG_HEADER];
  const id = Array.isArray(raw) ? raw[0] : raw;
  if (!id) throw badRequest('missing Keyway-OrgID header');
  if (id.length > 128) throw badRequest('Keyway-OrgID header is longer than 128 characters');
  const org = await loadOrg(ctx, id);
  if (!org) throw notFound(`organization "${id}" does not exist`);
  return org;
}

export function bearerToken(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  if (!m) throw unauthorized('Authorization header must be "Bearer <token>"');
  return m[1];
}

/**
 * Claims of the bearer user token of a person call; 401 when missing, invalid or not a user token (with the reason):
 * containers, id_tokens, OAuth2 access tokens and client tokens never act as a person.
 */
export async function requireUser(ctx: Ctx, req: FastifyRequest): Promise<UserTokenClaims> {
  const token = bearerToken(req);
  if (!token) throw unauthorized('missing bearer token: send Authorization: Bearer <user token>');
  return personOfToken(ctx, token);
}

/**
 * Claims of a person's token however it came (bearer, or the `Keyway-Token` header of the management API), with the
 * checks of every person call: signature, expiry, revocation, the kind of token, the organization and person still exist.
 */
export async function personOfToken(ctx: Ctx, token: string): Promise<UserTokenClaims> {
  const res = await ctx.tokens.validate(token, 'person');
  if (!res.valid) throw unauthorized(res.invalidity_reason);
  const org = await loadOrg(ctx, res.claims.oid);
  if (!org) throw unauthorized('token organization no longer exists');
  const person = await ctx.db.selectFrom('persons').select(['active']).where('id', '=', res.claims.person_id).executeTakeFirst();
  if (!person) throw unauthorized('token person no longer exists');
  if (!person.active) throw answer('signInAwaitingApproval', { person_id: res.claims.person_id });
  return res.claims;
}

export function clientIp(req: FastifyRequest): string {
  return req.ip;
}

/**
 * Management calls: `Keyway-API-Key`, with or without `Keyway-OrgID`. The key alone names its organization (its
 * SHA-256 is looked up through an index); with the header, the key must be that organization's.
 */
export async function requireApiKey(ctx: Ctx, req: FastifyRequest): Promise<Org> {
  const key = req.headers['keyway-api-key'];
  const named = req.headers[ORG_HEADER];
  if (named === undefined) {
    if (typeof key !== 'string' || key.length === 0) throw unauthorized('missing Keyway-API-Key header');
    const digest = sha256(key);
    const row = await ctx.db.selectFrom('organizations').select('id').where(apiKeyDigestSql(ctx.dialect), '=', digest).executeTakeFirst();
    const org = row && (await loadOrg(ctx, row.id));
    // The cached settings decide, as with the header: a key rotated on another replica stops within the poll bound.
    if (!org || org.settings.api_key_sha256 !== digest) throw unauthorized('Keyway-API-Key is not valid');
    return org;
  }
  const org = await requireOrg(ctx, req);
  if (typeof key !== 'string' || key.length === 0) throw unauthorized('missing Keyway-API-Key header');
  if (!org.settings.api_key_sha256 || sha256(key) !== org.settings.api_key_sha256) throw unauthorized('Keyway-API-Key is not valid for this organization');
  return org;
}
