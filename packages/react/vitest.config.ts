import { defineConfig } from 'vitest/config';

// Component tests: Testing Library in happy-dom against the real identity server started in-process.
export default defineConfig({
  test: {
    name: 'react',
    environment: 'happy-dom',
    environmentOptions: { happyDOM: { url: 'http://localhost:3000/' } },
    setupFiles: ['test/setup.ts'],
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
