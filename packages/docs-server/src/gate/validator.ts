import type { components } from '@keyway/api/types';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, errors as joseErrors, type JSONWebKeySet } from 'jose';

// The wire shapes of `POST /token/validate`, generated from the contract (api/openapi.yaml).
type TokenRequest = components['schemas']['TokenRequest'];
type TokenValidationResult = components['schemas']['TokenValidationResult'];
type WireError = components['schemas']['Error'];

/** What the docs server knows of a token after asking the identity server. */
export type Validation =
  | { valid: true; personId: string; expiresAt: number }
  | { valid: false; reason: string };

/** The identity server could not answer (down, timeout, unexpected answer). */
export class IdentityUnavailableError extends Error {
  override name = 'IdentityUnavailableError';
}

export interface ValidatorOptions {
  /** Base URL of the identity server. */
  identityUrl: string;
  /** The docs organization: tokens of any other organization are refused. */
  orgId: string;
  /** How long a validation is trusted before the token is checked again (revocations show within this time). */
  revalidateSeconds: number;
  /** Milliseconds to wait for the identity server. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

interface Claims {
  token_use?: unknown;
  person_id?: unknown;
  oid?: unknown;
  person_type?: unknown;
  exp?: unknown;
}

const MAX_CACHED = 10_000;
/** A token signed by a key the cached JWKS does not hold refetches it, at most this often. */
const JWKS_REFETCH_MS = 30_000;

const NOT_A_PERSON: Record<string, string> = {
  container: 'a token container does not sign in: send the user token it contains',
  id: 'an id_token is never a bearer credential',
  access: 'an OAuth2 access token does not sign in to the docs',
  client: 'a client token is not a person',
};

/**
 * The gate's one rule (#15): the gated docs open only for an authenticated, non-anonymous person of the docs
 * organization, that is a `user` token (`token_use`) of a person whose `person_type` is not `anonymous`, of `orgId`.
 * Called with claims verified against the identity server's JWKS (and the token then confirmed by its
 * `/token/validate`); the reason is shown to the visitor. Everything that serves gated content decides through this.
 */
export function gateRefusal(claims: Claims, orgId: string): string | undefined {
  if (claims.oid !== orgId) return 'the token belongs to another organization';
  if (claims.token_use === 'anonymous' || claims.person_type === 'anonymous') return 'an anonymous token does not sign in';
  if (typeof claims.token_use === 'string' && NOT_A_PERSON[claims.token_use]) return NOT_A_PERSON[claims.token_use];
  if (claims.token_use !== 'user') return 'the token is not a Keyway user token';
  if (typeof claims.person_type !== 'string' || typeof claims.person_id !== 'string') return 'the token names no person';
  return undefined;
}

/** Unverified claims of a JWT (the identity server verifies the signature; these only select and describe it). */
export function tokenClaims(token: string): Claims | undefined {
  if (token.split('.').length !== 3) return undefined;
  try {
    return decodeJwt(token) as Claims;
  } catch {
    return undefined;
  }
}

/**
 * Validates user tokens with the identity server — the signature and claims against its JWKS ({@link gateRefusal}
 * decides on the verified claims), then `POST /token/validate` for the docs organization (revocation, expiry) — and
 * remembers each answer for `revalidateSeconds`. When the identity server cannot be reached, a token it accepted before keeps
 * its session until the token expires (a sign-in already made survives an outage); a token never validated is refused.
 */
export class TokenValidator {
  private readonly cache = new Map<string, { result: Validation; checkedAt: number }>();
  private readonly inflight = new Map<string, Promise<Validation>>();
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private jwks: { set: ReturnType<typeof createLocalJWKSet>; kids: Set<string>; fetchedAt: number } | undefined;

  constructor(private readonly options: ValidatorOptions) {
    this.fetch = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
  }

  /** Validates a token, from the cache when fresh. Throws {@link IdentityUnavailableError} only for unknown tokens. */
  async validate(token: string): Promise<Validation> {
    const local = this.checkLocally(token);
    if (local) return local;
    const cached = this.cache.get(token);
    const now = this.now();
    if (cached && now - cached.checkedAt < this.options.revalidateSeconds * 1000) return this.expired(cached.result);
    let pending = this.inflight.get(token);
    if (!pending) {
      pending = this.ask(token).finally(() => this.inflight.delete(token));
      this.inflight.set(token, pending);
    }
    try {
      const result = await pending;
      this.remember(token, result);
      return result;
    } catch (error) {
      if (cached?.result.valid) return this.expired(cached.result);
      throw error;
    }
  }

  /** Forgets a token (after sign-out). */
  forget(token: string): void {
    this.cache.delete(token);
  }

