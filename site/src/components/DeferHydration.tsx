import type { ReactNode } from 'react';

/**
 * Marks a region of a page whose hydration may wait for a task of its own (see
 * plugins/clientBundle/deferHydration.tsx, which replaces this module in the browser bundle on preact/compat). Here —
 * in the server build and in a React browser build — it renders its child as it is. The child must render exactly one
 * element.
 */
export default function DeferHydration({ children }: { children: ReactNode }): ReactNode {
  return children;
}
