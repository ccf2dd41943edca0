// SQL of mission progress: the mission lookup for achieve and the sticky upsert.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB, PromotionStatus, RecurrenceType } from '../db/schema.ts';

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
}

/**
 * Upserts the record of (partner, user, mission, period) in one statement. `completed` is sticky:
 * once true it stays true, and completed_at/completed_by keep the first completing report. Returns
 * whether this very report completed the period (its marker won).
 */
export async function upsertProgress(db: Kysely<DB>, report: ProgressReport): Promise<{ newlyCompleted: boolean }> {
  const row = await db
    .insertInto('mission_progress')
    .values({
      partner_id: report.partnerId,
      partner_uid: report.partnerUid,
      mission_id: report.missionId,
      period_key: report.periodKey,
      completed: report.completed,
      target: report.target ?? report.defaultTarget,
      current: report.current,
      completed_at: report.completed ? report.now : null,
      completed_by: report.completed ? report.completionMarker : null,
      created_at: report.now,
      updated_at: report.now,
    })
    .onConflict((oc) =>
      oc.columns(['partner_id', 'partner_uid', 'mission_id', 'period_key']).doUpdateSet({
        completed: sql<boolean>`mission_progress.completed OR excluded.completed`,
        completed_at: sql<Date>`coalesce(mission_progress.completed_at, excluded.completed_at)`,
        completed_by: sql<string>`coalesce(mission_progress.completed_by, excluded.completed_by)`,
        // Only a reported target replaces the stored one; the mission's default fills new records only.
        target: sql<number>`coalesce(${report.target}::bigint, mission_progress.target)`,
        current: sql<number>`coalesce(excluded.current, mission_progress.current)`,
        report_count: sql<number>`mission_progress.report_count + 1`,
        updated_at: sql<Date>`excluded.updated_at`,
      }),
    )
    .returning('completed_by')
    .executeTakeFirstOrThrow();
  return { newlyCompleted: report.completed && row.completed_by === report.completionMarker };
}

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
