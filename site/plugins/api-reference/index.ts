// The REST API reference, generated from api/openapi.yaml at build time.
//
// Weight: Docusaurus keeps every route, the chunk of every page and every doc of every docs instance in main.js and its
// runtime, which every page loads: 188 reference pages as docs cost every doc page of the site 18 KiB gzip. So the
// reference pages (one per operation, one per tag) are not docs: they are JSON (./render.ts) that one React component
// renders (site/src/components/api/ReferencePage.tsx) inside the theme's doc layout.
//   - Server side, every page has its route, so the build renders each to static HTML; the component reads its data from
//     a JSON module only the server bundle contains.
//   - Client side, those routes are folded into two parameter routes (/docs/api/:slug and /docs/category/api/:tag): the
//     client's route table, written by Docusaurus, is rewritten for the browser bundle (foldClientRoutes). A page's data
//     is in the page itself on first load and fetched from /api-reference/<path>.json on client-side navigation.
// The hand-written overview (/docs/api) stays a docs instance of its own (id `api`) whose sidebar lists the operations.
//
// Output (gitignored, regenerated on every build and dev-server start; never edit it): site/docs/api/_generated/index.mdx,
// copied from site/docs/api/_overview.mdx; the pages' JSON in the generated-files folder and the build.
import { keepPublicDocsRuleOff, type SidebarItemConfig } from '../docs-instances';
import fs from 'node:fs';
import path from 'node:path';
import type { LoadContext, Plugin, PluginConfig } from '@docusaurus/types';
import type { Configuration } from 'webpack';
import { pageDataUrl } from '../../src/components/api/dataUrl';
import type { ReferencePageData, ReferenceSidebarItem } from '../../src/components/api/types';
import categoryList from '../../src/data/api-categories.json';
import { CONTRACT_PATH, loadContract } from '@keyway/api';
import { ApiSpec, UMBRELLA_TAG, type Operation } from './spec';
import { categoryHref, categoryPage, operationHref, operationPage, type Category } from './render';

export { ApiSpec, operationSlug, UMBRELLA_TAG, type Operation } from './spec';
export const API_INSTANCE_ID = 'api';
export const REFERENCE_DIR = '_generated';
export const OVERVIEW_SOURCE = '_overview.mdx';
/** The contract the reference is generated from: `openapi.yaml` of `@keyway/api`. */
export const DEFAULT_OPENAPI_FILE = CONTRACT_PATH;
const siteDir = path.resolve(__dirname, '../..');

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

/** Folder of the hand-written overviews of the categories: `<tag>.md`, Markdown shown above the operations table. */
export const OVERVIEWS_DIR = path.join(__dirname, 'overviews');

/** The hand-written overview of a category, if it has one. */
export function categoryOverview(tag: string): string | undefined {
  const file = path.join(OVERVIEWS_DIR, `${tag}.md`);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}

/** Operations of a tag, in document order; the umbrella tag lists every operation carrying it. */
export const operationsOf = (ops: Operation[], tag: string): Operation[] => ops.filter((o) => o.tags.includes(tag));

/** Writes the overview page of the `api` docs instance (`site/docs/api/_generated/index.mdx`), replacing older output. */
export function writeApiReference(openapiFile: string, docsApiDir: string): { operations: Operation[]; categories: Category[] } {
  const spec = ApiSpec.load(openapiFile);
  const refDir = path.join(docsApiDir, REFERENCE_DIR);
  // `categories`, `category` and `generated` held the output of earlier versions of this generator.
  for (const dir of [refDir, ...['categories', 'category', 'generated'].map((d) => path.join(docsApiDir, d))]) fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(refDir, { recursive: true });
  fs.copyFileSync(path.join(docsApiDir, OVERVIEW_SOURCE), path.join(refDir, 'index.mdx'));
  return { operations: spec.operations(), categories: categoriesOf(spec) };
}

/** The api sidebar, independent of who renders it: the overview, then a group per tag (umbrella: one link). */
type SidebarLink = { label: string; href: string; method?: string; deprecated?: boolean };
type SidebarEntry = SidebarLink | { label: string; items: SidebarLink[] };

function sidebarEntries(spec: ApiSpec): SidebarEntry[] {
  const operations = spec.operations();
  const entries: SidebarEntry[] = [];
  for (const cat of categoriesOf(spec)) {
    const mine = operations.filter((o) => o.primaryTag === cat.id);
    if (cat.id === UMBRELLA_TAG || !mine.length) {
      entries.push({ label: cat.label, href: categoryHref(cat.id) });
      continue;
    }
    entries.push({
      label: cat.label,
      items: [{ label: `All ${cat.label} operations`, href: categoryHref(cat.id) }, ...mine.map((o) => ({ label: o.summary, href: operationHref(o), method: o.method, deprecated: !!o.raw.deprecated }))],
    });
  }
  return entries;
}

const methodClass = (method?: string, deprecated?: boolean): { className?: string } =>
  method ? { className: `api-sidebar-${method}${deprecated ? ' api-sidebar-deprecated' : ''}` } : {};

