import fs from 'node:fs';
import path from 'node:path';
import type { LoadContext, Plugin, PluginConfig } from '@docusaurus/types';
import type { LoadedContent } from '@docusaurus/plugin-content-docs';
import { toSidebarsProp } from '@docusaurus/plugin-content-docs/lib/props.js';
import { GATED_SECTIONS } from './config';
import { writeGateManifest } from './manifest';
import { keepPublicDocsRuleOff } from '../docs-instances';

/** Module name of the public docs sidebar as the theme renders it (for src/components/gate/GatedDocRoot.tsx). */
export const PUBLIC_SIDEBAR_MODULE = '@keyway/public-docs-sidebar';

/**
 * Records which build files belong only to gated routes (read by the docs server, never served), and gives the gated
 * pages the public sidebar: once every docs instance is loaded, the public one's `docs` sidebar, made into the props
 * the theme renders by the docs plugin's own function, is written beside the generated files for GatedDocRoot.
 */
function gateManifestPlugin(context: LoadContext): Plugin {
  const gatedDirs = GATED_SECTIONS.map((s) => path.join(context.siteDir, 'docs', s.dir) + path.sep);
  const sidebarFile = path.join(context.generatedFilesDir, 'keyway-gate', 'public-sidebar.json');
  return {
    name: 'keyway-gate-manifest',
    async allContentLoaded({ allContent }) {
      const docs = allContent['docusaurus-plugin-content-docs']?.default as LoadedContent | undefined;
      const version = docs?.loadedVersions[0];
      const sidebar = version ? toSidebarsProp(version).docs : undefined;
      if (!sidebar) throw new Error('gate: the public docs instance has no `docs` sidebar to show around the gated pages');
      fs.mkdirSync(path.dirname(sidebarFile), { recursive: true });
      fs.writeFileSync(sidebarFile, JSON.stringify(sidebar));
    },
    // The public docs instance's MDX rule covers all of docs/; the gated folders are compiled by their own instances
    // only (with both rules, their pages would lose their metadata).
    configureWebpack(config) {
      keepPublicDocsRuleOff(config, context.siteDir, gatedDirs, 'gate');
      return { resolve: { alias: { [`${PUBLIC_SIDEBAR_MODULE}$`]: sidebarFile } } };
    },
    async postBuild({ outDir }) {
      const m = await writeGateManifest(outDir, context.generatedFilesDir);
      console.log(`[keyway] gate: ${m.pages.length} gated pages, ${m.assets.length} gated-only assets`);
    },
  };
}

/**
 * The gated docs: one docs plugin instance per gated section (own sidebar, own chunks, out of the sitemap), plus the
 * manifest of gated build files. The public docs instance excludes their folders (see `publicDocsExclude`).
 */
export function gatePlugins(): PluginConfig[] {
  return [
    ...GATED_SECTIONS.map(
      (s): PluginConfig => [
        '@docusaurus/plugin-content-docs',
        {
          id: s.id,
          path: `docs/${s.dir}`,
          routeBasePath: s.route.slice(1),
          sidebarPath: path.join(__dirname, `sidebars-${s.id.replace(/^gated-/, '')}.ts`),
          // The theme's DocRoot with the whole public sidebar around the section's pages.
          docRootComponent: '@site/src/components/gate/GatedDocRoot',
          breadcrumbs: false,
          showLastUpdateTime: false,
          lastVersion: 'current',
          versions: { current: { label: 'Next' } },
        },
      ],
    ),
    gateManifestPlugin,
  ];
}

export { GATED_SECTIONS, isGatedRoute, publicDocsExclude, gatedSitemapIgnore, GATE_MANIFEST } from './config';
