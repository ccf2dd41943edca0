import { describe, expect, it } from 'vitest';
import { checkIn, previousDay, streakOn } from './streaks.ts';

describe('previousDay', () => {
  it('crosses months, years and leap days', () => {
    expect(previousDay('2026-03-01')).toBe('2026-02-28');
    expect(previousDay('2028-03-01')).toBe('2028-02-29');
    expect(previousDay('2027-01-01')).toBe('2026-12-31');
    expect(() => previousDay('2026-3-1')).toThrow();
  });
});

describe('checkIn', () => {
  it('starts at 1, grows on consecutive days and restarts after a gap', () => {
    let s = checkIn(undefined, '2026-11-20');
    expect(s).toEqual({ current: 1, best: 1, lastCheckDate: '2026-11-20', advanced: true });
    s = checkIn(s, '2026-11-21');
    s = checkIn(s, '2026-11-22');
    expect(s).toMatchObject({ current: 3, best: 3, advanced: true });
    s = checkIn(s, '2026-11-24');
    expect(s).toEqual({ current: 1, best: 3, lastCheckDate: '2026-11-24', advanced: true });
  });

  it('a second check-in the same day, or a late earlier day, changes nothing', () => {
    const s = checkIn(checkIn(undefined, '2026-11-21'), '2026-11-22');
    expect(checkIn(s, '2026-11-22')).toEqual({ ...s, advanced: false });
    expect(checkIn(s, '2026-11-21')).toEqual({ ...s, advanced: false });
  });
});

describe('streakOn', () => {
  const stored = { current: 4, best: 6, lastCheckDate: '2026-11-22' };
  it('runs through today and tomorrow, then is broken', () => {
    expect(streakOn(stored, '2026-11-22')).toBe(4);
    expect(streakOn(stored, '2026-11-23')).toBe(4);
    expect(streakOn(stored, '2026-11-24')).toBe(0);
    expect(streakOn({ current: 0, best: 0, lastCheckDate: null }, '2026-11-24')).toBe(0);
  });
});
