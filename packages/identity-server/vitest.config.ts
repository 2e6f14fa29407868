import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'identity-server',
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'test/**/*.test.tsx'],
    // The first server of each test file loads and compiles api/openapi.yaml (a few seconds on 2 cores).
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
