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
  // Idempotent by claim id: a claim that already has its transfer is skipped.
  const transfers = await trx
    .insertInto('ledger_transfers')
    .values(claims.map((c) => ({ id: newId('trf'), claim_id: c.id, asset_id: c.assetId, amount: c.amount, created_at: now })))
    .onConflict((oc) => oc.column('claim_id').doNothing())
    .returning(['id', 'claim_id'])
    .execute();
  if (transfers.length === 0) return;
  const byClaim = new Map(claims.map((c) => [c.id, c]));
  await trx
    .insertInto('ledger_entries')
    .values(
      transfers.flatMap((t) => {
        const c = byClaim.get(t.claim_id) as PayableClaim;
        return [
          { transfer_id: t.id, account: `budget:${c.budgetId}`, asset_id: c.assetId, amount: sql<string>`-${c.amount}::numeric` },
          { transfer_id: t.id, account: `user:${c.accountId}`, asset_id: c.assetId, amount: c.amount },
        ];
      }),
    )
    .execute();
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

/** Pays up to `limit` due REQUESTED claims in one transaction; answers how many it handled. */
export async function runPayoutBatch(db: Kysely<DB>, clock: Clock, provider: PayoutProvider = ledgerProvider, limit = 200): Promise<number> {
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
      await trx.updateTable('claims').set({ status: 'SUCCEEDED', reason: null, updated_at: now }).where('id', 'in', succeeded).execute();
      await trx.insertInto('claim_events').values(succeeded.map((id) => ({ claim_id: id, from_status: 'REQUESTED', to_status: 'SUCCEEDED', reason: provider.name, at: now }))).execute();
    }
    return claims.length;
  });
}

/** Runs due draws and payout batches until stopped: at once while there is work, else every `idleMs`. */
export function startPayoutWorker(
  db: Kysely<DB>,
  clock: Clock,
  options: { idleMs?: number; log?: (err: unknown) => void; provider?: PayoutProvider; reservationTtlSeconds?: number } = {},
) {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
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
      await task(() => requestClaimsOfLinkedUsers(db, clock));
      await task(() => runDueDraws(db, clock));
      await task(() => expireReservations(db, clock, options.reservationTtlSeconds ?? DEFAULT_RESERVATION_TTL_SECONDS));
      await task(async () => {
        handled = await runPayoutBatch(db, clock, options.provider);
      });
      if (!stopped) timer = setTimeout(tick, handled > 0 ? 0 : (options.idleMs ?? 500));
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
