import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'site', include: ['test/**/*.test.ts', 'plugins/**/*.test.ts', 'src/**/*.test.ts'] } });
