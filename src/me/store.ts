// The SQL of the end user's read models: the partner users an account is linked as, the missions
// of their ACTIVE promotions, this period's progress, claims and tickets, streaks, the prizes of
// winning tickets and what claims paid on a chain.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/** One partner user's mission in one period. */
export interface MissionPeriod {
  partnerId: string;
  partnerUid: string;
  missionId: string;
  periodKey: string;
}

/** The partner users an account is linked as. */
export function linksOf(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('user_mappings')
    .select(['partner_id', 'partner_uid'])
    .where('account_id', '=', accountId)
    .execute();
}

/** The missions of the partners' ACTIVE promotions running at `now`, with the reward each carries. */
export function activeMissionRows(db: Kysely<DB>, partnerIds: string[], now: Date) {
  return db
    .selectFrom('missions as m')
    .innerJoin('mission_groups as g', 'g.id', 'm.mission_group_id')
    .innerJoin('promotions as p', 'p.id', 'g.promotion_id')
    .innerJoin('partners as pt', 'pt.id', 'p.partner_id')
    .leftJoin('reward_rules as r', 'r.mission_id', 'm.id')
    .leftJoin('budgets as b', 'b.id', 'r.budget_id')
    .leftJoin('reward_assets as a', 'a.id', 'b.asset_id')
    .select([
      'm.id',
      'm.mission_key',
      'm.title',
      'm.titles',
      'm.recurrence',
      'm.target',
      'g.id as group_id',
      'g.title as group_title',
      'g.titles as group_titles',
      'p.id as promotion_id',
      'p.title as promotion_title',
      'p.titles as promotion_titles',
      'p.type as promotion_type',
      'p.timezone',
      'p.start_at',
      'p.end_at',
      'pt.id as partner_id',
      'pt.name as partner_name',
      'r.type as reward_type',
      'r.amount as reward_amount',
      'a.symbol',
      'a.decimals',
    ])
    .where('p.partner_id', 'in', partnerIds)
    .where('p.status', '=', 'ACTIVE')
    .where('p.start_at', '<=', now)
    .where((eb) => eb.or([eb('p.end_at', 'is', null), eb('p.end_at', '>', now)]))
    .orderBy('pt.name')
    .orderBy('p.start_at')
    .orderBy('g.created_at')
    .orderBy('m.created_at')
    .execute();
}

/** The progress records of these mission periods (none asked, none read). */
export async function progressRows(db: Kysely<DB>, keys: readonly MissionPeriod[]) {
  if (keys.length === 0) return [];
  return db
    .selectFrom('mission_progress')
    .select(['mission_id', 'period_key', 'partner_id', 'completed', 'target', 'current', 'completed_at'])
    .where((eb) =>
      eb.or(
        keys.map((k) =>
          eb.and([
            eb('partner_id', '=', k.partnerId),
            eb('partner_uid', '=', k.partnerUid),
            eb('mission_id', '=', k.missionId),
            eb('period_key', '=', k.periodKey),
          ]),
        ),
      ),
    )
    .execute();
}

/** The MISSION claims of these mission periods (none asked, none read). */
export async function missionClaimRows(db: Kysely<DB>, keys: readonly MissionPeriod[]) {
  if (keys.length === 0) return [];
  return db
    .selectFrom('claims')
    .select(['source_id', 'period_key', 'status', 'reason', 'completed_before_link'])
    .where('source', '=', 'MISSION')
    .where((eb) =>
      eb.or(
        keys.map((k) =>
          eb.and([
            eb('partner_id', '=', k.partnerId),
            eb('partner_uid', '=', k.partnerUid),
            eb('source_id', '=', k.missionId),
            eb('period_key', '=', k.periodKey),
          ]),
        ),
      ),
    )
    .execute();
}

/** The tickets held for these mission periods (none asked, none read). */
export async function heldTickets(db: Kysely<DB>, keys: readonly MissionPeriod[]) {
  if (keys.length === 0) return [];
  return db
    .selectFrom('tickets')
    .select(['mission_id', 'period_key', 'partner_id'])
    .where((eb) =>
      eb.or(
        keys.map((k) =>
          eb.and([
            eb('partner_id', '=', k.partnerId),
            eb('partner_uid', '=', k.partnerUid),
            eb('mission_id', '=', k.missionId),
            eb('period_key', '=', k.periodKey),
          ]),
        ),
      ),
    )
    .execute();
}

/** The check-in streaks of the partner users the account is linked as. */
export function streakRowsOf(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('user_streaks as s')
    .innerJoin('promotions as p', 'p.id', 's.promotion_id')
    .innerJoin('user_mappings as u', (join) =>
      join.onRef('u.partner_id', '=', 's.partner_id').onRef('u.partner_uid', '=', 's.partner_uid'),
    )
    .select(['s.promotion_id', 'p.title', 'p.titles', 'p.timezone', 's.current', 's.best', 's.last_date'])
    .where('u.account_id', '=', accountId)
    .execute();
}

/** The translated titles of these missions. */
export function missionTitleRows(db: Kysely<DB>, ids: string[]) {
  return db.selectFrom('missions').select(['id', 'titles']).where('id', 'in', ids).execute();
}

/** The DRAW claims granted for these tickets (a draw grants its prize with period_key = the ticket id). */
export function drawPrizeRows(db: Kysely<DB>, ticketIds: string[]) {
  return db
    .selectFrom('claims as c')
    .innerJoin('reward_assets as a', 'a.id', 'c.asset_id')
    .select(['c.period_key', 'c.amount', 'c.status', 'a.symbol', 'a.decimals'])
    .where('c.source', '=', 'DRAW')
    .where('c.period_key', 'in', ticketIds)
    .execute();
}

/** Per asset, what the account's SUCCEEDED claims paid on a chain (a payout not REVERTED). */
export function chainPaidRows(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('claims as c')
    .innerJoin('reward_assets as a', 'a.id', 'c.asset_id')
    .select(['a.id', 'a.symbol', 'a.name', 'a.decimals', sql<string>`sum(c.amount)::text`.as('paid')])
    .where('c.account_id', '=', accountId)
    .where('c.status', '=', 'SUCCEEDED')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('chain_payouts as p')
          .select('p.id')
          .whereRef('p.claim_id', '=', 'c.id')
          .where('p.status', '<>', 'REVERTED'),
      ),
    )
    .groupBy(['a.id', 'a.symbol', 'a.name', 'a.decimals'])
    .execute();
}
