// Checks of the rendered pages in the production build (site/build, or KEYWAY_SITE_DIR): what a reader sees.
// They need a build (`npm test` builds first; by hand: `flock /tmp/keyway-site-build.lock npm run build`) and are
// reported as skipped without one.
import fs from 'node:fs';
import path from 'node:path';
import { load } from 'cheerio';
import { describe, expect, it } from 'vitest';
import { siteDir } from './docs-helpers';

export const buildDir = process.env.KEYWAY_SITE_DIR ? path.resolve(process.env.KEYWAY_SITE_DIR) : path.join(siteDir, 'build');
const built = fs.existsSync(path.join(buildDir, 'index.html'));

function htmlPages(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) htmlPages(p, out);
    else if (entry.name.endsWith('.html')) out.push(p);
  }
  return out;
}

/** The text a reader sees on a page, outside code (code samples may hold any characters). */
export function visibleProse(html: string): string {
  const $ = load(html);
  $('script, style, noscript, template, pre, code, svg').remove();
  return $('body').text();
}

describe.skipIf(!built)(`the rendered pages of ${path.relative(process.cwd(), buildDir) || buildDir}`, () => {
  it('show no unrendered admonition (":::" text outside code)', () => {
    const pages = htmlPages(buildDir);
    expect(pages.length).toBeGreaterThan(100);
    const raw = pages
      .map((file) => {
        const text = visibleProse(fs.readFileSync(file, 'utf8'));
        const at = text.indexOf(':::');
        return at < 0 ? null : `${path.relative(buildDir, file)}: …${text.slice(Math.max(0, at - 20), at + 40).replace(/\s+/g, ' ')}…`;
      })
      .filter((x): x is string => x !== null);
    expect(raw, 'pages showing raw ":::" (Docusaurus 3 wants :::tip[Title])').toEqual([]);
  });
});
