import { describe, expect, it } from 'vitest';
import { streakOf } from './streaks.ts';

describe('streakOf', () => {
  it('is zero without check-ins', () => {
    expect(streakOf([], '2026-11-22')).toEqual({ current: 0, best: 0, lastCheckDate: null });
  });
  it('counts consecutive days ending today', () => {
    expect(streakOf(['2026-11-20', '2026-11-21', '2026-11-22'], '2026-11-22')).toEqual({ current: 3, best: 3, lastCheckDate: '2026-11-22' });
  });
  it('keeps the streak alive until the end of the day after the last check-in', () => {
    expect(streakOf(['2026-11-20', '2026-11-21'], '2026-11-22').current).toBe(2);
    expect(streakOf(['2026-11-20', '2026-11-21'], '2026-11-23').current).toBe(0);
  });
  it('remembers the best run after a gap, across month and year ends, ignoring repeats and order', () => {
    const dates = ['2026-01-02', '2025-12-30', '2025-12-31', '2026-01-01', '2026-01-01', '2026-01-05', '2026-01-06'];
    expect(streakOf(dates, '2026-01-06')).toEqual({ current: 2, best: 4, lastCheckDate: '2026-01-06' });
  });
  it('counts leap days', () => {
    expect(streakOf(['2028-02-28', '2028-02-29', '2028-03-01'], '2028-03-01').current).toBe(3);
  });
  it('ignores dates that are not dates, and check-ins dated after today do not make a current streak', () => {
    expect(streakOf(['nonsense', '2026-11-22'], '2026-11-22').current).toBe(1);
    expect(streakOf(['2026-11-25'], '2026-11-22').current).toBe(0);
  });
});
