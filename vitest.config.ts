import { defineConfig } from 'vitest/config';

/**
 * One Temporal dev server and one workflow bundle for the whole run (test/helpers/global-setup.ts);
 * each test file gets its own database (a fresh PostgreSQL database when DATABASE_URL is set, else
 * in-memory PGlite) and its own worker on its own task queue, so files run in parallel safely.
 */
export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    include: ['test/**/*.test.ts'],
  },
});
