// SQL of mission progress: the mission lookup for achieve and the sticky upsert, many reports at once.
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { DB, PromotionStatus, RecurrenceType } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';
import { onCitusCoordinator } from '../db/citus.ts';
import { webhookOutboxCte } from '../webhooks/store/outbox.ts';
import {
  answeredClaimsInsert,
  claimsOfBatch,
  takeAnsweredClaims,
  takenClaims,
} from '../idempotency/claim-in-statement.ts';
import type { AnsweredClaim } from '../idempotency/claim-in-statement.ts';
import {
  completionMessageOf,
  missionCompletedEvents,
  writeMissionCompletedMessages,
} from '../webhooks/store/events.ts';

export interface MissionForAchieve {
  missionId: string;
  recurrence: RecurrenceType;
  target: number | null;
  groupId: string | null;
  promotionId: string | null;
  promotionStatus: PromotionStatus | null;
  timezone: string | null;
  startAt: Date | null;
  endAt: Date | null;
}

/** The mission with its group and promotion, by (partner, missionKey); one round trip. */
export async function findMissionForAchieve(
  db: Kysely<DB>,
  partnerId: string,
  missionKey: string,
): Promise<MissionForAchieve | undefined> {
  return db
    .selectFrom('missions as m')
    .leftJoin('mission_groups as g', 'g.id', 'm.mission_group_id')
    .leftJoin('promotions as p', 'p.id', 'g.promotion_id')
    .select([
      'm.id as missionId',
      'm.recurrence',
      'm.target',
      'g.id as groupId',
      'p.id as promotionId',
      'p.status as promotionStatus',
      'p.timezone',
      'p.start_at as startAt',
      'p.end_at as endAt',
    ])
    .where('m.partner_id', '=', partnerId)
    .where('m.mission_key', '=', missionKey)
    .executeTakeFirst();
}

export interface ProgressReport {
  partnerId: string;
  partnerUid: string;
  missionId: string;
  periodKey: string;
  completed: boolean;
  /** metadata.target as the partner reported it (null when absent). */
  target: number | null;
  /** The mission's own target: the gauge's maximum for a new record the partner gave none for. */
  defaultTarget: number | null;
  current: number | null;
  now: Date;
  /** A value unique to this report; it is stored only if this report is the one that completes. */
  completionMarker: string;
  /**
   * The request's Idempotency-Key, claimed and answered by the statement that writes the record
   * (the upsert, or the FIXED-reward completion statement): the record is written only if the key
   * was taken (docs/idempotency.md).
   */
  claim?: AnsweredClaim;
}

/** The key of a progress record: reports with the same key may not share one upsert statement. */
export function progressKey(
  report: Pick<ProgressReport, 'partnerId' | 'partnerUid' | 'missionId' | 'periodKey'>,
): string {
  return `${report.partnerId}\u0000${report.partnerUid}\u0000${report.missionId}\u0000${report.periodKey}`;
}

/**
 * The upsert statement of upsertProgressBatch, rows in key order; with `onlyIf`, the rows are
 * written only when it holds (a caller composing this into a larger statement). Exported for that
 * and for the benchmark's database ceiling. With `keyed`, each row also carries its report's
 * idempotency key as `r.key_scope` and `r.key_key` (null without one) for `onlyIf` to test.
 */
export function progressUpsertQuery(
  reports: readonly ProgressReport[],
  replaceTarget: boolean,
  onlyIf: RawBuilder<unknown> = sql`true`,
  keyed = false,
) {
  const rows = [...reports].sort((a, b) => (progressKey(a) < progressKey(b) ? -1 : 1));
  const column = <T>(pick: (r: ProgressReport) => T) => rows.map(pick);
  const keyColumns = keyed
    ? sql`, ${column((r) => r.claim?.scope ?? null)}::text[], ${column((r) => r.claim?.key ?? null)}::text[]`
    : sql``;
  const keyNames = keyed ? sql`, key_scope, key_key` : sql``;
  return sql<{ completed_by: string | null }>`
      INSERT INTO mission_progress AS p (partner_id, partner_uid, mission_id, period_key, completed, target, current,
                                         completed_at, completed_by, created_at, updated_at)
      SELECT partner_id, partner_uid, mission_id, period_key, completed, target, current,
             CASE WHEN completed THEN at END, CASE WHEN completed THEN marker END, at, at
      FROM unnest(${column((r) => r.partnerId)}::text[], ${column((r) => r.partnerUid)}::text[],
                  ${column((r) => r.missionId)}::text[], ${column((r) => r.periodKey)}::text[],
                  ${column((r) => r.completed)}::boolean[], ${column((r) => r.target ?? r.defaultTarget)}::bigint[],
                  ${column((r) => r.current)}::bigint[], ${column((r) => r.completionMarker)}::text[],
                  ${column((r) => r.now.toISOString())}::timestamptz[]${keyColumns})
           AS r(partner_id, partner_uid, mission_id, period_key, completed, target, current, marker, at${keyNames})
      WHERE ${onlyIf}
      ${progressOnConflict(replaceTarget)}
      RETURNING completed_by, partner_id, partner_uid, mission_id, period_key, completed_at`;
}

