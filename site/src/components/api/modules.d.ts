// Modules the API reference plugin provides (site/plugins/api-reference/index.ts, configureWebpack aliases).

declare module '@keyway/api-reference-ssr-pages' {
  import type { ReferencePageData } from './types';
  /** Every reference page by permalink in the server bundle (static rendering); empty in the browser bundle. */
  const pages: Record<string, ReferencePageData>;
  export default pages;
}

declare module '@keyway/api-reference-sidebar' {
  import type { ReferenceSidebarItem } from './types';
  const sidebar: ReferenceSidebarItem[];
  export default sidebar;
}
