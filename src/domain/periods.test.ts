import { describe, expect, it } from 'vitest';
import { isValidTimeZone, periodKeyFor } from './periods.ts';

describe('periodKeyFor', () => {
  it('ONE_TIME is a single period whatever the time', () => {
    expect(periodKeyFor('ONE_TIME', new Date('2020-01-01T00:00:00Z'), 'UTC')).toBe('ONCE');
    expect(periodKeyFor('ONE_TIME', new Date('2030-06-15T12:00:00Z'), 'Asia/Seoul')).toBe('ONCE');
  });

  it('DAILY changes at local midnight, not UTC midnight', () => {
    // Seoul is UTC+9: 14:59:59Z is 23:59:59 local, 15:00:00Z is the next local day.
    expect(periodKeyFor('DAILY', new Date('2026-11-22T14:59:59.999Z'), 'Asia/Seoul')).toBe('2026-11-22');
    expect(periodKeyFor('DAILY', new Date('2026-11-22T15:00:00.000Z'), 'Asia/Seoul')).toBe('2026-11-23');
    expect(periodKeyFor('DAILY', new Date('2026-11-22T15:00:00.000Z'), 'UTC')).toBe('2026-11-22');
  });

  it('WEEKLY starts on Monday in the local time zone', () => {
    // 2026-11-22 is a Sunday; 2026-11-23 a Monday.
    expect(periodKeyFor('WEEKLY', new Date('2026-11-22T14:59:59Z'), 'Asia/Seoul')).toBe('W2026-11-16');
    expect(periodKeyFor('WEEKLY', new Date('2026-11-22T15:00:00Z'), 'Asia/Seoul')).toBe('W2026-11-23');
    // A week across a year end: 2026-12-31 is a Thursday, its Monday is 2026-12-28.
    expect(periodKeyFor('WEEKLY', new Date('2027-01-01T12:00:00Z'), 'UTC')).toBe('W2026-12-28');
  });

  it('WEEKLY in a time zone behind UTC', () => {
    // 2026-11-23T04:00Z is Sunday 20:00 in Los Angeles (UTC-8): still the week of Monday 16th.
    expect(periodKeyFor('WEEKLY', new Date('2026-11-23T04:00:00Z'), 'America/Los_Angeles')).toBe(
      'W2026-11-16',
    );
    expect(periodKeyFor('WEEKLY', new Date('2026-11-23T08:00:00Z'), 'America/Los_Angeles')).toBe(
      'W2026-11-23',
    );
  });

  it('MONTHLY changes at local midnight of the first day', () => {
    expect(periodKeyFor('MONTHLY', new Date('2026-11-30T14:59:59Z'), 'Asia/Tokyo')).toBe('2026-11');
    expect(periodKeyFor('MONTHLY', new Date('2026-11-30T15:00:00Z'), 'Asia/Tokyo')).toBe('2026-12');
  });

  it('DAILY across a daylight-saving change keeps calendar days', () => {
    // Europe/Berlin leaves summer time on 2026-10-25 at 01:00Z; local midnight moves from 22:00Z to 23:00Z.
    expect(periodKeyFor('DAILY', new Date('2026-10-25T22:59:59Z'), 'Europe/Berlin')).toBe('2026-10-25');
    expect(periodKeyFor('DAILY', new Date('2026-10-25T23:00:00Z'), 'Europe/Berlin')).toBe('2026-10-26');
  });
});

describe('isValidTimeZone', () => {
  it('accepts IANA names and refuses others', () => {
    expect(isValidTimeZone('Asia/Seoul')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });
});
