// The SQL of granting claims (grants.ts holds the order: caps, budgets in id order, the
// reservation engine, the releases): the first statement that defers unlinked users' grants and
// reads the caps, the cap counters' lock and update, the claims' insert (alone, or with the take
// from one free stripe), and the fragments (grantRows, claimsCtes) other claim statements compose.
import { sql } from 'kysely';
import type { Kysely, RawBuilder, Transaction } from 'kysely';
import type { CapUsageTable, DB } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';
import type { ClaimStatus } from '../domain/claims.ts';
import { stripeOwner, takeFromOneFreeStripe } from '../budgets/reservations.ts';
import { mappingsOfBatch, onCitusCoordinator, partnerIn, stripesPerPartner } from '../db/citus.ts';
import { webhookOutboxCte } from '../webhooks/store/outbox.ts';
import { claimEvents } from '../webhooks/store/events.ts';

export interface Grant {
  budget: { id: string; asset_id: string; stripes: number };
  amount: bigint;
  partnerId: string;
  partnerUid: string;
  promotionId: string | null;
  source: 'MISSION' | 'GROUP' | 'DRAW' | 'STREAK';
  sourceId: string;
  periodKey: string;
  now: Date;
  /** Granted when the user linked, for a completion made before (then): the mission page says so. */
  completedBeforeLink?: Date;
  /** The W3C traceparent of the request that earned it: the payout's span links to it. */
  traceContext?: string;
}

/**
 * Why a claim was refused: no budget left, an operator cap, a completion too old when the user
 * linked, or (decided in the claim's statement, claimsCtes) the person already has this reward for
 * this period through another partnerUid.
 */
export type RefusalReason = 'BUDGET_EXHAUSTED' | 'CAP_REACHED' | 'EXPIRED' | 'ALREADY_REWARDED';

/**
 * Each grant's account (its user's link), its payout address and its budget's caps, in the grants'
 * order; the grants of users who have not linked are written as deferred rewards (no claim, nothing
 * taken from the budget). One statement, read in one snapshot; on Citus two routed ones (the facts,
 * then the deferred rewards as VALUES), where the statement's INSERT would be a sub-plan of its own.
 */
export async function deferUnlinkedGrants(
  trx: Transaction<DB>,
  grants: readonly Grant[],
  ids: readonly string[],
) {
  if (!onCitusCoordinator())
    return (await trx.executeQuery(deferUnlinkedGrantsStatement(trx, grants, ids))).rows;
  const facts = (await trx.executeQuery(grantFactsStatement(trx, grants, ids))).rows;
  await insertDeferredGrants(
    trx,
    grants.flatMap((g, i) =>
      facts[i]?.account_id == null ? [{ ...g, id: ids[i] as string, budgetId: g.budget.id }] : [],
    ),
  );
  return facts;
}

/** A grant deferred until its user links, as deferred_rewards holds it (kind CLAIM). */
export type DeferredGrant = Pick<
  Grant,
  | 'partnerId'
  | 'partnerUid'
  | 'promotionId'
  | 'source'
  | 'sourceId'
  | 'periodKey'
  | 'amount'
  | 'now'
  | 'completedBeforeLink'
> & { id: string; budgetId: string };

/** The deferred rewards' key order (concurrent writers lock their keys in one order). */
const deferredOrder = (g: DeferredGrant) =>
  `${g.partnerId}\n${g.partnerUid}\n${g.source}\n${g.sourceId}\n${g.periodKey}`;

/**
 * Writes grants deferred until their users link (on Citus: the routed paths, where the deferral
 * cannot ride in the grants' statement), in their keys' order; a key already deferred keeps its
 * row. One multi-row `INSERT ... VALUES`, which Citus routes to the partner's shard.
 */
