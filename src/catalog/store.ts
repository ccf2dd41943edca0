// SQL of the mission catalog: promotions, mission groups and missions.
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB, MissionGroupsTable, MissionsTable, PromotionsTable } from '../db/schema.ts';

export type PromotionRow = Selectable<PromotionsTable>;
export type MissionGroupRow = Selectable<MissionGroupsTable>;
export type MissionRow = Selectable<MissionsTable>;

export async function insertPromotion(
  db: Kysely<DB>,
  row: Insertable<PromotionsTable>,
): Promise<PromotionRow> {
  return db.insertInto('promotions').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findPromotion(
  db: Kysely<DB>,
  id: string,
  forUpdate = false,
): Promise<PromotionRow | undefined> {
  let query = db.selectFrom('promotions').selectAll().where('id', '=', id);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function listPromotions(
  db: Kysely<DB>,
  filter: { partnerId?: string; status?: 'ACTIVE' | 'INACTIVE'; limit: number; offset: number },
): Promise<PromotionRow[]> {
  let query = db.selectFrom('promotions').selectAll();
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return query.orderBy('created_at').orderBy('id').limit(filter.limit).offset(filter.offset).execute();
}

export async function updatePromotion(
  db: Kysely<DB>,
  id: string,
  changes: Updateable<PromotionsTable>,
): Promise<PromotionRow> {
  return db
    .updateTable('promotions')
    .set(changes)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertMissionGroup(
  db: Kysely<DB>,
  row: Insertable<MissionGroupsTable>,
): Promise<MissionGroupRow> {
  return db.insertInto('mission_groups').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findMissionGroup(db: Kysely<DB>, id: string): Promise<MissionGroupRow | undefined> {
  return db.selectFrom('mission_groups').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listMissionGroups(db: Kysely<DB>, promotionId: string): Promise<MissionGroupRow[]> {
  return db
    .selectFrom('mission_groups')
    .selectAll()
    .where('promotion_id', '=', promotionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function updateMissionGroup(
  db: Kysely<DB>,
  id: string,
  changes: Updateable<MissionGroupsTable>,
): Promise<MissionGroupRow | undefined> {
  return db.updateTable('mission_groups').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function insertMission(db: Kysely<DB>, row: Insertable<MissionsTable>): Promise<MissionRow> {
  return db.insertInto('missions').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findMission(db: Kysely<DB>, id: string): Promise<MissionRow | undefined> {
  return db.selectFrom('missions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listMissions(db: Kysely<DB>, groupId: string): Promise<MissionRow[]> {
  return db
    .selectFrom('missions')
    .selectAll()
    .where('mission_group_id', '=', groupId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function updateMission(
  db: Kysely<DB>,
  id: string,
  changes: Updateable<MissionsTable>,
): Promise<MissionRow | undefined> {
  return db.updateTable('missions').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}
