// `npm run bench:site` — a benchmark, not a test: it prints figures and compares them with a baseline measured in the
// same run (a plain Docusaurus classic site with the same docs), it never fails on a target.
//
//   build time of our site and of the baseline
//   total JS of the build, first-load JS (raw and gzip) of `/`, a doc page and an API page, for both
//   where the bytes go: the top modules of every first-load script by gzip bytes, and the feature that pulls each in
//     (from the source maps the build writes when KEYWAY_SOURCE_MAPS=1, read with source-map-explorer)
//   main-thread blocking of a page load from a Chromium trace, in thread CPU time (steadier than Lighthouse on a busy
//     machine): the long tasks after first paint as the mobile preset would count them (CPU ×4)
//   Lighthouse (mobile and desktop presets, Debian Chromium) Performance / Accessibility / Best Practices / SEO
//
// Options: --runs N (Lighthouse runs per page, median reported; default 3), --skip-build (reuse site/build),
// --build DIR (measure that build instead of site/build, e.g. a copy kept from before a change; implies --skip-build),
// --reuse-baseline (measure the baseline built by an earlier run, bench/.work/plain-site/build, when the docs have not
// changed since), --js-only (first-load JS and its breakdown, no Lighthouse).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = path.join(root, 'bench', '.work');
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] ?? 3) || 3;
const buildArg = args.includes('--build') ? path.resolve(args[args.indexOf('--build') + 1]) : undefined;
const skipBuild = args.includes('--skip-build') || buildArg !== undefined;
const jsOnly = args.includes('--js-only');
const reuseBaseline = args.includes('--reuse-baseline');
const chromePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const { startDocsServer } = await import('@keyway/docs-server');
const { precompress } = await import('@keyway/docs-server/precompress');

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
 * JS the browser requests before the `load` event, measured in Chromium: the page's own script tags plus the route
 * chunks the runtime fetches to hydrate it. Raw = decoded bytes, gzip = the same bytes gzipped (level 9). Code loaded
 * on idle after `load` is not counted, even when its response arrives before Playwright reports the load event: the
 * page's own resource timings say what was requested before it.
 */
async function firstLoadJs(browser, url) {
  const page = await browser.newPage();
  const responses = [];
  page.on('response', (res) => {
    if (res.request().resourceType() === 'script') responses.push(res);
  });
  const res = await page.goto(url, { waitUntil: 'load' });
  if (!res || res.status() !== 200) {
    await page.close();
    return undefined;
  }
  const early = new Set(
    await page.evaluate(() => {
      const load = performance.getEntriesByType('navigation')[0].loadEventStart;
      return performance.getEntriesByType('resource').filter((e) => e.startTime <= load).map((e) => e.name);
    }),
  );
  const scripts = responses.filter((r) => early.has(r.url()));
  const all = await Promise.all(scripts.map((r) => r.body().catch(() => Buffer.alloc(0))));
  await page.close();
  return {
    scripts: all.length,
    raw: all.reduce((n, b) => n + b.length, 0),
    gz: all.reduce((n, b) => n + gzipSize(b), 0),
    files: scripts.map((r, i) => ({ path: new URL(r.url()).pathname, gz: gzipSize(all[i]) })),
  };
}

/**
 * The feature of the site or of the framework that puts a module into the bundle, from the module's source path.
 * The first rule that matches wins; anything else is named by its package.
 */
