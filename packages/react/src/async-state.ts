import { useCallback, useEffect, useRef, useState } from 'react';

/** State of data loaded for the current user. */
export interface Loadable<T> {
  data: T | undefined;
  isLoading: boolean;
  error: unknown;
}

/**
 * Loads `load()` whenever `key` changes (nothing while `load` is `undefined`), drops answers that
 * arrive after a newer load started, and offers `refresh` and `set` (after a successful change).
 */
export function useLoad<T>(key: unknown, load: (() => Promise<T>) | undefined) {
  const [state, setState] = useState<Loadable<T>>({ data: undefined, isLoading: !!load, error: undefined });
  const seq = useRef(0);
  const loader = useRef(load);
  loader.current = load;
  const refresh = useCallback(async () => {
    const n = ++seq.current;
    const l = loader.current;
    if (!l) return setState({ data: undefined, isLoading: false, error: undefined });
    setState((s) => ({ ...s, isLoading: true, error: undefined }));
    try {
      const data = await l();
      if (n === seq.current) setState({ data, isLoading: false, error: undefined });
    } catch (error) {
      if (n === seq.current) setState((s) => ({ data: s.data, isLoading: false, error }));
    }
  }, []);
  useEffect(() => {
    void refresh();
  }, [key, refresh]);
  const set = useCallback((data: T) => {
    seq.current++;
    setState({ data, isLoading: false, error: undefined });
  }, []);
  return { ...state, refresh, set };
}
