import { Keyway, type KeywayConfig, type User } from '@keyway/sdk';
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { createTokenStorage, DEFAULT_TOKEN_KEY, type TokenStorage, type TokenStorageKind } from './storage.js';

/** Runs after every sign-in made through the components (see {@link defaultOrganization}); may replace the user. */
export type SignInMiddleware = (context: { sdk: Keyway; user: User }) => Promise<User | void> | User | void;

/** Props of {@link KeywayProvider}. */
export interface KeywayProviderProps {
  /** Organization id (`oid` of the SDK). Required while analytics are on. */
  oid?: string;
  /** `production` (default), `sandbox` or the hosts of a custom deployment. Not combinable with `baseURL`. */
  environment?: KeywayConfig['environment'];
  /** API host of a custom deployment (instead of `environment`). */
  baseURL?: string;
  /** Host of the SDK pages (defaults to `baseURL`). */
  sdkURL?: string;
  /** Send SDK analytics events (default `true`). */
  analytics?: boolean;
  /** Complete sign-ins started at the identity provider (default `false`). */
  idpInitiatedSso?: boolean;
  /** Name of the token claim holding the groups (default `groups`). */
  groupsClaimName?: string;
  /** Where the token is kept: `localStorage` (default), `sessionStorage`, `memory`, or your own `{ get, set }`. */
  tokenStorage?: TokenStorageKind | TokenStorage;
  /** Storage key of the token (default `keyway.token`). */
  tokenStorageKey?: string;
  /** Ask the server whether a stored token is still valid before showing the person as signed in (default `false`). */
  validateStoredToken?: boolean;
  /** Complete SSO returns, magic links and hosted-login returns from the page URL on load (default `true`). */
  handleURL?: boolean;
  /**
   * Give every visitor without a token an anonymous person (`POST /persons/anonymous`) on load, so attributes and
   * consent can be stored before sign-in; a later sign-in upgrades the same person (default `false`).
   */
  anonymousUsers?: boolean;
  /** Functions run after each sign-in made through the components, in order (e.g. `defaultOrganization('org_…')`). */
  middleware?: SignInMiddleware[];
  /** A ready SDK instance to use instead of creating one (tests, or sharing one with non-React code). */
  sdk?: Keyway;
  children?: ReactNode;
}

/** What {@link useKeyway} returns. */
export interface KeywayState {
  /** The SDK instance of the provider. */
  sdk: Keyway;
  /** The current user (also anonymous users), `undefined` when nobody is signed in. */
  user: User | undefined;
  /** `true` until the stored token (and the URL) have been read after mounting; always `true` during server rendering. */
  isLoading: boolean;
  /** A user holds a token that is not expired, not anonymous and not logged out. */
  isAuthenticated: boolean;
  /** Revokes the token, forgets it and removes it from storage. */
  logout(): Promise<void>;
  /** Holds a token obtained elsewhere (it is stored like a sign-in). */
  setToken(token: string): User;
  /** Runs the provider's middleware for a user that just signed in; used by the components. */
  afterSignIn(user: User): Promise<User>;
}

const KeywayContext = createContext<KeywayState | null>(null);

function configOf(p: KeywayProviderProps): KeywayConfig {
  const c: KeywayConfig = {};
  if (p.oid !== undefined) c.oid = p.oid;
  if (p.environment !== undefined) c.environment = p.environment;
  if (p.baseURL !== undefined) c.baseURL = p.baseURL;
  if (p.sdkURL !== undefined) c.sdkURL = p.sdkURL;
  if (p.analytics !== undefined) c.analytics = p.analytics;
  if (p.idpInitiatedSso !== undefined) c.idpInitiatedSso = p.idpInitiatedSso;
  if (p.groupsClaimName !== undefined) c.groupsClaimName = p.groupsClaimName;
  return c;
}

/**
 * Creates one SDK client for the tree below, restores the stored token after mounting, keeps the
 * storage in step with sign-ins and logouts, and re-renders consumers when the user changes.
 * Server rendering is safe: nothing touches `window` before effects run.
 */
