import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { commitmentOf, drawWinners, newDrawSeed } from './draw.ts';

const tickets = Array.from({ length: 50 }, (_, i) => `tkt_${i}`);

describe('lucky draw', () => {
  it('commits to the seed with SHA-256', () => {
    const seed = newDrawSeed();
    expect(seed).toMatch(/^[0-9a-f]{64}$/);
    expect(commitmentOf(seed)).toBe(createHash('sha256').update(seed).digest('hex'));
  });

  it('picks the same winners from the same seed whatever the order of the tickets', () => {
    const seed = 'a'.repeat(64);
    const winners = drawWinners(seed, tickets, 5);
    expect(winners).toHaveLength(5);
    expect(new Set(winners).size).toBe(5);
    expect(drawWinners(seed, [...tickets].reverse(), 5)).toEqual(winners);
    // The smallest scores win.
    const score = (id: string) => createHash('sha256').update(`${seed}:${id}`).digest('hex');
    const worstWinner = winners.map(score).sort().at(-1) as string;
    for (const loser of tickets.filter((t) => !winners.includes(t)))
      expect(score(loser) > worstWinner).toBe(true);
  });

  it('another seed gives other winners; more winners than tickets gives every ticket', () => {
    expect(drawWinners('b'.repeat(64), tickets, 5)).not.toEqual(drawWinners('c'.repeat(64), tickets, 5));
    expect(drawWinners('d', tickets.slice(0, 3), 10).sort()).toEqual(tickets.slice(0, 3).sort());
    expect(drawWinners('d', [], 3)).toEqual([]);
  });
});
