import path from 'node:path';
import type { Config } from '@docusaurus/types';
import type * as Preset from '@docusaurus/preset-classic';
import { accessibleGithub } from './src/prismTheme';
import { announcementFromEnv, announcementResetPlugin } from './plugins/announcement';
import analyticsPlugin from './plugins/analytics';
import postBuildPlugin from './plugins/postbuild';
import signedInMarkPlugin from './plugins/signedInMark';
import npmPackagesPlugin from './plugins/npmPackages';
import { CONTRACT_PATH } from '@keyway/api';
import sourceMapsPlugin from './plugins/sourceMaps';
import clientBundlePlugin from './plugins/clientBundle';
import { apiReferencePlugins, writeApiReference } from './plugins/api-reference';
import { gatePlugins, gatedSitemapIgnore, publicDocsExclude } from './plugins/gate';

// Every value a deployment may change comes from the environment at build time;
// see the README's "Configuration" table. Nothing secret is committed.
const env = process.env;

// The REST API reference (a page per operation and per tag) is generated from the contract before the docs are read.
writeApiReference(CONTRACT_PATH, path.join(__dirname, 'docs/api'));

const config: Config = {
  title: 'Keyway Docs',
  tagline: 'Identity and access for developers: sign-in, gateway and identity protection',
  favicon: 'img/favicon.svg',
  url: env.KEYWAY_SITE_URL ?? 'http://localhost:3000',
  baseUrl: '/',
  trailingSlash: false,
  organizationName: 'keyway',
  projectName: 'developer-portal',

  onBrokenLinks: 'throw',
  onBrokenAnchors: 'throw',
  onDuplicateRoutes: 'warn',
  markdown: {
    format: 'detect',
    // ```mermaid blocks become diagrams (@docusaurus/theme-mermaid; src/theme/Mermaid loads it only where one is used).
    mermaid: true,
    hooks: { onBrokenMarkdownLinks: 'throw', onBrokenMarkdownImages: 'throw' },
  },
  // v4 flags on, except storage namespacing: the stored keys are part of the spec (`docusaurus.tab.<groupId>`, …).
  future: {
    v4: {
      removeLegacyPostBuildHeadAttribute: true,
      useCssCascadeLayers: true,
      siteStorageNamespacing: false,
      fasterByDefault: true,
      mdx1CompatDisabledByDefault: true,
    },
    // Rspack + SWC + Lightning CSS, without Rspack's persistent cache: it kept serving a stale bundle without the
    // analytics client module after the build-time environment changed (seen with two builds in a row).
    faster: {
      swcJsLoader: true,
      swcJsMinimizer: true,
      swcHtmlMinimizer: true,
      lightningCssMinimizer: true,
      mdxCrossCompilerCache: true,
      rspackBundler: true,
      rspackPersistentCache: false,
      ssgWorkerThreads: true,
      gitEagerVcs: true,
    },
  },

  i18n: {
    defaultLocale: 'en',
    locales: ['en'],
    localeConfigs: { en: { label: 'English', direction: 'ltr', htmlLang: 'en' } },
  },

  presets: [
    [
      'classic',
      {
        docs: {
          path: 'docs',
          routeBasePath: 'docs',
          sidebarPath: './sidebars.ts',
          lastVersion: 'current',
          versions: { current: { label: 'Next' } },
          breadcrumbs: false,
          showLastUpdateTime: false,
          // The gated sections are docs instances of their own (./plugins/gate): nothing of them in the public chunks.
          exclude: ['**/_*.{js,jsx,ts,tsx,md,mdx}', '**/_*/**', '**/*.test.{js,jsx,ts,tsx}', '**/__tests__/**', ...publicDocsExclude],
        },
        blog: false,
        pages: {},
        theme: { customCss: './src/css/custom.css' },
        sitemap: { changefreq: 'weekly', priority: 0.5, ignorePatterns: ['/login', ...gatedSitemapIgnore] },
        // Analytics are our own plugin (./plugins/analytics): the tracker ID comes from the environment.
        gtag: undefined,
      } satisfies Preset.Options,
    ],
  ],

  clientModules: ['./src/clientModules/chunkLoadFailure.ts', './src/clientModules/gate.ts', './src/clientModules/idlePrefetch.ts'],

  themes: ['@docusaurus/theme-mermaid'],
  plugins: [
    analyticsPlugin,
    announcementResetPlugin,
    signedInMarkPlugin,
    npmPackagesPlugin,
    postBuildPlugin,
    sourceMapsPlugin,
    // The browser bundle on preact/compat (#19); KEYWAY_PREACT=0 builds it on React (see the README).
    ...(env.KEYWAY_PREACT === '0' ? [] : [clientBundlePlugin]),
    ...apiReferencePlugins(),
    ...gatePlugins(),
    [
      '@docusaurus/plugin-client-redirects',
      {
        // Section roots a reader may type lead to the section's entry page (static pages that answer 200 and move on).
        redirects: [
          { from: '/docs', to: '/docs/intro' },
          { from: '/docs/gate', to: '/docs/gate/getting-started' },
          { from: '/docs/identity-protection', to: '/docs/identity-protection/onboarding' },
          { from: '/docs/access/sdk', to: '/docs/access/sdk/modules' },
          { from: '/docs/category/api', to: '/docs/api' },
        ],
      },
    ],
  ],

  themeConfig: {
    metadata: [{ name: 'keywords', content: 'Keyway, identity, authentication, SDK, gateway, identity protection' }],
    colorMode: { defaultMode: 'light', disableSwitch: true, respectPrefersColorScheme: false },
    announcementBar: announcementFromEnv(env),
    docs: { sidebar: { hideable: false, autoCollapseCategories: false } },
    tableOfContents: { minHeadingLevel: 2, maxHeadingLevel: 4 },
    navbar: {
      title: 'Keyway',
      hideOnScroll: true,
      logo: { alt: 'Keyway', src: 'img/logo.svg', width: 28, height: 28 },
      items: [
        // Plain links with their own active rule: doc items would all light up for any page of the shared docs sidebar.
        { to: '/docs/intro', label: 'Docs', position: 'left', activeBaseRegex: '^/docs/intro$' },
        { to: '/docs/access', label: 'Identity Management', position: 'left', activeBaseRegex: '^/docs/access(/|$)' },
        { to: '/docs/identity-protection/onboarding', label: 'Identity Protection', position: 'left', activeBaseRegex: '^/docs/identity-protection' },
        { to: '/docs/gate/getting-started', label: 'Gate', position: 'left', activeBaseRegex: '^/docs/gate' },
        // The overview and operation pages are the `api` docs instance (./plugins/api-reference).
        { to: '/docs/api', label: 'API Reference', position: 'left', activeBaseRegex: '^/docs/(api|category/api)(/|$)' },
        { type: 'docsVersionDropdown', position: 'right' },
        { type: 'localeDropdown', position: 'right' },
        { type: 'search', position: 'right' },
        {
          href: env.KEYWAY_CONSOLE_SIGNUP_URL ?? 'https://console.keyway.dev/signup',
          label: 'Sign up',
          position: 'right',
          className: 'navbar__signup',
          'aria-label': 'Sign up to the Keyway console (external site)',
        },
        // The signed-in reader's account menu (src/components/login/AccountNavbarItem): nothing when signed out.
        { type: 'custom-account', position: 'right' },
      ],
    },
    footer: {
      style: 'light',
      logo: { alt: 'Keyway', src: 'img/logo.svg', href: '/', width: 32, height: 32 },
      links: [
        {
          title: 'Documentation',
          items: [
            { label: 'Introduction', to: '/docs/intro' },
            { label: 'Identity Management', to: '/docs/access' },
            { label: 'Gate', to: '/docs/gate/getting-started' },
            { label: 'API Reference', to: '/docs/api' },
          ],
        },
        {
          title: 'Keyway',
          items: [
            { label: 'Homepage', href: 'https://keyway.dev' },
            { label: 'Blog', href: 'https://keyway.dev/blog' },
          ],
        },
        {
          title: 'Legal',
          items: [
            { label: 'Terms of service', href: 'https://keyway.dev/legal/terms' },
            { label: 'Privacy policy', href: 'https://keyway.dev/legal/privacy' },
          ],
        },
      ],
      copyright: `Copyright © 2025 Keyway`,
    },
    prism: {
      theme: accessibleGithub,
      // Beyond prism-react-renderer's built-in set (which has json, yaml, python, go, sql, css): what the docs use often.
      additionalLanguages: ['bash', 'php', 'toml', 'hcl'],
    },
  } satisfies Preset.ThemeConfig,

};

export default config;
