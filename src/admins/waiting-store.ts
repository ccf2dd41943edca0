// The SQL of the rewards that wait (admins/waiting-rewards.ts): deferred rewards of unlinked users
// and REQUESTED chain claims of accounts without a wallet on the chain, filtered, in one listing.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

export type WaitingKind = 'UNLINKED' | 'NO_WALLET';

export interface WaitingFilter {
  kind?: WaitingKind | undefined;
  partnerId?: string | undefined;
  partnerUid?: string | undefined;
  accountId?: string | undefined;
}

export interface WaitingRow {
  kind: WaitingKind;
  claim_id: string | null;
  reward: 'CLAIM' | 'TICKET';
  partner_id: string;
  partner_uid: string;
  account_id: string | null;
  source: 'MISSION' | 'GROUP' | 'DRAW' | 'STREAK';
  source_id: string;
  mission_key: string | null;
  period_key: string;
  budget_id: string;
  amount: string | null;
  symbol: string;
  decimals: number;
  since: Date | string;
}

function unlinked(filter: WaitingFilter) {
  return sql`
    SELECT 'UNLINKED' AS kind, NULL AS claim_id, d.kind AS reward, d.partner_id, d.partner_uid,
           NULL AS account_id, d.source, d.source_id, m.mission_key, d.period_key, d.budget_id,
           d.amount::text AS amount, a.symbol, a.decimals, d.completed_at AS since
    FROM deferred_rewards d
    JOIN budgets b ON b.id = d.budget_id
    JOIN reward_assets a ON a.id = b.asset_id
    LEFT JOIN missions m ON m.id = d.source_id AND d.source = 'MISSION'
    WHERE true
      ${filter.partnerId ? sql`AND d.partner_id = ${filter.partnerId}` : sql``}
      ${filter.partnerUid ? sql`AND d.partner_uid = ${filter.partnerUid}` : sql``}
      ${filter.accountId ? sql`AND false` : sql``}`;
}

function noWallet(filter: WaitingFilter) {
  return sql`
    SELECT 'NO_WALLET' AS kind, c.id AS claim_id, 'CLAIM' AS reward, c.partner_id, c.partner_uid,
           c.account_id, c.source, c.source_id, m.mission_key, c.period_key, c.budget_id,
           c.amount::text AS amount, a.symbol, a.decimals, c.created_at AS since
    FROM claims c
    JOIN chain_assets ca ON ca.asset_id = c.asset_id
    JOIN chain_networks n ON n.id = ca.network_id
    JOIN reward_assets a ON a.id = c.asset_id
    LEFT JOIN missions m ON m.id = c.source_id AND c.source = 'MISSION'
    WHERE c.status = 'REQUESTED' AND c.account_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM user_wallets uw WHERE uw.account_id = c.account_id AND uw.chain_id = n.chain_id)
      ${filter.partnerId ? sql`AND c.partner_id = ${filter.partnerId}` : sql``}
      ${filter.partnerUid ? sql`AND c.partner_uid = ${filter.partnerUid}` : sql``}
      ${filter.accountId ? sql`AND c.account_id = ${filter.accountId}` : sql``}`;
}

function selected(filter: WaitingFilter) {
  if (filter.kind === 'UNLINKED') return unlinked(filter);
  if (filter.kind === 'NO_WALLET') return noWallet(filter);
  return sql`${unlinked(filter)} UNION ALL ${noWallet(filter)}`;
}

/** One page of the waiting rewards matching `filter` (newest first), and how many of each kind match. */
export async function waitingRewardRows(
  db: Kysely<DB>,
  filter: WaitingFilter,
  limit: number,
  offset: number,
) {
  const { rows } = await sql<WaitingRow>`
    SELECT * FROM (${selected(filter)}) w
    ORDER BY since DESC, partner_uid, source_id, period_key
    LIMIT ${limit} OFFSET ${offset}`.execute(db);
  const counted = await sql<{ kind: WaitingKind; n: number }>`
    SELECT kind, count(*)::int AS n FROM (${selected(filter)}) w GROUP BY kind`.execute(db);
  return { rows, counted: counted.rows };
}
