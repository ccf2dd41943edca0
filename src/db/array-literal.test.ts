// The array literals written for pg (array-literal.ts) are the text pg itself writes, byte for byte,
// and arrays pg must handle itself are left to it.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { arrayLiteral, withArrayLiterals } from './array-literal.ts';

const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue(value: unknown): unknown;
};

describe('arrayLiteral', () => {
  const arrays: unknown[][] = [
    [],
    ['ptn_7e5KlbCOdpDRThTs6-NUFQ', 'u12345', '2026-11-28'],
    ['a "quoted" word', 'back\\slash', '\\"both\\"', '"', '\\', ''],
    ['한국어 미션', 'ภารกิจภาษาไทย', '絵文字 🎁', 'comma, {brace}', ' spaced ', 'NULL', 'null'],
    [null, 'x', undefined, null],
    [0, -1, 10, 1.5, 1e21, Number.NaN, 123456789012345],
    [10n ** 18n * 123n, 0n, -5n],
    [true, false, null],
    ['mixed', 1, 2n, true, null],
  ];

  it.each(
    arrays.map((a) => [JSON.stringify(a, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)), a]),
  )('writes %s as pg does', (_name, array) => {
    expect(arrayLiteral(array)).toBe(prepareValue(array));
  });

  it('leaves to pg an array holding a date, a buffer, a nested array or an object', () => {
    for (const array of [[new Date()], [Buffer.from('ab')], [['a'], ['b']], [{ a: 1 }], ['a', new Date(0)]]) {
      expect(arrayLiteral(array)).toBe(array);
    }
  });

  it('leaves what is not an array as it is', () => {
    for (const value of ['{a}', 3, null, undefined, new Date(0)]) expect(arrayLiteral(value)).toBe(value);
  });
});

describe('withArrayLiterals', () => {
  it('writes only the arrays, in a copy, and hands back the same list when it holds none', () => {
    const given = ['p', ['a', 'b"c'], 3, [new Date(0)]];
    const out = withArrayLiterals(given);
    expect(out).toEqual(['p', '{"a","b\\"c"}', 3, given[3]]);
    expect(given[1]).toEqual(['a', 'b"c']);
    const plain = ['p', 3];
    expect(withArrayLiterals(plain)).toBe(plain);
    expect(withArrayLiterals(undefined)).toBeUndefined();
  });
});
