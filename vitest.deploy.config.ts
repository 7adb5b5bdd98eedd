// `npm run test:deploy`: the container and cluster tests (test/deploy/**). They build images and start
// containers, which takes minutes, so they run apart from `npm test`, one file at a time.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/deploy/**/*.test.ts'],
    // The same real Temporal dev server and PostgreSQL as `npm test` (test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/temporal-runtime.ts'],
    // A first run builds the Debian base (~15 min here) and the image (~8 min); later runs reuse both.
    testTimeout: 15 * 60_000,
    hookTimeout: 45 * 60_000,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
