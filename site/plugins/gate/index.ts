import path from 'node:path';
import type { LoadContext, Plugin, PluginConfig } from '@docusaurus/types';
import { GATED_SECTIONS } from './config';
import { writeGateManifest } from './manifest';
import { keepPublicDocsRuleOff } from '../docs-instances';

/** Records which build files belong only to gated routes (read by the docs server, never served). */
function gateManifestPlugin(context: LoadContext): Plugin {
  const gatedDirs = GATED_SECTIONS.map((s) => path.join(context.siteDir, 'docs', s.dir) + path.sep);
  return {
    name: 'keyway-gate-manifest',
    // The public docs instance's MDX rule covers all of docs/; the gated folders are compiled by their own instances
    // only (with both rules, their pages would lose their metadata).
    configureWebpack(config) {
      keepPublicDocsRuleOff(config, context.siteDir, gatedDirs, 'gate');
      return {};
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
