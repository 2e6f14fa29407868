import { defineConfig } from 'vitest/config';

// Checks of the repository itself (install and set-up), not of one package.
export default defineConfig({
  test: {
    name: 'repo',
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
  },
});
