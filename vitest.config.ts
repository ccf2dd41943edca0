import { defineConfig } from 'vitest/config';

// Each test file gets its own database (a fresh PGlite, or a fresh PostgreSQL database when
// DATABASE_URL is set), so files may run in parallel; PGlite is memory-hungry, so two at a time.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'web/src/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