const FEATURES = [
  [/node_modules\/(react-dom|scheduler)\//, 'React runtime (react-dom): hydration'],
  [/node_modules\/react\//, 'React runtime (react)'],
  [/node_modules\/preact\//, 'Preact runtime (preact/compat in place of React)'],
  [/node_modules\/(react-router|react-router-dom|react-router-config|history|path-to-regexp|mini-create-react-context|tiny-invariant|tiny-warning|resolve-pathname|value-equal)\//, 'routing (react-router 5)'],
  [/node_modules\/(react-helmet-async|react-fast-compare|shallowequal|invariant)\//, 'head tags (react-helmet-async)'],
  [/node_modules\/(react-loadable|react-loadable-ssr-addon-v5-slorber)\//, 'route code splitting (react-loadable)'],
  [/node_modules\/(nprogress)\//, 'route progress bar (nprogress)'],
  [/node_modules\/(prism-react-renderer|prismjs)\//, 'code blocks: syntax highlighting (Prism)'],
  [/node_modules\/(core-js|regenerator-runtime|@swc\/helpers|@babel\/runtime)\//, 'transpilation helpers and polyfills (browserslist)'],
  [/@docusaurus\/core\/lib\/client\/exports\//, 'Docusaurus client API (@docusaurus/Link, useDocusaurusContext, …)'],
  [/@docusaurus\/core\/lib\/client\//, 'Docusaurus client runtime (app, router, prefetch, client modules)'],
  [/@docusaurus\/theme-classic\/lib\/theme\/(CodeBlock|CodeInline|MDXComponents\/Code|prism-include-languages)/, 'code blocks (theme CodeBlock: copy, wrap, line numbers)'],
  [/@docusaurus\/theme-common\/(lib|src)\/utils\/codeBlockUtils/, 'code blocks (theme CodeBlock: copy, wrap, line numbers)'],
  [/@docusaurus\/theme-classic\/lib\/theme\/(Tabs|TabItem)/, 'tabs (theme Tabs)'],
  [/@docusaurus\/theme-common\/(lib|src)\/utils\/tabsUtils/, 'tabs (theme Tabs)'],
  [/@docusaurus\/theme-classic\/lib\/theme\/AnnouncementBar/, 'announcement bar'],
  [/@docusaurus\/theme-common\/(lib|src)\/contexts\/announcementBar/, 'announcement bar'],
  [/@docusaurus\/theme-classic\/lib\/theme\/(Navbar|NavbarItem)/, 'navbar (theme)'],
  [/@docusaurus\/theme-classic\/lib\/theme\/(DocSidebar|DocSidebarItem|DocSidebarItems)/, 'docs sidebar (theme)'],
  [/@docusaurus\/theme-classic\/lib\/theme\/(TOC|TOCItems|TOCCollapsible|TOCInline)/, 'table of contents (theme)'],
  [/@docusaurus\/theme-classic\/lib\/theme\/(Footer)/, 'footer (theme)'],
  [/@docusaurus\/theme-classic\/lib\/theme\/(MDXComponents|MDXContent|Heading|Admonition|Details)/, 'MDX components (theme)'],
  [/@docusaurus\/theme-classic\/lib\/theme\/(Layout|SkipToContent|BackToTopButton|Root|ThemeProvider|LayoutProvider|ColorModeToggle|Logo|ErrorPageContent)/, 'page layout (theme)'],
  [/@docusaurus\/theme-classic\/lib\/theme\/(Doc[A-Za-z]*|EditThisPage|PaginatorNavLink|ContentVisibility|LastUpdated|EditMetaRow|TagsListInline|Tag)/, 'doc page (theme)'],
  [/@docusaurus\/theme-classic\//, 'theme-classic: other components'],
  [/@docusaurus\/theme-common\//, 'theme-common (hooks and contexts of the theme)'],
  [/@docusaurus\/theme-mermaid\/|node_modules\/mermaid\//, 'mermaid diagrams'],
  [/@docusaurus\/plugin-content-docs\//, 'docs plugin client (versions, sidebars)'],
  [/@docusaurus\/plugin-/, 'other Docusaurus plugins (client)'],
  [/site\/plugins\/analytics\//, 'analytics (client module)'],
  [/site\/src\/clientModules\/gate/, 'gate (client module)'],
  [/site\/src\/clientModules\/chunkLoadFailure/, 'load-failure Retry (client module)'],
  [/site\/src\/components\/assistant\//, 'assistant launcher'],
  [/site\/src\/(components\/search\/|theme\/SearchBar)/, 'search launcher'],
  [/site\/src\/(components\/login\/|theme\/NavbarItem)/, 'login / session UI (account menu)'],
  [/site\/src\/components\/copyPage\//, 'copy page menu'],
  [/site\/src\/components\/api\//, 'API reference'],
  [/@keyway\/(sdk|react)|packages\/(sdk|react)\//, 'Keyway SDK'],
  [/site\/(src|plugins)\//, 'site code'],
  [/\.docusaurus[^/]*\//, 'generated route and config data'],
  [/webpack\/runtime|rspack\/runtime|webpack\/bootstrap|ChunkAssetRuntimeModule/, 'bundler runtime'],
];
function featureOf(source) {
  const hit = FEATURES.find(([re]) => re.test(source));
  if (hit) return hit[1];
  const pkg = source.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  return pkg ? `package ${pkg}` : 'other';
}
const shortSource = (s) => s.replace(/^.*?node_modules\//, '').replace(/^webpack:\/\/[^/]*\/\.?\/?/, '').replace(/^.*?\/site\//, 'site/');

/**
 * The top modules of one script by gzip bytes (each module's code gzipped alone, so they add up to more than the
 * script), from the source map the build wrote beside it. Undefined when there is no map (a build without
 * KEYWAY_SOURCE_MAPS=1).
 */
async function breakdown(buildDir, urlPath) {
  const file = path.join(buildDir, urlPath);
  if (!fs.existsSync(`${file}.map`)) return undefined;
  const { explore } = await import('source-map-explorer');
  const res = await explore({ code: file, map: `${file}.map` }, { gzip: true, noBorderChecks: true });
  const files = res.bundles[0].files;
  const modules = Object.entries(files)
    .filter(([name]) => !name.startsWith('['))
    .map(([name, { size }]) => ({ name: shortSource(name), feature: featureOf(name), gz: size }))
    .sort((a, b) => b.gz - a.gz);
  const byFeature = new Map();
  for (const m of modules) byFeature.set(m.feature, (byFeature.get(m.feature) ?? 0) + m.gz);
  return { modules, byFeature: [...byFeature].sort((a, b) => b[1] - a[1]) };
}

/**
 * Main-thread blocking of one page load, from a Chromium trace: each main-thread task's thread CPU time (the trace's
 * `tdur`, which leaves out the time the thread waited for a CPU other processes held, so it moves little with the
 * machine's load), scaled ×4 as Lighthouse's simulated mobile CPU does; blocking = the sum over tasks that start after
 * first contentful paint of (4 × CPU − 50 ms), Lighthouse's Total Blocking Time rule. Median of `runs` loads; also the
 * longest task (CPU ms, unscaled).
 */
async function mainThreadBlocking(browser, url) {
  const rows = [];
  for (let i = 0; i < Math.max(3, runs); i++) {
    const context = await browser.newContext({ viewport: { width: 412, height: 823 } });
    const page = await context.newPage();
    await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'loading'] });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForTimeout(4000);
    const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
    await context.close();
    const fcp = events.find((e) => e.name === 'firstContentfulPaint');
    if (!fcp) continue;
    const tasks = events.filter((e) => e.name === 'RunTask' && e.ph === 'X' && e.pid === fcp.pid && e.tid === fcp.tid && e.tdur);
    const blocking = tasks.filter((t) => t.ts >= fcp.ts).reduce((sum, t) => sum + Math.max(0, (4 * t.tdur) / 1000 - 50), 0);
    const cpu = tasks.reduce((sum, t) => sum + t.tdur / 1000, 0);
    rows.push({ blocking, cpu, longest: Math.max(...tasks.map((t) => t.tdur / 1000)) });
  }
  const median = (key) => rows.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(rows.length / 2)];
  return rows.length ? { blocking: median('blocking'), cpu: median('cpu'), longest: median('longest') } : undefined;
}

async function lighthouseScores(url, preset) {
  const { default: lighthouse } = await import('lighthouse');
  const config = preset === 'desktop' ? (await import('lighthouse/core/config/desktop-config.js')).default : undefined;
  const chromeLauncher = await import('chrome-launcher');
  const results = [];
  for (let i = 0; i < runs; i++) {
    const chrome = await chromeLauncher.launch({
      chromePath,
      chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const res = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error' }, config);
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
const ourBuild = buildArg ?? path.join(root, 'site', 'build');
let ourBuildSeconds;
if (!skipBuild) {
  console.log('building the site…');
  spawnSync('npm', ['run', 'reference', '--if-present', '--silent', '-w', '@keyway/sdk'], { cwd: root, stdio: 'inherit' });
  ourBuildSeconds = timedBuild(path.join(root, 'site'), ourBuild, { KEYWAY_SOURCE_MAPS: '1' });
}
const baselineDir = path.join(work, 'plain-site');
const baselineBuild = path.join(baselineDir, 'build'); // inside the baseline's own package (CommonJS)
let baseline = { dir: baselineDir, count: '?' };
let baselineSeconds;
if (reuseBaseline && fs.existsSync(path.join(baselineBuild, 'index.html'))) {
  console.log('reusing the baseline built by an earlier run (--reuse-baseline)');
} else {
  console.log('building the baseline (plain Docusaurus classic site with the same docs)…');
  baseline = makeBaselineSite();
  baselineSeconds = timedBuild(baseline.dir, baselineBuild, { DOCUSAURUS_GENERATED_FILES_DIR_NAME: '.docusaurus' });
}
// Both sites are served alike: the baseline gets the same precompressed brotli and gzip bodies our build writes
// (without them the docs server sends it uncompressed, and Lighthouse loads a baseline four times heavier on the wire).
if (!fs.existsSync(path.join(baselineBuild, 'index.html.br'))) await precompress(baselineBuild);

const apiPage = (() => {
  const dir = path.join(ourBuild, 'docs', 'api');
  const op = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith('.html') && f !== 'index.html') : undefined;
  return op ? `/docs/api/${op.replace(/\.html$/, '')}` : '/docs/api';
})();
const pages = [
  ['landing', '/', '/'],
  ['doc page', '/docs/intro', '/docs/intro'],
  // The baseline has no API reference (its pages are generated by our plugin): an API page is compared with the
  // baseline's doc page, which is what a plain site would ship for a page of reference text.
  ['API page', apiPage, '/docs/intro'],
];
// Lighthouse also scores a long guide with code blocks and tabs.
const lighthousePages = [...pages.slice(0, 2), ['guide', '/docs/access/guides/m2m', '/docs/access/guides/m2m'], pages[2]];

const ourJs = jsFiles(ourBuild);
const baseJs = jsFiles(baselineBuild);
const total = (files) => files.reduce((s, f) => s + fs.statSync(f).size, 0);
console.log(`\n== Build (${baseline.count} docs in the baseline)`);
if (ourBuildSeconds && baselineSeconds) console.log(`our site build        ${ourBuildSeconds.toFixed(1)} s with source maps   (baseline ${baselineSeconds.toFixed(1)} s, ratio ${(ourBuildSeconds / baselineSeconds).toFixed(2)})`);
else if (baselineSeconds) console.log(`baseline build        ${baselineSeconds.toFixed(1)} s   (our build reused: --skip-build)`);
else console.log('no build times: both builds reused');
console.log(`total JS              ${kib(total(ourJs))} in ${ourJs.length} files   (baseline ${kib(total(baseJs))} in ${baseJs.length} files)`);

// Without the search API and assistant: they build the search index in the background at start (7 s of CPU for our
// 474 pages, less for the baseline), which would compete with Chromium for this machine's cores during the measures.
// No page fetches them while it loads.
const server = await startDocsServer({ siteDir: ourBuild, port: 0, assistant: false });
const baseServer = await startDocsServer({ siteDir: baselineBuild, port: 0, assistant: false });
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({ executablePath: chromePath, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
console.log('\n== First-load JS (every script fetched before the load event, in Chromium; ratio = ours / baseline, gzip)');
const scriptsSeen = new Map();
for (const [name, route, baseRoute] of pages) {
  const ours = await firstLoadJs(browser, server.url + route);
  const base = await firstLoadJs(browser, baseServer.url + baseRoute);
  if (!ours) continue;
  for (const f of ours.files) if (!scriptsSeen.has(f.path)) scriptsSeen.set(f.path, { ...f, page: name });
  const ratio = base ? ` | baseline ${baseRoute} ${kib(base.gz)} gzip (${base.scripts}), ratio ${(ours.gz / base.gz).toFixed(2)}` : '';
  console.log(`${name.padEnd(10)} ${route.padEnd(44)} ${kib(ours.raw)} raw / ${kib(ours.gz)} gzip (${ours.scripts} scripts)${ratio}`);
  console.log(`           ${ours.files.map((f) => `${path.basename(f.path)} ${kib(f.gz)}`).join(', ')}`);
}

console.log('\n== Where the first-load bytes go (each first-load script: gzip by feature, then its top 30 modules by gzip)');
for (const f of scriptsSeen.values()) {
  const b = await breakdown(ourBuild, f.path);
  console.log(`\n-- ${path.basename(f.path)}: ${kib(f.gz)} gzip (first seen on the ${f.page})`);
  if (!b) {
    console.log('   no source map (build without KEYWAY_SOURCE_MAPS=1, e.g. --skip-build on a normal build)');
    continue;
  }
  for (const [feature, gz] of b.byFeature) console.log(`   ${kib(gz).padStart(10)}  ${feature}`);
  console.log('   top modules:');
  for (const m of b.modules.slice(0, 30)) console.log(`   ${kib(m.gz).padStart(10)}  ${m.name}  [${m.feature}]`);
}

console.log(`\n== Main-thread blocking (Chromium trace, thread CPU ×4 after first paint, TBT's rule; median of ${Math.max(3, runs)} loads)`);
for (const [name, route, baseRoute] of lighthousePages) {
  const ours = await mainThreadBlocking(browser, server.url + route);
  const base = name === 'API page' ? undefined : await mainThreadBlocking(browser, baseServer.url + baseRoute);
  if (!ours) continue;
  const line = (r) => `${Math.round(r.blocking)} ms (main-thread CPU ${Math.round(r.cpu)} ms, longest task ${Math.round(r.longest)} ms)`;
  console.log(`${name.padEnd(10)} ${line(ours)}${base ? `  | baseline ${line(base)}` : '  | no baseline page'}`);
}
await browser.close();

const fmt = (r) => `perf ${r.performance} a11y ${r.accessibility} bp ${r.bestPractices} seo ${r.seo}`;
try {
  // Which pages the baseline has, asked before Lighthouse runs: a request after a long run reused a keep-alive socket
  // the server had closed meanwhile (ECONNRESET ended the benchmark).
  // Lighthouse compares like with like: an API page has no counterpart in the baseline.
  const hasBase = new Map();
  for (const [name, , baseRoute] of lighthousePages) {
    hasBase.set(name, name !== 'API page' && (await fetch(baseServer.url + baseRoute)).status === 200);
  }
  for (const preset of jsOnly ? [] : ['mobile', 'desktop']) {
    // Lighthouse's TBT counts the main-thread time it observed: on a busy machine it grows with the load, so say it.
    const load = os.loadavg()[0].toFixed(1);
    console.log(`\n== Lighthouse, ${preset} preset, median of ${runs} (served by the docs server with compression; load average ${load} on ${os.cpus().length} CPUs)`);
    for (const [name, route, baseRoute] of lighthousePages) {
      const s = await lighthouseScores(server.url + route, preset);
      const b = hasBase.get(name) ? await lighthouseScores(baseServer.url + baseRoute, preset) : undefined;
      console.log(
        `${name.padEnd(10)} ${fmt(s)}  FCP ${Math.round(s.fcp)} ms LCP ${Math.round(s.lcp)} ms TBT ${Math.round(s.tbt)} ms` +
          (b ? `  | baseline ${fmt(b)} TBT ${Math.round(b.tbt)} ms` : '  | no baseline page') +
          (s.failing.length ? `\n           failing audits: ${s.failing.join(', ')}` : ''),
      );
    }
  }
} finally {
  await server.close();
  await baseServer.close();
}
console.log('\ntargets: first-load JS ≤ 0.7× baseline on the doc page, ≤ 0.8× on landing and API pages; mobile Performance ≥ 98,\n         Accessibility, Best Practices, SEO 100; desktop 100');
