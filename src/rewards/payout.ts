// Payout: REQUESTED claims are paid through a provider. The default provider is a double-entry
// ledger in the database: one transfer per claim (unique by claim id), two entries summing to
// zero, balances derived from the entries. The worker takes claims with FOR UPDATE SKIP LOCKED,
// so any number of workers never pay one claim twice, and pays inside the same transaction that
// marks the claim SUCCEEDED, so a crash at any instant either did both or neither.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { MAX_PAYOUT_ATTEMPTS, retryDelayMs } from '../domain/claims.ts';
import { formatAmount } from '../domain/amounts.ts';
import { requestClaimsOfLinkedUsers } from './link-sweep.ts';
import { newId } from '../domain/ids.ts';
import { runDueDraws } from './draws.ts';
import { expireReservations } from './claims.ts';
import { prepared } from '../db/connection.ts';

/** How long a claim waits in RESERVED for its user to link before it expires (30 days). */
export const DEFAULT_RESERVATION_TTL_SECONDS = 30 * 24 * 3600;

export interface PayableClaim {
  id: string;
  budgetId: string;
  assetId: string;
  accountId: string;
  amount: string;
}

/** Pays one claim inside the worker's transaction; throws when the payment failed. */
export interface PayoutProvider {
  readonly name: string;
  pay(trx: Transaction<DB>, claim: PayableClaim, now: Date): Promise<void>;
  /** Optional: pays many claims at once, all or nothing (the ledger does it in three statements). */
  payBatch?(trx: Transaction<DB>, claims: PayableClaim[], now: Date): Promise<void>;
}

async function ledgerPay(trx: Transaction<DB>, claims: PayableClaim[], now: Date): Promise<void> {
  if (claims.length === 0) return;
  // One statement for the whole batch: the transfers (idempotent by claim id: a claim that already
  // has its transfer is skipped) and, for each new transfer, its two entries summing to zero.
  const column = <T>(pick: (c: PayableClaim) => T) => claims.map(pick);
  const query = sql`
    WITH input AS (
      SELECT * FROM unnest(${column(() => newId('trf'))}::text[], ${column((c) => c.id)}::text[], ${column((c) => c.assetId)}::text[],
                           ${column((c) => c.amount)}::numeric[], ${column((c) => `budget:${c.budgetId}`)}::text[],
                           ${column((c) => `user:${c.accountId}`)}::text[])
             AS i(transfer_id, claim_id, asset_id, amount, budget_account, user_account)
    ), transfer AS (
      INSERT INTO ledger_transfers (id, claim_id, asset_id, amount, created_at)
      SELECT transfer_id, claim_id, asset_id, amount, ${now}::timestamptz FROM input
      ON CONFLICT (claim_id) DO NOTHING
      RETURNING id
    )
    INSERT INTO ledger_entries (transfer_id, account, asset_id, amount)
    SELECT i.transfer_id, e.account, i.asset_id, e.amount
    FROM input i JOIN transfer t ON t.id = i.transfer_id
    CROSS JOIN LATERAL (VALUES (i.budget_account, -i.amount), (i.user_account, i.amount)) AS e(account, amount)`;
  await trx.executeQuery(prepared('ledger_pay', query.compile(trx)));
}

export const ledgerProvider: PayoutProvider = {
  name: 'ledger',
  pay: (trx, claim, now) => ledgerPay(trx, [claim], now),
  payBatch: ledgerPay,
};

/** Moves FAILED claims whose backoff has passed back to REQUESTED (bounded by MAX_PAYOUT_ATTEMPTS). */
async function requeueFailed(db: Kysely<DB>, now: Date): Promise<void> {
  const rows = await db
    .updateTable('claims')
    .set({ status: 'REQUESTED', updated_at: now })
    .where('status', '=', 'FAILED')
    .where('attempts', '<', MAX_PAYOUT_ATTEMPTS)
    .where('next_attempt_at', '<=', now)
    .returning('id')
    .execute();
  if (rows.length > 0) {
    await db.insertInto('claim_events').values(rows.map((r) => ({ claim_id: r.id, from_status: 'FAILED', to_status: 'REQUESTED', reason: 'retry', at: now }))).execute();
  }
}

/** Claims paid in one transaction by default: large batches amortise the round trips and the commit. */
export const PAYOUT_BATCH_SIZE = 1000;

