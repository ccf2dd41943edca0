import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { commitmentOf, pickWinners, seedMatchesCommitment, sortTicketIds, ticketScore } from './draws.ts';

const seed = 'a'.repeat(64);
const ids = Array.from({ length: 50 }, (_, i) => `tkt_${String(i).padStart(3, '0')}`);

describe('draw commitment', () => {
  it('is the SHA-256 of the seed text, and only that seed matches it', () => {
    const commitment = commitmentOf(seed);
    expect(commitment).toBe(createHash('sha256').update(seed).digest('hex'));
    expect(seedMatchesCommitment(seed, commitment)).toBe(true);
    expect(seedMatchesCommitment('b'.repeat(64), commitment)).toBe(false);
    expect(seedMatchesCommitment(seed.toUpperCase(), commitment)).toBe(false);
  });

  it('refuses a seed that is not 64 lowercase hex characters', () => {
    for (const bad of ['', 'a'.repeat(63), 'A'.repeat(64), 'g'.repeat(64)]) expect(() => commitmentOf(bad)).toThrow();
  });
});

describe('pickWinners', () => {
  it('takes the tickets with the lowest SHA-256(seed:ticketId)', () => {
    const expected = [...ids]
      .sort((a, b) => (ticketScore(seed, a) < ticketScore(seed, b) ? -1 : 1))
      .slice(0, 5);
    expect(pickWinners(seed, ids, 5)).toEqual(expected);
    expect(ticketScore(seed, 'tkt_x')).toBe(createHash('sha256').update(`${seed}:tkt_x`).digest('hex'));
  });

  it('depends on the set of ids, not their order or repeats', () => {
    const shuffled = [...ids].reverse().concat(ids.slice(0, 10));
    expect(pickWinners(seed, shuffled, 7)).toEqual(pickWinners(seed, ids, 7));
  });

  it('another seed picks other winners', () => {
    expect(pickWinners('b'.repeat(64), ids, 5)).not.toEqual(pickWinners(seed, ids, 5));
  });

  it('everyone wins when there are fewer tickets than prizes; nobody when there are none', () => {
    expect(pickWinners(seed, ids.slice(0, 3), 10).sort()).toEqual(ids.slice(0, 3));
    expect(pickWinners(seed, [], 3)).toEqual([]);
    expect(pickWinners(seed, ids, 0)).toEqual([]);
  });

  it('a winner set is a prefix of a larger winner set (ranking is stable)', () => {
    expect(pickWinners(seed, ids, 10).slice(0, 4)).toEqual(pickWinners(seed, ids, 4));
  });

  it('sorts ids by code unit', () => {
    expect(sortTicketIds(['tkt_b', 'tkt_B', 'tkt_a', 'tkt_b'])).toEqual(['tkt_B', 'tkt_a', 'tkt_b']);
  });
});
