/** Browser storage with graceful degradation: unavailable storage warns once and does nothing. */

const warned = new Set<string>();

/** Which browser storage to use. */
export type StorageKind = 'localStorage' | 'sessionStorage';

/** Prefix of every key the SDK stores. */
export const PREFIX = 'keyway.';

function area(kind: StorageKind, feature: string): Storage | undefined {
  try {
    const s = globalThis[kind];
    const probe = PREFIX + 'probe';
    s.setItem(probe, '1');
    s.removeItem(probe);
    return s;
  } catch {
    if (!warned.has(kind + feature)) {
      warned.add(kind + feature);
      console.warn(`Keyway: ${kind} is unavailable, ${feature} is disabled`);
    }
    return undefined;
  }
}

/**
 * Reads `key` (prefixed with `keyway.`). Returns `null` when missing or when the storage is unavailable.
 * @internal
 */
export const getItem = (kind: StorageKind, key: string, feature: string): string | null =>
  area(kind, feature)?.getItem(PREFIX + key) ?? null;

/**
 * Writes (or with `null`, removes) `key`. Does nothing when the storage is unavailable.
 * @internal
 */
export function setItem(kind: StorageKind, key: string, value: string | null, feature: string): void {
  const s = area(kind, feature);
  try {
    if (value === null) s?.removeItem(PREFIX + key);
    else s?.setItem(PREFIX + key, value);
  } catch {
    /* quota exceeded: same as unavailable */
  }
}

/** Reads a JSON value, `fallback` when missing or malformed. @internal */
export function getJSON<T>(kind: StorageKind, key: string, feature: string, fallback: T): T {
  try {
    return (JSON.parse(getItem(kind, key, feature) ?? 'null') as T) ?? fallback;
  } catch {
    return fallback;
  }
}

/** Handles remembered after successful sign-ins (most recent first, at most 5). */
export const rememberedHandles = (): string[] => getJSON('localStorage', 'handles', 'remembered handles', []);

/** Adds `handle` to the remembered handles. @internal */
export function rememberHandle(handle: string): void {
  const list = [handle, ...rememberedHandles().filter((h) => h !== handle)].slice(0, 5);
  setItem('localStorage', 'handles', JSON.stringify(list), 'remembered handles');
}

/** Passkey credential ids remembered for a scope (relying party id). */
export const rememberedCredentials = (scope: string): string[] =>
  getJSON('localStorage', 'passkeys.' + scope, 'remembered passkeys', []);

/** Remembers a passkey credential id for a scope. @internal */
export function rememberCredential(scope: string, id: string): void {
  const list = [id, ...rememberedCredentials(scope).filter((c) => c !== id)];
  setItem('localStorage', 'passkeys.' + scope, JSON.stringify(list), 'remembered passkeys');
}
