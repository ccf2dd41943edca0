// Payout: REQUESTED claims are paid through a provider, in batches. The batch takes its claims with
// FOR UPDATE SKIP LOCKED, so any number of workers never take one claim twice, and marks them
// SUCCEEDED in the transaction that paid them (the ledger provider writes its transfers in that
// same transaction), so a crash at any instant, SIGKILL included, either did both or neither.
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { MAX_PAYOUT_ATTEMPTS, retryDelayMs } from '../domain/claims.ts';
import { recordClaimEvents } from './store.ts';

export interface PayableClaim {
  id: string;
  budgetId: string;
  assetId: string;
  accountId: string;
  /** Base units, a decimal string. */
  amount: string;
}

export type PayoutOutcome = { claimId: string; ok: true; reference: string } | { claimId: string; ok: false; error: string };

/**
 * Pays claims. Called inside the worker's transaction with the claims locked; must be idempotent by
 * claim id (paying a claim it has already paid is a success that pays nothing more). A provider
 * outside the database (an on-chain transfer) uses the claim id as its idempotency key. An outcome
 * with ok: false fails that claim (retried with backoff); throwing fails the batch, which is then
 * retried one claim per transaction so that one bad claim cannot hold up the others.
 */
export interface PayoutProvider {
  readonly name: string;
  pay(trx: Transaction<DB>, claims: readonly PayableClaim[], now: Date): Promise<PayoutOutcome[]>;
}

export interface PayoutOptions {
  provider: PayoutProvider;
  batchSize: number;
  /** Testing aid: hold each batch's transaction open this long before committing. */
  holdMs?: number;
}

async function payLocked(trx: Transaction<DB>, now: Date, options: PayoutOptions, onlyId?: string): Promise<number> {
  let query = trx
    .selectFrom('claims')
    .select(['id', 'budget_id', 'asset_id', 'account_id', sql<string>`amount::text`.as('amount'), 'attempts'])
    .where('status', '=', 'REQUESTED')
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(options.batchSize);
  if (onlyId !== undefined) query = query.where('id', '=', onlyId);
  const claims = await query.forUpdate().skipLocked().execute();
  if (claims.length === 0) return 0;
  const payable = claims.filter((c) => c.account_id !== null);
  const outcomes = new Map<string, PayoutOutcome>();
  for (const c of claims) if (c.account_id === null) outcomes.set(c.id, { claimId: c.id, ok: false, error: 'the claim has no account' });
  const paid = await options.provider.pay(
    trx,
    payable.map((c) => ({ id: c.id, budgetId: c.budget_id, assetId: c.asset_id, accountId: c.account_id as string, amount: c.amount })),
    now,
  );
  for (const outcome of paid) outcomes.set(outcome.claimId, outcome);
  const succeeded = claims.filter((c) => outcomes.get(c.id)?.ok === true).map((c) => c.id);
  if (succeeded.length > 0) {
    await trx.updateTable('claims').set({ status: 'SUCCEEDED', reason: null, next_attempt_at: null, updated_at: now }).where('id', 'in', succeeded).execute();
    await recordClaimEvents(trx, succeeded, { from: 'REQUESTED', to: 'SUCCEEDED', reason: options.provider.name }, now);
  }
  for (const claim of claims) {
    const outcome = outcomes.get(claim.id) ?? { claimId: claim.id, ok: false, error: 'the provider gave no outcome' };
    if (outcome.ok) continue;
    await failClaim(trx, claim, `${options.provider.name}: ${outcome.error}`, now);
  }
  if (options.holdMs) await new Promise((resolve) => setTimeout(resolve, options.holdMs));
  return claims.length;
}

/** REQUESTED -> FAILED with attempts + 1; retried after a backoff while attempts < MAX_PAYOUT_ATTEMPTS. */
async function failClaim(trx: Transaction<DB>, claim: { id: string; attempts: number }, error: string, now: Date): Promise<void> {
  const attempts = claim.attempts + 1;
  const reason = error.slice(0, 200);
  await trx
    .updateTable('claims')
    .set({
      status: 'FAILED',
      attempts,
      reason,
      next_attempt_at: attempts < MAX_PAYOUT_ATTEMPTS ? new Date(now.getTime() + retryDelayMs(attempts)) : null,
      updated_at: now,
    })
    .where('id', '=', claim.id)
    .execute();
  await recordClaimEvents(trx, [claim.id], { from: 'REQUESTED', to: 'FAILED', reason }, now);
}

/**
 * Pays up to batchSize due REQUESTED claims in one transaction; answers how many it handled. When
 * the batch throws, each of its claims is tried alone, and a claim that still throws is FAILED.
 */
export async function runPayoutBatch(db: Kysely<DB>, clock: Clock, options: PayoutOptions): Promise<number> {
  const now = clock.now();
  try {
    return await db.transaction().execute((trx) => payLocked(trx, now, options));
  } catch {
    const due = await db
      .selectFrom('claims')
      .select(['id', 'attempts'])
      .where('status', '=', 'REQUESTED')
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(options.batchSize)
      .execute();
    for (const claim of due) {
      try {
        await db.transaction().execute((trx) => payLocked(trx, now, options, claim.id));
      } catch (error) {
        await db.transaction().execute(async (trx) => {
          const locked = await trx.selectFrom('claims').select(['id', 'attempts', 'status']).where('id', '=', claim.id).forUpdate().executeTakeFirst();
          if (locked?.status === 'REQUESTED') await failClaim(trx, locked, `${options.provider.name}: ${(error as Error).message}`, now);
        });
      }
    }
    return due.length;
  }
}

/** FAILED claims whose backoff has passed go back to REQUESTED (bounded by MAX_PAYOUT_ATTEMPTS). */
export async function requeueFailedClaims(db: Kysely<DB>, clock: Clock, limit: number): Promise<number> {
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('claims')
      .select('id')
      .where('status', '=', 'FAILED')
      .where('attempts', '<', MAX_PAYOUT_ATTEMPTS)
      .where('next_attempt_at', '<=', now)
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (due.length === 0) return 0;
    const ids = due.map((c) => c.id);
    await trx.updateTable('claims').set({ status: 'REQUESTED', next_attempt_at: now, updated_at: now }).where('id', 'in', ids).execute();
    await recordClaimEvents(trx, ids, { from: 'FAILED', to: 'REQUESTED', reason: 'retry after backoff' }, now);
    return ids.length;
  });
}
