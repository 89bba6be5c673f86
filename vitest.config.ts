import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Each file has its own database (and, from the job engine on, its own queue prefix): files run in parallel.
    pool: 'forks',
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
