import { describe, expect, it } from 'vitest';
import { addDecimals, amountText, describePeriod, formatUnits, gaugeLabel, gaugeRatio } from './format.ts';

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

describe('amountText: an amount for reading, the same on every page', () => {
  it.each([
    ['2.500000000000000000', 18, 'en', '2.5', false],
    ['1234567.891', 18, 'en', '1,234,567.891', false],
    ['1234567.891', 18, 'de', '1.234.567,891', false],
    ['1234567.891', 18, 'ko', '1,234,567.891', false],
    ['0.000001', 18, 'en', '0.000001', false],
    ['0.000000000000000012', 18, 'en', '0.000000000000000012', false],
    ['0.0000000123456', 18, 'en', '0.000000012', true],
    ['1.123456789', 18, 'en', '1.123456', true],
    ['1.999999999', 18, 'en', '1.999999', true],
    ['1000', 0, 'th', '1,000', false],
    ['123456789012345678901234567890.5', 18, 'en', '123,456,789,012,345,678,901,234,567,890.5', false],
  ])('%s (%i decimals, %s) reads %s', (amount, decimals, lang, short, cut) => {
    const text = amountText(amount, decimals, lang);
    expect(text.short).toBe(short);
    expect(text.cut).toBe(cut);
  });
  it('keeps every digit in the full form, exactly (no float)', () => {
    expect(amountText('1.123456789012345678', 18, 'en').full).toBe('1.123456789012345678');
    expect(amountText('9007199254740993.000000000000000001', 18, 'en').full).toBe(
      '9,007,199,254,740,993.000000000000000001',
    );
  });
});
