import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The container and cluster tests build images for minutes: `npm run test:deploy` runs them (vitest.deploy.config.ts).
    exclude: [...configDefaults.exclude, 'test/deploy/**'],
    // One real Temporal dev server and one real PostgreSQL for the whole run (test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/temporal-runtime.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: run files one or two at a time so end-to-end timings stay honest.
    maxWorkers: 2,
  },
});
