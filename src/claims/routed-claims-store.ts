// Claims written as routed statements on Citus (docs/scaling.md "The transaction's way routed
// too"): the same claims, history and webhook messages as claimsCtes (grant-store.ts) writes in one statement
// of CTEs, as statements that each name one partner and carry their rows as values, so that Citus
// routes every one to the partner's shard. There each data-modifying CTE is a sub-plan of its own,
// planned again at every execution. The batch of FIXED completions (fixed-completions-routed-store.ts)
// and the grants of the achieve transaction (grants.ts) write their claims here on Citus.
//
// The rules are claimsCtes': a claim per (user, source, period) at most once (its unique key, ON
// CONFLICT DO NOTHING), REQUESTED when its user is linked (RESERVED otherwise), born REJECTED with
// its reason when refused, ALREADY_REWARDED when the user's account already holds the same reward
// through another partnerUid of the partner; its history RESERVED then REQUESTED.
import { sql } from 'kysely';
import type { Insertable, Transaction } from 'kysely';
import type { ClaimEventsTable, DB } from '../db/schema.ts';
import type { ClaimStatus } from '../domain/claims.ts';
import { partnerHasEndpoint, webhookOutboxCte } from '../webhooks/store/outbox.ts';
import { completionRows, missionCompletedEvents } from '../webhooks/store/events.ts';
import type { CompletionMessage } from '../webhooks/store/events.ts';
import { freeStripeLock, takeFromStripe } from '../budgets/reservations.ts';
import { newClaimsHooksCte } from './grant-store.ts';
import type { Grant, RefusalReason } from './grant-store.ts';

/** A claim to write: one partner's (the caller groups them). */
export interface RoutedClaim {
  id: string;
  budgetId: string;
  assetId: string;
  partnerId: string;
  partnerUid: string;
  promotionId: string | null;
  source: Grant['source'];
  sourceId: string;
  periodKey: string;
  amount: bigint;
  /** Refused before it is written (null: its amount is reserved). */
  refused: RefusalReason | null;
  /** ISO time of the claim (created_at, and its history's). */
  at: string;
  completedBeforeLink: string | null;
  traceContext: string | null;
}

/** A claim written, as its webhook messages need it. */
export interface WrittenClaim extends RoutedClaim {
  status: ClaimStatus;
  reason: RefusalReason | null;
}

/** The accounts of those of a partner's users who are linked (partner_uid -> account). */
export async function accountsOf(
  trx: Transaction<DB>,
  partnerId: string,
  partnerUids: readonly string[],
): Promise<Map<string, string>> {
  const rows = await trx
    .selectFrom('user_mappings')
    .select(['partner_uid', 'account_id'])
    .where('partner_id', '=', partnerId)
    .where('partner_uid', '=', sql<string>`ANY(${[...new Set(partnerUids)]}::text[])`)
    .execute();
  return new Map(rows.map((row) => [row.partner_uid, row.account_id]));
}

const rewardKey = (accountId: string, c: Pick<RoutedClaim, 'source' | 'sourceId' | 'periodKey'>) =>
  `${accountId}\n${c.source}\n${c.sourceId}\n${c.periodKey}`;

/**
 * The claims (all `partnerId`'s) whose account already holds a claim not REJECTED for the same
 * source and period through another partnerUid of this partner (one reward per person, as
 * claimsCtes' `seen` decides it: docs/rewards.md); one routed statement.
 */
