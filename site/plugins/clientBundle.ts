import { createRequire } from 'node:module';
import type { Plugin } from '@docusaurus/types';

const resolveFromHere = createRequire(__filename).resolve;

/**
 * What the browser bundle is made of, beyond Docusaurus's defaults (each measured with `npm run bench:site`):
 *
 * - It runs on `preact/compat` instead of React and ReactDOM: the same component API in a fraction of the bytes
 *   (react-dom alone was 64 KiB gzip of every page's `main.js`). The server build keeps React, so the HTML of every
 *   page is rendered as before and Preact hydrates it. Only exact module names are aliased (`react$`): a deep
 *   import of React's internals fails the build instead of running half-compatible.
 * - The theme's `prism-include-languages` client module is left out: it imported Prism and the extra grammars into
 *   `main.js` for every page. src/theme/CodeBlock registers them in the code-block chunk instead.
 */
export default function clientBundlePlugin(): Plugin {
  return {
    name: 'keyway-client-bundle',
    configureWebpack(config, isServer) {
      // Docusaurus aliases `react` and `react-dom` to the site's copies (folder aliases, which match first and also
      // catch `react/jsx-runtime`): in the browser bundle they are replaced, not added to.
      const alias = (config.resolve!.alias ??= {}) as Record<string, string | false>;
      alias[resolveFromHere('@docusaurus/theme-classic/lib/prism-include-languages')] = false;
      if (isServer) return {};
      delete alias.react;
      delete alias['react-dom'];
      Object.assign(alias, {
        react$: 'preact/compat',
        'react-dom$': 'preact/compat',
        'react-dom/client$': 'preact/compat/client',
        'react/jsx-runtime$': 'preact/jsx-runtime',
        'react/jsx-dev-runtime$': 'preact/jsx-dev-runtime',
      });
      return {};
    },
  };
}
