import { defineConfig } from 'vitest/config';

// The published sign-in client (@slashid/slashid, @slashid/react), unmodified, in jsdom, against the real identity
// server (started in-process on a free port) through a loopback proxy that only renames the SDK's header prefix.
export default defineConfig({
  test: {
    name: 'interop',
    environment: 'jsdom',
    environmentOptions: { jsdom: { url: 'http://app.interop.test/signin' } },
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
