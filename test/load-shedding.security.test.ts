// Load shedding (docs/security.md, "Load shedding and queues"): a full batching queue and a request
// that waited past its deadline answer 503 with the error body and Retry-After without touching
// the database; /readyz reports not ready while database work is stuck; memory pressure and a blocked
// event loop shed too, but not the blocking of start-up itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { ensureOwnerToken } from '../src/admins/service.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { ManualClock } from '../src/domain/clock.ts';
import type { App } from '../src/http/server.ts';
import {
  ADMIN_TOKEN,
  OUT_OF_THE_WAY,
  createTestDatabase,
  partnerCall,
  setupMission,
  startTestApp,
} from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';

function expectShed(response: LightMyRequestResponse, reason: RegExp) {
  expect(response.statusCode).toBe(503);
  expect(response.json()).toMatchObject({ code: 3098, name: 'SERVICE_UNAVAILABLE' });
  expect(response.json<{ message: string }>().message).toMatch(reason);
  expect(response.headers['retry-after']).toBe('1');
}

/** Polls until the condition holds (bounded: 10 s). */
async function until(condition: () => boolean | Promise<boolean>) {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('condition not reached in 10 s');
}

describe('bounded batching queue', () => {
  let ctx: TestContext;
  let s: MissionSetup;
  beforeAll(async () => {
    ctx = await startTestApp({
      env: {
        BATCH_CONCURRENCY: '1',
        QUEUE_MAX_WAITING: '1',
        QUEUE_MAX_WAIT_MS: '1500',
        RATE_LIMIT_PER_PARTNER: '0',
      },
    });
    s = await setupMission(ctx);
  });
  afterAll(async () => ctx?.close());

  const achieve = (partnerUid: string) =>
    partnerCall(ctx, s, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid, missionKey: s.missionKey, completed: false },
    });
  const readyz = () => ctx.app.inject({ method: 'GET', url: '/readyz' });
  const progressOf = async (partnerUid: string) =>
    (
      await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM mission_progress WHERE partner_uid = ${partnerUid}`.execute(
        ctx.database.db,
      )
    ).rows[0]?.n;

  it('refuses when full and when a request waited too long, reports not ready meanwhile, and recovers', async () => {
    expect((await readyz()).statusCode).toBe(200);
    // Warm the credential and mission caches (they live a second), so that only the batch itself
    // needs the database: on PGlite the lock below holds its one connection.
    expect((await achieve('u0')).statusCode).toBe(200);

    // A lock held elsewhere (a long migration, say) stalls the progress writes.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = ctx.database.db.transaction().execute(async (trx) => {
      await sql`LOCK TABLE mission_progress IN ACCESS EXCLUSIVE MODE`.execute(trx);
      locked();
      await gate;
    });
    await lockTaken;
    try {
      const running = achieve('u1');
      await until(() => ctx.app.coalescers.reading().running === 1);
      const waiting = achieve('u2');
      await until(() => ctx.app.coalescers.reading().waiting === 1);

      expectShed(await achieve('u3'), /1 requests already wait/);
      const notReady = await readyz();
      expect(notReady.statusCode).toBe(503);
      expect(notReady.json()).toMatchObject({ code: 3098, name: 'SERVICE_UNAVAILABLE' });

      // Past its deadline the waiting request is refused, though the batch ahead of it still hangs.
      expectShed(await waiting, /waited more than 1500 ms/);
      expect(ctx.app.coalescers.reading()).toMatchObject({ waiting: 0, running: 1, stuck: true });
      expect((await readyz()).statusCode).toBe(503);

      release();
      await holder;
      expect((await running).statusCode).toBe(200);
    } finally {
      release();
      await holder;
    }
    await until(async () => (await readyz()).statusCode === 200);
    // The refused reports never reached the database.
    expect(await progressOf('u1')).toBe(1);
    expect(await progressOf('u2')).toBe(0);
    expect(await progressOf('u3')).toBe(0);
  });
});

describe('memory pressure', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    // A heap bound below any real heap: every sample says overloaded.
    ctx = await startTestApp({ env: { LOAD_SHED_MAX_HEAP_BYTES: String(1024 * 1024) } });
  });
  afterAll(async () => ctx?.close());

  it('sheds requests with 503, the error body and Retry-After, but /healthz still answers', async () => {
    let response!: LightMyRequestResponse;
    await until(async () => {
      response = await ctx.admin('GET', '/admin/v1/me');
      return response.statusCode === 503;
    });
    expectShed(response, /overloaded/);
    expect((await ctx.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('event-loop delay', () => {
  let app: App;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    // Built but not yet ready: the test plays start-up's own blocking before ready() itself.
    const created = await createTestDatabase();
    drop = created.drop;
    await ensureOwnerToken(created.database.db, ADMIN_TOKEN);
    app = await buildApp({
      config: loadConfig({ ADMIN_TOKEN, ...OUT_OF_THE_WAY, LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '100' }),
      database: created.database,
      clock: new ManualClock('2026-11-22T03:00:00Z'),
      logger: false,
    });
  });
  afterAll(async () => {
    await app?.close();
    await drop?.();
  });

  const me = () =>
    app.inject({ method: 'GET', url: '/admin/v1/me', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  /** Holds the event loop in 150 ms slices for `ms`, as start-up work or an overload would. */
  async function busyEventLoop(ms: number) {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      const slice = performance.now() + 150;
      while (performance.now() < slice);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  it("does not count start-up's own blocking as load, and sheds a busy loop afterwards", async () => {
    // Start-up's own work blocks the event loop until the server is ready and a while after (here
    // until the first requests are answered): the samples say overloaded all along.
    const startUp = busyEventLoop(6000);
    await until(() => (app.memoryUsage().eventLoopDelay ?? 0) > 100);
    await app.ready();
    // The first request after ready, with the loop still blocked and its samples over the limit: it
    // is answered, not refused (without the grace after ready it would be shed).
    expect(app.memoryUsage().eventLoopDelay).toBeGreaterThan(100);
    expect((await me()).statusCode).toBe(200);
    await startUp;
    // Once two samples have passed since ready, a busy event loop is load like any other (a whole
    // sample busy).
    await new Promise((resolve) => setTimeout(resolve, 2200));
    await busyEventLoop(2600);
    expectShed(await me(), /overloaded/);
  }, 60_000);
});
