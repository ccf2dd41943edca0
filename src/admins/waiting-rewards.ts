// The claim that waits (#29): rewards earned but not yet on their way, for the console.
//   UNLINKED   a completion by a partner user who has not linked: a deferred reward (nothing taken
//              from a budget yet), granted when the user links, unpaid after the reservation TTL.
//   NO_WALLET  a claim of a chain asset, REQUESTED, whose account has bound no wallet on the asset's
//              chain: the payout worker skips it until the user binds one on the mission page.
// Read-only; the rules that move them live in src/claims/deferred-rewards.ts and src/chain/store.ts.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { formatAmount } from '../domain/amounts.ts';
import { waitingRewardRows } from './waiting-store.ts';
import type { WaitingFilter, WaitingKind } from './waiting-store.ts';

export type { WaitingFilter, WaitingKind } from './waiting-store.ts';

export interface WaitingReward {
  kind: WaitingKind;
  /** The claim (NO_WALLET), or null: an unlinked user's reward has no claim yet. */
  claimId: string | null;
  /** CLAIM pays an amount; TICKET is a lucky-draw ticket (unlinked users only). */
  reward: 'CLAIM' | 'TICKET';
  partnerId: string;
  partnerUid: string;
  accountId: string | null;
  source: 'MISSION' | 'GROUP' | 'DRAW' | 'STREAK';
  sourceId: string;
  missionKey: string | null;
  periodKey: string;
  budgetId: string;
  amount: string | null;
  assetSymbol: string;
  decimals: number;
  /** When it was earned (the completion; the claim's creation for NO_WALLET). */
  since: string;
  /** UNLINKED: after this instant a link no longer pays it (the reservation TTL); null for NO_WALLET. */
  unpaidAfter: string | null;
}

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

/** The waiting rewards matching `filter`, newest first, and how many of each kind match in all. */
export async function listWaitingRewards(
  db: Kysely<DB>,
  filter: WaitingFilter,
  options: { limit: number; offset: number; reservationTtlSeconds: number },
): Promise<{ items: WaitingReward[]; counts: Record<WaitingKind, number> }> {
  const { rows, counted } = await waitingRewardRows(db, filter, options.limit, options.offset);
  const counts: Record<WaitingKind, number> = { UNLINKED: 0, NO_WALLET: 0 };
  for (const row of counted) counts[row.kind] = Number(row.n);
  return {
    counts,
    items: rows.map((r) => {
      const decimals = Number(r.decimals ?? 0);
      const since = iso(r.since);
      return {
        kind: r.kind,
        claimId: r.claim_id,
        reward: r.reward,
        partnerId: r.partner_id,
        partnerUid: r.partner_uid,
        accountId: r.account_id,
        source: r.source,
        sourceId: r.source_id,
        missionKey: r.mission_key,
        periodKey: r.period_key,
        budgetId: r.budget_id,
        amount: r.amount === null ? null : formatAmount(r.amount, decimals),
        assetSymbol: r.symbol,
        decimals,
        since,
        unpaidAfter:
          r.kind === 'UNLINKED'
            ? new Date(new Date(since).getTime() + options.reservationTtlSeconds * 1000).toISOString()
            : null,
      };
    }),
  };
}
