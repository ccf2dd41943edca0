// Database timeouts (PostgreSQL): a table lock held by someone else ends a request with 503 and
// Retry-After after lock_timeout or statement_timeout instead of stalling it, a saturated pool answers
// 503 after the acquire timeout, and /readyz answers promptly and says "not ready" meanwhile.
// The variables that set these bounds refuse bad values at start-up.
import pg from 'pg';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureOwnerToken } from '../src/admins/service.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { openPostgres } from '../src/db/connection.ts';
import type { Database } from '../src/db/connection.ts';
import { ManualClock } from '../src/domain/clock.ts';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/server.ts';
import { ADMIN_TOKEN, OUT_OF_THE_WAY, createTestDatabase, partnerCall, setupMission } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { describeUnless, needsPostgres } from './requirements.ts';

describe('database timeout variables', () => {
  it.each([
    ['DATABASE_ACQUIRE_TIMEOUT_MS', 'soon'],
    ['DATABASE_ACQUIRE_TIMEOUT_MS', '0'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '-1'],
    ['DATABASE_LOCK_TIMEOUT_MS', '1.5'],
    ['DATABASE_STARTUP_WAIT_MS', 'forever'],
    ['SHUTDOWN_TIMEOUT_MS', '10'],
    ['READYZ_TIMEOUT_MS', '0'],
    ['READYZ_MAX_POOL_WAITING', 'many'],
  ])('%s=%s stops start-up naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('has bounds by default', () => {
    const config = loadConfig({});
    expect(config.databaseTimeouts).toEqual({
      acquireTimeoutMs: 5000,
      statementTimeoutMs: 15_000,
      lockTimeoutMs: 3000,
    });
    expect(config.shutdownTimeoutMs).toBe(15_000);
    expect(config.databaseStartupWaitMs).toBe(60_000);
  });
});