/** What a report does to a stored record: `completed` sticky, the first completion kept (upsertProgressBatch). */
function progressOnConflict(replaceTarget: boolean) {
  return sql`ON CONFLICT (partner_id, partner_uid, mission_id, period_key) DO UPDATE SET
        completed = p.completed OR excluded.completed,
        completed_at = coalesce(p.completed_at, excluded.completed_at),
        completed_by = coalesce(p.completed_by, excluded.completed_by),
        target = CASE WHEN ${replaceTarget}::boolean THEN excluded.target ELSE p.target END,
        current = coalesce(excluded.current, p.current),
        report_count = p.report_count + 1,
        updated_at = excluded.updated_at`;
}

/**
 * The progress-only statement on Citus: the same upsert as one multi-row `INSERT ... VALUES`, which
 * Citus routes to the shards of the rows' partners (one, for a partner's batch), where an `INSERT
 * ... SELECT` from the batch's arrays is always planned through the coordinator, and a CTE is a
 * sub-plan of its own (docs/scaling.md "Where the crowd's cost went"). Not a named prepared
 * statement: its text varies with the batch's size.
 */
export function progressValuesUpsert(reports: readonly ProgressReport[], replaceTarget: boolean) {
  const rows = [...reports].sort((a, b) => (progressKey(a) < progressKey(b) ? -1 : 1));
  const values = rows.map((r) => {
    const at = r.now.toISOString();
    return sql`(${r.partnerId}, ${r.partnerUid}, ${r.missionId}, ${r.periodKey}, ${r.completed}::boolean,
                ${r.target ?? r.defaultTarget}::bigint, ${r.current}::bigint, ${r.completed ? at : null}::timestamptz,
                ${r.completed ? r.completionMarker : null}::text, ${at}::timestamptz, ${at}::timestamptz)`;
  });
  return sql<{ completed_by: string | null }>`
      INSERT INTO mission_progress AS p (partner_id, partner_uid, mission_id, period_key, completed, target, current,
                                         completed_at, completed_by, created_at, updated_at)
      VALUES ${sql.join(values)}
      ${progressOnConflict(replaceTarget)}
      RETURNING completed_by`;
}

/**
 * The statement of a batch of progress reports that completes nothing and has no idempotency key
 * (the commonest): the upsert, reading back only `completed_by`, the one column the batch needs
 * (the upsert's other returned columns feed the webhook CTE of a completing batch; here the driver
 * would describe and parse them for nothing, a timestamp among them). The benchmark's database
 * ceiling runs this statement too.
 */
export function progressOnlyStatement(upsert: ReturnType<typeof progressUpsertQuery>) {
  return sql<{ completed_by: string | null }>`WITH up AS (${upsert}) SELECT completed_by FROM up`;
}

/**
 * Upserts the records of many reports (distinct keys) in one statement per shape. `completed` is
 * sticky: once true it stays true, and completed_at/completed_by keep the first completing report.
 * A reported target replaces the stored one; without one, the mission's target fills new records
 * only. That choice cannot vary by row inside one ON CONFLICT clause, so reports with and without
 * a target go in separate statements (the achieve batches are of one shape, so one statement).
 * Rows are written in key order, so concurrent batches lock records in the same order and cannot
 * deadlock. Answers, per report and in the order given, whether it completed its period and, for a
 * report with an idempotency claim, whether the claim was taken (if not, its record was not written).
 */
