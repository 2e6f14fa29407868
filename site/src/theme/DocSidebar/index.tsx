import React, { type ReactNode } from 'react';
import DocSidebar from '@theme-original/DocSidebar';
import type DocSidebarType from '@theme/DocSidebar';
import type { WrapperProps } from '@docusaurus/types';
import DeferHydration from '@site/src/components/DeferHydration';

/** The theme's docs sidebar, hydrated in a task of its own (see DeferHydration). */
export default function DocSidebarWrapper(props: WrapperProps<typeof DocSidebarType>): ReactNode {
  return (
    <DeferHydration>
      <DocSidebar {...props} />
    </DeferHydration>
  );
}
