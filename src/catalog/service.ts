// Catalog use cases: promotions (with the fields that freeze once ACTIVE), mission groups, missions.
import type { Kysely } from 'kysely';
import {
  duplicateMissionKey,
  endBeforeStart,
  immutablePromotionField,
  invalidTimezone,
  missionGroupNotFound,
  missionNotFound,
  partnerNotFound,
  promotionNotFound,
} from '../error-factories.ts';
import type { DB, PromotionStatus, PromotionType, RecurrenceType } from '../db/schema.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import { isValidTimeZone } from '../domain/periods.ts';
import { findPartner } from '../partners/service.ts';
import * as store from './store.ts';
import { titlesColumn } from './titles.ts';
import type { Titles } from './titles.ts';
import type { MissionGroupRow, MissionRow, PromotionRow } from './store.ts';

export interface PromotionView {
  id: string;
  partnerId: string;
  type: PromotionType;
  title: string;
  titles: Titles;
  timezone: string;
  startAt: string;
  endAt: string | null;
  status: PromotionStatus;
  activatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function promotionView(row: PromotionRow): PromotionView {
  return {
    id: row.id,
    partnerId: row.partner_id,
    type: row.type,
    title: row.title,
    titles: row.titles,
    timezone: row.timezone,
    startAt: row.start_at.toISOString(),
    endAt: row.end_at?.toISOString() ?? null,
    status: row.status,
    activatedAt: row.activated_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export interface MissionGroupView {
  id: string;
  promotionId: string;
  partnerId: string;
  title: string;
  titles: Titles;
  createdAt: string;
  updatedAt: string;
}

function missionGroupView(row: MissionGroupRow): MissionGroupView {
  return {
    id: row.id,
    promotionId: row.promotion_id,
    partnerId: row.partner_id,
    title: row.title,
    titles: row.titles,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export interface MissionView {
  id: string;
  missionGroupId: string;
  partnerId: string;
  missionKey: string;
  title: string;
  titles: Titles;
  recurrence: RecurrenceType;
  target: number | null;
  createdAt: string;
  updatedAt: string;
}

function missionView(row: MissionRow): MissionView {
  return {
    id: row.id,
    missionGroupId: row.mission_group_id,
    partnerId: row.partner_id,
    missionKey: row.mission_key,
    title: row.title,
    titles: row.titles,
    recurrence: row.recurrence,
    target: row.target,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function checkTimeZone(timezone: string): void {
  if (!isValidTimeZone(timezone)) {
    throw invalidTimezone(timezone);
  }
}

function checkWindow(startAt: Date, endAt: Date | null): void {
  if (endAt !== null && endAt <= startAt) {
    throw endBeforeStart();
  }
}

export interface PromotionInput {
  partnerId: string;
  type: PromotionType;
  title: string;
  titles?: Titles;
  timezone: string;
  startAt: string;
  endAt?: string | null;
  status?: PromotionStatus;
}

export async function createPromotion(
  db: Kysely<DB>,
  clock: Clock,
  input: PromotionInput,
): Promise<PromotionView> {
  checkTimeZone(input.timezone);
  const startAt = new Date(input.startAt);
  const endAt = input.endAt ? new Date(input.endAt) : null;
  checkWindow(startAt, endAt);
  if (!(await findPartner(db, input.partnerId))) {
    throw partnerNotFound(input.partnerId, 'partnerId');
  }
  const now = clock.now();
  const status = input.status ?? 'INACTIVE';
  const row = await store.insertPromotion(db, {
    id: newId('prm'),
    partner_id: input.partnerId,
    type: input.type,
    title: input.title,
    titles: titlesColumn(input.titles),
    timezone: input.timezone,
    start_at: startAt,
    end_at: endAt,
    status,
    activated_at: status === 'ACTIVE' ? now : null,
    created_at: now,
    updated_at: now,
  });
  return promotionView(row);
}

export async function getPromotion(db: Kysely<DB>, id: string): Promise<PromotionView> {
  const row = await store.findPromotion(db, id);
  if (!row) throw promotionNotFound(id);
  return promotionView(row);
}

export async function listPromotions(
  db: Kysely<DB>,
  filter: { partnerId?: string; status?: PromotionStatus; limit: number; offset: number },
): Promise<PromotionView[]> {
  return (await store.listPromotions(db, filter)).map(promotionView);
}

/** Fields fixed from the first activation: they decide who reports, which periods and what counts. */
const IMMUTABLE_ONCE_ACTIVE = ['partnerId', 'type', 'startAt', 'timezone'] as const;

export async function updatePromotion(
  db: Kysely<DB>,
  clock: Clock,
  id: string,
  input: Partial<PromotionInput>,
): Promise<PromotionView> {
  return db.transaction().execute(async (trx) => {
    const current = await store.findPromotion(trx, id, true);
    if (!current) throw promotionNotFound(id);
    const before = promotionView(current);
    if (current.activated_at !== null) {
      for (const field of IMMUTABLE_ONCE_ACTIVE) {
        const next = input[field];
        const changed =
          next !== undefined &&
          (field === 'startAt'
            ? new Date(next).getTime() !== current.start_at.getTime()
            : next !== before[field]);
        if (changed) {
          throw immutablePromotionField(field);
        }
      }
    }
    if (input.timezone !== undefined) checkTimeZone(input.timezone);
    if (input.partnerId !== undefined && !(await findPartner(trx, input.partnerId))) {
      throw partnerNotFound(input.partnerId, 'partnerId');
    }
    const startAt = input.startAt !== undefined ? new Date(input.startAt) : current.start_at;
    const endAt =
      input.endAt !== undefined ? (input.endAt === null ? null : new Date(input.endAt)) : current.end_at;
    checkWindow(startAt, endAt);
    const now = clock.now();
    const row = await store.updatePromotion(trx, id, {
      ...(input.partnerId !== undefined && { partner_id: input.partnerId }),
      ...(input.type !== undefined && { type: input.type }),
      ...(input.title !== undefined && { title: input.title }),
      ...(input.titles !== undefined && { titles: titlesColumn(input.titles) }),
      ...(input.timezone !== undefined && { timezone: input.timezone }),
      start_at: startAt,
      end_at: endAt,
      ...(input.status !== undefined && { status: input.status }),
      ...(input.status === 'ACTIVE' && current.activated_at === null && { activated_at: now }),
      updated_at: now,
    });
    return promotionView(row);
  });
}

export async function createMissionGroup(
  db: Kysely<DB>,
  clock: Clock,
  promotionId: string,
  input: { title: string; titles?: Titles },
): Promise<MissionGroupView> {
  const promotion = await store.findPromotion(db, promotionId);
  if (!promotion) throw promotionNotFound(promotionId);
  const now = clock.now();
  const row = await store.insertMissionGroup(db, {
    id: newId('grp'),
    partner_id: promotion.partner_id,
    promotion_id: promotionId,
    title: input.title,
    titles: titlesColumn(input.titles),
    created_at: now,
    updated_at: now,
  });
  return missionGroupView(row);
}

export async function listMissionGroups(db: Kysely<DB>, promotionId: string): Promise<MissionGroupView[]> {
  await getPromotion(db, promotionId);
  return (await store.listMissionGroups(db, promotionId)).map(missionGroupView);
}

export async function getMissionGroup(db: Kysely<DB>, id: string): Promise<MissionGroupView> {
  const row = await store.findMissionGroup(db, id);
  if (!row) throw missionGroupNotFound(id);
  return missionGroupView(row);
}

export async function updateMissionGroup(
  db: Kysely<DB>,
  clock: Clock,
  id: string,
  input: { title?: string; titles?: Titles },
): Promise<MissionGroupView> {
  const row = await store.updateMissionGroup(db, id, {
    ...(input.title !== undefined && { title: input.title }),
    ...(input.titles !== undefined && { titles: titlesColumn(input.titles) }),
    updated_at: clock.now(),
  });
  if (!row) throw missionGroupNotFound(id);
  return missionGroupView(row);
}

export async function createMission(
  db: Kysely<DB>,
  clock: Clock,
  groupId: string,
  input: {
    missionKey: string;
    title: string;
    titles?: Titles;
    recurrence: RecurrenceType;
    target?: number | null;
  },
): Promise<MissionView> {
  const group = await store.findMissionGroup(db, groupId);
  if (!group) throw missionGroupNotFound(groupId);
  const now = clock.now();
  try {
    const row = await store.insertMission(db, {
      id: newId('msn'),
      partner_id: group.partner_id,
      mission_group_id: groupId,
      mission_key: input.missionKey,
      title: input.title,
      titles: titlesColumn(input.titles),
      recurrence: input.recurrence,
      target: input.target ?? null,
      created_at: now,
      updated_at: now,
    });
    return missionView(row);
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw duplicateMissionKey(input.missionKey, { cause: error });
    }
    throw error;
  }
}

export async function listMissions(db: Kysely<DB>, groupId: string): Promise<MissionView[]> {
  await getMissionGroup(db, groupId);
  return (await store.listMissions(db, groupId)).map(missionView);
}

export async function getMission(db: Kysely<DB>, id: string): Promise<MissionView> {
  const row = await store.findMission(db, id);
  if (!row) throw missionNotFound(id);
  return missionView(row);
}

/** Title, titles and target may change; the key and recurrence may not, since reports and periods hang on them. */
export async function updateMission(
  db: Kysely<DB>,
  clock: Clock,
  id: string,
  input: { title?: string; titles?: Titles; target?: number | null },
): Promise<MissionView> {
  const row = await store.updateMission(db, id, {
    ...(input.title !== undefined && { title: input.title }),
    ...(input.titles !== undefined && { titles: titlesColumn(input.titles) }),
    ...(input.target !== undefined && { target: input.target }),
    updated_at: clock.now(),
  });
  if (!row) throw missionNotFound(id);
  return missionView(row);
}
