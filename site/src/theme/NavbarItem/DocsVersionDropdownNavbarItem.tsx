import React, { useContext } from 'react';
import DocsVersionDropdownNavbarItem from '@theme-original/NavbarItem/DocsVersionDropdownNavbarItem';
import type { Props } from '@theme/NavbarItem/DocsVersionDropdownNavbarItem';
import { useActiveDocContext, useActivePlugin } from '@docusaurus/plugin-content-docs/client';
import { ReferencePageContext } from '@site/src/components/api/referencePageContext';
import DeferHydration from '@site/src/components/DeferHydration';

/**
 * The version dropdown belongs to doc pages only (docs and the API reference); elsewhere (landing page, /login, 404) it
 * is not shown. "Doc page" means a doc exists at this address, not that the address is under /docs: the not-found page
 * is rendered at /404.html, so deciding from the path would render it differently in the browser than in the build.
 * The item (one element: a link with one version, a dropdown with several) is hydrated in a task of its own (see
 * DeferHydration): it works out each version's link for this page, the largest single piece of the navbar's hydration.
 */
export default function DocsVersionDropdownOnDocPages(props: Props): React.ReactElement | null {
  const activePlugin = useActivePlugin();
  const { activeDoc } = useActiveDocContext(activePlugin?.pluginId);
  const reference = useContext(ReferencePageContext);
  const docPage = reference ? reference.found : !!activePlugin && !!activeDoc;
  return docPage ? (
    <DeferHydration>
      <DocsVersionDropdownNavbarItem {...props} />
    </DeferHydration>
  ) : null;
}
