// A batch of FIXED-reward completions on Citus (docs/scaling.md "Where the crowd's cost goes"): the
// same writes as the batch's one statement (fixed-completions-store.ts), as a transaction of
// statements that each name the partner and carry their rows as values, so that Citus routes every
// one to the partner's shard. The one statement's dozen data-modifying CTEs are each a sub-plan
// there, planned again at every execution. Unkeyed batches only: a keyed batch claims its
// idempotency keys in the one statement.
//
// What holds it exact is what holds the statement: the stripe is locked first and kept to the
// commit, a claim is written once (its unique key, ON CONFLICT DO NOTHING), the take is the amount
// of the claims this transaction wrote, and a failure anywhere rolls all of it back.
import { sql } from 'kysely';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { ClaimEventsTable, DB } from '../db/schema.ts';
import type { CompletionReport } from '../progress/service.ts';
import { progressValuesUpsert } from '../progress/service.ts';
import { freeStripeLock } from '../budgets/reservations.ts';
import { webhookOutboxCte } from '../webhooks/store/outbox.ts';
import { missionCompletedEvents } from '../webhooks/store/events.ts';
import { newId } from '../domain/ids.ts';
import { newClaimsHooksCte } from './grant-store.ts';
import type { FixedCompletionsBatch } from './fixed-completions-store.ts';

/** A completed report's claim as the batch writes it (a linked user's). */
interface NewClaim {
  report: CompletionReport;
  id: string;
  accountId: string;
  refused: 'ALREADY_REWARDED' | null;
}

/**
 * Writes the batch (its reports all one partner's) in one transaction of routed statements; answers
 * the completion markers stored (the reports that completed their period now), or undefined when it
 * wrote nothing: the budget has caps, or no stripe of the partner's that nobody holds has room for
 * the whole batch (then the achieve transaction refills and grants, as for the one statement).
 */
export async function writeFixedCompletionsRouted(
  db: Kysely<DB>,
  batch: FixedCompletionsBatch,
): Promise<Set<string> | undefined> {
  const { reports, rule, amount, home, replaceTarget } = batch;
  const partnerId = (reports[0] as CompletionReport).partnerId;
  return db.transaction().execute(async (trx) => {
    const capped = await sql`
      SELECT 1 FROM budget_caps WHERE budget_id = ${rule.budget_id}
        AND (per_account_per_day IS NOT NULL OR per_partner_per_day IS NOT NULL)`.execute(trx);
    if (capped.rows.length > 0) return undefined;
    const { rows: picked } = await freeStripeLock(
      rule.budget_id,
      partnerId,
      rule.stripes,
      home,
      amount * BigInt(reports.length),
    ).execute(trx);
    const stripe = picked[0]?.stripe;
    if (stripe === undefined) return undefined;

    const { rows: stored } = await progressValuesUpsert(reports, replaceTarget).execute(trx);
    const markers = new Set(stored.flatMap((row) => (row.completed_by === null ? [] : [row.completed_by])));
    const completed = reports.filter((r) => markers.has(r.completionMarker));
    if (completed.length === 0) return markers;

    const accounts = await accountsOf(trx, partnerId, completed);
    const linked = completed.filter((r) => accounts.has(r.partnerUid));
    const claims = await alreadyRewarded(trx, partnerId, linked, accounts);
    const written = await insertClaims(trx, rule, amount, claims);
    const paid = written.filter((c) => c.status !== 'REJECTED').length;
    if (paid > 0)
      await trx
        .updateTable('budget_stripes')
        .set({ remaining: sql`remaining - ${(amount * BigInt(paid)).toString()}::numeric` })
        .where('budget_id', '=', rule.budget_id)
        .where('partner_id', '=', partnerId)
        .where('stripe', '=', stripe)
        .execute();
    // A completion by a user who has not linked is a deferred reward, granted when they link.
    const unlinked = completed.filter((r) => !accounts.has(r.partnerUid));
    if (unlinked.length > 0)
      await trx
        .insertInto('deferred_rewards')
        .values(
          unlinked.map((r) => ({
            id: newId('clm'),
            kind: 'CLAIM' as const,
            partner_id: r.partnerId,
            partner_uid: r.partnerUid,
            promotion_id: r.promotionId,
            source: 'MISSION' as const,
            source_id: r.missionId,
            period_key: r.periodKey,
            budget_id: rule.budget_id,
            amount: amount.toString(),
            completed_at: r.now.toISOString(),
          })),
        )
        .onConflict((oc) => oc.doNothing())
        .execute();
    await writeEvents(trx, partnerId, rule.asset_id, amount, completed, written);
    return markers;
  });
}

/** The accounts of the users of these reports who are linked (partner_uid -> account). */
async function accountsOf(trx: Transaction<DB>, partnerId: string, reports: readonly CompletionReport[]) {
  const rows = await trx
    .selectFrom('user_mappings')
    .select(['partner_uid', 'account_id'])
    .where('partner_id', '=', partnerId)
    .where('partner_uid', '=', sql<string>`ANY(${reports.map((r) => r.partnerUid)}::text[])`)
    .execute();
  return new Map(rows.map((row) => [row.partner_uid, row.account_id]));
}

/**
 * The linked reports' claims, each refused ALREADY_REWARDED when its account already holds a claim
 * not REJECTED for the same mission and period through another partnerUid of this partner (one
 * reward per person, as claimsCtes decides it: docs/rewards.md).
 */
