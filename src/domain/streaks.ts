// Daily check-in streaks: from the local dates a user checked in (completed a daily mission of a
// DAILY_CHECK promotion), the current run of consecutive days and the best run ever. A streak is
// still alive on a day the user has not checked in yet, as long as yesterday was checked.

export interface Streak {
  current: number;
  best: number;
  /** The last local date checked in, 'YYYY-MM-DD'; null when never. */
  lastCheckDate: string | null;
}

const DAY_MS = 86_400_000;

function dayNumber(date: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return Number.NaN;
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / DAY_MS;
}

/** `checkDates`: local dates 'YYYY-MM-DD' in any order, repeats allowed; `today`: the local date now. */
export function streakOf(checkDates: readonly string[], today: string): Streak {
  const days = [...new Set(checkDates.map(dayNumber).filter((d) => Number.isFinite(d)))].sort((a, b) => a - b);
  if (days.length === 0) return { current: 0, best: 0, lastCheckDate: null };
  let best = 1;
  let run = 1;
  for (let i = 1; i < days.length; i++) {
    run = (days[i] as number) - (days[i - 1] as number) === 1 ? run + 1 : 1;
    best = Math.max(best, run);
  }
  const last = days[days.length - 1] as number;
  const todayNumber = dayNumber(today);
  // `run` is now the run ending at the last check-in; it counts if that was today or yesterday.
  const current = todayNumber - last <= 1 && todayNumber - last >= 0 ? run : 0;
  return { current, best, lastCheckDate: new Date(last * DAY_MS).toISOString().slice(0, 10) };
}
