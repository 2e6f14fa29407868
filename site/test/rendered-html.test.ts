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
    // Reads every page of the build (over 1000): about 6 s on a busy machine, over the 5 s default.
  }, 60_000);
});

// Diagrams: ```mermaid blocks render as SVG in Chromium on the pages that have them, and a page without one fetches
// none of the diagram code (theme-mermaid's component and the mermaid library are a lazy chunk, src/theme/Mermaid).
// Served by the docs server, nothing intercepted.
const DIAGRAM_PAGES = [
  '/docs/access',
  '/docs/access/concepts/token-containers',
  '/docs/access/guides/oauth-server',
  '/docs/gate/getting-started',
  '/docs/gate/configuration/plugin-config',
  '/docs/identity-protection/onboarding',
];
const MERMAID_MARK = 'docusaurus-mermaid-container';

describe.skipIf(!built)('diagrams in Chromium', () => {
  it('render on the pages that have them; a page without one loads no diagram code', async () => {
    const { startDocsServer } = await import('@keyway/docs-server');
    const { launchChromium } = await import('@keyway/test-support');
    const server = await startDocsServer({ siteDir: buildDir, port: 0 });
    const browser = await launchChromium();
    try {
      for (const route of DIAGRAM_PAGES) {
        const html = fs.readFileSync(path.join(buildDir, `${route.slice(1)}.html`), 'utf8');
        expect(html, `${route}: the diagram's source shown as code`).not.toContain('language-mermaid');
        const page = await browser.newPage();
        await page.goto(server.url + route);
        await page.locator(`.${MERMAID_MARK} svg`).first().waitFor({ timeout: 30_000 });
        await page.close();
      }
      const page = await browser.newPage();
      const scripts: Promise<string>[] = [];
      page.on('response', (res) => {
        if (res.request().resourceType() === 'script') scripts.push(res.text().catch(() => ''));
      });
      await page.goto(`${server.url}/docs/intro`, { waitUntil: 'load' });
      // The route's chunks are requested only once main.js has run, which on a busy machine is after the network
      // was idle for a moment: wait for them, then until no script has arrived for two seconds.
      await expect.poll(() => scripts.length, { timeout: 30_000, message: 'the route chunks of /docs/intro load' }).toBeGreaterThan(3);
      for (let seen = -1; seen !== scripts.length; ) {
        seen = scripts.length;
        await page.waitForTimeout(2_000);
      }
      const code = await Promise.all(scripts);
      expect(code.filter((c) => c.includes(MERMAID_MARK)), 'scripts of /docs/intro holding diagram code').toEqual([]);
      await page.close();
    } finally {
      await browser.close();
      await server.close();
    }
  }, 180_000);
});
