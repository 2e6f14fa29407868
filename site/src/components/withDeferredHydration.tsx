import React, { type ComponentType, type ReactNode } from 'react';
import DeferHydration from '@site/src/components/DeferHydration';

/**
 * A theme component whose hydration waits for a task of its own (see DeferHydration): the wrapper a swizzled theme
 * component exports in place of the original. The component must render exactly one element.
 */
export default function withDeferredHydration<P extends object>(Component: ComponentType<P>): (props: P) => ReactNode {
  return function Deferred(props: P): ReactNode {
    return (
      <DeferHydration>
        <Component {...props} />
      </DeferHydration>
    );
  };
}
