import { describe, expect, it } from 'vitest';
import { ageText, isStuck, STUCK_AFTER_MS, wholeUnits } from './PayoutsList.tsx';

describe('the payouts list', () => {
  it('turns base units into whole units exactly, at any decimals', () => {
    expect(wholeUnits('1234567891000000000000000', 18)).toBe('1234567.891');
    expect(wholeUnits('1000000000000', 18)).toBe('0.000001');
    expect(wholeUnits('1', 18)).toBe('0.000000000000000001');
    expect(wholeUnits('1500000', 6)).toBe('1.5');
    expect(wholeUnits('1234567', 0)).toBe('1234567');
    expect(wholeUnits('100', 2)).toBe('1');
  });
  it('says how long ago in the largest unit that fits, in the language asked', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    expect(ageText('2026-11-26T11:48:00Z', now, 'en')).toBe('12 minutes ago');
    expect(ageText('2026-11-26T09:00:00Z', now, 'en')).toBe('3 hours ago');
    expect(ageText('2026-11-24T12:00:00Z', now, 'en')).toBe('2 days ago');
    expect(ageText('2026-11-26T11:59:30Z', now, 'ko')).toBe('30초 전');
  });
  it('calls a signed or broadcast payout stuck only after the threshold; a settled one never', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    const at = (ms: number) => new Date(now - ms).toISOString();
    expect(isStuck({ status: 'BROADCAST', signedAt: at(STUCK_AFTER_MS + 1000) }, now)).toBe(true);
    expect(isStuck({ status: 'SIGNED', signedAt: at(STUCK_AFTER_MS + 1000) }, now)).toBe(true);
    expect(isStuck({ status: 'BROADCAST', signedAt: at(STUCK_AFTER_MS - 1000) }, now)).toBe(false);
    expect(isStuck({ status: 'CONFIRMED', signedAt: at(10 * STUCK_AFTER_MS) }, now)).toBe(false);
  });
});
