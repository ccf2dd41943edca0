import { configDefaults, defineConfig } from 'vitest/config';

// Files that assert something of the whole test process (its promise hooks, its heap, its event
// loop), which another file run before them in the same worker could change: each runs in a
// process of its own (the "isolated" project below).
const ISOLATED = [
  // Promise hooks off: a file before it had left them on (an AsyncLocalStorage), in one run of two.
  'test/operator-writes-async-hooks.concurrency.test.ts',
  // The heap's growth under refused requests.
  'test/restart-memory.faults.test.ts',
  // The event loop's delay and utilization drive the refusals these check.
  'test/load-shedding.security.test.ts',
  'test/new-connections.faults.test.ts',
];

// Files or globs the caller leaves out, space-separated (.ci/run's PGlite pass: the browser suites
// and the files that do not depend on the database engine, which run in the PostgreSQL pass).
// Vitest's --exclude does not reach a project that sets its own exclude.
const LEFT_OUT = (process.env.VITEST_LEAVE_OUT ?? '').split(/\s+/).filter(Boolean);

// Each test file gets its own database (a fresh PGlite, or a fresh PostgreSQL database when
// DATABASE_URL is set), so files may run in parallel; PGlite is memory-hungry, so two at a time.
export default defineConfig({
  test: {
    pool: 'forks',
    // On PGlite, every file's database starts from one migrated dump made once per run; on
    // PostgreSQL, it is a copy of one database migrated once per run.
    globalSetup: ['./test/pglite-snapshot.ts'],
    // test/skipped-suites-reporter.ts first, so that its list of what did not run (and why) stands
    // above the default reporter's summary rather than after it.
    reporters: ['./test/skipped-suites-reporter.ts', 'default'],
    maxWorkers: 2,
    // Generous: several tests start their own service (a fresh database and migrations), which takes
    // seconds on a loaded 2-core machine; a hang still fails, only later.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'web/src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ISOLATED, ...LEFT_OUT],
          // A worker runs its files one after another in one module registry: the service's modules
          // are evaluated once a worker, not once a file. With a registry each, evaluating them took
          // 700 of the PGlite pass's 2,750 s of worker time and the pass 24.7 minutes on a slow
          // machine beside the Citus part; without, 85 s and 17.6 minutes (README, "To run the
          // tests"). So a test file keeps nothing global between files: it makes its app,
          // database, servers and stubs in its hooks and undoes them there (vi.unstubAllGlobals, a
          // saved process.env restored).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ISOLATED,
          exclude: [...configDefaults.exclude, ...LEFT_OUT],
          isolate: true,
        },
      },
    ],
  },
});
