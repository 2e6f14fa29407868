import { createRequire } from 'node:module';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

// The published sign-in client (@slashid/slashid, @slashid/react), unmodified, in jsdom, against the real identity
// server (started in-process on a free port) through a loopback proxy that only renames the SDK's header prefix.
//
// React: the published <Form> bundles React 18's JSX runtime, which cannot run on React 19 (the workspace root's one
// React, used by the site and @keyway/react). This package has its own React 18 (packages/interop/node_modules) and
// every import of react / react-dom in this project — ours, @slashid/react's, its Radix components', Testing
// Library's — resolves to it. Those packages are inlined (bundled by vite) so the aliases apply to them too; an
// externalized package would be loaded by Node and find the root's React 19.
const local = createRequire(path.join(import.meta.dirname, 'package.json'));
const reactDir = path.dirname(local.resolve('react/package.json'));
const reactDomDir = path.dirname(local.resolve('react-dom/package.json'));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^react$/, replacement: path.join(reactDir, 'index.js') },
      { find: /^react\/(.*)$/, replacement: `${reactDir}/$1` },
      { find: /^react-dom$/, replacement: path.join(reactDomDir, 'index.js') },
      { find: /^react-dom\/(.*)$/, replacement: `${reactDomDir}/$1` },
      // Testing Library's package main is CommonJS (loaded by Node, past the aliases): take its ES module build.
      { find: /^@testing-library\/react$/, replacement: local.resolve('@testing-library/react').replace(/index\.js$/, '@testing-library/react.esm.js') },
    ],
  },
  test: {
    name: 'interop',
    environment: 'jsdom',
    environmentOptions: { jsdom: { url: 'http://app.interop.test/signin' } },
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    server: { deps: { inline: [/@slashid\/react/, /@radix-ui\//, /@testing-library\/react/, /react-remove-scroll/, /use-callback-ref/, /use-sidecar/, /react-style-singleton/, /@floating-ui\/react-dom/] } },
    testTimeout: 20_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
