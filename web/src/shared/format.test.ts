import { describe, expect, it } from 'vitest';
import { addDecimals, describePeriod, formatUnits, gaugeLabel, gaugeRatio } from './format.ts';

describe('formatUnits', () => {
  it.each([
    ['0', 0, '0'],
    ['0', 2, '0.00'],
    ['12.5', 2, '12.50'],
    ['1234567.5', 2, '1,234,567.50'],
    ['1000', 0, '1,000'],
    ['007', 0, '7'],
    ['1.000000000000000000000000000000000001', 36, '1.000000000000000000000000000000000001'],
    ['123456789012345678901234567890', 18, '123,456,789,012,345,678,901,234,567,890.000000000000000000'],
    ['1.2345', 2, '1.2345'],
    ['-3.1', 2, '-3.10'],
    ['not a number', 2, 'not a number'],
  ])('%s with %i decimals -> %s', (amount, decimals, expected) => {
    expect(formatUnits(amount, decimals)).toBe(expected);
  });
});

describe('gauge', () => {
  it('fills by current over target, bounded to 0..1', () => {
    expect(gaugeRatio(1, 4)).toBe(0.25);
    expect(gaugeRatio(9, 4)).toBe(1);
    expect(gaugeRatio(null, 4)).toBe(0);
    expect(gaugeRatio(3, null)).toBeUndefined();
    expect(gaugeRatio(3, 0)).toBeUndefined();
  });
  it('labels', () => {
    expect(gaugeLabel(2, 5)).toBe('2 / 5');
    expect(gaugeLabel(null, 5)).toBe('0 / 5');
    expect(gaugeLabel(7, null)).toBe('7');
    expect(gaugeLabel(null, null)).toBe('not started');
  });
});

describe('addDecimals', () => {
  it('adds exactly, whatever the scale', () => {
    expect(addDecimals('0.1', '0.2')).toBe('0.3');
    expect(addDecimals('10', '0.25')).toBe('10.25');
    expect(addDecimals('0.75', '0.25')).toBe('1');
    expect(addDecimals('99999999999999999999.5', '0.5')).toBe('100000000000000000000');
    expect(addDecimals('0', '0')).toBe('0');
  });
});

describe('describePeriod', () => {
  it('names periods', () => {
    expect(describePeriod('ONCE')).toBe('one time');
    expect(describePeriod('W2026-11-16')).toBe('week of 2026-11-16');
    expect(describePeriod('2026-11-22')).toBe('2026-11-22');
    expect(describePeriod('2026-11')).toBe('2026-11');
  });
});
