// The chain payout outbox (docs/payout.md): claims are signed into transactions with the wallet's
// next nonces and stored in one database transaction, broadcast only after that commit, confirmed
// from receipts, re-broadcast when dropped and replaced (same nonce, higher fee) when stuck.
import { groupBy } from '../domain/group-by.ts';
import { createPayoutContext } from './payout-context.ts';
import { broadcastDue } from './payout-broadcast.ts';
import { confirm } from './payout-confirm.ts';
import { replace } from './payout-replace.ts';
import { signForBudget } from './payout-sign.ts';
import type { ChainClaim, ChainPayoutOptions, ClaimOutcome, PayClaimsResult } from './payout-types.ts';

// The shared types stay importable from here, where the payout's users have always found them.
export * from './payout-types.ts';

export type ChainPayout = ReturnType<typeof createChainPayout>;

/**
 * The chain payout over its four steps (sign, broadcast, confirm, replace; docs/payout.md), each in
 * its own module over the payout's explicit state (schema.ts PayoutStatus). Every network and every
 * wallet goes on by itself: one whose node does not answer waits with a backoff while the others
 * are paid.
 */
export function createChainPayout(options: ChainPayoutOptions) {
  const ctx = createPayoutContext(options.db, options);

  /**
   * Hands claims to the chain: signs and stores each claim's transfer (idempotent by claim id: a
   * claim already in the outbox is not signed again), then broadcasts what is due.
   */
  async function payClaims(claims: ChainClaim[]): Promise<PayClaimsResult> {
    const result: PayClaimsResult = { signed: [], waitingForWallet: [], failed: [], waitingForNetwork: [] };
    const byBudget = groupBy(claims, (claim) => claim.budgetId);
    // Budgets in id order, so two workers lock wallets' nonce rows in one order.
    for (const budgetId of [...byBudget.keys()].sort())
      await signForBudget(ctx, budgetId, byBudget.get(budgetId) ?? [], result);
    await options.holdAt?.('signed');
    await broadcastDue(ctx);
    return result;
  }

  /** Reads receipts and settles what is mined; replaces what is stuck. */
  async function confirmAndReplace(): Promise<ClaimOutcome[]> {
    const { outcomes, stuck } = await confirm(ctx);
    for (const payout of stuck) await replace(ctx, payout.id, payout.network_id);
    return outcomes;
  }

  /** One round of upkeep: send what is due, settle what is mined. */
  async function runCycle(): Promise<ClaimOutcome[]> {
    await broadcastDue(ctx);
    const outcomes = await confirmAndReplace();
    await broadcastDue(ctx);
    return outcomes;
  }

  return {
    payClaims,
    broadcastDue: () => broadcastDue(ctx),
    confirm: confirmAndReplace,
    runCycle,
    /** Networks this process now sees as unreachable (readiness, tests). */
    unreachableNetworks: () => ctx.health.unreachable(),
  };
}
