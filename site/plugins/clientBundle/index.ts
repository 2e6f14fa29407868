import path from 'node:path';
import type { Plugin } from '@docusaurus/types';

/**
 * The browser bundle runs on `preact/compat` instead of React and ReactDOM: the same component API in a fraction of
 * the bytes (react-dom alone was 65 KiB gzip of every page's `main.js`). The server build keeps React, so the HTML of
 * every page is rendered as before and Preact hydrates it. Only exact module names are aliased (`react$`): a deep
 * import of React's internals fails the build instead of running half-compatible. Measured with `npm run bench:site`.
 *
 * Code blocks: Prism (the highlighter and its languages) is not needed to paint or hydrate a page, whose HTML already
 * holds the highlighted code. In the browser bundle `@theme/CodeBlock` is ./lazyCodeBlock.tsx, which hydrates a
 * server-rendered block as it is (its buttons come after load) and loads the theme's component with Prism only for a
 * block rendered in the browser; the theme's client module that registered Prism's additional languages on every page
 * is replaced by an empty one (./highlightedCodeBlock.tsx registers them). Regions marked with
 * src/components/DeferHydration are hydrated one task each after the page's first pass (./deferHydration.tsx). Both
 * rely on Preact keeping the server DOM of a component that suspends during hydration and leaving an element's inner
 * HTML alone while hydrating (React would throw the DOM away as a hydration mismatch), which is why they live here.
 *
 * The docs plugin's lookups of the active plugin, version and doc are remembered per pathname and the doc is found in a
 * table (./docsClientUtils.ts): they ran `matchPath` over every doc several times per render. That module and
 * ./reactUtils.ts also sort without `localeCompare`, whose first call in a page costs 16 ms to set up the collator. The
 * hideable navbar measures its height after the first frame (./hideableNavbar.ts), not in the middle of hydration.
 *
 * One behaviour differs and is put back here: Docusaurus's scroll to the hash target after a client-side navigation
 * ran before Preact had put the new page in the DOM (see ./hashScroll.ts). Client modules' `onRouteDidUpdate` runs
 * at that same moment under Preact, so one that reads the new page must wait for it (a microtask or a frame).
 */
export default function clientBundlePlugin(): Plugin {
  return {
    name: 'keyway-client-bundle',
    getClientModules() {
      return [path.join(__dirname, 'hashScroll.ts')];
    },
    configureWebpack(config, isServer) {
      if (isServer) return {};
      // Docusaurus aliases `react` and `react-dom` to the site's copies (folder aliases, which match first and also
      // catch `react/jsx-runtime`): in the browser bundle they are replaced, not added to.
      const alias = (config.resolve!.alias ??= {}) as Record<string, string | false>;
      delete alias.react;
      delete alias['react-dom'];
      Object.assign(alias, {
        react$: 'preact/compat',
        'react-dom$': 'preact/compat',
        'react-dom/client$': 'preact/compat/client',
        'react/jsx-runtime$': 'preact/jsx-runtime',
        'react/jsx-dev-runtime$': 'preact/jsx-dev-runtime',
      });
      alias['@theme/CodeBlock'] = path.join(__dirname, 'lazyCodeBlock.tsx');
      // Progressive hydration of the regions marked with src/components/DeferHydration (./deferHydration.tsx).
      alias['@site/src/components/DeferHydration$'] = path.join(__dirname, 'deferHydration.tsx');
      alias[`${path.join(__dirname, '..', '..', 'src', 'components', 'DeferHydration')}$`] = path.join(__dirname, 'deferHydration.tsx');
      const themeClassic = path.dirname(require.resolve('@docusaurus/theme-classic/package.json'));
      alias[`${path.join(themeClassic, 'lib', 'prism-include-languages')}$`] = path.join(__dirname, 'noClientModule.ts');
      // The docs plugin's "which doc is this pathname" functions, remembered per pathname (./docsClientUtils.ts).
      const docsClient = path.dirname(require.resolve('@docusaurus/plugin-content-docs/client'));
      alias[`${path.join(docsClient, 'docsClientUtils')}$`] = path.join(__dirname, 'docsClientUtils.ts');
      // theme-common's useShallowMemoObject without localeCompare (./reactUtils.ts), which reaches the original file
      // under a name of its own (the package does not export it).
      const themeCommonLib = path.dirname(require.resolve('@docusaurus/theme-common'));
      alias[`${path.join(themeCommonLib, 'utils', 'reactUtils')}$`] = path.join(__dirname, 'reactUtils.ts');
      alias['@keyway-original/theme-common-reactUtils$'] = path.join(themeCommonLib, 'utils', 'reactUtils.js');
      // The hideable navbar's height measured after the first frame, not in the middle of hydration (./hideableNavbar.ts).
      alias[`${path.join(themeCommonLib, 'hooks', 'useHideableNavbar')}$`] = path.join(__dirname, 'hideableNavbar.ts');
      alias['@keyway-original/theme-common-useHideableNavbar$'] = path.join(themeCommonLib, 'hooks', 'useHideableNavbar.js');
      return {};
    },
  };
}
