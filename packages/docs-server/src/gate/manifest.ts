import fs from 'node:fs';
import path from 'node:path';

/** Name of the manifest the site's gate plugin writes into the build (site/plugins/gate); never served. */
export const GATE_MANIFEST = '.gate-manifest.json';

/** The gated sections when a build carries no manifest (then only their pages are known, not their chunks). */
export const DEFAULT_GATED_PREFIXES = ['/docs/identity-protection/detections', '/docs/identity-protection/queries'];

export interface GateManifest {
  prefixes: string[];
  /** Build files (relative paths) that only gated routes use: their HTML and their chunks. */
  files: Set<string>;
  /** False when the build had no manifest. */
  complete: boolean;
}

/** Reads the build's gate manifest; a malformed one is an error (the server must not start half-gated). */
export function readGateManifest(siteDir: string): GateManifest {
  const file = path.join(siteDir, GATE_MANIFEST);
  if (!fs.existsSync(file)) return { prefixes: DEFAULT_GATED_PREFIXES, files: new Set(), complete: false };
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  const m = raw as { version?: unknown; prefixes?: unknown; pages?: unknown; assets?: unknown };
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
  if (m.version !== 1 || !strings(m.prefixes) || !strings(m.pages) || !strings(m.assets) || m.prefixes.some((p) => !p.startsWith('/'))) {
    throw new Error(`${file} is not a version 1 gate manifest (prefixes, pages and assets as lists of paths)`);
  }
  return { prefixes: m.prefixes, files: new Set([...m.pages, ...m.assets]), complete: true };
}

/** Whether a clean route is in a gated section. */
export function inPrefixes(route: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => route === p || route.startsWith(`${p}/`));
}