/** The sidebar of the `api` docs instance (the overview page), as docs plugin configuration. */
export function referenceSidebar(openapiFile = DEFAULT_OPENAPI_FILE): SidebarItemConfig[] {
  const link = (l: SidebarLink): SidebarItemConfig => ({ type: 'link', label: l.label, href: l.href, ...methodClass(l.method, l.deprecated) });
  return [
    { type: 'doc', id: 'index', label: 'Overview' },
    ...sidebarEntries(ApiSpec.load(openapiFile)).map((e): SidebarItemConfig => ('items' in e ? { type: 'category', label: e.label, collapsed: true, items: e.items.map(link) } : link(e))),
  ];
}

/** The same sidebar in the shape the theme's DocSidebar renders, for the reference pages. */
export function referenceSidebarProps(spec: ApiSpec): ReferenceSidebarItem[] {
  const link = (l: SidebarLink): ReferenceSidebarItem => ({ type: 'link', label: l.label, href: l.href, ...methodClass(l.method, l.deprecated) });
  return [
    { type: 'link', label: 'Overview', href: '/docs/api' },
    ...sidebarEntries(spec).map((e): ReferenceSidebarItem => ('items' in e ? { type: 'category', label: e.label, collapsed: true, collapsible: true, items: e.items.map(link) } : link(e))),
  ];
}

/** Every page of the reference, with previous/next links in sidebar order (as the docs plugin does for docs). */
export function referencePages(openapiFile = DEFAULT_OPENAPI_FILE): { pages: ReferencePageData[]; sidebar: ReferenceSidebarItem[] } {
  const spec = ApiSpec.load(openapiFile);
  const operations = spec.operations();
  const categories = categoriesOf(spec);
  const byId = new Map(categories.map((c) => [c.id, c]));
  const pages = [
    ...operations.map((op) => operationPage(spec, op, byId)),
    ...categories.map((cat) => categoryPage(cat, operationsOf(operations, cat.id), { overview: categoryOverview(cat.id), categories })),
  ];
  const sidebar = referenceSidebarProps(spec);
  const order = sidebar.flatMap((i) => (i.type === 'category' ? i.items : [i])).flatMap((i) => (i.type === 'link' ? [i] : []));
  const byPermalink = new Map(pages.map((p) => [p.permalink, p]));
  order.forEach((item, i) => {
    const page = byPermalink.get(item.href);
    if (!page) return;
    const prev = order[i - 1];
    const next = order[i + 1];
    if (prev) page.previous = { title: prev.label, permalink: prev.href };
    if (next) page.next = { title: next.label, permalink: next.href };
  });
  return { pages, sidebar };
}

/** Route attribute marking the reference pages in the generated route table; its value is the page kind. */
export const ROUTE_MARK = 'keywayApiPage';
/** The client's routes for the reference: one per kind. */
export const CLIENT_ROUTES = { operation: '/docs/api/:slug', category: '/docs/category/api/:tag' } as const;

/**
 * Folds the reference pages of Docusaurus's generated route table (routes.js) and chunk-name table
 * (routesChunkNames.json) into one route per kind, for the browser bundle. The kept route takes over the first page's
 * chunk-name entry (renamed after the parameter route): all pages of a kind share it, having no modules of their own. Throws when the format is not
 * the one expected, rather than shipping every route.
 */
export function foldClientRoutes(routesJs: string, chunkNames: Record<string, unknown>): { routesJs: string; chunkNames: Record<string, unknown> } {
  const block = new RegExp(String.raw`\{\s*path: '([^']+)',\s*component: ComponentCreator\('([^']+)', '([^']+)'\),\s*exact: true,\s*${ROUTE_MARK}: "(operation|category)"\s*\},?`, 'g');
  const kept = new Map<string, string>();
  const dropped = new Set<string>();
  const folded = routesJs.replace(block, (_all, routePath: string, creatorPath: string, hash: string, kind: keyof typeof CLIENT_ROUTES) => {
    const key = `${creatorPath}-${hash}`;
    if (routePath !== creatorPath || !(key in chunkNames)) throw new Error(`API reference: unexpected route entry for ${routePath} in routes.js`);
    if (kept.has(kind)) {
      dropped.add(key);
      return '';
    }
    kept.set(kind, key);
    return `{ path: '${CLIENT_ROUTES[kind]}', component: ComponentCreator('${CLIENT_ROUTES[kind]}', '${hash}'), exact: true },`;
  });
  if (kept.size !== Object.keys(CLIENT_ROUTES).length) throw new Error(`API reference: found ${[...kept.keys()].join(', ') || 'no'} reference routes in routes.js; the generated format changed`);
  if (folded.includes(ROUTE_MARK)) throw new Error('API reference: a reference route of routes.js was not folded; the generated format changed');
  const renamed = new Map([...kept].map(([kind, key]) => [key, `${CLIENT_ROUTES[kind as keyof typeof CLIENT_ROUTES]}-${key.slice(key.lastIndexOf('-') + 1)}`]));
  return {
    routesJs: folded,
    chunkNames: Object.fromEntries(Object.entries(chunkNames).flatMap(([k, v]) => (dropped.has(k) ? [] : [[renamed.get(k) ?? k, v]]))),
  };
}

