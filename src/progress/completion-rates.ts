// Completion-rate alarms (docs/security.md "Reward farming"): each process counts its partners'
// completions in memory and flushes the counts at most every few seconds in one statement, which
// also compares each partner's current window with its baseline and records an alarm at most once
// per window across all processes. No round trip is added to any request.
import { completionAlarmRows, countAndCompare } from './completion-rate-store.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';

export interface CompletionAlarmOptions {
  /** The recent window, in seconds; counts are kept per window. */
  windowSeconds: number;
  /** An alarm fires when the window's completions exceed this multiple of the baseline. */
  multiple: number;
  /** ... and are at least this many. */
  minCompletions: number;
  /** The baseline: the average per window over this many windows before the current one. */
  baselineWindows?: number;
}

export interface CompletionAlarm {
  partnerId: string;
  /** Completions in the current window so far. */
  rate: number;
  /** The average completions per window over the baseline windows. */
  baseline: number;
  windowStart: string;
  windowSeconds: number;
}

const DEFAULT_BASELINE_WINDOWS = 12;

/**
 * Counts completions per partner and window and flushes them (with the alarm check) at most every
 * `flushEveryMs`. A completion counts in the window it was recorded in, whenever its flush runs: a
 * flush that waits behind a slow one, or a batch recorded just after a flush, never moves counts
 * into a later window.
 */
export class CompletionRateMonitor {
  /** Per window (its start, in ms): the last time a completion was recorded in it and the counts. */
  private windows = new Map<number, { at: Date; counts: Map<string, number> }>();
  private lastFlush: number;
  private flushing: Promise<void> = Promise.resolve();
  private readonly flushEveryMs: number;
  private readonly windowMs: number;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly clock: Clock,
    private readonly options: CompletionAlarmOptions,
    private readonly onAlarm: (alarm: CompletionAlarm) => void,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.windowMs = options.windowSeconds * 1000;
    // Often enough that a jump is seen within a fraction of its window, rarely enough to cost nothing.
    this.flushEveryMs = Math.min(10_000, this.windowMs / 5);
    this.lastFlush = clock.now().getTime();
  }

  /** Adds completions of a partner (called once per written batch); flushes in the background when due. */
  record(partnerId: string, completions: number): void {
    if (completions <= 0) return;
    const at = this.clock.now();
    const start = Math.floor(at.getTime() / this.windowMs) * this.windowMs;
    let window = this.windows.get(start);
    if (window === undefined) this.windows.set(start, (window = { at, counts: new Map() }));
    window.at = at;
    window.counts.set(partnerId, (window.counts.get(partnerId) ?? 0) + completions);
    if (at.getTime() - this.lastFlush >= this.flushEveryMs) void this.flush();
  }

  /** Writes the counts so far, oldest window first, and checks for alarms; answers when done (never throws). */
  flush(): Promise<void> {
    this.lastFlush = this.clock.now().getTime();
    const windows = [...this.windows.entries()].sort(([a], [b]) => a - b).map(([, w]) => w);
    this.windows = new Map();
    if (windows.length === 0) return this.flushing;
    this.flushing = this.flushing.then(async () => {
      for (const { at, counts } of windows) {
        try {
          for (const alarm of await flushCompletionCounts(this.db, at, counts, this.options))
            this.onAlarm(alarm);
        } catch (error) {
          this.onError(error);
        }
      }
    });
    return this.flushing;
  }
}

/**
 * One statement: adds the counts to the current window of each partner, and for each partner whose
 * window now exceeds `multiple` x its baseline (and `minCompletions`) records an alarm, unless one
 * was already recorded for this window (guarded upsert: one alarm per window whatever the number of
 * processes). Answers the alarms recorded now.
 */
export async function flushCompletionCounts(
  db: Kysely<DB>,
  now: Date,
  counts: ReadonlyMap<string, number>,
  options: CompletionAlarmOptions,
): Promise<CompletionAlarm[]> {
  const windowMs = options.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  const baselineWindows = options.baselineWindows ?? DEFAULT_BASELINE_WINDOWS;
  const baselineFrom = new Date(windowStart.getTime() - baselineWindows * windowMs);
  const partners = [...counts.keys()].sort();
  const rows = await countAndCompare(db, {
    partners,
    counts: partners.map((p) => counts.get(p) ?? 0),
    now,
    windowStart,
    baselineFrom,
    baselineWindows,
    minCompletions: options.minCompletions,
    multiple: options.multiple,
  });
  return rows.map((r) => ({
    partnerId: r.partner_id,
    rate: Number(r.rate),
    baseline: Number(Number(r.baseline).toFixed(2)),
    windowStart: windowStart.toISOString(),
    windowSeconds: options.windowSeconds,
  }));
}

/**
 * The alarm counter per partner, for the metrics endpoint to come (`completion_rate_alarms_total`
 * with a partner label): how many windows alarmed since the start, across every process.
 */
export async function completionAlarmTotals(
  db: Kysely<DB>,
): Promise<Array<{ partnerId: string; alarms: number; lastWindow: string }>> {
  const rows = await completionAlarmRows(db);
  return rows.map((r) => ({
    partnerId: r.partner_id,
    alarms: Number(r.alarms),
    lastWindow: r.last_window.toISOString(),
  }));
}