export async function upsertProgressBatch(
  db: Kysely<DB>,
  reports: readonly ProgressReport[],
): Promise<Array<{ newlyCompleted: boolean; keyTaken?: boolean }>> {
  const winners = new Set<string>();
  const taken = new Set<AnsweredClaim>();
  for (const replaceTarget of [false, true]) {
    const rows = reports.filter((r) => (r.target !== null) === replaceTarget);
    if (rows.length === 0) continue;
    if (onCitusCoordinator()) {
      const routed = await progressRouted(db, rows, replaceTarget);
      for (const marker of routed.markers) winners.add(marker);
      for (const claim of routed.taken) taken.add(claim);
      continue;
    }
    const keyed = rows.some((r) => r.claim !== undefined);
    const { claims, written } = keyed ? claimsOfBatch(rows) : { claims: [], written: rows };
    const upsert = keyed
      ? progressUpsertQuery(written, replaceTarget, takenKeyCondition, true)
      : progressUpsertQuery(rows, replaceTarget);
    // A completing batch also writes mission.completed for the periods it completed (the marker
    // stored is this report's), in the same statement; a progress-only batch is the upsert alone
    // (progressOnlyStatement).
    const markers = rows.filter((r) => r.completed).map((r) => r.completionMarker);
    const hooks =
      markers.length === 0
        ? undefined
        : webhookOutboxCte(
            'completion_hooks',
            missionCompletedEvents(
              sql`(SELECT up.*, up.completed_at AS at FROM up WHERE up.completed_by = ANY(${markers}::text[])) r`,
            ),
          );
    const name = `progress_upsert${markers.length === 0 ? '' : '_completing'}${keyed ? '_keyed' : ''}`;
    const query = keyed
      ? sql<{ completed_by: string | null; scope: string | null; key: string | null }>`
          WITH claimed AS (${answeredClaimsInsert(claims)}), up AS (${upsert})${hooks ? sql`, ${hooks}` : sql``}
          SELECT completed_by, NULL::text AS scope, NULL::text AS key FROM up
          UNION ALL SELECT NULL, scope, key FROM claimed`
      : hooks === undefined
        ? progressOnlyStatement(upsert)
        : sql<{ completed_by: string | null }>`WITH up AS (${upsert}), ${hooks} SELECT completed_by FROM up`;
    const result = await db.executeQuery(prepared(name, query.compile(db)));
    const out = result.rows as Array<{
      completed_by: string | null;
      scope?: string | null;
      key?: string | null;
    }>;
    for (const row of out) if (row.completed_by != null) winners.add(row.completed_by);
    if (keyed) for (const claim of takenClaims(claims, out)) taken.add(claim);
  }
  // Markers are unique per report: a report completed its period iff its marker was stored.
  return reports.map((r) => ({
    newlyCompleted: r.completed && winners.has(r.completionMarker),
    keyTaken: r.claim && taken.has(r.claim),
  }));
}

/**
 * A batch of one shape on Citus, as routed statements: the idempotency keys it carries, taken as one
 * `INSERT ... VALUES` (takeAnsweredClaims); the records of the reports without a key or whose key was
 * taken, as one `INSERT ... VALUES` (progressValuesUpsert); for a completing batch the
 * mission.completed messages of the periods it completed, partner by partner, only when the partner
 * has an enabled endpoint. All in one transaction (the caller's, or one of their own) but for an
 * unkeyed progress-only batch, the upsert alone. Answers the markers stored and the keys taken.
 */
async function progressRouted(
  db: Kysely<DB>,
  rows: readonly ProgressReport[],
  replaceTarget: boolean,
): Promise<{ markers: string[]; taken: Set<AnsweredClaim> }> {
  const upsert = async (on: Kysely<DB>, reports: readonly ProgressReport[]) =>
    reports.length === 0
      ? []
      : (await progressValuesUpsert(reports, replaceTarget).execute(on)).rows.flatMap((row) =>
          row.completed_by === null ? [] : [row.completed_by],
        );
  const keyed = rows.some((r) => r.claim !== undefined);
  if (!keyed && !rows.some((r) => r.completed)) return { markers: await upsert(db, rows), taken: new Set() };
  const write = async (trx: Kysely<DB>) => {
    const { claims, written } = keyed ? claimsOfBatch(rows) : { claims: [], written: rows };
    const taken = await takeAnsweredClaims(trx, claims);
    const stored = written.filter((r) => r.claim === undefined || taken.has(r.claim));
    const markers = await upsert(trx, stored);
    const won = new Set(markers);
    const done = stored.filter((r) => r.completed && won.has(r.completionMarker));
    for (const partnerId of [...new Set(done.map((r) => r.partnerId))].sort())
      await writeMissionCompletedMessages(
        trx,
        partnerId,
        done.filter((r) => r.partnerId === partnerId).map(completionMessageOf),
      );
    return { markers, taken };
  };
  return db.isTransaction ? write(db) : db.transaction().execute(write);
}

/**
 * The upsert's condition for a keyed batch (progressUpsertQuery with `keyed`): a report without a
 * key, or whose key the statement's `claimed` CTE took.
 */
export const takenKeyCondition = sql`(r.key_scope IS NULL OR EXISTS (SELECT 1 FROM claimed c WHERE c.scope = r.key_scope AND c.key = r.key_key))`;

export async function listUserProgress(db: Kysely<DB>, partnerId: string, partnerUid: string) {
  return db
    .selectFrom('mission_progress as r')
    .innerJoin('missions as m', 'm.id', 'r.mission_id')
    .select([
      'm.mission_key as missionKey',
      'r.mission_id as missionId',
      'r.period_key as periodKey',
      'r.completed',
      'r.target',
      'r.current',
      'r.completed_at as completedAt',
      'r.report_count as reportCount',
      'r.created_at as createdAt',
      'r.updated_at as updatedAt',
    ])
    .where('r.partner_id', '=', partnerId)
    .where('r.partner_uid', '=', partnerUid)
    .orderBy('r.created_at')
    .orderBy('m.mission_key')
    .execute();
}
