import React, { type ReactNode } from 'react';
import clsx from 'clsx';
import { HtmlClassNameProvider, ThemeClassNames } from '@docusaurus/theme-common';
import { DocsSidebarProvider, useDocRootMetadata } from '@docusaurus/plugin-content-docs/client';
import type { PropSidebar, PropSidebarItem } from '@docusaurus/plugin-content-docs';
import type { Props } from '@theme/DocRoot';
import DocRootLayout from '@theme/DocRoot/Layout';
import NotFoundContent from '@theme/NotFound/Content';
import publicSidebar from '@keyway/public-docs-sidebar';
import gatedPrefixes from '../../data/gated-prefixes.json';

/**
 * The public docs sidebar for a gated page: the public sidebar's "<section> (sign in)" links become the gated
 * sections, this page's own one with its pages (from its docs instance) and the other as a link. Everything else of
 * the public sidebar (the rest of Identity Protection, the other products) stays where the reader saw it.
 */
export function gatedSidebarItems(publicItems: PropSidebar, own: PropSidebar): PropSidebar {
  const ownSections = new Map(
    own.flatMap((item): [string, Extract<PropSidebarItem, { type: 'category' }>][] => {
      const href = item.type === 'category' ? item.href ?? firstHref(item.items) : item.type === 'link' ? item.href : undefined;
      const prefix = href && gatedPrefixes.find((p) => href === p || href.startsWith(`${p}/`));
      return prefix && item.type === 'category' ? [[prefix, item]] : [];
    }),
  );
  const map = (items: PropSidebar): PropSidebar =>
    items.map((item): PropSidebarItem => {
      if (item.type === 'category') return { ...item, items: map(item.items) };
      if (item.type !== 'link' || !gatedPrefixes.includes(item.href)) return item;
      const section = ownSections.get(item.href);
      if (section) return { ...section, collapsed: false };
      return { ...item, label: item.label.replace(/\s*\(sign in\)$/, '') };
    });
  return map(publicItems);
}

function firstHref(items: PropSidebar): string | undefined {
  for (const item of items) {
    if (item.type === 'link') return item.href;
    if (item.type === 'category') {
      const href = item.href ?? firstHref(item.items);
      if (href) return href;
    }
  }
  return undefined;
}

/**
 * `docRootComponent` of the gated docs instances (plugins/gate): the theme's DocRoot with the public sidebar around
 * the section (see gatedSidebarItems). The public sidebar's data is in this component's chunk, which only gated
 * routes load.
 */
export default function GatedDocRoot(props: Props): ReactNode {
  const metadata = useDocRootMetadata(props);
  if (!metadata) return <NotFoundContent />;
  const { docElement, sidebarName, sidebarItems } = metadata;
  return (
    <HtmlClassNameProvider className={clsx(ThemeClassNames.page.docsDocPage)}>
      <DocsSidebarProvider name={sidebarName} items={sidebarItems ? gatedSidebarItems(publicSidebar, sidebarItems) : undefined}>
        <DocRootLayout>{docElement}</DocRootLayout>
      </DocsSidebarProvider>
    </HtmlClassNameProvider>
  );
}
