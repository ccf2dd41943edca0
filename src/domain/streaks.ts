// Daily check-in streaks: consecutive promotion-local dates.

export interface Streak {
  current: number;
  best: number;
  lastDate: string;
}

/** The day before a YYYY-MM-DD date. */
export function previousDate(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** The streak after a check-in on `date`; unchanged for a second check-in the same day. */
export function checkIn(streak: Streak | undefined, date: string): Streak {
  if (!streak) return { current: 1, best: 1, lastDate: date };
  if (streak.lastDate >= date) return streak;
  const current = streak.lastDate === previousDate(date) ? streak.current + 1 : 1;
  return { current, best: Math.max(streak.best, current), lastDate: date };
}
