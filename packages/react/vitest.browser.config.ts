import { defineConfig } from 'vitest/config';

// Chromium tests: the components bundled with React in Debian Chromium (playwright-core) against the real
// identity server started in-process. Run with `npm run test:browser -w @keyway/react`.
export default defineConfig({
  test: {
    name: 'react-browser',
    environment: 'node',
    include: ['browser/**/*.browser.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
