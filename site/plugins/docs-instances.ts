import path from 'node:path';
import type { SidebarsConfig } from '@docusaurus/plugin-content-docs';
import type { Configuration } from 'webpack';

/** One item of a sidebar (the docs plugin exports the sidebar types only through SidebarsConfig). */
export type SidebarItemConfig = Extract<SidebarsConfig[string], readonly unknown[]>[number];

/**
 * Several docs plugin instances read folders of docs/: the public one (all of docs/) and ones of their own for the
 * gated sections and the API reference. Each page must be compiled by one MDX rule only (two would strip its
 * metadata), so the public instance's rule is kept off the folders another instance owns.
 * Throws, naming the owner, when the public rule is not found (the Docusaurus internals changed).
 */
export function keepPublicDocsRuleOff(config: Configuration, siteDir: string, ownedDirs: string[], owner: string): void {
  const docsDir = path.join(siteDir, 'docs') + path.sep;
  let found = false;
  for (const rule of config.module?.rules ?? []) {
    if (!rule || typeof rule !== 'object' || !Array.isArray(rule.include) || !rule.include.includes(docsDir)) continue;
    const exclude = rule.exclude === undefined ? [] : Array.isArray(rule.exclude) ? rule.exclude : [rule.exclude];
    rule.exclude = [...exclude, ...ownedDirs];
    found = true;
  }
  if (!found) throw new Error(`${owner}: no MDX rule of the public docs (${docsDir}) to keep off ${ownedDirs.join(', ')}`);
}
