import { defineConfig } from 'vitest/config';

// Browser tests: the SDK bundle in Debian Chromium (playwright-core) against the real identity server
// (started in-process from packages/identity-server). Run with `npm run test:browser -w @keyway/sdk`.
export default defineConfig({
  test: {
    name: 'sdk-browser',
    environment: 'node',
    include: ['browser/**/*.browser.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
