// The claim lifecycle (DESIGN.md 4): RESERVED -> REQUESTED -> SUCCEEDED | FAILED,
// FAILED -> REQUESTED (bounded retry with backoff), RESERVED -> REJECTED (budget released).
// A claim born without budget is REJECTED from the start.

export type ClaimStatus = 'RESERVED' | 'REQUESTED' | 'REJECTED' | 'SUCCEEDED' | 'FAILED';
export const CLAIM_STATUSES: readonly ClaimStatus[] = [
  'RESERVED',
  'REQUESTED',
  'REJECTED',
  'SUCCEEDED',
  'FAILED',
];

const MOVES: Record<ClaimStatus, readonly ClaimStatus[]> = {
  RESERVED: ['REQUESTED', 'REJECTED'],
  REQUESTED: ['SUCCEEDED', 'FAILED'],
  FAILED: ['REQUESTED'],
  SUCCEEDED: [],
  REJECTED: [],
};

export function canMove(from: ClaimStatus, to: ClaimStatus): boolean {
  return MOVES[from].includes(to);
}

/** Payout attempts before a FAILED claim stays FAILED for an operator to look at. */
export const MAX_PAYOUT_ATTEMPTS = 5;

/** Delay before retry number `attempt` (1-based): 2^attempt seconds, capped at 10 minutes. */
export function retryDelayMs(attempt: number): number {
  return Math.min(2 ** attempt * 1000, 10 * 60 * 1000);
}
