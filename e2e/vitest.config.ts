import { defineConfig } from 'vitest/config';

// Browser tests: Debian's Chromium driven by playwright-core against the production build served by the docs server.
// globalSetup starts the servers once; files run one at a time (2-core CI machine, one browser).
export default defineConfig({
  test: {
    name: 'e2e',
    include: ['**/*.e2e.ts'],
    globalSetup: ['./global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    expect: { poll: { timeout: 10_000, interval: 100 } },
  },
});
