import React, { type ReactNode } from 'react';
import TOC from '@theme-original/TOC';
import type TOCType from '@theme/TOC';
import type { WrapperProps } from '@docusaurus/types';
import DeferHydration from '@site/src/components/DeferHydration';

/** The theme's table of contents, hydrated in a task of its own (see DeferHydration). */
export default function TOCWrapper(props: WrapperProps<typeof TOCType>): ReactNode {
  return (
    <DeferHydration>
      <TOC {...props} />
    </DeferHydration>
  );
}