  /** Revokes a token at the identity server (sign-out). */
  async revoke(token: string): Promise<void> {
    this.forget(token);
    await this.post('/token/revoke', token);
  }

  /** Refuses early, without a network call, what the rule refuses even if the claims were true (never admits). */
  private checkLocally(token: string): Validation | undefined {
    const claims = tokenClaims(token);
    if (!claims) return { valid: false, reason: 'the token is not a Keyway user token' };
    const refusal = gateRefusal(claims, this.options.orgId);
    if (refusal) return { valid: false, reason: refusal };
    if (typeof claims.exp === 'number' && claims.exp * 1000 <= this.now()) return { valid: false, reason: 'the token has expired' };
    return undefined;
  }

  /** The identity server's signing keys (`/.well-known/jwks.json`), refetched when a token names a key not yet seen. */
  private async keySet(kid: string | undefined): Promise<ReturnType<typeof createLocalJWKSet>> {
    const stale = !this.jwks || (kid !== undefined && !this.jwks.kids.has(kid) && this.now() - this.jwks.fetchedAt >= JWKS_REFETCH_MS);
    if (stale) {
      let res: Response;
      try {
        res = await this.fetch(new URL('.well-known/jwks.json', this.options.identityUrl.replace(/\/?$/, '/')), { signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000) });
      } catch (error) {
        if (this.jwks) return this.jwks.set;
        throw new IdentityUnavailableError(`the identity server cannot be reached: ${(error as Error).message}`);
      }
      const body = (await res.json().catch(() => undefined)) as JSONWebKeySet | undefined;
      if (!res.ok || !body || !Array.isArray(body.keys)) {
        if (this.jwks) return this.jwks.set;
        throw new IdentityUnavailableError(`the identity server answered HTTP ${res.status} to /.well-known/jwks.json`);
      }
      this.jwks = { set: createLocalJWKSet(body), kids: new Set(body.keys.map((k) => String(k.kid))), fetchedAt: this.now() };
    }
    return this.jwks!.set;
  }

  /** Claims of the token verified against the identity server's keys, or why not. */
  private async verified(token: string): Promise<{ claims: Claims } | { reason: string }> {
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return { reason: 'the token is not a Keyway user token' };
    }
    const keys = await this.keySet(kid);
    try {
      const { payload } = await jwtVerify(token, keys, { algorithms: ['ES256'], currentDate: new Date(this.now()) });
      return { claims: payload as Claims };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) return { reason: 'the token has expired' };
      return { reason: 'the token signature is not valid' };
    }
  }

  private expired(result: Validation): Validation {
    return result.valid && result.expiresAt <= this.now() ? { valid: false, reason: 'the token has expired' } : result;
  }

  private remember(token: string, result: Validation): void {
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(token, { result, checkedAt: this.now() });
  }

  private async post(path: string, token: string): Promise<Partial<TokenValidationResult>> {
    let res: Response;
    try {
      res = await this.fetch(new URL(path, this.options.identityUrl.replace(/\/?$/, '/')), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Keyway-OrgID': this.options.orgId },
        body: JSON.stringify({ token } satisfies TokenRequest),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
      });
    } catch (error) {
      throw new IdentityUnavailableError(`the identity server cannot be reached: ${(error as Error).message}`);
    }
    // Revocation answers 204 with no body.
    if (res.status === 204) return {};
    // Read defensively: an answer that does not follow the contract must not throw here.
    const body = (await res.json().catch(() => undefined)) as { result?: Partial<TokenValidationResult>; errors?: Partial<WireError>[] } | undefined;
    if (res.status >= 500 || !body) throw new IdentityUnavailableError(`the identity server answered HTTP ${res.status} to ${path}`);
    if (res.status >= 400) return { valid: false, invalidity_reason: body.errors?.[0]?.message ?? `HTTP ${res.status}` };
    return body.result ?? {};
  }

  private async ask(token: string): Promise<Validation> {
    const verified = await this.verified(token);
    if ('reason' in verified) return { valid: false, reason: verified.reason };
    const { claims } = verified;
    const refusal = gateRefusal(claims, this.options.orgId);
    if (refusal) return { valid: false, reason: refusal };
    const result = await this.post('/token/validate', token);
    if (result.valid !== true) return { valid: false, reason: String(result.invalidity_reason ?? 'the token is not valid') };
    const expiresAt =
      typeof result.expires_at === 'string' ? Date.parse(result.expires_at) : typeof claims.exp === 'number' ? claims.exp * 1000 : NaN;
    return { valid: true, personId: String(claims.person_id ?? ''), expiresAt: Number.isFinite(expiresAt) ? expiresAt : this.now() + 3600_000 };
  }
}