export async function insertDeferredGrants(
  trx: Kysely<DB>,
  deferred: readonly DeferredGrant[],
): Promise<void> {
  if (deferred.length === 0) return;
  await trx
    .insertInto('deferred_rewards')
    .values(
      [...deferred]
        .sort((a, b) => (deferredOrder(a) < deferredOrder(b) ? -1 : 1))
        .map((g) => ({
          id: g.id,
          kind: 'CLAIM' as const,
          partner_id: g.partnerId,
          partner_uid: g.partnerUid,
          promotion_id: g.promotionId,
          source: g.source,
          source_id: g.sourceId,
          period_key: g.periodKey,
          budget_id: g.budgetId,
          amount: g.amount.toString(),
          completed_at: (g.completedBeforeLink ?? g.now).toISOString(),
        })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}

interface GrantFactsRow {
  account_id: string | null;
  address: string | null;
  per_account: string | null;
  per_partner: string | null;
}

/** The grants as rows `input` and their facts `facts` (account, payout address, caps), for a WITH. */
function grantFactsCtes(grants: readonly Grant[], ids: readonly string[]) {
  const column = <T>(pick: (g: Grant) => T) => grants.map(pick);
  return sql`
    input AS (
      SELECT * FROM unnest(${[...ids]}::text[], ${column((g) => g.budget.id)}::text[], ${column((g) => g.partnerId)}::text[],
                           ${column((g) => g.partnerUid)}::text[], ${column((g) => g.promotionId)}::text[], ${column((g) => g.source)}::text[],
                           ${column((g) => g.sourceId)}::text[], ${column((g) => g.periodKey)}::text[], ${column((g) => g.amount.toString())}::numeric[],
                           ${column((g) => (g.completedBeforeLink ?? g.now).toISOString())}::timestamptz[])
             WITH ORDINALITY AS i(id, budget_id, partner_id, partner_uid, promotion_id, source, source_id, period_key, amount, at, n)
    ), facts AS (
      SELECT i.*, m.account_id, w.address, c.per_account_per_day::text AS per_account, c.per_partner_per_day::text AS per_partner
      FROM input i
      LEFT JOIN ${mappingsOfBatch(grants)} m ON m.partner_id = i.partner_id AND m.partner_uid = i.partner_uid
      LEFT JOIN user_wallets w ON w.account_id = m.account_id
      LEFT JOIN budget_caps c ON c.budget_id = i.budget_id
    )`;
}

/** The facts alone, compiled: on Citus a read routed to the grants' partner's shard (test/citus/distribution.citus.test.ts reads its plan). */
export function grantFactsStatement(db: Kysely<DB>, grants: readonly Grant[], ids: readonly string[]) {
  const query = sql<GrantFactsRow>`
    WITH ${grantFactsCtes(grants, ids)}
    SELECT account_id, address, per_account, per_partner FROM facts ORDER BY n`;
  return prepared('claims_grant_facts', query.compile(db));
}

/** deferUnlinkedGrants' one statement (PostgreSQL and PGlite), compiled. */
function deferUnlinkedGrantsStatement(db: Kysely<DB>, grants: readonly Grant[], ids: readonly string[]) {
  const query = sql<GrantFactsRow>`
    WITH ${grantFactsCtes(grants, ids)}, deferred AS (
      INSERT INTO deferred_rewards (id, kind, partner_id, partner_uid, promotion_id, source, source_id, period_key, budget_id, amount, completed_at)
      SELECT id, 'CLAIM', partner_id, partner_uid, promotion_id, source, source_id, period_key, budget_id, amount, at
      FROM facts WHERE account_id IS NULL
      ORDER BY partner_id, partner_uid, source, source_id, period_key
      ON CONFLICT DO NOTHING
    )
    SELECT account_id, address, per_account, per_partner FROM facts ORDER BY n`;
  return prepared('claims_defer_unlinked', query.compile(db));
}

/**
 * Locks the cap counters of a budget (creating missing ones at 0), in the order given (the caller's
 * key order); answers each with what it has used.
 */
export async function lockCapUsage(
  trx: Transaction<DB>,
  budgetId: string,
  keys: ReadonlyArray<{ day: string; scope: CapUsageTable['scope']; subject: string }>,
) {
  // A multi-row VALUES insert, not INSERT ... SELECT FROM unnest: on Citus (cap_usage is a
  // reference table) an INSERT ... SELECT is planned through the coordinator and its upserts reach
  // the nodes' copies in no agreed order, which deadlocked concurrent grants; VALUES is one router
  // statement under the reference table's lock. Rows are upserted (and locked) in the order given.
  const rows = await trx
    .insertInto('cap_usage')
    .values(
      keys.map((k) => ({ budget_id: budgetId, day: k.day, scope: k.scope, subject: k.subject, used: '0' })),
    )
    .onConflict((oc) =>
      oc.columns(['budget_id', 'day', 'scope', 'subject']).doUpdateSet({ used: sql`cap_usage.used` }),
    )
    // The day as days since 2000-01-01 and used as text: Citus allows only IMMUTABLE functions in
    // RETURNING, and date::text and numeric::text depend on settings (STABLE).
    .returning([sql<number>`(day - DATE '2000-01-01')`.as('since2000'), 'scope', 'subject', 'used'])
    .execute();
  return rows.map((r) => ({
    day: new Date(Date.UTC(2000, 0, 1) + Number(r.since2000) * 86_400_000).toISOString().slice(0, 10),
    scope: r.scope,
    subject: r.subject,
    used: String(r.used),
  }));
}

/** Adds to each cap counter of the budget its amount. */
export async function addCapUsage(
  trx: Transaction<DB>,
  budgetId: string,
  changed: ReadonlyArray<{ day: string; scope: string; subject: string; amount: bigint }>,
): Promise<void> {
  // The days arrive as date[] and are compared without a cast: Citus refuses a STABLE function
  // (text::date) over a column in an UPDATE (docs/scaling.md "On Citus").
  await sql`
        UPDATE cap_usage u SET used = u.used + v.amount
        FROM unnest(${changed.map((k) => k.day)}::date[], ${changed.map((k) => k.scope)}::text[], ${changed.map((k) => k.subject)}::text[],
                    ${changed.map((k) => k.amount.toString())}::numeric[]) AS v(day, scope, subject, amount)
        WHERE u.budget_id = ${budgetId} AND u.day = v.day AND u.scope = v.scope AND u.subject = v.subject`.execute(
    trx,
  );
}

/** One statement: the claims of the grants and their history (each refused with its reason, or reserved). */
export async function insertClaims(
  trx: Transaction<DB>,
  grants: readonly Grant[],
  ids: readonly string[],
  refused: ReadonlyArray<RefusalReason | null>,
): Promise<Array<{ id: string; status: ClaimStatus }>> {
  const query = sql<{ id: string; status: ClaimStatus }>`
      WITH ${claimsCtes(grantRows(grants, ids, refused), sql`true`, grants)}
      SELECT id, status FROM claim`;
  return (await trx.executeQuery(prepared('claims_grant', query.compile(trx)))).rows;
}

/**
 * One statement: take `total` (the amounts of all `grants`: one budget, one partner, one amount)
 * from a single stripe of the partner's nobody holds, nearest `home`, and write their claims and history. No row when no free
 * stripe had room (nothing taken, written or locked); else one row per claim written (id null
 * when none was).
 */
export async function claimFromOneFreeStripeRows(
  trx: Transaction<DB>,
  grants: readonly Grant[],
  ids: readonly string[],
  home: number,
  total: bigint,
) {
  const first = grants[0] as Grant;
  const query = sql<{ stripe: number; id: string | null; status: ClaimStatus | null }>`
    WITH ${takeFromOneFreeStripe(first.budget.id, stripeOwner(first.partnerId), first.budget.stripes, home, total)},
         ${claimsCtes(
           grantRows(
             grants,
             ids,
             grants.map(() => null),
           ),
           sql`EXISTS (SELECT 1 FROM take)`,
           grants,
         )}
    SELECT t.stripe, c.id, c.status FROM take t LEFT JOIN claim c ON true`;
  return (await trx.executeQuery(prepared('claims_grant_one_stripe', query.compile(trx)))).rows;
}

/** The grants as rows for claimsCtes: one per grant, in order, with why it was refused (null: reserved). */
export function grantRows(
  grants: readonly Grant[],
  ids: readonly string[],
  refused: ReadonlyArray<RefusalReason | null>,
): RawBuilder<unknown> {
  const column = <T>(pick: (g: Grant) => T) => grants.map(pick);
  return sql`
    SELECT * FROM unnest(${ids}::text[], ${column((g) => g.budget.id)}::text[], ${column((g) => g.budget.asset_id)}::text[],
                         ${column((g) => g.partnerId)}::text[], ${column((g) => g.partnerUid)}::text[], ${column((g) => g.promotionId)}::text[],
                         ${column((g) => g.source)}::text[], ${column((g) => g.sourceId)}::text[], ${column((g) => g.periodKey)}::text[],
                         ${column((g) => g.amount.toString())}::numeric[], ${[...refused]}::text[],
                         ${column((g) => g.now.toISOString())}::timestamptz[], ${column((g) => g.completedBeforeLink?.toISOString() ?? null)}::timestamptz[],
                         ${column((g) => g.traceContext ?? null)}::text[])
           WITH ORDINALITY AS i(id, budget_id, asset_id, partner_id, partner_uid, promotion_id, source, source_id, period_key, amount, refused, at,
                                completed_before_link, trace_context, n)`;
}

/**
 * The CTEs `input`, `claim` and `history`: a claim for each row of `rows` (columns id, budget_id,
 * asset_id, partner_id, partner_uid, promotion_id, source, source_id, period_key, amount, refused,
 * at, completed_before_link, trace_context, n) not granted yet, only when `onlyIf` holds, each with the user's
 * account when linked, and their first history rows. A claim not refused (its amount taken) is
 * REQUESTED when its user is linked, else RESERVED (only claims of before migration 0008); a
 * refused one is REJECTED with the reason. The CTE `claim_hooks` writes their webhook messages.
 */
/**
 * The CTE `seen` (n): the inputs whose account already has this reward for this period through
 * another partnerUid it was linked through before (one reward per person, docs/rewards.md). The same
 * partner's claims: a mission, a group and a promotion's streak belong to one partner, and a draw's
 * prize claim names its ticket. On Citus (claims distributed on partner_id) a join on the partner,
 * which Citus plans; elsewhere an EXISTS per input, which PostgreSQL answers from the account's
 * index (the join, there, was planned over all of the partner's claims: 3,342 completions/s fell
 * to 858 in the flash crowd bench, docs/scaling.md).
 */
function alreadyRewardedCte(users: BatchUsers): RawBuilder<unknown> {
  if (stripesPerPartner())
    return sql`seen AS (
      SELECT DISTINCT i.n FROM input i
      JOIN ${mappingsOfBatch(users)} m ON m.partner_id = i.partner_id AND m.partner_uid = i.partner_uid
      JOIN claims o ON o.partner_id = m.partner_id AND ${partnerIn(sql.ref('o.partner_id'), users)}
                   AND o.account_id = m.account_id AND o.source = i.source
                   AND o.source_id = i.source_id AND o.period_key = i.period_key AND o.status <> 'REJECTED'
                   AND o.partner_uid <> i.partner_uid
    )`;
  return sql`seen AS (
      SELECT i.n FROM input i
      JOIN user_mappings m ON m.partner_id = i.partner_id AND m.partner_uid = i.partner_uid
      WHERE EXISTS (SELECT 1 FROM claims o
                    WHERE o.account_id = m.account_id AND o.source = i.source AND o.source_id = i.source_id
                      AND o.period_key = i.period_key AND o.status <> 'REJECTED'
                      AND (o.partner_id <> i.partner_id OR o.partner_uid <> i.partner_uid))
    )`;
}

/** The partner users of a batch's rows (for the joins Citus prunes by: mappingsOfBatch). */
type BatchUsers = ReadonlyArray<{ partnerId: string; partnerUid: string }>;

export function claimsCtes(rows: RawBuilder<unknown>, onlyIf: RawBuilder<unknown>, users: BatchUsers) {
  return sql`
    input AS (${rows}),
    ${alreadyRewardedCte(users)}, claim AS (
      INSERT INTO claims (id, budget_id, asset_id, partner_id, partner_uid, account_id, promotion_id, source, source_id,
                          period_key, amount, status, reason, next_attempt_at, created_at, updated_at, completed_before_link, trace_context)
      SELECT i.id, i.budget_id, i.asset_id, i.partner_id, i.partner_uid, m.account_id, i.promotion_id, i.source, i.source_id,
             i.period_key, i.amount, s.status, r.refused,
             CASE WHEN s.status = 'REQUESTED' THEN i.at END, i.at, i.at, i.completed_before_link, i.trace_context
      -- The condition sits inside the derived table, kept apart by OFFSET 0: Citus (on PostgreSQL
      -- 15 and 16) refuses a condition on no table beside an outer join to a distributed table
      -- (docs/scaling.md "On Citus").
      FROM (SELECT * FROM input WHERE ${onlyIf} OFFSET 0) i
      LEFT JOIN ${mappingsOfBatch(users)} m ON m.partner_id = i.partner_id AND m.partner_uid = i.partner_uid
      LEFT JOIN seen ON seen.n = i.n
      CROSS JOIN LATERAL (SELECT coalesce(i.refused, CASE WHEN seen.n IS NOT NULL THEN 'ALREADY_REWARDED' END) AS refused) r
      CROSS JOIN LATERAL (SELECT CASE WHEN r.refused IS NOT NULL THEN 'REJECTED'
                                      WHEN m.account_id IS NOT NULL THEN 'REQUESTED' ELSE 'RESERVED' END AS status) s
      ORDER BY i.n
      ON CONFLICT (partner_id, partner_uid, source, source_id, period_key) DO NOTHING
      RETURNING id, status, reason, created_at, partner_id, partner_uid, asset_id, amount, source, source_id, period_key
    ), history AS (
      INSERT INTO claim_events (partner_id, claim_id, from_status, to_status, reason, at)
      SELECT claim.partner_id, claim.id, e.from_status, e.to_status, e.reason, claim.created_at
      FROM claim CROSS JOIN LATERAL (VALUES
        (1, NULL::text, CASE WHEN claim.status = 'REQUESTED' THEN 'RESERVED' ELSE claim.status END,
            CASE WHEN claim.status = 'REJECTED' THEN claim.reason END),
        (2, 'RESERVED', 'REQUESTED', 'user is linked')
      ) AS e(n, from_status, to_status, reason)
      WHERE e.n = 1 OR claim.status = 'REQUESTED'
      ORDER BY claim.id, e.n
    ), ${newClaimsHooksCte()}`;
}

/**
 * The CTE `claim_hooks`: the webhook messages of new claims (rows of the CTE `claim`: id, status,
 * reason, created_at, partner_id, partner_uid, asset_id, amount, source, source_id, period_key),
 * one event per history row claimsCtes writes (RESERVED, then REQUESTED for a linked user's claim).
 */
export function newClaimsHooksCte(): RawBuilder<unknown> {
  return webhookOutboxCte(
    'claim_hooks',
    claimEvents(
      sql`(SELECT claim.*, e.status AS moved_to FROM claim CROSS JOIN LATERAL (VALUES
             (1, CASE WHEN claim.status = 'REQUESTED' THEN 'RESERVED' ELSE claim.status END), (2, 'REQUESTED')
           ) AS e(n, status) WHERE e.n = 1 OR claim.status = 'REQUESTED' ORDER BY claim.id, e.n) c`,
      sql`c.moved_to`,
      sql`c.created_at`,
    ),
  );
}
