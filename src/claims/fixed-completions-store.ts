// The statement of a batch of FIXED-reward completions (fixed-completions.ts decides when a batch
// may take it and reads its answer): the progress records, the claims and their history, the
// deferred rewards, the take from one free stripe, the webhook messages and the idempotency keys,
// in one statement.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';
import { newId } from '../domain/ids.ts';
import type { CompletionReport } from '../progress/service.ts';
import { progressUpsertQuery, takenKeyCondition } from '../progress/service.ts';
import { answeredClaimsInsert } from '../idempotency/claim-in-statement.ts';
import { freeStripePick, stripeOwner } from '../budgets/reservations.ts';
import { claimsCtes } from './grant-store.ts';
import { mappingsOfBatch } from '../db/citus.ts';
import { webhookOutboxCte } from '../webhooks/store/outbox.ts';
import { missionCompletedEvents } from '../webhooks/store/events.ts';

/** The one FIXED rule every report of the batch pays. */
export interface FixedRule {
  budget_id: string;
  asset_id: string;
  stripes: number;
}

/** A batch of FIXED-reward completions (see completionsInOneStatement). */
export interface FixedCompletionsBatch {
  reports: CompletionReport[];
  rule: FixedRule;
  amount: bigint;
  home: number;
  keyed: boolean;
  claims: Parameters<typeof answeredClaimsInsert>[0];
  written: CompletionReport[];
  replaceTarget: boolean;
}

/**
 * Runs the batch's one statement (see completionsInOneStatement); answers its rows: with keys,
 * one per completed record ('up'), taken key ('key') and the stripe ('pick'); without, one per
 * completed record. No 'pick' row (without keys: no row) when no free stripe had room.
 */
export async function writeFixedCompletions(db: Kysely<DB>, batch: FixedCompletionsBatch) {
  return (await db.executeQuery(fixedCompletionsStatement(db, batch))).rows;
}

/** The batch's one statement, compiled (PostgreSQL and PGlite: on Citus the routed store writes it). */
function fixedCompletionsStatement(db: Kysely<DB>, batch: FixedCompletionsBatch) {
  const { reports, rule, amount, home, keyed, claims, written, replaceTarget } = batch;
  // Reports of one owner of stripes (completionsInOneStatement sees to it): the take is from its stripes.
  const owner = stripeOwner((reports[0] as CompletionReport).partnerId);
  const column = <T>(pick: (r: CompletionReport) => T) => reports.map(pick);
  // Only linked users hold budget: a completion by a user who has not linked is a deferred reward
  // (granted when they link). Both read the mappings in this statement's one snapshot. A join on
  // the mapping's primary key, not EXISTS: Citus plans no correlated sub-query over a function's
  // rows (docs/scaling.md "On Citus").
  const completed = sql`
    SELECT r.*, lm.partner_id IS NOT NULL AS linked
    FROM unnest(${column(() => newId('clm'))}::text[], ${column((r) => r.completionMarker)}::text[], ${column((r) => r.partnerId)}::text[],
                ${column((r) => r.partnerUid)}::text[], ${column((r) => r.promotionId)}::text[], ${column((r) => r.missionId)}::text[],
                ${column((r) => r.periodKey)}::text[], ${column((r) => r.now.toISOString())}::timestamptz[],
                ${column((r) => r.traceContext ?? null)}::text[])
         WITH ORDINALITY AS r(id, marker, partner_id, partner_uid, promotion_id, mission_id, period_key, at, trace_context, n)
    LEFT JOIN ${mappingsOfBatch(reports)} lm ON lm.partner_id = r.partner_id AND lm.partner_uid = r.partner_uid
    WHERE r.marker IN (SELECT completed_by FROM up)`;
  const claimRows = sql`
    SELECT r.id, ${rule.budget_id}::text AS budget_id, ${rule.asset_id}::text AS asset_id, r.partner_id, r.partner_uid,
           r.promotion_id, 'MISSION'::text AS source, r.mission_id AS source_id, r.period_key,
           ${amount.toString()}::numeric AS amount, NULL::text AS refused, r.at, NULL::timestamptz AS completed_before_link,
           r.trace_context, r.n
    FROM done r WHERE r.linked`;
  // A budget with caps goes through the transaction (grantClaims counts them under their locks).
  const uncapped = sql`NOT EXISTS (SELECT 1 FROM budget_caps c WHERE c.budget_id = ${rule.budget_id}
                                   AND (c.per_account_per_day IS NOT NULL OR c.per_partner_per_day IS NOT NULL))`;
  const writes = sql`EXISTS (SELECT 1 FROM pick) AND ${uncapped}`;
  // With keys: the claims only if the batch writes, and only the records whose key was taken.
  const keyCtes = keyed ? sql`, claimed AS (${answeredClaimsInsert(claims, writes)})` : sql``;
  const upsert = keyed
    ? progressUpsertQuery(written, replaceTarget, sql`${writes} AND ${takenKeyCondition}`, true)
    : progressUpsertQuery(reports, replaceTarget, writes);
  const answer = keyed
    ? sql`SELECT 'up' AS kind, completed_by, NULL::text AS scope, NULL::text AS key FROM up
          UNION ALL SELECT 'key', NULL, scope, key FROM claimed
          UNION ALL SELECT 'pick', NULL, NULL, NULL FROM pick`
    : sql`SELECT completed_by FROM up`;
  const query = sql<{
    completed_by: string | null;
    kind?: string;
    scope?: string | null;
    key?: string | null;
  }>`
    WITH ${freeStripePick(rule.budget_id, owner, rule.stripes, home, amount * BigInt(reports.length))}${keyCtes}, up AS (
      ${upsert}
    ), done AS (${completed}), ${claimsCtes(claimRows, sql`true`, reports)},
    ${webhookOutboxCte('completion_hooks', missionCompletedEvents(sql`done r`))},
    deferred AS (
      INSERT INTO deferred_rewards (id, kind, partner_id, partner_uid, promotion_id, source, source_id, period_key, budget_id, amount, completed_at)
      SELECT r.id, 'CLAIM', r.partner_id, r.partner_uid, r.promotion_id, 'MISSION', r.mission_id, r.period_key, ${rule.budget_id}, ${amount.toString()}::numeric, r.at
      FROM done r WHERE NOT r.linked
      ON CONFLICT DO NOTHING
    ),
    take AS (
      -- A claim born REJECTED (the person already has this reward through another partnerUid) takes nothing.
      UPDATE budget_stripes s SET remaining = s.remaining - (SELECT count(*) FROM claim WHERE claim.status <> 'REJECTED') * ${amount.toString()}::numeric
      FROM pick
      WHERE s.budget_id = ${rule.budget_id} AND s.partner_id = ${owner} AND s.stripe = pick.stripe AND EXISTS (SELECT 1 FROM claim WHERE claim.status <> 'REJECTED')
    )
    ${answer}`;
  return prepared(keyed ? 'completions_fixed_keyed' : 'completions_fixed', query.compile(db));
}
