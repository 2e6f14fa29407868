// The REST API reference, generated from api/openapi.yaml before Docusaurus reads the docs.
//
// Weight: the docs plugin puts every doc's title and description and every sidebar of an instance into one chunk that
// all pages of that instance load. With 166 operations in the public docs instance, every doc page would load their
// sidebar and metadata. So the operation pages and the overview are a docs instance of their own (id `api`, routes
// /docs/api and /docs/api/<slug>, its own grouped-by-tag sidebar), whose chunks only API pages load. The public instance
// keeps only the 22 category pages (/docs/category/api/<tag>) and a small `api` sidebar of those, as before.
//
// Output (gitignored, regenerated on every build and dev-server start; never edit it):
//   site/docs/api/_generated/  the `api` instance: index.mdx (from site/docs/api/_overview.mdx) and <tag>/<slug>.mdx
//   site/docs/api/categories/  the category pages of the public instance
// The public instance skips `_`-prefixed folders by default, so the operation pages are not part of it.
import { keepPublicDocsRuleOff } from '../docs-instances';
import fs from 'node:fs';
import path from 'node:path';
import type { SidebarsConfig } from '@docusaurus/plugin-content-docs';
import type { LoadContext, Plugin, PluginConfig } from '@docusaurus/types';
import categoryList from '../../src/data/api-categories.json';
import { ApiSpec, UMBRELLA_TAG, type Operation } from './spec';
import { categoryPage, operationPage, type Category } from './render';

export { ApiSpec, operationSlug, UMBRELLA_TAG, type Operation } from './spec';
export const API_INSTANCE_ID = 'api';
export const REFERENCE_DIR = '_generated';
export const CATEGORIES_DIR = 'categories';
export const OVERVIEW_SOURCE = '_overview.mdx';
export const DEFAULT_OPENAPI_FILE = path.resolve(__dirname, '../../../api/openapi.yaml');
const siteDir = path.resolve(__dirname, '../..');
/** One item of a sidebar (the package exports the sidebar types only through SidebarsConfig). */
type SidebarItemConfig = Extract<SidebarsConfig[string], readonly unknown[]>[number];

/** The categories of api-categories.json, checked against the tags of the contract in both directions. */
export function categoriesOf(spec: ApiSpec): Category[] {
  const known = new Set(categoryList.map((c) => c.id));
  const used = new Set(spec.operations().flatMap((o) => o.tags));
  const missing = [...used].filter((t) => !known.has(t));
  if (missing.length) throw new Error(`API reference: tag(s) ${missing.join(', ')} of api/openapi.yaml have no entry in site/src/data/api-categories.json`);
  const declared = new Set((spec.doc.tags ?? []).map((t) => t.name));
  const stale = categoryList.filter((c) => !used.has(c.id) && !declared.has(c.id)).map((c) => c.id);
  if (stale.length) throw new Error(`API reference: site/src/data/api-categories.json lists ${stale.join(', ')}, which api/openapi.yaml does not know`);
  // The contract's tag description wins: the JSON gives labels, and descriptions only for tags the contract leaves bare.
  const described = new Map((spec.doc.tags ?? []).map((t) => [t.name, t.description]));
  return categoryList.map((c) => ({ ...c, description: described.get(c.id) ?? c.description }));
}

/** Operations of a tag, in document order; the umbrella tag lists every operation carrying it. */
export const operationsOf = (ops: Operation[], tag: string): Operation[] => ops.filter((o) => o.tags.includes(tag));

/** Writes every page of the reference under `docsApiDir` (site/docs/api), replacing the previous output. */
export function writeApiReference(openapiFile: string, docsApiDir: string): { operations: Operation[]; categories: Category[] } {
  const spec = ApiSpec.load(openapiFile);
  const operations = spec.operations();
  const categories = categoriesOf(spec);
  const byId = new Map(categories.map((c) => [c.id, c]));
  const refDir = path.join(docsApiDir, REFERENCE_DIR);
  const catDir = path.join(docsApiDir, CATEGORIES_DIR);
  for (const dir of [refDir, catDir, path.join(docsApiDir, 'category'), path.join(docsApiDir, 'generated')]) fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(refDir, { recursive: true });
  fs.mkdirSync(catDir, { recursive: true });
  fs.copyFileSync(path.join(docsApiDir, OVERVIEW_SOURCE), path.join(refDir, 'index.mdx'));
  categories.forEach((cat, i) => {
    fs.writeFileSync(path.join(catDir, `${cat.id}.mdx`), categoryPage(cat, operationsOf(operations, cat.id), i + 2));
  });
  operations.forEach((op, i) => {
    const dir = path.join(refDir, op.primaryTag);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${op.slug}.mdx`), operationPage(spec, op, i + 1, byId));
  });
  return { operations, categories };
}

const categoryHref = (tag: string): string => `/docs/category/api/${tag}`;

/**
 * The sidebar of the `api` instance (overview and operation pages): the overview, then one collapsed group per tag
 * holding a link to its category page and the operations filed under it; the umbrella category as a single link.
 */
export function referenceSidebar(openapiFile = DEFAULT_OPENAPI_FILE): SidebarItemConfig[] {
  const spec = ApiSpec.load(openapiFile);
  const operations = spec.operations();
  const items: SidebarItemConfig[] = [{ type: 'doc', id: 'index', label: 'Overview' }];
  for (const cat of categoriesOf(spec)) {
    const mine = operations.filter((o) => o.primaryTag === cat.id);
    if (cat.id === UMBRELLA_TAG || !mine.length) {
      items.push({ type: 'link', label: cat.label, href: categoryHref(cat.id) });
      continue;
    }
    items.push({
      type: 'category',
      label: cat.label,
      collapsed: true,
      items: [{ type: 'link', label: `All ${cat.label} operations`, href: categoryHref(cat.id) }, ...mine.map((o) => ({ type: 'doc' as const, id: `${o.primaryTag}/${o.slug}` }))],
    });
  }
  return items;
}

/** The `api` sidebar of the public docs instance: the overview and the 22 category pages (no operation: see above). */
export function categoriesSidebar(): SidebarItemConfig[] {
  return [
    { type: 'link', label: 'Overview', href: '/docs/api' },
    ...categoryList.map((c): SidebarItemConfig => ({ type: 'doc', id: `api/${CATEGORIES_DIR}/${c.id}`, label: c.label })),
  ];
}

/** Keeps the public instance's MDX rule off the `api` instance's folder (both rules would strip the pages' metadata). */
function mdxRuleSplitPlugin(context: LoadContext): Plugin {
  const refDir = path.join(context.siteDir, 'docs', 'api', REFERENCE_DIR) + path.sep;
  return {
    name: 'keyway-api-reference',
    configureWebpack(config) {
      keepPublicDocsRuleOff(config, context.siteDir, [refDir], 'API reference');
      return {};
    },
  };
}

/** The plugins to register in docusaurus.config.ts: the `api` docs instance and the MDX rule split. */
export function apiReferencePlugins(): PluginConfig[] {
  return [
    [
      '@docusaurus/plugin-content-docs',
      {
        id: API_INSTANCE_ID,
        path: path.join(siteDir, 'docs', 'api', REFERENCE_DIR),
        routeBasePath: 'docs/api',
        sidebarPath: path.join(__dirname, 'sidebars.ts'),
        breadcrumbs: false,
        showLastUpdateTime: false,
      },
    ],
    mdxRuleSplitPlugin,
  ];
}