// PGlite is one connection in this process: nobody else can hold a lock on it, and its pool wait is
// the only bound that applies there.
describeUnless(needsPostgres())(
  'database timeouts on PostgreSQL (skipped on PGlite: no second session can hold a lock)',
  () => {
    let url: string;
    let drop: () => Promise<void>;
    const opened: Array<{ app: App; database: Database }> = [];

    /** An app on this file's database whose pool has the given bounds. */
    async function appWith(env: Record<string, string>): Promise<TestContext> {
      const config = loadConfig({
        ADMIN_TOKEN,
        LOG_LEVEL: 'info',
        ...OUT_OF_THE_WAY,
        DATABASE_URL: url,
        ...env,
      });
      const database = openPostgres(url, config.databasePoolSize, { timeouts: config.databaseTimeouts });
      const app = await buildApp({
        config,
        database,
        clock: new ManualClock('2026-11-22T03:00:00Z'),
        logger: false,
      });
      await app.ready();
      opened.push({ app, database });
      return {
        app,
        database,
        databaseUrl: url,
        clock: new ManualClock('2026-11-22T03:00:00Z'),
        config,
        logs: [],
        close: async () => {},
        admin: (method, path, body, token = ADMIN_TOKEN) =>
          app.inject({
            method,
            url: path,
            headers: { authorization: `Bearer ${token}` },
            ...(body !== undefined && { payload: body as string }),
          }),
      };
    }

    /** Another session holds an ACCESS EXCLUSIVE lock on the table until release() is called. */
    async function holdLock(table: string) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('BEGIN');
      await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      return {
        release: async () => {
          await client.query('ROLLBACK');
          await client.end();
        },
      };
    }

    /**
     * Until a session of this database waits on a lock: the stuck report holds the pool's connection
     * now. A fixed pause was not enough on a loaded machine, where the next request took the
     * connection first.
     */
    async function lockWaiterSeen() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (;;) {
          const { rows } = await client.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          if ((rows[0]?.n ?? 0) > 0) return;
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        await client.end();
      }
    }

    function expectRetryable(response: LightMyRequestResponse) {
      expect(response.statusCode, response.body).toBe(503);
      expect(response.json()).toMatchObject({ code: 3098, name: 'SERVICE_UNAVAILABLE' });
      expect(response.headers['retry-after']).toBe('1');
    }

    let setup: MissionSetup;
    let base: TestContext;

    beforeAll(async () => {
      const created = await createTestDatabase();
      url = created.url as string;
      drop = created.drop;
      await ensureOwnerToken(created.database.db, ADMIN_TOKEN);
      base = await appWith({});
      setup = await setupMission(base, { missionKey: 'locked-out' });
    });
    afterAll(async () => {
      for (const { app, database } of opened) {
        await app.close();
        await database.close();
      }
      await drop?.();
    });

    const report = (ctx: TestContext, partnerUid: string) =>
      partnerCall(ctx, setup, {
        method: 'POST',
        url: '/v1/achieve',
        body: { partnerUid, missionKey: setup.missionKey, completed: true },
      });

    it('a table lock held elsewhere ends a report with 503 and Retry-After after lock_timeout', async () => {
      // The statement timeout stands a minute behind the lock timeout: a report ended within 20 s was
      // ended by lock_timeout (300 ms), with room for a loaded machine, not by statement_timeout.
      const ctx = await appWith({ DATABASE_LOCK_TIMEOUT_MS: '300', DATABASE_STATEMENT_TIMEOUT_MS: '60000' });
      expect((await report(ctx, 'warm-up')).statusCode).toBe(200);
      const lock = await holdLock('mission_progress');
      try {
        const started = performance.now();
        expectRetryable(await report(ctx, 'locked-1'));
        expect(performance.now() - started).toBeLessThan(20_000);
      } finally {
        await lock.release();
      }
      expect((await report(ctx, 'locked-1')).statusCode).toBe(200);
    });

    it('without a lock_timeout, statement_timeout ends the wait with 503', async () => {
      const ctx = await appWith({ DATABASE_LOCK_TIMEOUT_MS: '0', DATABASE_STATEMENT_TIMEOUT_MS: '300' });
      const lock = await holdLock('mission_progress');
      try {
        expectRetryable(await report(ctx, 'locked-2'));
      } finally {
        await lock.release();
      }
    });

    it('a saturated pool answers 503 after the acquire timeout; /readyz answers promptly that it is not ready', async () => {
      const ctx = await appWith({
        DATABASE_POOL_SIZE: '1',
        DATABASE_ACQUIRE_TIMEOUT_MS: '1500',
        DATABASE_LOCK_TIMEOUT_MS: '8000',
        READYZ_MAX_POOL_WAITING: '0',
        READYZ_TIMEOUT_MS: '2000',
      });
      expect((await ctx.app.inject('/readyz')).statusCode).toBe(200);
      const lock = await holdLock('mission_progress');
      try {
        // The one connection waits on the lock ...
        const stuck = report(ctx, 'locked-3');
        await lockWaiterSeen();
        // ... so the next query waits for the pool: readiness sees it at once, over its own connection.
        let stuckSettled = false;
        void stuck.finally(() => (stuckSettled = true));
        const queued = ctx.admin('GET', '/admin/v1/partners');
        await new Promise((r) => setTimeout(r, 100));
        const ready = await ctx.app.inject('/readyz');
        // Promptly: while the one connection is still held (8 s of lock_timeout). A probe queued
        // behind the pool would answer only once the stuck report had let the connection go.
        expect(stuckSettled).toBe(false);
        expect(ready.statusCode).toBe(503);
        expect(ready.json()).toMatchObject({
          code: 3098,
          message: expect.stringContaining('wait for a database connection'),
        });
        expectRetryable(await queued);
        expectRetryable(await stuck);
      } finally {
        await lock.release();
      }
      expect((await ctx.app.inject('/readyz')).statusCode).toBe(200);
    });
  },
);
