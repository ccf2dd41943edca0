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

/**
 * What a budget owes: the amounts of its claims promised and not yet paid. The one definition, for
 * the budget's `reserved` in the API, the chain wallet's coverage and the mrs_budget_owed gauge
 * (src/budgets/owed-store.ts has it as SQL; it lives here because src/metrics may not import a capability).
 */
export const OWED_CLAIM_STATUSES = [
  'RESERVED',
  'REQUESTED',
  'FAILED',
] as const satisfies readonly ClaimStatus[];

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

/**
 * The one move outside the table, SUCCEEDED -> REQUESTED: only the chain payout makes it, when a reorg
 * deeper than the confirmations removed the claim's transfer (docs/payout.md). No operator can (canMove
 * refuses it), so a ledger claim is never re-opened; the claim's one payout is re-sent as the same
 * signed transaction (same nonce), so it can only be paid once.
 */
export const REORG_REOPEN = { from: 'SUCCEEDED', to: 'REQUESTED' } as const;

/** Payout attempts before a FAILED claim stays FAILED for an operator to look at. */
export const MAX_PAYOUT_ATTEMPTS = 5;

/** Delay before retry number `attempt` (1-based): 2^attempt seconds, capped at 10 minutes. */
export function retryDelayMs(attempt: number): number {
  return Math.min(2 ** attempt * 1000, 10 * 60 * 1000);
}
