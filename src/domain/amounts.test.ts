import { describe, expect, it } from 'vitest';
import { AmountError, formatAmount, MAX_BASE_UNITS, parseAmount } from './amounts.ts';

describe('parseAmount', () => {
  it('scales whole units to base units', () => {
    expect(parseAmount('12.5', 2)).toBe(1250n);
    expect(parseAmount('12.50', 2)).toBe(1250n);
    expect(parseAmount('7', 0)).toBe(7n);
    expect(parseAmount('0.000000000000000001', 18)).toBe(1n);
    expect(parseAmount('1.' + '0'.repeat(35) + '1', 36)).toBe(10n ** 36n + 1n);
  });

  it('zero only when allowed', () => {
    expect(() => parseAmount('0', 2)).toThrow(AmountError);
    expect(parseAmount('0.00', 2, { allowZero: true })).toBe(0n);
  });

  it('refuses more fractional digits than the decimals', () => {
    expect(() => parseAmount('1.001', 2)).toThrow(/fractional digits/);
    expect(() => parseAmount('1.5', 0)).toThrow(/fractional digits/);
    expect(() => parseAmount('0.' + '0'.repeat(36) + '1', 36)).toThrow();
  });

  it('refuses everything that is not a plain decimal', () => {
    for (const bad of [
      '',
      '-1',
      '+1',
      '1e3',
      ' 1',
      '1 ',
      '1.',
      '.5',
      '0x10',
      '1,000',
      'NaN',
      'Infinity',
      '١',
    ]) {
      expect(() => parseAmount(bad, 2), bad).toThrow(AmountError);
    }
  });

  it('holds the largest numeric(78,0) and no more', () => {
    expect(parseAmount(MAX_BASE_UNITS.toString(), 0)).toBe(MAX_BASE_UNITS);
    expect(() => parseAmount((MAX_BASE_UNITS + 1n).toString(), 0)).toThrow(/too large/);
    expect(() => parseAmount('1' + '0'.repeat(42), 36)).toThrow(/too large/);
    expect(parseAmount('1' + '0'.repeat(41), 36)).toBe(10n ** 77n);
  });
});

describe('formatAmount', () => {
  it('writes base units as whole units without trailing zeros', () => {
    expect(formatAmount(1250n, 2)).toBe('12.5');
    expect(formatAmount(1200n, 2)).toBe('12');
    expect(formatAmount(0n, 18)).toBe('0');
    expect(formatAmount(1n, 36)).toBe('0.' + '0'.repeat(35) + '1');
    expect(formatAmount('5', 0)).toBe('5');
    expect(formatAmount(-150n, 2)).toBe('-1.5');
    expect(formatAmount(MAX_BASE_UNITS, 0)).toBe('9'.repeat(78));
  });

  it('round-trips', () => {
    for (const [text, decimals] of [
      ['0.1', 1],
      ['123456789.123456789', 9],
      ['1', 36],
      ['99999999999', 0],
    ] as const) {
      expect(formatAmount(parseAmount(text, decimals), decimals)).toBe(text);
    }
  });
});
