import { describe, expect, it } from 'vitest';
import { canMove, CLAIM_STATUSES, MAX_PAYOUT_ATTEMPTS, retryDelayMs } from './claims.ts';
import type { ClaimStatus } from './claims.ts';

describe('claim state machine', () => {
  const allowed = new Set([
    'RESERVED>REQUESTED',
    'RESERVED>REJECTED',
    'REQUESTED>SUCCEEDED',
    'REQUESTED>FAILED',
    'FAILED>REQUESTED',
  ]);
  const pairs = CLAIM_STATUSES.flatMap((from) =>
    CLAIM_STATUSES.map((to) => [from, to] as [ClaimStatus, ClaimStatus]),
  );

  it.each(pairs)('%s -> %s', (from, to) => {
    expect(canMove(from, to)).toBe(allowed.has(`${from}>${to}`));
  });

  it('final states stay final', () => {
    for (const to of CLAIM_STATUSES) {
      expect(canMove('SUCCEEDED', to)).toBe(false);
      expect(canMove('REJECTED', to)).toBe(false);
    }
  });

  it('backs off exponentially, capped', () => {
    expect(retryDelayMs(1)).toBe(2000);
    expect(retryDelayMs(3)).toBe(8000);
    expect(retryDelayMs(30)).toBe(600_000);
    expect(MAX_PAYOUT_ATTEMPTS).toBeGreaterThan(1);
  });
});
