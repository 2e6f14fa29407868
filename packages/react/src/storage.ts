/** Where {@link KeywayProvider} keeps the user token between page loads. */
export interface TokenStorage {
  /** The stored token, or `null`. */
  get(): string | null;
  /** Stores a token, or removes it with `null`. */
  set(token: string | null): void;
}

/** Built-in token storages: browser local or session storage, or memory only (lost on reload). */
export type TokenStorageKind = 'localStorage' | 'sessionStorage' | 'memory';

/** Key of the stored token when none is given. */
export const DEFAULT_TOKEN_KEY = 'keyway.token';

function webStorage(kind: 'localStorage' | 'sessionStorage'): Storage | undefined {
  try {
    return typeof globalThis[kind] === 'undefined' ? undefined : globalThis[kind];
  } catch {
    return undefined; // blocked by the browser (e.g. third-party frame)
  }
}

/**
 * A {@link TokenStorage} of a given kind. Unavailable browser storage (server rendering, privacy
 * settings) behaves like memory storage, with one console warning.
 */
export function createTokenStorage(kind: TokenStorageKind | TokenStorage = 'localStorage', key = DEFAULT_TOKEN_KEY): TokenStorage {
  if (typeof kind === 'object') return kind;
  if (kind !== 'localStorage' && kind !== 'sessionStorage' && kind !== 'memory')
    throw new TypeError(`tokenStorage must be "localStorage", "sessionStorage", "memory" or { get, set }, got ${JSON.stringify(kind)}`);
  let memory: string | null = null;
  let warned = false;
  const area = () => {
    if (kind === 'memory') return undefined;
    const s = webStorage(kind);
    if (!s && !warned && typeof window !== 'undefined') {
      warned = true;
      console.warn(`Keyway: ${kind} is unavailable, the token is kept in memory only`);
    }
    return s;
  };
  return {
    get() {
      try {
        return area()?.getItem(key) ?? memory;
      } catch {
        return memory;
      }
    },
    set(token) {
      memory = token;
      try {
        const s = area();
        if (token === null) s?.removeItem(key);
        else s?.setItem(key, token);
      } catch {
        /* quota or privacy mode: memory keeps it */
      }
    },
  };
}
