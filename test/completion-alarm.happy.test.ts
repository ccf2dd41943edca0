// The completion-rate alarm: a partner whose completions in a window jump past a multiple of its
// baseline gets one warn log line and one count per window (shared by every process through the
// database), and its settings are validated at start-up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { CompletionRateMonitor, completionAlarmTotals } from '../src/progress/completion-rates.ts';
import { ManualClock } from '../src/domain/clock.ts';

let ctx: TestContext;
let setup: MissionSetup;

beforeAll(async () => {
  ctx = await startTestApp({
    captureLogs: true,
    now: '2026-11-22T03:00:00Z',
    env: {
      COMPLETION_ALARM_WINDOW_SECONDS: '60',
      COMPLETION_ALARM_MULTIPLE: '3',
      COMPLETION_ALARM_MIN_COMPLETIONS: '20',
    },
  });
  setup = await setupMission(ctx, { missionKey: 'spin', recurrence: 'ONE_TIME' });
});
afterAll(async () => {
  await ctx?.close();
});

let next = 0;
async function completions(n: number) {
  const answers = await Promise.all(
    Array.from({ length: n }, () =>
      partnerCall(ctx, setup, {
        method: 'POST',
        url: '/v1/achieve',
        body: { partnerUid: `u-${next++}`, missionKey: 'spin', completed: true },
      }),
    ),
  );
  expect(answers.map((a) => a.statusCode)).toEqual(Array(n).fill(200));
}

/** Waits (bounded) until the background flushes have written `total` completions for the partner. */
async function flushed(total: number) {
  const counted = async () =>
    Number(
      (
        await ctx.database.db
          .selectFrom('completion_rates')
          .select((eb) => eb.fn.sum<string>('completions').as('n'))
          .where('partner_id', '=', setup.partnerId)
          .executeTakeFirst()
      )?.n ?? 0,
    );
  for (let i = 0; i < 250 && (await counted()) < total; i++) await new Promise((r) => setTimeout(r, 20));
  expect(await counted()).toBe(total);
}

const alarmLines = () => ctx.logs.filter((l) => l.event === 'completion_rate_alarm');

describe('completion-rate alarm', () => {
  it('stays quiet at the usual rate, fires once when the rate jumps, and not again in that window', async () => {
    // The usual rate: 2 completions a minute for three minutes (each batch after a minute flushes).
    for (let w = 0; w < 3; w++) {
      ctx.clock.advance(60_000);
      await completions(2);
    }
    ctx.clock.advance(60_000);
    await completions(1); // flushes the last usual window
    await flushed(7);
    expect(alarmLines()).toEqual([]);

    // A jump: 30 completions within one window, then the next flush (12 s later) sees it.
    await completions(30);
    ctx.clock.advance(13_000);
    await completions(1);
    await flushed(38);
    expect(await completionAlarmTotals(ctx.database.db)).toEqual([
      { partnerId: setup.partnerId, alarms: 1, lastWindow: expect.any(String) },
    ]);
    const [line, ...more] = alarmLines();
    expect(more).toEqual([]);
    // The window holds the 1 that flushed the usual windows, the 30 and the 1 after them.
    expect(line).toMatchObject({ level: 40, partnerId: setup.partnerId, rate: 32, windowSeconds: 60 });
    expect(line?.baseline).toBeLessThan(32 / 3);

    // More of the same window: counted, but no second alarm.
    await completions(10);
    ctx.clock.advance(13_000);
    await completions(1);
    await flushed(49);
    expect((await completionAlarmTotals(ctx.database.db))[0]?.alarms).toBe(1);
    expect(alarmLines()).toHaveLength(1);
  });

  it('counts each completion in the window it was recorded in, however late its flush runs', async () => {
    const other = await setupMission(ctx, { missionKey: 'late', recurrence: 'ONE_TIME' });
    const clock = new ManualClock('2026-11-22T04:00:50Z');
    const monitor = new CompletionRateMonitor(
      ctx.database.db,
      clock,
      { windowSeconds: 60, multiple: 3, minCompletions: 20 },
      () => {},
    );
    clock.advance(5_000); // 04:00:55, not yet due: kept
    monitor.record(other.partnerId, 2);
    clock.advance(10_000); // 04:01:05, due: flushes both windows
    monitor.record(other.partnerId, 3);
    const flushing = monitor.flush();
    clock.advance(60_000); // the next window begins before the flush has run
    await flushing;
    const rows = await ctx.database.db
      .selectFrom('completion_rates')
      .select(['window_start', 'completions'])
      .where('partner_id', '=', other.partnerId)
      .orderBy('window_start')
      .execute();
    expect(rows.map((r) => [r.window_start.toISOString(), Number(r.completions)])).toEqual([
      ['2026-11-22T04:00:00.000Z', 2],
      ['2026-11-22T04:01:00.000Z', 3],
    ]);
  });

  it.each([
    ['COMPLETION_ALARM_WINDOW_SECONDS', '5'],
    ['COMPLETION_ALARM_WINDOW_SECONDS', 'soon'],
    ['COMPLETION_ALARM_MULTIPLE', '1'],
    ['COMPLETION_ALARM_MULTIPLE', '2.5'],
    ['COMPLETION_ALARM_MIN_COMPLETIONS', '0'],
  ])('%s=%s stops start-up naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('has defaults: a 5-minute window, 5 times the baseline, at least 100 completions', () => {
    expect(loadConfig({})).toMatchObject({
      completionAlarmWindowSeconds: 300,
      completionAlarmMultiple: 5,
      completionAlarmMinCompletions: 100,
    });
  });
});
