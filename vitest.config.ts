import { defineConfig } from 'vitest/config';

// One runner for every part. Each project keeps its own config in its own folder;
// the browser tests (e2e/) run against the production build served by the docs server.
export default defineConfig({
  test: {
    projects: ['scripts/vitest.config.ts', 'packages/*/vitest.config.ts', 'packages/*/vitest.browser.config.ts', 'api/vitest.config.ts', 'site/vitest.config.ts', 'e2e/vitest.config.ts'],
  },
});
