import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** What the server knows of one file of the build, read once at start. */
export interface SiteFile {
  /** Path relative to the build directory, with forward slashes. */
  rel: string;
  isHtml: boolean;
  /** For HTML: SHA-256 sources of its inline scripts and the origins of its external scripts (for the CSP). */
  scriptHashes: string[];
  scriptOrigins: string[];
}

const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi;
const EXTERNAL_SCRIPT = /<script[^>]*\bsrc=["']?([^"' >]+)/gi;

function walk(dir: string, base = dir, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(abs, base, out);
    // Compressed twins are served through their file; source maps never are: a map carries its chunk's sources, the
    // text of gated pages included, and a build made for measuring (bench:site) has them.
    else if (entry.isFile() && !/\.(br|gz|map)$/.test(entry.name)) out.push(path.relative(base, abs).split(path.sep).join('/'));
  }
  return out;
}

/** Inline script hashes and external script origins of an HTML document. */
export function scriptSources(html: string): { scriptHashes: string[]; scriptOrigins: string[] } {
  const hashes = new Set<string>();
  const origins = new Set<string>();
  for (const m of html.matchAll(INLINE_SCRIPT)) {
    const body = m[1] ?? '';
    if (body.trim()) hashes.add(`'sha256-${createHash('sha256').update(body).digest('base64')}'`);
  }
  for (const m of html.matchAll(EXTERNAL_SCRIPT)) {
    const src = m[1] ?? '';
    if (/^https?:\/\//i.test(src)) origins.add(new URL(src).origin);
  }
  return { scriptHashes: [...hashes], scriptOrigins: [...origins] };
}

/** Reads the whole build once: the set of servable files and, for HTML, what its CSP must allow. */
export function readSite(siteDir: string): Map<string, SiteFile> {
  if (!fs.existsSync(path.join(siteDir, 'index.html'))) {
    throw new Error(`No site build at ${siteDir} (index.html is missing): build the site first with "npm run build".`);
  }
  const files = new Map<string, SiteFile>();
  for (const rel of walk(siteDir)) {
    const isHtml = rel.endsWith('.html');
    const sources = isHtml ? scriptSources(fs.readFileSync(path.join(siteDir, rel), 'utf8')) : { scriptHashes: [], scriptOrigins: [] };
    files.set(rel, { rel, isHtml, ...sources });
  }
  return files;
}