export function KeywayProvider(props: KeywayProviderProps) {
  const { tokenStorage = 'localStorage', tokenStorageKey = DEFAULT_TOKEN_KEY, validateStoredToken = false, handleURL = true, anonymousUsers = false } = props;
  // One SDK per provider; configuration changes after mounting are ignored on purpose (a new client would drop the flows in progress).
  const [sdk] = useState(() => props.sdk ?? new Keyway(configOf(props)));
  // A `{ get, set }` written inline is a new object on every render: use the latest one without re-running the restore.
  const custom = useRef(typeof tokenStorage === 'object' ? tokenStorage : undefined);
  custom.current = typeof tokenStorage === 'object' ? tokenStorage : undefined;
  const storageKind = typeof tokenStorage === 'object' ? 'custom' : tokenStorage;
  const storage = useMemo<TokenStorage>(
    () =>
      storageKind === 'custom'
        ? { get: () => custom.current?.get() ?? null, set: (t) => custom.current?.set(t) }
        : createTokenStorage(storageKind, tokenStorageKey),
    [storageKind, tokenStorageKey],
  );
  const [user, setUser] = useState<User | undefined>(sdk.user);
  const [isLoading, setLoading] = useState(true);
  const middleware = useRef(props.middleware);
  middleware.current = props.middleware;

  useEffect(() => {
    let live = true;
    const off = sdk.onUserChange((u) => {
      if (!live) return;
      storage.set(u && !u.loggedOut ? u.token : null);
      setUser(u);
    });
    void (async () => {
      const stored = storage.get();
      if (stored && !sdk.user) {
        try {
          const u = sdk.setToken(stored);
          if (u.isExpired) sdk.clearToken();
          else if (validateStoredToken && !(await u.validate()).valid) sdk.clearToken();
        } catch (e) {
          // Undecodable tokens are dropped; a validation that could not run keeps the token.
          if (!sdk.user) storage.set(null);
          else console.error('Keyway: the stored token could not be validated', e);
        }
      }
      if (!live) return; // unmounted meanwhile (or React StrictMode's first effect run)
      if (handleURL && typeof location !== 'undefined') {
        try {
          const r = await sdk.handleURL();
          if (r && typeof r === 'object') await r.result.catch(() => undefined);
        } catch (e) {
          console.error('Keyway: the page URL could not be handled', e);
        }
      }
      if (live && anonymousUsers && !sdk.user) {
        try {
          await sdk.createAnonymousUser();
        } catch (e) {
          console.error('Keyway: the anonymous person could not be created', e);
        }
      }
      if (live) {
        setUser(sdk.user);
        setLoading(false);
      }
    })();
    return () => {
      live = false;
      off();
    };
  }, [sdk, storage, validateStoredToken, handleURL, anonymousUsers]);

  const logout = useCallback(async () => {
    try {
      await sdk.logout();
    } finally {
      // A revocation that failed (offline, already revoked) still signs the person out here.
      if (sdk.user) sdk.clearToken();
      storage.set(null);
    }
  }, [sdk, storage]);
  const setToken = useCallback((t: string) => sdk.setToken(t), [sdk]);
  const afterSignIn = useCallback(
    async (u: User) => {
      let current = u;
      for (const m of middleware.current ?? []) current = (await m({ sdk, user: current })) ?? current;
      return current;
    },
    [sdk],
  );

  const value = useMemo<KeywayState>(
    () => ({ sdk, user, isLoading, isAuthenticated: !isLoading && !!user?.isAuthenticated, logout, setToken, afterSignIn }),
    [sdk, user, isLoading, logout, setToken, afterSignIn],
  );
  return <KeywayContext.Provider value={value}>{props.children}</KeywayContext.Provider>;
}

/** Alias of {@link KeywayProvider}. */
export const Provider = KeywayProvider;

/**
 * The main hook: the SDK, the current user, whether the stored token is still being read, whether
 * somebody is signed in, and `logout`.
 * @throws Error when used outside {@link KeywayProvider}.
 */
export function useKeyway(): KeywayState {
  const v = useContext(KeywayContext);
  if (!v) throw new Error('useKeyway must be used inside <KeywayProvider>');
  return v;
}
