import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'sdk',
    environment: 'happy-dom',
    environmentOptions: { happyDOM: { url: 'https://app.example.com/signin' } },
    setupFiles: ['test/setup.ts'],
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'test/**/*.test.tsx'],
  },
});
