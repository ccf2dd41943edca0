// The payout capability's SQL: the ledger's transfers and entries, the balances derived from them,
// the payout worker's batch of due claims, and the link sweep's reads. Each function runs one
// statement and returns rows; the callers (ledger.ts, worker.ts, link-sweep.ts) hold the order and
// the transactions.
import { sql } from 'kysely';
import type { Kysely, RawBuilder, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';
import { newId } from '../domain/ids.ts';
import { MAX_PAYOUT_ATTEMPTS } from '../domain/claims.ts';
import type { DeferredRewardRow } from '../claims/deferred-rewards.ts';
import { lockPartnerByPartner } from '../db/citus.ts';

/** A claim the ledger pays (the ledger's PayableClaim). */
export interface LedgerClaim {
  id: string;
  partnerId: string;
  budgetId: string;
  assetId: string;
  accountId: string;
  amount: string;
}

/**
 * One statement for the whole batch: the transfers (idempotent by claim id: a claim that already
 * has its transfer is skipped) and, for each new transfer, its two entries summing to zero.
 */
export async function insertLedgerTransfers(
  trx: Transaction<DB>,
  claims: LedgerClaim[],
  now: Date,
): Promise<void> {
  const column = <T>(pick: (c: LedgerClaim) => T) => claims.map(pick);
  const query = sql`
    WITH input AS (
      SELECT * FROM unnest(${column(() => newId('trf'))}::text[], ${column((c) => c.id)}::text[], ${column((c) => c.partnerId)}::text[],
                           ${column((c) => c.assetId)}::text[],
                           ${column((c) => c.amount)}::numeric[], ${column((c) => `budget:${c.budgetId}`)}::text[],
                           ${column((c) => `user:${c.accountId}`)}::text[])
             AS i(transfer_id, claim_id, partner_id, asset_id, amount, budget_account, user_account)
    ), transfer AS (
      INSERT INTO ledger_transfers (id, partner_id, claim_id, asset_id, amount, created_at)
      SELECT transfer_id, partner_id, claim_id, asset_id, amount, ${now}::timestamptz FROM input
      ON CONFLICT (claim_id, partner_id) DO NOTHING
      RETURNING id
    )
    INSERT INTO ledger_entries (partner_id, transfer_id, account, asset_id, amount)
    SELECT i.partner_id, i.transfer_id, e.account, i.asset_id, e.amount
    FROM input i JOIN transfer t ON t.id = i.transfer_id
    CROSS JOIN LATERAL (VALUES (i.budget_account, -i.amount), (i.user_account, i.amount)) AS e(account, amount)`;
  await trx.executeQuery(prepared('ledger_pay', query.compile(trx)));
}

/** The ledger's balance of a platform account per asset, with the asset's symbol, name and decimals. */
export function selectAccountBalances(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('ledger_entries as e')
    .innerJoin('reward_assets as a', 'a.id', 'e.asset_id')
    .select(['a.id', 'a.symbol', 'a.name', 'a.decimals', sql<string>`sum(e.amount)::text`.as('balance')])
    .where('e.account', '=', `user:${accountId}`)
    .groupBy(['a.id', 'a.symbol', 'a.name', 'a.decimals'])
    .orderBy('a.symbol')
    .execute();
}

/** The condition of a FAILED claim whose backoff has passed (bounded by MAX_PAYOUT_ATTEMPTS). */
export function failedClaimDueForRetry(now: Date): RawBuilder<boolean> {
  return sql<boolean>`c.attempts < ${MAX_PAYOUT_ATTEMPTS}::int AND c.next_attempt_at <= ${now}::timestamptz`;
}

/**
 * Locks up to `limit` due REQUESTED claims (SKIP LOCKED), partner by partner (the partners whose
 * oldest due claim is oldest first, then each partner's oldest due first); claims of an asset on a
 * chain are paid by the chain outbox, not here. Partner by partner: on Citus claims are distributed
 * on partner_id, and a row lock must name one shard (docs/scaling.md "On Citus"); the partners'
 * list is read without a lock, so a claim another worker holds is skipped by the locked statement.
 */
export async function lockDueRequestedClaims(trx: Transaction<DB>, now: Date, limit: number) {
  // [chain payout] claims of an asset on a chain are paid by the chain outbox (options.chain), not here.
  const due = sql<boolean>`status = 'REQUESTED' AND next_attempt_at <= ${now}
    AND NOT EXISTS (SELECT 1 FROM chain_assets ca WHERE ca.asset_id = claims.asset_id)`;
  // The partners of the `limit` oldest due claims (an index range, however long the backlog).
  const partners = await sql<{ partner_id: string }>`
    SELECT partner_id FROM (SELECT partner_id, next_attempt_at FROM claims WHERE ${due} ORDER BY next_attempt_at LIMIT ${limit}) d
    GROUP BY partner_id ORDER BY min(next_attempt_at), partner_id`.execute(trx);
  return lockPartnerByPartner(
    partners.rows.map((r) => r.partner_id),
    limit,
    (partnerId, left) =>
      trx
        .selectFrom('claims')
        .select([
          'id',
          'partner_id',
          'budget_id',
          'asset_id',
          'account_id',
          'amount',
          'attempts',
          'trace_context',
        ])
        .where('partner_id', '=', partnerId)
        .where(due)
        .orderBy('next_attempt_at')
        .limit(left)
        .forUpdate()
        .skipLocked()
        .execute(),
  );
}

/** The partners with a user linked since `since`, in order. */
export async function partnersLinkedSince(db: Kysely<DB>, since: Date): Promise<string[]> {
  const { rows } = await sql<{ partner_id: string }>`
    SELECT DISTINCT partner_id FROM user_mappings WHERE created_at >= ${since} ORDER BY partner_id`.execute(
    db,
  );
  return rows.map((row) => row.partner_id);
}

/**
 * Deletes and returns up to `limit` deferred rewards of the partner's users linked since `since`
 * (FOR UPDATE SKIP LOCKED: a reward another transaction is granting is theirs), with the budget's
 * asset and stripes and the link's time.
 */
export async function takeDeferredRewardsOfLinks(
  trx: Transaction<DB>,
  partnerId: string,
  since: Date,
  limit: number,
): Promise<DeferredRewardRow[]> {
  const { rows } = await sql<DeferredRewardRow>`
      DELETE FROM deferred_rewards d USING budgets b, user_mappings m
      WHERE b.id = d.budget_id AND m.partner_id = d.partner_id AND m.partner_uid = d.partner_uid
        AND d.partner_id = ${partnerId} AND m.partner_id = ${partnerId} AND d.id IN (
        SELECT r.id FROM user_mappings m
        JOIN deferred_rewards r ON r.partner_id = m.partner_id AND r.partner_uid = m.partner_uid
        WHERE m.partner_id = ${partnerId} AND r.partner_id = ${partnerId} AND m.created_at >= ${since}
        ORDER BY r.id
        LIMIT ${limit}
        FOR UPDATE OF r SKIP LOCKED)
      RETURNING d.id, d.kind, d.partner_id, d.partner_uid, d.promotion_id, d.source, d.source_id, d.period_key, d.budget_id,
                d.amount::text AS amount, d.completed_at, b.asset_id, b.stripes, m.created_at AS linked_at`.execute(
    trx,
  );
  return rows;
}

/**
 * Locks (SKIP LOCKED) up to `limit` RESERVED claims of the partner's users linked since `since`,
 * each with the account of its link.
 */
export function lockReservedClaimsOfLinks(
  trx: Transaction<DB>,
  partnerId: string,
  since: Date,
  limit: number,
) {
  return trx
    .selectFrom('claims as c')
    .innerJoin('user_mappings as m', (join) =>
      join.onRef('m.partner_id', '=', 'c.partner_id').onRef('m.partner_uid', '=', 'c.partner_uid'),
    )
    .select(['c.id', 'm.account_id'])
    .where('c.status', '=', 'RESERVED')
    .where('c.partner_id', '=', partnerId)
    .where('m.partner_id', '=', partnerId)
    .where('m.created_at', '>=', since)
    .orderBy('c.id')
    .limit(limit)
    .forUpdate('c')
    .skipLocked()
    .execute();
}
