import fs from 'node:fs/promises';
import path from 'node:path';
import { GATE_MANIFEST, gatedPrefixes, isGatedRoute } from './config';

/** What the docs server needs to refuse gated content: the prefixes and every build file only gated routes use. */
export interface GateManifest {
  version: 1;
  prefixes: string[];
  /** HTML files of gated routes (paths relative to the build, forward slashes). */
  pages: string[];
  /** JS chunks (and their other files) that only gated routes load. */
  assets: string[];
}

/** `routesChunkNames.json` of the generated files: `<route path>-<hash>` → the chunk names that route loads. */
export type RoutesChunkNames = Record<string, unknown>;
/** `client-manifest.json` of the generated files: chunk name → chunk ids, chunk id → files. */
export interface ClientManifest {
  entrypoints: string[];
  origins: Record<string, string[]>;
  assets: Record<string, Record<string, { file: string }[]>>;
}

async function htmlFiles(dir: string, base = dir): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await htmlFiles(abs, base)));
    else if (entry.isFile() && entry.name.endsWith('.html')) out.push(path.relative(base, abs).split(path.sep).join('/'));
  }
  return out;
}

/** The clean route of an HTML file of the build (`docs/x.html` and `docs/x/index.html` are `/docs/x`). */
export function routeOfHtml(rel: string): string {
  if (rel === 'index.html') return '/';
  return `/${rel.replace(/(\/index)?\.html$/, '')}`;
}

function chunkNamesOf(value: unknown, out: Set<string>): Set<string> {
  if (typeof value === 'string') out.add(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) chunkNamesOf(v, out);
  return out;
}

/**
 * Splits the build into gated and public files. Every route (parents included: the gated sections are docs instances
 * of their own, so their layout routes have gated paths too) names the chunks it loads; a file is gated when a gated
 * route needs it and no public route does. Client-side navigation fetches exactly these chunks.
 */
export function computeManifest(htmlRels: string[], routes: RoutesChunkNames, client: ClientManifest): GateManifest {
  const filesOf = (names: Set<string>): Set<string> => {
    const files = new Set<string>();
    for (const name of names) {
      for (const id of client.origins[name] ?? []) {
        for (const list of Object.values(client.assets[id] ?? {})) for (const f of list) files.add(f.file.replace(/^\//, ''));
      }
    }
    return files;
  };
  const gatedNames = new Set<string>();
  const publicNames = new Set<string>(client.entrypoints);
  for (const [key, names] of Object.entries(routes)) {
    const route = key.replace(/-[^-/]+$/, '');
    chunkNamesOf(names, isGatedRoute(route) ? gatedNames : publicNames);
  }
  const publicFiles = filesOf(publicNames);
  return {
    version: 1,
    prefixes: [...gatedPrefixes],
    pages: htmlRels.filter((rel) => isGatedRoute(routeOfHtml(rel))).sort(),
    assets: [...filesOf(gatedNames)].filter((f) => !publicFiles.has(f)).sort(),
  };
}

export async function writeGateManifest(outDir: string, generatedFilesDir: string): Promise<GateManifest> {
  const read = async <T>(name: string): Promise<T> => JSON.parse(await fs.readFile(path.join(generatedFilesDir, name), 'utf8')) as T;
  const manifest = computeManifest(
    await htmlFiles(outDir),
    await read<RoutesChunkNames>('routesChunkNames.json'),
    await read<ClientManifest>('client-manifest.json'),
  );
  if (manifest.pages.length === 0 || manifest.assets.length === 0) {
    throw new Error(`gate: no gated pages or chunks in ${outDir}; the gated docs instances did not build as expected`);
  }
  for (const f of manifest.assets) await fs.access(path.join(outDir, f));
  await fs.writeFile(path.join(outDir, GATE_MANIFEST), JSON.stringify(manifest, null, 1));
  return manifest;
}