/** A webpack/Rspack plugin that emits each page's JSON where the browser fetches it (pageDataUrl; build and dev server). */
/**
 * The contract itself, offered for download on the API overview: `/openapi.yaml` (the file the pages are generated
 * from, as it is) and `/openapi.json` (the same document as JSON).
 */
export function contractFiles(openapiFile = DEFAULT_OPENAPI_FILE): Record<string, string> {
  const contract = loadContract(openapiFile);
  return {
    'openapi.yaml': contract.text,
    'openapi.json': `${JSON.stringify(contract.doc, null, 2)}\n`,
  };
}

function emitPageData(pages: ReferencePageData[], files: Record<string, string>) {
  return {
    apply(compiler: import('webpack').Compiler): void {
      const { RawSource } = compiler.webpack.sources;
      compiler.hooks.thisCompilation.tap('keyway-api-reference', (compilation) => {
        compilation.hooks.processAssets.tap({ name: 'keyway-api-reference', stage: compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
          for (const page of pages) compilation.emitAsset(pageDataUrl(page.permalink).slice(1), new RawSource(JSON.stringify(page)));
          for (const [name, text] of Object.entries(files)) compilation.emitAsset(name, new RawSource(text));
        });
      });
    },
  };
}

interface Content {
  pages: ReferencePageData[];
  sidebar: ReferenceSidebarItem[];
  /** The contract files served beside the pages (see contractFiles). */
  files: Record<string, string>;
}

/** Module names the reference page component imports (see ReferencePage.tsx and its declarations). */
export const SSR_PAGES_MODULE = '@keyway/api-reference-ssr-pages';
export const SIDEBAR_MODULE = '@keyway/api-reference-sidebar';

function referencePlugin(context: LoadContext): Plugin<Content> {
  const refDir = path.join(context.siteDir, 'docs', 'api', REFERENCE_DIR) + path.sep;
  const dataDir = path.join(context.generatedFilesDir, 'keyway-api-reference');
  return {
    name: 'keyway-api-reference',
    loadContent: async () => ({ ...referencePages(), files: contractFiles() }),
    async contentLoaded({ content, actions }) {
      fs.mkdirSync(dataDir, { recursive: true });
      fs.writeFileSync(path.join(dataDir, 'pages.json'), JSON.stringify(Object.fromEntries(content.pages.map((p) => [p.permalink, p]))));
      fs.writeFileSync(path.join(dataDir, 'no-pages.json'), '{}');
      fs.writeFileSync(path.join(dataDir, 'sidebar.json'), JSON.stringify(content.sidebar));
      for (const page of content.pages) {
        actions.addRoute({ path: page.permalink, component: '@site/src/components/api/ReferencePage', exact: true, [ROUTE_MARK]: page.kind });
      }
    },
    configureWebpack(config, isServer, utils, content) {
      keepPublicDocsRuleOff(config as Configuration, context.siteDir, [refDir], 'API reference');
      const alias = {
        [`${SSR_PAGES_MODULE}$`]: path.join(dataDir, isServer ? 'pages.json' : 'no-pages.json'),
        [`${SIDEBAR_MODULE}$`]: path.join(dataDir, 'sidebar.json'),
      };
      if (isServer || !content) return { resolve: { alias } };
      const plugins: unknown[] = [emitPageData(content.pages, content.files)];
      if (config.mode === 'production') {
        // The browser gets the folded route table; the server bundle keeps every route so the build renders every page.
        const routes = fs.readFileSync(path.join(context.generatedFilesDir, 'routes.js'), 'utf8');
        const chunkNames = JSON.parse(fs.readFileSync(path.join(context.generatedFilesDir, 'routesChunkNames.json'), 'utf8')) as Record<string, unknown>;
        const folded = foldClientRoutes(routes, chunkNames);
        fs.writeFileSync(path.join(dataDir, 'client-routes.js'), folded.routesJs);
        fs.writeFileSync(path.join(dataDir, 'client-routesChunkNames.json'), JSON.stringify(folded.chunkNames));
        const { NormalModuleReplacementPlugin } = utils.currentBundler.instance;
        plugins.push(
          new NormalModuleReplacementPlugin(/^@generated\/routes$/, path.join(dataDir, 'client-routes.js')),
          new NormalModuleReplacementPlugin(/^@generated\/routesChunkNames$/, path.join(dataDir, 'client-routesChunkNames.json')),
        );
      }
      return { resolve: { alias }, plugins } as Configuration;
    },
  };
}

/** The plugins to register in docusaurus.config.ts: the `api` docs instance (overview) and the reference pages. */
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
    // The docs plugin's types know only `unknown` content; ours is typed.
    referencePlugin as PluginConfig,
  ];
}
