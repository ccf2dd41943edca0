import { defineConfig } from 'vitest/config';

// Each test file gets its own database (a fresh PGlite, or a fresh PostgreSQL database when
// DATABASE_URL is set), so files may run in parallel; PGlite is memory-hungry, so two at a time.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'web/src/**/*.test.ts'],
    pool: 'forks',
    // On PGlite, every file's database starts from one migrated dump made once per run.
    globalSetup: ['./test/pglite-snapshot.ts'],
    // test/skipped-suites-reporter.ts first, so that its list of what did not run (and why) stands
    // above the default reporter's summary rather than after it.
    reporters: ['./test/skipped-suites-reporter.ts', 'default'],
    maxWorkers: 2,
    // Generous: several tests start their own service (a fresh database and migrations), which takes
    // seconds on a loaded 2-core machine; a hang still fails, only later.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
