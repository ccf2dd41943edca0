// Mission periods: which period a report falls in, from the mission's recurrence and the report time
// seen in the promotion's IANA time zone. Weeks start on Monday (ISO 8601).
import type { RecurrenceType } from '../db/schema.ts';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      weekday: 'short',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** True when the runtime knows the IANA time zone name. */
export function isValidTimeZone(timeZone: string): boolean {
  if (timeZone.length === 0 || timeZone.length > 64) return false;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

export interface LocalDate {
  year: number;
  month: number;
  day: number;
  /** 1 = Monday ... 7 = Sunday */
  isoWeekday: number;
}

const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

/** The calendar date of an instant in a time zone. */
export function localDate(at: Date, timeZone: string): LocalDate {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(at)) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    isoWeekday: WEEKDAYS[parts.weekday ?? ''] ?? 0,
  };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function isoDate(year: number, month: number, day: number): string {
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/**
 * The key of the period an instant falls in: ONE_TIME 'ONCE', DAILY '2026-11-22',
 * WEEKLY 'W2026-11-16' (the Monday that starts the week), MONTHLY '2026-11'.
 */
export function periodKeyFor(recurrence: RecurrenceType, at: Date, timeZone: string): string {
  if (recurrence === 'ONE_TIME') return 'ONCE';
  const { year, month, day, isoWeekday } = localDate(at, timeZone);
  switch (recurrence) {
    case 'DAILY':
      return isoDate(year, month, day);
    case 'MONTHLY':
      return `${pad(year, 4)}-${pad(month)}`;
    case 'WEEKLY': {
      // Calendar arithmetic in UTC on the local date: no time zone offsets are involved any more.
      const monday = new Date(Date.UTC(year, month - 1, day - (isoWeekday - 1)));
      return `W${isoDate(monday.getUTCFullYear(), monday.getUTCMonth() + 1, monday.getUTCDate())}`;
    }
  }
}

const RECURRENCE_SPAN: Record<RecurrenceType, number> = { DAILY: 1, WEEKLY: 2, MONTHLY: 3, ONE_TIME: 4 };

/**
 * The period of the member with the longest recurrence: a group's period (a group with a ONE_TIME
 * mission pays once; an all-DAILY group pays daily). The first of equals wins.
 */
export function longestPeriod<T extends { recurrence: RecurrenceType }>(members: readonly T[]): T {
  return members.reduce((a, b) => (RECURRENCE_SPAN[b.recurrence] > RECURRENCE_SPAN[a.recurrence] ? b : a));
}
