// The payout worker: REQUESTED claims are paid through a provider (ledger.ts). It takes claims with
// FOR UPDATE SKIP LOCKED, so any number of workers never pay one claim twice, and pays inside the
// same transaction that marks the claim SUCCEEDED, so a crash at any instant did both or neither.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { ClaimsTable, DB } from '../db/schema.ts';
import { traceHooks } from '../telemetry/hooks.ts';
import type { Clock } from '../domain/clock.ts';
import { transitionClaims } from '../claims/transitions.ts';
import { markClaimFailed, markClaimsSucceeded } from '../claims/payout-outcomes.ts';
import { ledgerProvider } from './ledger.ts';
import type { PayableClaim, PayoutProvider } from './ledger.ts';
import { runPeriodicTasks } from './periodic-tasks.ts';
import { failedClaimDueForRetry, lockDueRequestedClaims } from './store.ts';

/** Moves FAILED claims whose backoff has passed back to REQUESTED (bounded by MAX_PAYOUT_ATTEMPTS). */
async function requeueFailed(db: Kysely<DB>, now: Date): Promise<void> {
  await transitionClaims(
    db,
    { where: failedClaimDueForRetry(now) },
    { from: 'FAILED', to: 'REQUESTED', why: 'retry', at: now },
  );
}

type PayableRow = Selectable<ClaimsTable>;

/** Claims paid in one transaction by default: large batches amortise the round trips and the commit. */
export const PAYOUT_BATCH_SIZE = 1000;

/** Pays up to `limit` due REQUESTED claims in one transaction; answers how many it handled. */
export async function runPayoutBatch(
  db: Kysely<DB>,
  clock: Clock,
  provider: PayoutProvider = ledgerProvider,
  limit = PAYOUT_BATCH_SIZE,
): Promise<number> {
  const now = clock.now();
  await requeueFailed(db, now);
  return db.transaction().execute(async (trx) => {
    const claims = await lockDueRequestedClaims(trx, now, limit);
    if (claims.length === 0) return 0;
    // Traced (when tracing is on) from here: the span links to the request that created each claim.
    // Idle polls, which find nothing, make no span.
    return traceHooks().inLinkedSpan(
      'payout batch',
      claims.map((c) => c.trace_context),
      () => payClaims(trx, claims, provider, now),
    );
  });
}

/** Pays the locked claims of one batch through the provider, in the batch's transaction. */
async function payClaims(
  trx: Transaction<DB>,
  claims: Array<
    Pick<PayableRow, 'id' | 'partner_id' | 'budget_id' | 'asset_id' | 'account_id' | 'amount' | 'attempts'>
  >,
  provider: PayoutProvider,
  now: Date,
): Promise<number> {
  const succeeded: string[] = [];
  const fail = (claim: (typeof claims)[number], error: unknown) =>
    markClaimFailed(trx, claim, error instanceof Error ? error.message : String(error), provider.name, now);
  const payable: PayableClaim[] = [];
  for (const claim of claims) {
    if (claim.account_id === null) await fail(claim, new Error('claim has no account'));
    else
      payable.push({
        id: claim.id,
        partnerId: claim.partner_id,
        budgetId: claim.budget_id,
        assetId: claim.asset_id,
        accountId: claim.account_id,
        amount: claim.amount,
      });
  }
  if (provider.payBatch) {
    await provider.payBatch(trx, payable, now);
    succeeded.push(...payable.map((c) => c.id));
  } else {
    for (const claim of payable) {
      try {
        await provider.pay(trx, claim, now);
        succeeded.push(claim.id);
      } catch (error) {
        await fail(claims.find((c) => c.id === claim.id) as (typeof claims)[number], error);
      }
    }
  }
  await markClaimsSucceeded(trx, succeeded, provider.name, now);
  return claims.length;
}

/**
 * Runs payout batches until stopped: back to back while there is work, else every `idleMs`. The
 * periodic tasks (link sweep, due draws, reservation expiry) run before a batch at most once per `idleMs`,
 * so a backlog of payouts is not slowed by them, and an idle worker still runs them every `idleMs`.
 */
export function startPayoutWorker(
  db: Kysely<DB>,
  clock: Clock,
  options: {
    idleMs?: number;
    log?: (err: unknown) => void;
    provider?: PayoutProvider;
    reservationTtlSeconds?: number;
    batchSize?: number;
    /** [chain payout] one round of the chain outbox (src/chain/claim-payout.ts); answers the claims it handled. */
    chain?: { run(): Promise<number> };
    /** Told of every batch (its claims, duration, and whether it finished without an error): /readyz and metrics. */
    progress?: { batchDone(outcome: { handled: number; durationMs: number; ok: boolean }): void };
  } = {},
) {
  const idleMs = options.idleMs ?? 500;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let upkeepAt = -Infinity;
  const tick = () => {
    running = (async () => {
      let handled = 0;
      let ok = true;
      // Each task on its own: a draw or a sweep that keeps failing must not stop the payouts.
      const task = async (run: () => Promise<unknown>, payout = false) => {
        try {
          await run();
        } catch (error) {
          if (payout) ok = false;
          options.log?.(error);
        }
      };
      if (performance.now() - upkeepAt >= idleMs) {
        upkeepAt = performance.now();
        await runPeriodicTasks(db, clock, task, options.reservationTtlSeconds);
      }
      const started = performance.now();
      await task(async () => {
        handled = await runPayoutBatch(db, clock, options.provider, options.batchSize);
      }, true);
      // [chain payout] the chain's claims: hand due ones to the outbox, settle what is mined.
      const chain = options.chain;
      if (chain) await task(async () => void (handled += await chain.run()), true);
      options.progress?.batchDone({ handled, durationMs: performance.now() - started, ok });
      if (!stopped) timer = setTimeout(tick, handled > 0 ? 0 : idleMs);
    })();
  };
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
