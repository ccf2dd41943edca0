import { describe, expect, it } from 'vitest';
import { instantToLocal, lines, localToInstant } from './forms.ts';

describe('form helpers', () => {
  it('splits lists on lines and commas, dropping blanks', () => {
    expect(lines('127.0.0.1\n ::1 , 10.0.0.0/8\n\n')).toEqual(['127.0.0.1', '::1', '10.0.0.0/8']);
    expect(lines('   ')).toEqual([]);
  });
  it('round-trips local date-times through instants', () => {
    const instant = localToInstant('2026-03-04T05:06');
    expect(instant).toMatch(/^2026-03-0[345]T\d\d:06:00\.000Z$/);
    expect(instantToLocal(instant ?? '')).toBe('2026-03-04T05:06');
    expect(localToInstant('')).toBeUndefined();
    expect(localToInstant('nonsense')).toBeUndefined();
    expect(instantToLocal(null)).toBe('');
  });
});
