// Claims of chain assets paid through the outbox (docs/payout.md, "Wiring"): the payout worker runs
// one round per loop; each claim moves only through the rewards module's own transition functions.
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { markClaimFailed, markClaimsSucceeded, reopenClaimsAfterReorg } from '../claims/payout-outcomes.ts';
import { REORG_REOPEN_REASON } from './payout-types.ts';
import { MAX_PAYOUT_ATTEMPTS } from '../domain/claims.ts';
import { createChainPayout } from './outbox.ts';
import type { ChainObserver, ChainPayoutOptions, ClaimOutcome } from './outbox.ts';
import { traceHooks } from '../telemetry/hooks.ts';
import { resolveWalletKek } from './signer.ts';
import { dueChainClaims, lockRequestedClaims, requestedClaimsConfirmedOnChain } from './claim-store.ts';
import { claimsWithLivePayout } from './payout-store.ts';
import type { DueChainClaim } from './claim-store.ts';

/** How a claim's history names the chain payout. */
export const CHAIN_PROVIDER_NAME = 'chain';

export interface ClaimChainPayoutOptions extends Omit<
  ChainPayoutOptions,
  'onSettled' | 'onReopened' | 'db' | 'clock'
> {
  db: Kysely<DB>;
  clock: Clock;
  /** Claims handed to the outbox per round. */
  claimBatchSize?: number;
}

export type ClaimChainPayout = ReturnType<typeof createClaimChainPayout>;

/**
 * The chain side of the payout worker. `run()` catches up claims whose payout is already confirmed,
 * hands due claims (users with a bound wallet) to `payClaims`, fails those the chain cannot pay now
 * (bounded retry, as for the ledger), and runs one outbox cycle whose settlement moves each claim
 * REQUESTED -> SUCCEEDED (with the network's confirmations) or -> FAILED (with the chain's reason)
 * in the transaction that settles its payout. Answers how many claims it handled.
 */
export function createClaimChainPayout(options: ClaimChainPayoutOptions) {
  const { db, clock } = options;
  const limit = options.claimBatchSize ?? 1000;

  async function settle(
    trx: Parameters<NonNullable<ChainPayoutOptions['onSettled']>>[0],
    outcomes: ClaimOutcome[],
  ) {
    const now = clock.now();
    await markClaimsSucceeded(
      trx,
      outcomes.filter((o) => o.status === 'SUCCEEDED').map((o) => o.claimId),
      CHAIN_PROVIDER_NAME,
      now,
    );
    const failed = outcomes.filter((o) => o.status === 'FAILED');
    const attempts = await lockRequestedClaims(
      trx,
      failed.map((o) => o.claimId),
    );
    for (const outcome of failed) {
      const tries = attempts.get(outcome.claimId);
      if (tries === undefined) continue;
      const reason = `${outcome.reason ?? 'reverted on chain'} (tx ${outcome.txHash ?? 'unknown'})`;
      // A transfer mined with another amount (or none) is never retried by itself: the user may hold
      // part of it, so its attempts are used up and an operator decides (docs/payout.md).
      const used = outcome.final ? Math.max(tries, MAX_PAYOUT_ATTEMPTS - 1) : tries;
      await markClaimFailed(trx, { id: outcome.claimId, attempts: used }, reason, CHAIN_PROVIDER_NAME, now);
    }
  }

  const outbox = createChainPayout({
    ...options,
    onSettled: settle,
    onReopened: async (trx, ids, at) =>
      void (await reopenClaimsAfterReorg(trx, ids, REORG_REOPEN_REASON, at)),
  });

  async function run(): Promise<number> {
    const confirmed = await requestedClaimsConfirmedOnChain(db, limit);
    if (confirmed.length > 0)
      await db
        .transaction()
        .execute((trx) => markClaimsSucceeded(trx, confirmed, CHAIN_PROVIDER_NAME, clock.now()));

    const due = await dueChainClaims(db, clock.now(), limit);
    let handled = confirmed.length;
    // Signing and broadcasting run in a span linked to the requests that created the claims.
    if (due.length > 0)
      handled += await traceHooks().inLinkedSpan(
        'chain payout',
        due.map((c) => c.trace_context),
        () => payDue(due),
      );
    handled += (await outbox.runCycle()).length;
    return handled;
  }

  /** Hands due claims to the outbox (signed, committed, broadcast); fails those it cannot pay now. */
  async function payDue(due: DueChainClaim[]): Promise<number> {
    const result = await outbox.payClaims(
      due.map((c) => ({ claimId: c.id, budgetId: c.budget_id, accountId: c.account_id, amount: c.amount })),
    );
    // A claim another worker signed meanwhile is not failed here: its payout decides.
    const signedElsewhere = await claimsWithLivePayout(
      db,
      result.failed.map((f) => f.claimId),
    );
    const failures = result.failed.filter((f) => !signedElsewhere.has(f.claimId));
    if (failures.length > 0) {
      const byId = new Map(due.map((c) => [c.id, c]));
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        for (const failure of failures) {
          const claim = byId.get(failure.claimId);
          if (claim)
            await markClaimFailed(trx, claim, failure.reason ?? 'not payable', CHAIN_PROVIDER_NAME, now);
        }
      });
    }
    return due.length - result.waitingForWallet.length - result.waitingForNetwork.length;
  }

  return { run, outbox };
}

/**
 * The chain payout of a worker process (src/main.ts, npm run worker): the key-encryption key is
 * resolved at the first signature, so a service that never pays on chain never needs one.
 */
export function chainPayoutForWorker(
  db: Kysely<DB>,
  clock: Clock,
  config: Pick<Config, 'walletKek' | 'walletKekPrevious' | 'nodeEnv' | 'dataDir'>,
  warn: (message: string) => void,
  observe?: ChainObserver,
  info: (message: string) => void = warn,
): ClaimChainPayout {
  let kek: Buffer | undefined;
  return createClaimChainPayout({
    db,
    clock,
    kek: () => (kek ??= resolveWalletKek(config, warn)),
    previousKeks: config.walletKekPrevious,
    log: { warn, info },
    ...(observe && { observe }),
  });
}
