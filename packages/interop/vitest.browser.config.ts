import { defineConfig } from 'vitest/config';

// The published sign-in client in Debian Chromium (playwright-core): the steps jsdom cannot run because the client
// navigates (SSO in redirect mode, the hosted login). The page loads @slashid/slashid bundled as published (esbuild,
// no change), the real identity server runs in-process behind the header-renaming proxy, nothing is intercepted.
export default defineConfig({
  test: {
    name: 'interop-browser',
    environment: 'node',
    include: ['browser/**/*.browser.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
