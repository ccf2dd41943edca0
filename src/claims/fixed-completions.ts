// Completions whose reward is a FIXED amount from one budget (the usual case, and a flash crowd's):
// the progress records of a whole batch and their claims in one statement, atomic on its own, so
// a batch costs one round trip and no transaction. Completions that pay nothing are the upsert
// alone. Anything else (groups, check-ins, tickets, several budgets, a budget whose free stripes
// are short) goes through the achieve transaction and the CompletionHandler (claims.ts).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';
import { newId } from '../domain/ids.ts';
import type { CompletionReport, CompletionsInOneStatement } from '../progress/service.ts';
import { progressUpsertQuery, takenKeyCondition, upsertProgressBatch } from '../progress/service.ts';
import { answeredClaimsInsert, claimsOfBatch, takenClaims } from '../idempotency/claim-in-statement.ts';
import { freeStripePick } from '../budgets/reservations.ts';
import { homeStripe } from '../domain/stripes.ts';
import { claimsCtes } from './grants.ts';
import { webhookOutboxCte } from '../webhooks/outbox.ts';
import { missionCompletedEvents } from '../webhooks/events.ts';
import type { CompletionContextOf } from './completion.ts';

/** The rule a completion pays when it is one FIXED amount and nothing else; null: pays nothing; undefined: neither. */
function fixedRewardOnly(c: Awaited<ReturnType<CompletionContextOf>>) {
  // DAILY_CHECK completions extend streaks, group rewards need the group's other records.
  if (c.promotionType !== 'COMPOSITE' || c.groupRule !== undefined) return undefined;
  if (c.missionRule === undefined) return null;
  return c.missionRule.type === 'FIXED' && c.missionRule.amount !== null ? c.missionRule : undefined;
}

/**
 * For createAchiever: writes a batch of completing reports in one statement when every report's
 * mission pays one and the same FIXED reward (or all pay nothing). The statement:
 *  - locks a stripe nobody holds with room for the whole batch (as if every report completed),
 *    nearest the first user's home stripe; without one it writes nothing (answers undefined);
 *  - upserts the records (only if it got the stripe);
 *  - writes a claim and its history for each report whose completion marker was stored (it
 *    completed its period now) and whose user is linked, as grantClaims does, and a deferred
 *    reward (nothing taken) for each such report of a user who has not linked;
 *  - writes nothing when the budget has caps (grantClaims counts them, in the transaction);
 *  - takes from the stripe exactly the amounts of the claims written;
 *  - writes the webhook messages of the completions and claims (src/webhooks/outbox.ts);
 *  - claims the reports' idempotency keys as answered (only if it got the stripe), and writes the
 *    records of those whose key it took (src/idempotency/claim-in-statement.ts).
 * The stripe is read and taken under its lock, and CHECK (remaining >= 0) holds whatever happens.
 */
export function completionsInOneStatement(context: CompletionContextOf): CompletionsInOneStatement {
  return async (db: Kysely<DB>, reports: CompletionReport[]) => {
    const rules = await Promise.all(reports.map(async (r) => fixedRewardOnly(await context(db, r))));
    if (rules.some((rule) => rule === undefined)) return undefined;
    if (rules.every((rule) => rule === null)) return upsertProgressBatch(db, reports);
    const rule = rules[0];
    if (!rule || !rules.every((r) => r && r.budget_id === rule.budget_id && r.amount === rule.amount))
      return undefined;
    const replaceTarget = (reports[0] as CompletionReport).target !== null;
    if (!reports.every((r) => (r.target !== null) === replaceTarget)) return undefined;

    const keyed = reports.some((r) => r.claim !== undefined);
    const { claims, written } = keyed ? claimsOfBatch(reports) : { claims: [], written: reports };
    const amount = BigInt(rule.amount as string);
    const first = reports[0] as CompletionReport;
    const home = homeStripe(`${first.partnerId}:${first.partnerUid}`, rule.stripes);
    const column = <T>(pick: (r: CompletionReport) => T) => reports.map(pick);
    // Only linked users hold budget: a completion by a user who has not linked is a deferred reward
    // (granted when they link). Both read the mappings in this statement's one snapshot.
    const completed = sql`
      SELECT r.*, EXISTS (SELECT 1 FROM user_mappings m WHERE m.partner_id = r.partner_id AND m.partner_uid = r.partner_uid) AS linked
      FROM unnest(${column(() => newId('clm'))}::text[], ${column((r) => r.completionMarker)}::text[], ${column((r) => r.partnerId)}::text[],
                  ${column((r) => r.partnerUid)}::text[], ${column((r) => r.promotionId)}::text[], ${column((r) => r.missionId)}::text[],
                  ${column((r) => r.periodKey)}::text[], ${column((r) => r.now.toISOString())}::timestamptz[],
                  ${column((r) => r.traceContext ?? null)}::text[])
           WITH ORDINALITY AS r(id, marker, partner_id, partner_uid, promotion_id, mission_id, period_key, at, trace_context, n)
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
      WITH ${freeStripePick(rule.budget_id, rule.stripes, home, amount * BigInt(reports.length))}${keyCtes}, up AS (
        ${upsert}
      ), done AS (${completed}), ${claimsCtes(claimRows, sql`true`)},
      ${webhookOutboxCte('completion_hooks', missionCompletedEvents(sql`done r`))},
      deferred AS (
        INSERT INTO deferred_rewards (id, kind, partner_id, partner_uid, promotion_id, source, source_id, period_key, budget_id, amount, completed_at)
        SELECT r.id, 'CLAIM', r.partner_id, r.partner_uid, r.promotion_id, 'MISSION', r.mission_id, r.period_key, ${rule.budget_id}, ${amount.toString()}::numeric, r.at
        FROM done r WHERE NOT r.linked
        ON CONFLICT DO NOTHING
      ),
      take AS (
        UPDATE budget_stripes s SET remaining = s.remaining - (SELECT count(*) FROM claim) * ${amount.toString()}::numeric
        FROM pick
        WHERE s.budget_id = ${rule.budget_id} AND s.stripe = pick.stripe AND EXISTS (SELECT 1 FROM claim)
      )
      ${answer}`;
    const name = keyed ? 'completions_fixed_keyed' : 'completions_fixed';
    const rows = (await db.executeQuery(prepared(name, query.compile(db)))).rows;
    // No free stripe had room for the batch: nothing was written.
    if (keyed ? !rows.some((r) => r.kind === 'pick') : rows.length === 0) return undefined;
    const winners = new Set(rows.map((r) => r.completed_by));
    const taken = takenClaims(claims, rows);
    return reports.map((r) => ({
      newlyCompleted: winners.has(r.completionMarker),
      keyTaken: r.claim && taken.has(r.claim),
    }));
  };
}
