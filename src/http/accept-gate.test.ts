import { describe, expect, it } from 'vitest';
import { nextAcceptBound } from './accept-gate.ts';

const gate = { maxConnections: 1024, lagLimitMs: 50 };

describe('the accept gate', () => {
  it('keeps the configured bound while the loop keeps time', () => {
    expect(nextAcceptBound(gate, 1024, 3, 900)).toBe(1024);
    expect(nextAcceptBound({ maxConnections: 0, lagLimitMs: 50 }, 0, 3, 900)).toBe(0);
  });

  it('shrinks below the connections open while the loop is late, never to 0', () => {
    expect(nextAcceptBound(gate, 1024, 120, 400)).toBe(300);
    expect(nextAcceptBound(gate, 300, 120, 400)).toBe(225);
    expect(nextAcceptBound(gate, 2, 120, 0)).toBe(1);
    expect(nextAcceptBound({ maxConnections: 0, lagLimitMs: 50 }, 0, 120, 40)).toBe(30);
  });

  it('grows back to the configured bound once the loop keeps time again, step by step', () => {
    const steps = [1];
    while (steps.at(-1) !== 1024) steps.push(nextAcceptBound(gate, steps.at(-1) as number, 2, 10));
    expect(steps.length).toBeGreaterThan(10);
    expect(steps.every((bound, i) => i === 0 || bound > (steps[i - 1] as number))).toBe(true);
    // With no configured bound it grows, and the bound is lifted (0) once it is large.
    expect(nextAcceptBound({ maxConnections: 0, lagLimitMs: 50 }, 30, 2, 10)).toBe(34);
    expect(nextAcceptBound({ maxConnections: 0, lagLimitMs: 50 }, 60_000, 2, 10)).toBe(0);
  });

  it('does nothing with the gate off', () => {
    expect(nextAcceptBound({ maxConnections: 1024, lagLimitMs: 0 }, 5, 5000, 900)).toBe(1024);
  });
});
