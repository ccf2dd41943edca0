// DAILY_CHECK streaks: consecutive local days on which a user completed a check-in mission. The
// database advances the stored streak in one guarded upsert (rewards/store.ts); these are the
// calendar rules it and the views share.

const DAY_MS = 24 * 3600 * 1000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function toUtcMs(date: string): number {
  if (!DATE.test(date)) throw new Error(`'${date}' is not a YYYY-MM-DD date`);
  return Date.parse(`${date}T00:00:00Z`);
}

/** The calendar day before a YYYY-MM-DD date. */
export function previousDay(date: string): string {
  return new Date(toUtcMs(date) - DAY_MS).toISOString().slice(0, 10);
}

export interface StoredStreak {
  current: number;
  best: number;
  /** Local date of the last check-in, YYYY-MM-DD. */
  lastCheckDate: string | null;
}

/**
 * The stored streak after a check-in on `date`: one more day when the last check-in was the day
 * before, 1 after a gap, unchanged for a second check-in on the same day or a late report of an
 * earlier day. `advanced` says whether this check-in counted.
 */
export function checkIn(stored: StoredStreak | undefined, date: string): StoredStreak & { advanced: boolean } {
  toUtcMs(date);
  if (stored?.lastCheckDate && stored.lastCheckDate >= date) return { ...stored, advanced: false };
  const current = stored?.lastCheckDate === previousDay(date) ? stored.current + 1 : 1;
  return { current, best: Math.max(stored?.best ?? 0, current), lastCheckDate: date, advanced: true };
}

/** The streak as a user sees it on `today`: it still runs if they checked in today or yesterday, else it is 0. */
export function streakOn(stored: StoredStreak, today: string): number {
  if (stored.lastCheckDate === null) return 0;
  return stored.lastCheckDate === today || stored.lastCheckDate === previousDay(today) ? stored.current : 0;
}