async function alreadyRewarded(
  trx: Transaction<DB>,
  partnerId: string,
  claims: readonly RoutedClaim[],
  accounts: ReadonlyMap<string, string>,
): Promise<Set<RoutedClaim>> {
  const linked = claims.filter((c) => accounts.has(c.partnerUid));
  if (linked.length === 0) return new Set();
  // The rewards asked about as rows joined on every column of the account's index (0018): the plan
  // probes it once a row, whatever the statistics say. Conditions on each column (= ANY) let a
  // planner whose statistics lag a crowd take the claims' unique key and read every claim of the
  // partner: 4,996 rows read for 4 found (docs/scaling.md "The transaction's way routed too").
  const asked = [
    ...new Map(linked.map((c) => [rewardKey(accounts.get(c.partnerUid) as string, c), c])).values(),
  ];
  const column = <T>(pick: (c: RoutedClaim) => T) => asked.map(pick);
  const { rows: held } = await sql<{
    account_id: string;
    partner_uid: string;
    source: Grant['source'];
    source_id: string;
    period_key: string;
  }>`
    SELECT o.account_id, o.partner_uid, o.source, o.source_id, o.period_key
    FROM unnest(${column((c) => accounts.get(c.partnerUid))}::text[], ${column((c) => c.source)}::text[],
                ${column((c) => c.sourceId)}::text[], ${column((c) => c.periodKey)}::text[])
         AS k(account_id, source, source_id, period_key)
    JOIN claims o ON o.account_id = k.account_id AND o.source = k.source AND o.source_id = k.source_id
                 AND o.period_key = k.period_key
    WHERE o.partner_id = ${partnerId} AND o.status <> 'REJECTED'`.execute(trx);
  // Who holds each reward: a claim through another partnerUid than the one claiming now is "seen".
  const holders = new Map<string, string[]>();
  for (const h of held) {
    const key = rewardKey(h.account_id, { source: h.source, sourceId: h.source_id, periodKey: h.period_key });
    holders.set(key, [...(holders.get(key) ?? []), h.partner_uid]);
  }
  return new Set(
    linked.filter((c) =>
      (holders.get(rewardKey(accounts.get(c.partnerUid) as string, c)) ?? []).some(
        (uid) => uid !== c.partnerUid,
      ),
    ),
  );
}

/**
 * Writes one partner's claims and their history (routed statements); answers the claims written,
 * with their status (a claim already there for the user, source and period is left as it is, and
 * not answered). `accounts` are the linked users' accounts, read in this transaction (accountsOf).
 */
