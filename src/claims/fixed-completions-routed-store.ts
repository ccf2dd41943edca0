// A batch of FIXED-reward completions on Citus (docs/scaling.md "The transaction's way routed
// too"): the same writes as the batch's one statement (fixed-completions-store.ts), as a
// transaction of statements that each name the partner and carry their rows as values, so that
// Citus routes every one to the partner's shard. The one statement's dozen data-modifying CTEs are
// each a sub-plan there, planned again at every execution. A keyed batch takes its idempotency keys
// as one statement of the transaction, and writes the records of those it took.
//
// What holds it exact is what holds the statement: the stripe is locked first and kept to the
// commit, a claim is written once (its unique key, ON CONFLICT DO NOTHING), the take is the amount
// of the claims this transaction wrote, and a failure anywhere rolls all of it back.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { CompletionReport } from '../progress/service.ts';
import { progressValuesUpsert } from '../progress/service.ts';
import { freeStripeLock, takeFromStripe } from '../budgets/reservations.ts';
import { newId } from '../domain/ids.ts';
import { completionMessageOf } from '../webhooks/store/events.ts';
import { accountsOf, insertClaimsRouted, writeClaimEvents } from './routed-claims-store.ts';
import { insertDeferredGrants } from './grant-store.ts';
import type { FixedCompletionsBatch } from './fixed-completions-store.ts';
import { takeAnsweredClaims } from '../idempotency/claim-in-statement.ts';
import type { AnsweredClaim } from '../idempotency/claim-in-statement.ts';

/**
 * Writes the batch (its reports all one partner's) in one transaction of routed statements; answers
 * the completion markers stored (the reports that completed their period now) and the keys taken,
 * or undefined when it wrote nothing: the budget has caps, or no stripe of the partner's that nobody
 * holds has room for the whole batch (then the achieve transaction refills and grants, as for the
 * one statement).
 */
export async function writeFixedCompletionsRouted(
  db: Kysely<DB>,
  batch: FixedCompletionsBatch,
): Promise<{ markers: Set<string>; taken: Set<AnsweredClaim> } | undefined> {
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

    // A keyed batch takes its keys now (it writes), and writes the records of those it took.
    const taken = await takeAnsweredClaims(trx, batch.claims);
    const written = batch.keyed
      ? batch.written.filter((r) => r.claim === undefined || taken.has(r.claim))
      : reports;
    const { rows: stored } =
      written.length === 0 ? { rows: [] } : await progressValuesUpsert(written, replaceTarget).execute(trx);
    const markers = new Set(stored.flatMap((row) => (row.completed_by === null ? [] : [row.completed_by])));
    const completed = written.filter((r) => markers.has(r.completionMarker));
    if (completed.length === 0) return { markers, taken };

    const accounts = await accountsOf(
      trx,
      partnerId,
      completed.map((r) => r.partnerUid),
    );
    const linked = completed.filter((r) => accounts.has(r.partnerUid));
    const claims = await insertClaimsRouted(
      trx,
      partnerId,
      linked.map((r) => ({
        id: newId('clm'),
        budgetId: rule.budget_id,
        assetId: rule.asset_id,
        partnerId: r.partnerId,
        partnerUid: r.partnerUid,
        promotionId: r.promotionId,
        source: 'MISSION',
        sourceId: r.missionId,
        periodKey: r.periodKey,
        amount,
        refused: null,
        at: r.now.toISOString(),
        completedBeforeLink: null,
        traceContext: r.traceContext ?? null,
      })),
      accounts,
    );
    // A claim born REJECTED (the person already has this reward through another partnerUid) takes nothing.
    const paid = claims.filter((c) => c.status !== 'REJECTED').length;
    if (paid > 0) await takeFromStripe(trx, rule.budget_id, partnerId, stripe, amount * BigInt(paid));
    // A completion by a user who has not linked is a deferred reward, granted when they link.
    await insertDeferredGrants(
      trx,
      completed
        .filter((r) => !accounts.has(r.partnerUid))
        .map((r) => ({
          id: newId('clm'),
          partnerId: r.partnerId,
          partnerUid: r.partnerUid,
          promotionId: r.promotionId,
          source: 'MISSION' as const,
          sourceId: r.missionId,
          periodKey: r.periodKey,
          budgetId: rule.budget_id,
          amount,
          now: r.now,
        })),
    );
    await writeClaimEvents(trx, partnerId, claims, completed.map(completionMessageOf));
    return { markers, taken };
  });
}
