import { describe, expect, it } from 'vitest';
import { groupBy } from './group-by.ts';

describe('groupBy', () => {
  it('keeps the order of the groups’ first items and of the items within each group', () => {
    const groups = groupBy(['b1', 'a1', 'b2', 'c1', 'a2'], (s) => s[0]);
    expect([...groups]).toEqual([
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
      ['c', ['c1']],
    ]);
  });

  it('is empty for no items and compares keys as a Map does', () => {
    expect(groupBy([], (n: number) => n).size).toBe(0);
    expect([...groupBy([1, 2, 3, 4], (n) => n % 2 === 0).keys()]).toEqual([false, true]);
  });
});
