import { decodeToken, type OrganizationHierarchyEntry, type User } from '@keyway/sdk';
import { sameOriginPath } from '@keyway/sdk/redirect';
import type { SignInMiddleware } from './provider.js';
import { createTokenStorage, DEFAULT_TOKEN_KEY, type TokenStorage, type TokenStorageKind } from './storage.js';

/** Options of {@link loginMiddleware}. */
export interface LoginMiddlewareOptions {
  /** Path of the sign-in page (default `/login`). Must start with `/`. */
  loginPath?: string;
  /** Name of the query parameter carrying the original path (default `redirect_to`). */
  redirectParam?: string;
  /**
   * Reads the token of a request. Default: the browser storage of the provider (`tokenStorage`,
   * `tokenStorageKey`); on a server, read it from a cookie or header here.
   */
  getToken?: (request: Request) => string | null | undefined | Promise<string | null | undefined>;
  /** Browser storage to read when `getToken` is not given (default `localStorage`). */
  tokenStorage?: TokenStorageKind | TokenStorage;
  /** Key of the token in that storage (default `keyway.token`). */
  tokenStorageKey?: string;
  /** Also require these methods in the token (e.g. `['totp']` after MFA). */
  requiredFactors?: string[];
}

/** Arguments of a React Router / Remix loader (only `request` is used). */
export interface LoaderArgs {
  request: Request;
}

/**
 * Whether `token` is a usable user token: decodable, not expired, not anonymous, carrying every
 * required method. The signature is checked by the server, not here: pair it with a server-side check
 * for content that must not leak.
 */
export function isUsableToken(token: string | null | undefined, requiredFactors: string[] = []): boolean {
  if (!token) return false;
  try {
    const c = decodeToken(token);
    if (c.person_type === 'anonymous') return false;
    if (typeof c.exp === 'number' && c.exp * 1000 <= Date.now()) return false;
    return requiredFactors.every((m) => c.authenticated_methods?.includes(m as never));
  } catch {
    return false;
  }
}

/**
 * The sign-in URL for a request: `loginPath?redirect_to=<path, search and hash, URL-encoded>`.
 * Only the path of the request is kept, so the page never sends anyone to another site.
 */
export function loginRedirectURL(request: Request | string, loginPath = '/login', redirectParam = 'redirect_to'): string {
  const u = new URL(typeof request === 'string' ? request : request.url, 'http://localhost');
  const back = u.pathname + u.search + u.hash;
  return `${loginPath}${loginPath.includes('?') ? '&' : '?'}${encodeURIComponent(redirectParam)}=${encodeURIComponent(back)}`;
}

/**
 * Makes a loader (React Router `loader`/`clientLoader`, Remix `loader`) that answers a
 * `302` redirect to the sign-in page with `redirect_to` when the request has no usable token, and
 * `null` otherwise (chain your own loader after it).
 *
 * ```ts
 * const requireLogin = loginMiddleware({ loginPath: '/login', tokenStorageKey: 'keyway.docs.token' });
 * export const clientLoader = async (args) => (await requireLogin(args)) ?? loadPage(args);
 * ```
 * @throws TypeError when `loginPath` is not a path of this site.
 */
export function loginMiddleware(options: LoginMiddlewareOptions = {}) {
  const { loginPath = '/login', redirectParam = 'redirect_to', requiredFactors = [] } = options;
  if (typeof loginPath !== 'string' || !loginPath.startsWith('/') || loginPath.startsWith('//'))
    throw new TypeError(`loginPath must be a path on this site starting with "/", got ${JSON.stringify(loginPath)}`);
  const storage = options.getToken ? undefined : createTokenStorage(options.tokenStorage ?? 'localStorage', options.tokenStorageKey ?? DEFAULT_TOKEN_KEY);
  return async ({ request }: LoaderArgs): Promise<Response | null> => {
    const token = options.getToken ? await options.getToken(request) : storage!.get();
    if (isUsableToken(token, requiredFactors)) return null;
    return new Response(null, { status: 302, headers: { Location: loginRedirectURL(request, loginPath, redirectParam) } });
  };
}

/**
 * The `redirect_to` of a sign-in page URL, only when it is a path of this site; otherwise `fallback`. Uses Keyway's
 * shared redirect rule (`@keyway/sdk/redirect`): the value is normalized first (dot segments, `%2e`, backslashes), so
 * `//evil.example`, `/.//evil.example`, `https://…`, `javascript:` and control characters never leave the site.
 */
export function safeRedirect(search: string | URLSearchParams, fallback = '/', redirectParam = 'redirect_to'): string {
  const p = typeof search === 'string' ? new URLSearchParams(search) : search;
  return sameOriginPath(p.get(redirectParam), 'http://same.invalid', fallback);
}

/** Picks the organization from the person's organizations. */
export type OrganizationPicker = string | ((organizations: OrganizationHierarchyEntry[], user: User) => string | undefined | Promise<string | undefined>);

/**
 * Provider middleware that moves every person who signs in to a default organization
 * (`<KeywayProvider middleware={[defaultOrganization('org_…')]}>`). With a function, it chooses from
 * the person's organizations (`/me/orgs`); `undefined` keeps the current one. Persons who cannot
 * reach the organization stay where they are.
 */
export function defaultOrganization(pick: OrganizationPicker): SignInMiddleware {
  if (typeof pick !== 'function' && (typeof pick !== 'string' || !pick))
    throw new TypeError(`defaultOrganization needs an organization id or a function, got ${JSON.stringify(pick)}`);
  return async ({ sdk, user }) => {
    let target: string | undefined;
    let orgs: OrganizationHierarchyEntry[] | undefined;
    if (typeof pick === 'string') target = pick;
    else {
      orgs = (await user.organizations()).org_hierarchy;
      target = await pick(orgs, user);
    }
    if (!target || target === user.orgId) return user;
    orgs ??= (await user.organizations()).org_hierarchy;
    if (!orgs.some((o) => o.id === target)) return user;
    await sdk.switchOrganization(target).result;
    return sdk.user ?? user;
  };
}
