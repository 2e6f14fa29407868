// The module the gate plugin provides (site/plugins/gate/index.ts, a configureWebpack alias).
declare module '@keyway/public-docs-sidebar' {
  import type { PropSidebar } from '@docusaurus/plugin-content-docs';
  /** The public docs sidebar (`docs`) as the theme renders it, for the gated pages (GatedDocRoot). */
  const sidebar: PropSidebar;
  export default sidebar;
}