async function alreadyRewarded(
  trx: Transaction<DB>,
  partnerId: string,
  linked: readonly CompletionReport[],
  accounts: ReadonlyMap<string, string>,
): Promise<NewClaim[]> {
  if (linked.length === 0) return [];
  const held = await trx
    .selectFrom('claims')
    .select(['account_id', 'partner_uid', 'source_id', 'period_key'])
    .where('partner_id', '=', partnerId)
    .where('account_id', '=', sql<string>`ANY(${linked.map((r) => accounts.get(r.partnerUid))}::text[])`)
    .where('source', '=', 'MISSION')
    .where('source_id', '=', sql<string>`ANY(${[...new Set(linked.map((r) => r.missionId))]}::text[])`)
    .where('period_key', '=', sql<string>`ANY(${[...new Set(linked.map((r) => r.periodKey))]}::text[])`)
    .where('status', '<>', 'REJECTED')
    .execute();
  return linked.map((report) => {
    const accountId = accounts.get(report.partnerUid) as string;
    const seen = held.some(
      (c) =>
        c.account_id === accountId &&
        c.source_id === report.missionId &&
        c.period_key === report.periodKey &&
        c.partner_uid !== report.partnerUid,
    );
    return { report, id: newId('clm'), accountId, refused: seen ? 'ALREADY_REWARDED' : null };
  });
}

/**
 * The claims (REQUESTED: the user is linked; or born REJECTED) and their history, as claimsCtes
 * writes them; answers the claims written (a claim already there for the user, mission and period
 * is left as it is).
 */
async function insertClaims(
  trx: Transaction<DB>,
  rule: FixedCompletionsBatch['rule'],
  amount: bigint,
  claims: readonly NewClaim[],
) {
  if (claims.length === 0) return [];
  const written = await trx
    .insertInto('claims')
    .values(
      claims.map(({ report, id, accountId, refused }) => {
        const at = report.now.toISOString();
        return {
          id,
          budget_id: rule.budget_id,
          asset_id: rule.asset_id,
          partner_id: report.partnerId,
          partner_uid: report.partnerUid,
          account_id: accountId,
          promotion_id: report.promotionId,
          source: 'MISSION' as const,
          source_id: report.missionId,
          period_key: report.periodKey,
          amount: amount.toString(),
          status: refused === null ? ('REQUESTED' as const) : ('REJECTED' as const),
          reason: refused,
          next_attempt_at: refused === null ? at : null,
          created_at: at,
          updated_at: at,
          completed_before_link: null,
          trace_context: report.traceContext ?? null,
        };
      }),
    )
    .onConflict((oc) =>
      oc.columns(['partner_id', 'partner_uid', 'source', 'source_id', 'period_key']).doNothing(),
    )
    .returning(['id', 'status', 'reason', 'partner_id', 'partner_uid', 'source_id', 'period_key'])
    .execute();
  if (written.length === 0) return written;
  const at = new Map(claims.map((c) => [c.id, c.report.now.toISOString()]));
  // The history claimsCtes writes: born RESERVED (or REJECTED, with why), then REQUESTED at once
  // when the user is linked; in claim id order, as that statement inserts it.
  const history = [...written]
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .flatMap((c): Array<Insertable<ClaimEventsTable>> => {
      const common = { partner_id: c.partner_id, claim_id: c.id, at: at.get(c.id) as string };
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

/**
 * The webhook messages of the completions and of the claims written, by the same events as the
 * one statement writes, only when the partner has an enabled endpoint (a statement of CTEs: on
 * Citus sub-plans, worth paying only when there is someone to tell).
 */
async function writeEvents(
  trx: Transaction<DB>,
  partnerId: string,
  assetId: string,
  amount: bigint,
  completed: readonly CompletionReport[],
  written: ReadonlyArray<{
    id: string;
    status: string;
    reason: string | null;
    partner_uid: string;
    source_id: string;
    period_key: string;
  }>,
): Promise<void> {
  const endpoint = await trx
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('partner_id', '=', partnerId)
    .where('enabled', '=', true)
    .limit(1)
    .executeTakeFirst();
  if (endpoint === undefined) return;
  const at = new Map(
    completed.map((r) => [`${r.partnerUid}\n${r.missionId}\n${r.periodKey}`, r.now.toISOString()]),
  );
  const claimAt = written.map((c) => at.get(`${c.partner_uid}\n${c.source_id}\n${c.period_key}`) as string);
  await sql`
    WITH done AS (
      SELECT * FROM unnest(${completed.map((r) => r.partnerId)}::text[], ${completed.map((r) => r.partnerUid)}::text[],
                           ${completed.map((r) => r.missionId)}::text[], ${completed.map((r) => r.periodKey)}::text[],
                           ${completed.map((r) => r.now.toISOString())}::timestamptz[])
             AS r(partner_id, partner_uid, mission_id, period_key, at)
    ), claim AS (
      SELECT c.*, ${partnerId}::text AS partner_id, ${assetId}::text AS asset_id, ${amount.toString()}::numeric AS amount,
             'MISSION'::text AS source
      FROM unnest(${written.map((c) => c.id)}::text[], ${written.map((c) => c.status)}::text[], ${written.map((c) => c.reason)}::text[],
                  ${written.map((c) => c.partner_uid)}::text[], ${written.map((c) => c.source_id)}::text[],
                  ${written.map((c) => c.period_key)}::text[], ${claimAt}::timestamptz[])
           AS c(id, status, reason, partner_uid, source_id, period_key, created_at)
    ), ${webhookOutboxCte('completion_hooks', missionCompletedEvents(sql`done r`))}, ${newClaimsHooksCte()}
    SELECT 1`.execute(trx);
}
