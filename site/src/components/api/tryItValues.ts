import { useSyncExternalStore } from 'react';

/** What the reader typed into an operation's try-it panel: the request samples beside it follow these values. */
export interface TryItValues {
  baseUrl: string;
  credentials: Partial<Record<'orgId' | 'apiKey' | 'userToken' | 'accessToken' | 'clientId' | 'clientSecret', string>>;
  /** Parameter values by `<in>:<name>`. */
  values: Record<string, string>;
  body: string;
}

// One operation's values at a time (the page's); other pages' samples keep what is written.
let current: { operation: string; values: TryItValues } | undefined;
const listeners = new Set<() => void>();

export function setTryItValues(operation: string, values: TryItValues): void {
  current = { operation, values };
  for (const l of listeners) l();
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

/** The values typed into the try-it panel of `operation` (`METHOD /path`), once the reader has opened it. */
export function useTryItValues(operation: string): TryItValues | undefined {
  return useSyncExternalStore(
    subscribe,
    () => (current?.operation === operation ? current.values : undefined),
    () => undefined,
  );
}
