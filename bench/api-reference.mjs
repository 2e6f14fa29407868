#!/usr/bin/env node
// Weight of the API reference (not a test): the JavaScript a page loads before it is interactive, for normal doc pages
// and API pages of one or more site builds. Two figures per page:
//   - html: the files of the HTML's <script src> tags (what the page references directly);
//   - first-load: every .js file Chromium fetches until the page has hydrated and `load` fired (the route chunks the
//     runtime loads: page content, sidebar and version data, components), which is the figure that matters.
// Raw bytes and gzip (level 9) of the files on disk. Lazy chunks loaded on a click (try-it) are not counted.
//
//   node bench/api-reference.mjs /tmp/build-before /tmp/build-after
//   LIGHTHOUSE=1 node bench/api-reference.mjs /tmp/build     (adds one mobile Lighthouse run per page)
//   PAGES=/docs/intro,/docs/api/get-persons node bench/api-reference.mjs /tmp/build
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { startDocsServer } from '@keyway/docs-server';

const builds = process.argv.slice(2);
const chromePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** One Lighthouse run (default mobile preset) in its own Chromium: the four category scores. */
async function lighthouseScores(url) {
  const { default: lighthouse } = await import('lighthouse');
  const chromeLauncher = await import('chrome-launcher');
  const chrome = await chromeLauncher.launch({ chromePath, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    const { lhr } = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error' });
    const c = lhr.categories;
    return [c.performance, c.accessibility, c['best-practices'], c.seo].map((x) => Math.round(x.score * 100)).join(' / ');
  } finally {
    await chrome.kill();
  }
}
if (!builds.length) {
  console.error('usage: node bench/api-reference.mjs BUILD_DIR [BUILD_DIR...]');
  process.exit(2);
}
const PAGES = (process.env.PAGES ?? '/docs/intro,/docs/access,/docs/gate/getting-started,/docs/api,/docs/category/api/persons,/docs/api/get-persons,/docs/api/post-persons')
  .split(',')
  .filter(Boolean);

const sizes = (file) => {
  const buf = fs.readFileSync(file);
  return { raw: buf.length, gzip: zlib.gzipSync(buf, { level: 9 }).length };
};
const kb = (n) => (n / 1024).toFixed(1);

const browser = await chromium.launch({ executablePath: chromePath, args: ['--no-sandbox', '--disable-gpu'] });
const results = [];
try {
  for (const dir of builds) {
    const server = await startDocsServer({ siteDir: dir, port: 0 });
    try {
      for (const route of PAGES) {
        const htmlFile = path.join(dir, `${route}.html`);
        if (!fs.existsSync(htmlFile)) {
          results.push({ build: dir, route, missing: true });
          continue;
        }
        const html = fs.readFileSync(htmlFile, 'utf8');
        const htmlScripts = [...html.matchAll(/<script[^>]*\ssrc=["']?([^"' >]+)/g)].map((m) => m[1]);
        const page = await browser.newPage();
        const js = new Set();
        const pending = [];
        page.on('request', (req) => {
          const u = new URL(req.url());
          if (!u.pathname.endsWith('.js') || u.origin !== new URL(server.url).origin) return;
          // <link rel=prefetch> of linked pages (Docusaurus prefetches visible links) is not this page's weight.
          pending.push(req.allHeaders().then((h) => { if (!/prefetch/i.test(h['sec-purpose'] ?? h['purpose'] ?? '')) js.add(u.pathname); }));
        });
        await page.goto(server.url + route, { waitUntil: 'load' });
        await page.locator('html[data-has-hydrated="true"]').waitFor({ state: 'attached', timeout: 15_000 });
        await Promise.all(pending);
        await page.close();
        const sum = (files) =>
          files.reduce((acc, f) => {
            const s = sizes(path.join(dir, f));
            return { raw: acc.raw + s.raw, gzip: acc.gzip + s.gzip, files: acc.files + 1 };
          }, { raw: 0, gzip: 0, files: 0 });
        if (process.env.VERBOSE) for (const f of [...js].sort()) console.error(`${route}\t${f}\t${sizes(path.join(dir, f)).raw}\t${sizes(path.join(dir, f)).gzip}`);
        const lighthouse = process.env.LIGHTHOUSE ? await lighthouseScores(server.url + route) : '';
        results.push({ build: dir, route, html: sum(htmlScripts), firstLoad: sum([...js]), lighthouse });
      }
    } finally {
      await server.close();
    }
  }
} finally {
  await browser.close();
}

console.log('| build | page | HTML <script> raw / gzip KiB | first-load JS raw / gzip KiB (files) | Lighthouse perf / a11y / BP / SEO |');
console.log('| --- | --- | --- | --- | --- |');
for (const r of results) {
  if (r.missing) console.log(`| ${r.build} | ${r.route} | (no page) | |`);
  else console.log(`| ${r.build} | ${r.route} | ${kb(r.html.raw)} / ${kb(r.html.gzip)} | ${kb(r.firstLoad.raw)} / ${kb(r.firstLoad.gzip)} (${r.firstLoad.files}) | ${r.lighthouse} |`);
}
