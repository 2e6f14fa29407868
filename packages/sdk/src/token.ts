import { InvalidActionError, UnexpectedError } from './errors.js';
import { jwtClaims } from './jwt.js';
import type { UserTokenClaims } from './types.js';

/**
 * Normalizes a token: JSON-quoted strings (`"\"eyJ…\""`) are unwrapped.
 * @throws {@link errors.InvalidActionError} `token must be a string`
 */
export function normalizeToken(token: unknown): string {
  if (typeof token !== 'string') throw new InvalidActionError('token must be a string');
  if (token.startsWith('"')) {
    try {
      const inner: unknown = JSON.parse(token);
      if (typeof inner === 'string') return inner;
    } catch {
      /* not JSON: keep as is */
    }
  }
  return token;
}

/**
 * Decodes the claims of a user token without checking its signature (the server does that).
 * A token container (claims with `user_token`) is unwrapped to the user token inside; the groups
 * claim is read from `groupsClaimName` and exposed as `groups`.
 * @returns the claims, plus the `token` actually used (the inner one for containers).
 * @throws {@link errors.UnexpectedError} when the token cannot be decoded.
 */
export function decodeToken(token: unknown, groupsClaimName = 'groups'): UserTokenClaims & { token: string } {
  let t = normalizeToken(token);
  for (let depth = 0; depth < 3; depth++) {
    const claims = jwtClaims(t);
    if (!claims) throw new UnexpectedError('token could not be decoded: it is not a JWT');
    if (typeof claims.user_token === 'string') {
      t = claims.user_token;
      continue;
    }
    const groups = claims[groupsClaimName];
    return { ...(claims as UserTokenClaims), groups: Array.isArray(groups) ? groups : [], token: t };
  }
  throw new UnexpectedError('token could not be decoded: nested token containers');
}
