import { defineConfig } from 'vitest/config';

// The published sign-in client (@slashid/slashid, @slashid/react), unmodified, in jsdom, against the real identity
// server (started in-process on a free port) through a loopback proxy that only renames the SDK's header prefix.
export default defineConfig({
  test: {
    name: 'interop',
    environment: 'jsdom',
    environmentOptions: { jsdom: { url: 'http://app.interop.test/signin' } },
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // The published <Form> bundles React 18's JSX runtime, which cannot run on the workspace's one React (19): it
    // waits for a React 18 copy of its own in this package (issue #16 stays open for it).
    exclude: ['test/form.test.tsx'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
