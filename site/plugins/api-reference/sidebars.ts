import type { SidebarsConfig } from '@docusaurus/plugin-content-docs';
import { referenceSidebar } from './index';

// Sidebar of the `api` docs instance (overview and operation pages), grouped by tag; see ./index.ts.
const sidebars: SidebarsConfig = { api: referenceSidebar() };
export default sidebars;