export async function insertClaimsRouted(
  trx: Transaction<DB>,
  partnerId: string,
  claims: readonly RoutedClaim[],
  accounts: ReadonlyMap<string, string>,
): Promise<WrittenClaim[]> {
  if (claims.length === 0) return [];
  const seen = await alreadyRewarded(trx, partnerId, claims, accounts);
  const decided = claims.map((c): WrittenClaim => {
    const reason = c.refused ?? (seen.has(c) ? 'ALREADY_REWARDED' : null);
    const status = reason !== null ? 'REJECTED' : accounts.has(c.partnerUid) ? 'REQUESTED' : 'RESERVED';
    return { ...c, status, reason };
  });
  // In the unique key's order, as claimsCtes inserts: concurrent writers lock their keys in one order.
  const ordered = [...decided].sort((a, b) => (claimOrder(a) < claimOrder(b) ? -1 : 1));
  const returned = await trx
    .insertInto('claims')
    .values(
      ordered.map((c) => ({
        id: c.id,
        budget_id: c.budgetId,
        asset_id: c.assetId,
        partner_id: c.partnerId,
        partner_uid: c.partnerUid,
        account_id: accounts.get(c.partnerUid) ?? null,
        promotion_id: c.promotionId,
        source: c.source,
        source_id: c.sourceId,
        period_key: c.periodKey,
        amount: c.amount.toString(),
        status: c.status,
        reason: c.reason,
        next_attempt_at: c.status === 'REQUESTED' ? c.at : null,
        created_at: c.at,
        updated_at: c.at,
        completed_before_link: c.completedBeforeLink,
        trace_context: c.traceContext,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['partner_id', 'partner_uid', 'source', 'source_id', 'period_key']).doNothing(),
    )
    .returning('id')
    .execute();
  const ids = new Set(returned.map((r) => r.id));
  const written = decided.filter((c) => ids.has(c.id));
  if (written.length === 0) return written;
  // The history claimsCtes writes: born RESERVED (or REJECTED, with why), then REQUESTED at once
  // when the user is linked; in claim id order, as that statement inserts it.
  const history = [...written]
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .flatMap((c): Array<Insertable<ClaimEventsTable>> => {
      const common = { partner_id: c.partnerId, claim_id: c.id, at: c.at };
      return c.status === 'REQUESTED'
        ? [
            { ...common, from_status: null, to_status: 'RESERVED', reason: null },
            { ...common, from_status: 'RESERVED', to_status: 'REQUESTED', reason: 'user is linked' },
          ]
        : [{ ...common, from_status: null, to_status: c.status, reason: c.reason }];
    });
  await trx.insertInto('claim_events').values(history).execute();
  return written;
}

const claimOrder = (c: RoutedClaim) =>
  `${c.partnerId}\n${c.partnerUid}\n${c.source}\n${c.sourceId}\n${c.periodKey}`;

/**
 * The webhook messages of a partner's completions and of the claims written, by the same events as
 * the one statement writes, only when the partner has an enabled endpoint (a statement of CTEs: on
 * Citus sub-plans, worth paying only when there is someone to tell).
 */
export async function writeClaimEvents(
  trx: Transaction<DB>,
  partnerId: string,
  written: readonly WrittenClaim[],
  completed: readonly CompletionMessage[] = [],
): Promise<void> {
  if ((written.length === 0 && completed.length === 0) || !(await partnerHasEndpoint(trx, partnerId))) return;
  const claim = <T>(pick: (c: WrittenClaim) => T) => written.map(pick);
  await sql`
    WITH done AS (${completionRows(completed)}), claim AS (
      SELECT * FROM unnest(${claim((c) => c.id)}::text[], ${claim((c) => c.status)}::text[], ${claim((c) => c.reason)}::text[],
                           ${claim((c) => c.partnerId)}::text[], ${claim((c) => c.partnerUid)}::text[],
                           ${claim((c) => c.assetId)}::text[], ${claim((c) => c.amount.toString())}::numeric[],
                           ${claim((c) => c.source)}::text[], ${claim((c) => c.sourceId)}::text[],
                           ${claim((c) => c.periodKey)}::text[], ${claim((c) => c.at)}::timestamptz[])
             AS c(id, status, reason, partner_id, partner_uid, asset_id, amount, source, source_id, period_key, created_at)
    ), ${webhookOutboxCte('completion_hooks', missionCompletedEvents(sql`done r`))}, ${newClaimsHooksCte()}
    SELECT 1`.execute(trx);
}

/** A grant (grants.ts) as a claim to write, refused with `refused` (null: its amount is reserved). */
export function routedClaimOf(grant: Grant, id: string, refused: RefusalReason | null): RoutedClaim {
  return {
    id,
    budgetId: grant.budget.id,
    assetId: grant.budget.asset_id,
    partnerId: grant.partnerId,
    partnerUid: grant.partnerUid,
    promotionId: grant.promotionId,
    source: grant.source,
    sourceId: grant.sourceId,
    periodKey: grant.periodKey,
    amount: grant.amount,
    refused,
    at: grant.now.toISOString(),
    completedBeforeLink: grant.completedBeforeLink?.toISOString() ?? null,
    traceContext: grant.traceContext ?? null,
  };
}

/**
 * insertClaims of grants.ts on Citus: the claims of any partners' grants, partner by partner in id
 * order, each partner's as routed statements (its users' accounts, the claims and their history,
 * their webhook messages). Answers the claims written.
 */
export async function insertGrantClaimsRouted(
  trx: Transaction<DB>,
  claims: readonly RoutedClaim[],
): Promise<WrittenClaim[]> {
  const partners = [...new Set(claims.map((c) => c.partnerId))].sort();
  const written: WrittenClaim[] = [];
  for (const partnerId of partners) {
    const own = claims.filter((c) => c.partnerId === partnerId);
    const accounts = await accountsOf(
      trx,
      partnerId,
      own.map((c) => c.partnerUid),
    );
    const mine = await insertClaimsRouted(trx, partnerId, own, accounts);
    await writeClaimEvents(trx, partnerId, mine);
    written.push(...mine);
  }
  return written;
}

/**
 * claimFromOneFreeStripe of grants.ts on Citus (claims all one partner's, of one budget and amount):
 * locks a stripe of the partner's nobody holds with room for `total` (their amounts), nearest
 * `home`, takes `total` from it and writes the claims. Answers the claims written, or undefined
 * when no free stripe had room: then nothing was locked, taken or written (no savepoint needed).
 */
export async function claimFromOneFreeStripeRouted(
  trx: Transaction<DB>,
  claims: readonly RoutedClaim[],
  stripes: number,
  home: number,
  total: bigint,
): Promise<WrittenClaim[] | undefined> {
  const first = claims[0] as RoutedClaim;
  const { rows } = await freeStripeLock(first.budgetId, first.partnerId, stripes, home, total).execute(trx);
  const stripe = rows[0]?.stripe;
  if (stripe === undefined) return undefined;
  await takeFromStripe(trx, first.budgetId, first.partnerId, stripe, total);
  return insertGrantClaimsRouted(trx, claims);
}
