// `npm run bench:site` — a benchmark, not a test: it prints figures and compares them with a baseline measured in the
// same run (a plain Docusaurus classic site with the same docs), it never fails on a target.
//
//   build time of our site and of the baseline
//   total JS of the build, first-load JS (raw and gzip) of `/`, a doc page and an API page, for both
//   Lighthouse (mobile preset, Debian Chromium) Performance / Accessibility / Best Practices / SEO of those pages
//
// Options: --runs N (Lighthouse runs per page, median reported; default 3), --skip-build (reuse site/build).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = path.join(root, 'bench', '.work');
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] ?? 3) || 3;
const skipBuild = args.includes('--skip-build');
const chromePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const { startDocsServer } = await import('@keyway/docs-server');

function timedBuild(cwd, outDir, env = {}) {
  const started = process.hrtime.bigint();
  const res = spawnSync('npx', ['docusaurus', 'build', '--out-dir', outDir], {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`build failed in ${cwd}:\n${res.stdout}\n${res.stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** A plain classic-preset site holding the same Markdown docs (MDX pages become plain pages with the same title). */
function makeBaselineSite() {
  const dir = path.join(work, 'plain-site');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'docs'), { recursive: true });
  const src = path.join(root, 'site', 'docs');
  let count = 0;
  const copy = (from, to) => {
    for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
      if (entry.name.startsWith('_')) continue;
      const a = path.join(from, entry.name);
      const b = path.join(to, entry.name);
      if (entry.isDirectory()) {
        fs.mkdirSync(b, { recursive: true });
        copy(a, b);
      } else if (entry.name.endsWith('.md')) {
        // Links to pages the baseline lacks must not fail its build; the text is what matters for size.
        fs.writeFileSync(b, fs.readFileSync(a, 'utf8'));
        count++;
      } else if (entry.name.endsWith('.mdx')) {
        const text = fs.readFileSync(a, 'utf8');
        const front = text.match(/^---\n[\s\S]*?\n---\n/)?.[0] ?? '';
        const body = text.slice(front.length).replace(/^import .*$/gm, '').replace(/<[^>]+>/g, '');
        fs.writeFileSync(b.replace(/\.mdx$/, '.md'), front + body);
        count++;
      }
    }
  };
  copy(src, path.join(dir, 'docs'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'plain-docusaurus-baseline', private: true }));
  fs.writeFileSync(
    path.join(dir, 'docusaurus.config.js'),
    `export default {
  title: 'Plain', url: 'http://localhost', baseUrl: '/', trailingSlash: false,
  onBrokenLinks: 'ignore', onBrokenAnchors: 'ignore', markdown: { format: 'detect', hooks: { onBrokenMarkdownLinks: 'ignore' } },
  // The same bundler settings as our site (Rspack without its persistent cache), so build times compare.
  future: { v4: true, faster: { swcJsLoader: true, swcJsMinimizer: true, swcHtmlMinimizer: true, lightningCssMinimizer: true,
    mdxCrossCompilerCache: true, rspackBundler: true, rspackPersistentCache: false, ssgWorkerThreads: true, gitEagerVcs: true } },
  presets: [['classic', { docs: { routeBasePath: 'docs' }, blog: false }]],
};
`,
  );
  fs.mkdirSync(path.join(dir, 'src', 'pages'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'src', 'pages', 'index.js'),
    `import Layout from '@theme/Layout';\nexport default function Home() { return <Layout title="Home"><main><h1>Plain</h1></main></Layout>; }\n`,
  );
  return { dir, count };
}

function jsFiles(buildDir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.js')) out.push(p);
    }
  };
  walk(buildDir);
  return out;
}

const gzipSize = (buf) => zlib.gzipSync(buf, { level: 9 }).length;

/**
 * JS the browser downloads before the `load` event, measured in Chromium: the page's own script tags plus the
 * route chunks the runtime fetches to hydrate it. Raw = decoded bytes, gzip = the same bytes gzipped (level 9).
 */
async function firstLoadJs(browser, url) {
  const page = await browser.newPage();
  const bodies = [];
  let loaded = false;
  page.on('response', (res) => {
    if (!loaded && res.request().resourceType() === 'script') bodies.push(res.body().catch(() => Buffer.alloc(0)));
  });
  const res = await page.goto(url, { waitUntil: 'load' });
  loaded = true;
  if (!res || res.status() !== 200) {
    await page.close();
    return undefined;
  }
  const all = await Promise.all(bodies);
  await page.close();
  return { scripts: all.length, raw: all.reduce((n, b) => n + b.length, 0), gz: all.reduce((n, b) => n + gzipSize(b), 0) };
}

async function lighthouseScores(url) {
  const { default: lighthouse } = await import('lighthouse');
  const chromeLauncher = await import('chrome-launcher');
  const results = [];
  for (let i = 0; i < runs; i++) {
    const chrome = await chromeLauncher.launch({
      chromePath,
      chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const res = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error' });
      const c = res.lhr.categories;
      results.push({
        performance: Math.round(c.performance.score * 100),
        accessibility: Math.round(c.accessibility.score * 100),
        bestPractices: Math.round(c['best-practices'].score * 100),
        seo: Math.round(c.seo.score * 100),
        fcp: res.lhr.audits['first-contentful-paint'].numericValue,
        lcp: res.lhr.audits['largest-contentful-paint'].numericValue,
        tbt: res.lhr.audits['total-blocking-time'].numericValue,
        failing: Object.values(res.lhr.audits)
          .filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode === 'binary')
          .map((a) => a.id),
      });
    } finally {
      await chrome.kill();
    }
  }
  const median = (key) => {
    const v = results.map((r) => r[key]).sort((a, b) => a - b);
    return v[Math.floor(v.length / 2)];
  };
  return {
    performance: median('performance'),
    accessibility: median('accessibility'),
    bestPractices: median('bestPractices'),
    seo: median('seo'),
    fcp: median('fcp'),
    lcp: median('lcp'),
    tbt: median('tbt'),
    failing: [...new Set(results.flatMap((r) => r.failing))],
  };
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

fs.mkdirSync(work, { recursive: true });
const ourBuild = path.join(root, 'site', 'build');
let ourBuildSeconds;
if (!skipBuild) {
  console.log('building the site…');
  spawnSync('npm', ['run', 'reference', '--if-present', '--silent', '-w', '@keyway/sdk'], { cwd: root, stdio: 'inherit' });
  ourBuildSeconds = timedBuild(path.join(root, 'site'), ourBuild);
}
console.log('building the baseline (plain Docusaurus classic site with the same docs)…');
const baseline = makeBaselineSite();
const baselineBuild = path.join(baseline.dir, 'build'); // inside the baseline's own package (CommonJS)
const baselineSeconds = timedBuild(baseline.dir, baselineBuild, { DOCUSAURUS_GENERATED_FILES_DIR_NAME: '.docusaurus' });

const apiPage = (() => {
  const dir = path.join(ourBuild, 'docs', 'api');
  const op = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith('.html') && f !== 'index.html') : undefined;
  return op ? `/docs/api/${op.replace(/\.html$/, '')}` : '/docs/api';
})();
const pages = [
  ['landing', '/', '/'],
  ['doc page', '/docs/intro', '/docs/intro'],
  ['API page', apiPage, '/docs/api'],
];

const ourJs = jsFiles(ourBuild);
const baseJs = jsFiles(baselineBuild);
const total = (files) => files.reduce((s, f) => s + fs.statSync(f).size, 0);
console.log(`\n== Build (${baseline.count} docs in the baseline)`);
if (ourBuildSeconds) console.log(`our site build        ${ourBuildSeconds.toFixed(1)} s   (baseline ${baselineSeconds.toFixed(1)} s, ratio ${(ourBuildSeconds / baselineSeconds).toFixed(2)})`);
else console.log(`baseline build        ${baselineSeconds.toFixed(1)} s   (our build reused: --skip-build)`);
console.log(`total JS              ${kib(total(ourJs))} in ${ourJs.length} files   (baseline ${kib(total(baseJs))} in ${baseJs.length} files)`);

const server = await startDocsServer({ siteDir: ourBuild, port: 0 });
const baseServer = await startDocsServer({ siteDir: baselineBuild, port: 0 });
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({ executablePath: chromePath, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
console.log('\n== First-load JS (every script fetched before the load event, in Chromium)');
for (const [name, route, baseRoute] of pages) {
  const ours = await firstLoadJs(browser, server.url + route);
  const base = await firstLoadJs(browser, baseServer.url + baseRoute);
  if (!ours) continue;
  const ratio = base ? ` | baseline ${kib(base.raw)} raw / ${kib(base.gz)} gzip (${base.scripts}), ratio ${(ours.gz / base.gz).toFixed(2)}` : '';
  console.log(`${name.padEnd(10)} ${route.padEnd(44)} ${kib(ours.raw)} raw / ${kib(ours.gz)} gzip (${ours.scripts} scripts)${ratio}`);
}
await browser.close();

console.log(`\n== Lighthouse, mobile preset, median of ${runs} (served by the docs server with compression)`);
try {
  for (const [name, route, baseRoute] of pages) {
    const s = await lighthouseScores(server.url + route);
    // The baseline has no API reference: compare API pages with nothing rather than with its 404 page.
    const hasBase = (await fetch(baseServer.url + baseRoute)).status === 200;
    const b = hasBase ? await lighthouseScores(baseServer.url + baseRoute) : undefined;
    console.log(
      `${name.padEnd(10)} perf ${s.performance} a11y ${s.accessibility} bp ${s.bestPractices} seo ${s.seo}` +
        `  FCP ${Math.round(s.fcp)} ms LCP ${Math.round(s.lcp)} ms TBT ${Math.round(s.tbt)} ms` +
        (b ? `  | baseline perf ${b.performance} a11y ${b.accessibility} bp ${b.bestPractices} seo ${b.seo}` : '  | no baseline page') +
        (s.failing.length ? `\n           failing audits: ${s.failing.join(', ')}` : ''),
    );
  }
} finally {
  await server.close();
  await baseServer.close();
}
console.log('\ntargets: Performance ≥ 95, Accessibility 100, Best Practices 100, SEO 100; doc-page first-load JS ≤ baseline');
