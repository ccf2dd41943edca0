// Achieve: find the mission, check that the report is valid, upsert the progress record and, when
// this report completes the period, trigger the reward, all in one transaction.
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { appError } from '../errors.ts';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { periodKeyFor } from '../domain/periods.ts';
import * as store from './store.ts';

export interface AchieveInput {
  partnerUid: string;
  missionKey: string;
  completed: boolean;
  metadata?: { target?: number; current?: number };
}

/** What a completion hands to the reward step. */
export interface CompletionEvent {
  partnerId: string;
  partnerUid: string;
  missionId: string;
  promotionId: string;
  groupId: string;
  periodKey: string;
  completedAt: Date;
}

/**
 * Called inside the achieve transaction when a report first completes a period. The rewards
 * capability plugs in here; whatever it writes commits or rolls back with the progress record.
 */
export type CompletionHandler = (trx: Transaction<DB>, event: CompletionEvent) => Promise<void>;

export interface AchieveResult {
  periodKey: string;
  newlyCompleted: boolean;
}

export async function achieve(
  db: Kysely<DB>,
  clock: Clock,
  partnerId: string,
  input: AchieveInput,
  onCompletion?: CompletionHandler,
  /** Where the mission comes from (the hot-path cache in the server). */
  findMission: typeof store.findMissionForAchieve = store.findMissionForAchieve,
): Promise<AchieveResult> {
  const mission = await findMission(db, partnerId, input.missionKey);
  if (!mission) throw appError('NOT_FOUND_MISSION', `no mission '${input.missionKey}' for this partner`);
  if (mission.groupId === null) {
    throw appError('NOT_FOUND_MISSION_GROUP', `the group of mission '${input.missionKey}' no longer exists`);
  }
  if (mission.promotionId === null || mission.timezone === null || mission.startAt === null) {
    throw appError('NOT_FOUND_PROMOTION', `the promotion of mission '${input.missionKey}' no longer exists`);
  }
  if (mission.promotionStatus !== 'ACTIVE') {
    throw appError('PROMOTION_NOT_ACTIVE', `the promotion of mission '${input.missionKey}' is not ACTIVE`);
  }
  const now = clock.now();
  if (now < mission.startAt || (mission.endAt !== null && now >= mission.endAt)) {
    throw appError(
      'PROMOTION_NOT_IN_PERIOD',
      `the promotion of mission '${input.missionKey}' runs from ${mission.startAt.toISOString()} to ${
        mission.endAt?.toISOString() ?? 'open end'
      }`,
    );
  }
  const current = input.metadata?.current ?? null;
  if (input.completed && mission.target !== null && (current === null || current < mission.target)) {
    throw appError(
      'INVALID_MISSION_COMPLETION',
      `mission '${input.missionKey}' needs metadata.current >= ${mission.target} to complete; got ${current ?? 'none'}`,
    );
  }

  const periodKey = periodKeyFor(mission.recurrence, now, mission.timezone);
  const promotionId = mission.promotionId;
  const groupId = mission.groupId;
  const report = {
    partnerId,
    partnerUid: input.partnerUid,
    missionId: mission.missionId,
    periodKey,
    completed: input.completed,
    target: input.metadata?.target ?? null,
    defaultTarget: mission.target,
    current,
    now,
  };
  if (!input.completed) {
    // Progress only: nothing can be completed, so the one upsert statement is the whole write
    // (atomic on its own; one round trip instead of BEGIN, upsert, COMMIT).
    await store.upsertProgress(db, { ...report, completionMarker: randomUUID() });
    return { periodKey, newlyCompleted: false };
  }
  // One transaction: a 200 means the record (and any reward it triggered) is committed.
  return db.transaction().execute(async (trx) => {
    const { newlyCompleted } = await store.upsertProgress(trx, { ...report, completionMarker: randomUUID() });
    if (newlyCompleted && onCompletion) {
      // Completion event: the reward for this (user, mission, period) is reserved here, exactly once.
      await onCompletion(trx, {
        partnerId,
        partnerUid: input.partnerUid,
        missionId: mission.missionId,
        promotionId,
        groupId,
        periodKey,
        completedAt: now,
      });
    }
    return { periodKey, newlyCompleted };
  });
}

export async function userProgress(db: Kysely<DB>, partnerId: string, partnerUid: string) {
  const rows = await store.listUserProgress(db, partnerId, partnerUid);
  return rows.map((row) => ({
    ...row,
    completedAt: row.completedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
}
