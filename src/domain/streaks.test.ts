import { describe, expect, it } from 'vitest';
import { checkIn, previousDate } from './streaks.ts';

describe('streaks', () => {
  it('knows the day before, across months, years and leap days', () => {
    expect(previousDate('2026-03-01')).toBe('2026-02-28');
    expect(previousDate('2028-03-01')).toBe('2028-02-29');
    expect(previousDate('2027-01-01')).toBe('2026-12-31');
  });

  it('counts consecutive days, keeps the best, restarts after a gap', () => {
    let s = checkIn(undefined, '2026-11-20');
    expect(s).toEqual({ current: 1, best: 1, lastDate: '2026-11-20' });
    s = checkIn(s, '2026-11-21');
    s = checkIn(s, '2026-11-21');
    s = checkIn(s, '2026-11-22');
    expect(s).toEqual({ current: 3, best: 3, lastDate: '2026-11-22' });
    s = checkIn(s, '2026-11-24');
    expect(s).toEqual({ current: 1, best: 3, lastDate: '2026-11-24' });
    // A late report for an earlier day changes nothing.
    expect(checkIn(s, '2026-11-23')).toEqual(s);
  });
});
