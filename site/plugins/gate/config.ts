import gatedPrefixes from '../../src/data/gated-prefixes.json';

/**
 * The gated sections of the docs: each is its own docs plugin instance, so its titles and sidebar never reach the
 * sidebar data, chunks or HTML of the public docs (which exclude these folders).
 */
export interface GatedSection {
  /** Docs plugin instance id. */
  id: string;
  /** Folder under site/docs. */
  dir: string;
  /** URL prefix (one of src/data/gated-prefixes.json). */
  route: string;
  /** Label of the section in the sidebars. */
  label: string;
}

export const GATED_SECTIONS: readonly GatedSection[] = [
  { id: 'gated-detections', dir: 'identity-protection/detections', route: '/docs/identity-protection/detections', label: 'Detections' },
  { id: 'gated-queries', dir: 'identity-protection/queries', route: '/docs/identity-protection/queries', label: 'Queries' },
];

for (const s of GATED_SECTIONS) {
  if (!gatedPrefixes.includes(s.route)) throw new Error(`gated section ${s.id}: ${s.route} is not in src/data/gated-prefixes.json`);
}
if (gatedPrefixes.length !== GATED_SECTIONS.length) throw new Error('every prefix of src/data/gated-prefixes.json needs a gated section');

export { gatedPrefixes };

/** Whether a route (no trailing slash) is in a gated section. */
export const isGatedRoute = (route: string): boolean => gatedPrefixes.some((p) => route === p || route.startsWith(`${p}/`));

/** Globs the public docs instance must leave out. */
export const publicDocsExclude: string[] = GATED_SECTIONS.map((s) => `${s.dir}/**`);

/** Name of the build file listing what only gated routes use; the docs server reads it and never serves it. */
export const GATE_MANIFEST = '.gate-manifest.json';

/** Sitemap patterns that leave the gated routes out. */
export const gatedSitemapIgnore: string[] = gatedPrefixes.flatMap((p) => [p, `${p}/**`]);
