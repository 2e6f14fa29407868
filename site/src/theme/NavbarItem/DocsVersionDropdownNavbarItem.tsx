import React from 'react';
import DocsVersionDropdownNavbarItem from '@theme-original/NavbarItem/DocsVersionDropdownNavbarItem';
import type { Props } from '@theme/NavbarItem/DocsVersionDropdownNavbarItem';
import { useActivePlugin } from '@docusaurus/plugin-content-docs/client';

/** The version dropdown belongs to doc pages only; elsewhere (landing page, /login, 404) it is not shown. */
export default function DocsVersionDropdownOnDocPages(props: Props): React.ReactElement | null {
  const activePlugin = useActivePlugin();
  return activePlugin ? <DocsVersionDropdownNavbarItem {...props} /> : null;
}
