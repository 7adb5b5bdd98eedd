import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One real Temporal dev server and one real PostgreSQL for the whole run (test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/temporal-runtime.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: run files one or two at a time so end-to-end timings stay honest.
    maxWorkers: 2,
  },
});