/** Pays up to `limit` due REQUESTED claims in one transaction; answers how many it handled. */
export async function runPayoutBatch(db: Kysely<DB>, clock: Clock, provider: PayoutProvider = ledgerProvider, limit = PAYOUT_BATCH_SIZE): Promise<number> {
  const now = clock.now();
  await requeueFailed(db, now);
  return db.transaction().execute(async (trx) => {
    const claims = await trx
      .selectFrom('claims')
      .select(['id', 'budget_id', 'asset_id', 'account_id', 'amount', 'attempts'])
      .where('status', '=', 'REQUESTED')
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    const succeeded: string[] = [];
    const fail = async (claim: (typeof claims)[number], error: unknown) => {
      const attempts = claim.attempts + 1;
      const message = error instanceof Error ? error.message : String(error);
      await trx
        .updateTable('claims')
        .set({ status: 'FAILED', attempts, reason: message.slice(0, 200), next_attempt_at: new Date(now.getTime() + retryDelayMs(attempts)), updated_at: now })
        .where('id', '=', claim.id)
        .execute();
      await trx.insertInto('claim_events').values({ claim_id: claim.id, from_status: 'REQUESTED', to_status: 'FAILED', reason: `${provider.name}: ${message}`.slice(0, 200), at: now }).execute();
    };
    const payable: PayableClaim[] = [];
    for (const claim of claims) {
      if (claim.account_id === null) await fail(claim, new Error('claim has no account'));
      else payable.push({ id: claim.id, budgetId: claim.budget_id, assetId: claim.asset_id, accountId: claim.account_id, amount: claim.amount });
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
    if (succeeded.length > 0) {
      const query = sql`
        WITH done AS (
          UPDATE claims SET status = 'SUCCEEDED', reason = NULL, updated_at = ${now}::timestamptz
          WHERE id = ANY(${succeeded}::text[])
          RETURNING id
        )
        INSERT INTO claim_events (claim_id, from_status, to_status, reason, at)
        SELECT id, 'REQUESTED', 'SUCCEEDED', ${provider.name}, ${now}::timestamptz FROM done`;
      await trx.executeQuery(prepared('claims_succeeded', query.compile(trx)));
    }
    return claims.length;
  });
}

/**
 * Runs payout batches until stopped: back to back while there is work, else every `idleMs`. The
 * upkeep (link sweep, due draws, reservation expiry) runs before a batch at most once per `idleMs`,
 * so a backlog of payouts is not slowed by it, and an idle worker still does it every `idleMs`.
 */
export function startPayoutWorker(
  db: Kysely<DB>,
  clock: Clock,
  options: { idleMs?: number; log?: (err: unknown) => void; provider?: PayoutProvider; reservationTtlSeconds?: number; batchSize?: number } = {},
) {
  const idleMs = options.idleMs ?? 500;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let upkeepAt = -Infinity;
  const tick = () => {
    running = (async () => {
      let handled = 0;
      // Each task on its own: a draw or a sweep that keeps failing must not stop the payouts.
      const task = async (run: () => Promise<unknown>) => {
        try {
          await run();
        } catch (error) {
          options.log?.(error);
        }
      };
      if (performance.now() - upkeepAt >= idleMs) {
        upkeepAt = performance.now();
        await task(() => requestClaimsOfLinkedUsers(db, clock));
        await task(() => runDueDraws(db, clock));
        await task(() => expireReservations(db, clock, options.reservationTtlSeconds ?? DEFAULT_RESERVATION_TTL_SECONDS));
      }
      await task(async () => {
        handled = await runPayoutBatch(db, clock, options.provider, options.batchSize);
      });
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

/** Balances of a platform account per asset, derived from the ledger. */
export async function balancesOf(db: Kysely<DB>, accountId: string) {
  const rows = await db
    .selectFrom('ledger_entries as e')
    .innerJoin('reward_assets as a', 'a.id', 'e.asset_id')
    .select(['a.id', 'a.symbol', 'a.name', 'a.decimals', sql<string>`sum(e.amount)::text`.as('balance')])
    .where('e.account', '=', `user:${accountId}`)
    .groupBy(['a.id', 'a.symbol', 'a.name', 'a.decimals'])
    .orderBy('a.symbol')
    .execute();
  return rows.map((r) => ({ assetId: r.id, symbol: r.symbol, name: r.name, decimals: r.decimals ?? 0, balance: formatAmount(r.balance, r.decimals ?? 0) }));
}
