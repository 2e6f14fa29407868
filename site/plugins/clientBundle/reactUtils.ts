/**
 * Stands in, in the browser bundle, for theme-common's `lib/utils/reactUtils` (see ./index.ts): the same exports, with
 * `useShallowMemoObject` sorting an object's keys in plain code-unit order instead of with `localeCompare`. The order
 * only has to be the same on every render (the keys and values are `useMemo`'s dependencies); `localeCompare`'s first
 * call in a page sets up the browser's collator, 16 ms of main thread in Chromium on this machine, and the phone
 * layout's sidebar (through the navbar's secondary menu) calls it while the page hydrates.
 */
import { useMemo } from 'react';

export * from '@keyway-original/theme-common-reactUtils';

export function useShallowMemoObject<O extends object>(obj: O): O {
  const deps = Object.entries(obj);
  deps.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // The dependencies are the object's entries, a list whose length can change between renders only with its keys.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  return useMemo(() => obj, deps.flat());
}
