// SQL of the console's read-only reports: activity per day (completions, rewards granted, payouts),
// a budget's movements per day, and the rewards set on a promotion's missions and groups.
// Days are UTC calendar days.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

const utcDay = (column: string) => sql<string>`to_char(${sql.ref(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

export async function completionsPerDay(db: Kysely<DB>, from: Date, to: Date, partnerId: string | undefined) {
  let query = db
    .selectFrom('mission_progress')
    .select([utcDay('completed_at').as('day'), sql<number>`count(*)::int`.as('n')])
    .where('completed', '=', true)
    .where('completed_at', '>=', from)
    .where('completed_at', '<', to);
  if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
  return query.groupBy(sql`1`).execute();
}

export async function claimsGrantedPerDay(
  db: Kysely<DB>,
  from: Date,
  to: Date,
  partnerId: string | undefined,
) {
  let query = db
    .selectFrom('claims')
    .select([
      utcDay('created_at').as('day'),
      sql<number>`count(*) filter (where status <> 'REJECTED' or reason is distinct from 'BUDGET_EXHAUSTED')::int`.as(
        'granted',
      ),
      sql<number>`count(*) filter (where reason = 'BUDGET_EXHAUSTED')::int`.as('refused'),
    ])
    .where('created_at', '>=', from)
    .where('created_at', '<', to);
  if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
  return query.groupBy(sql`1`).execute();
}

/** Claims paid (moved to SUCCEEDED) per day and asset, in base units. */
export async function payoutsPerDay(db: Kysely<DB>, from: Date, to: Date, partnerId: string | undefined) {
  let query = db
    .selectFrom('claim_events as e')
    .innerJoin('claims as c', (join) =>
      // On the partner too: on Citus both are distributed on partner_id, joined only on it.
      join.onRef('c.id', '=', 'e.claim_id').onRef('c.partner_id', '=', 'e.partner_id'),
    )
    .innerJoin('reward_assets as a', 'a.id', 'c.asset_id')
    .select([
      utcDay('e.at').as('day'),
      'a.id as assetId',
      'a.symbol',
      'a.decimals',
      sql<string>`sum(c.amount)::text`.as('amount'),
      sql<number>`count(*)::int`.as('count'),
    ])
    .where('e.to_status', '=', 'SUCCEEDED')
    .where('e.at', '>=', from)
    .where('e.at', '<', to);
  if (partnerId !== undefined) query = query.where('c.partner_id', '=', partnerId);
  return query.groupBy([sql`1`, 'a.id', 'a.symbol', 'a.decimals']).execute();
}

/** A budget's claim movements per day, in base units: reserved, released back, paid. */
export async function budgetMovementsPerDay(db: Kysely<DB>, budgetId: string) {
  return db
    .selectFrom('claim_events as e')
    .innerJoin('claims as c', (join) =>
      // On the partner too: on Citus both are distributed on partner_id, joined only on it.
      join.onRef('c.id', '=', 'e.claim_id').onRef('c.partner_id', '=', 'e.partner_id'),
    )
    .select([
      utcDay('e.at').as('day'),
      sql<string>`coalesce(sum(c.amount) filter (where e.from_status is null and e.to_status = 'RESERVED'), 0)::text`.as(
        'reserved',
      ),
      sql<string>`coalesce(sum(c.amount) filter (where e.from_status = 'RESERVED' and e.to_status = 'REJECTED'), 0)::text`.as(
        'released',
      ),
      sql<string>`coalesce(sum(c.amount) filter (where e.to_status = 'SUCCEEDED'), 0)::text`.as('paid'),
    ])
    .where('c.budget_id', '=', budgetId)
    .groupBy(sql`1`)
    .orderBy(sql`1`)
    .execute();
}

/** The rewards set on the missions and groups of one promotion, with budget and asset. */
export async function rewardsOfPromotion(db: Kysely<DB>, promotionId: string) {
  return db
    .selectFrom('reward_rules as r')
    .leftJoin('missions as m', 'm.id', 'r.mission_id')
    .leftJoin('mission_groups as mg', 'mg.id', 'm.mission_group_id')
    .leftJoin('mission_groups as g', 'g.id', 'r.mission_group_id')
    .innerJoin('budgets as b', 'b.id', 'r.budget_id')
    .innerJoin('reward_assets as a', 'a.id', 'b.asset_id')
    .select([
      'r.mission_id',
      'r.mission_group_id',
      'r.type',
      'r.budget_id',
      'b.name as budget_name',
      'r.amount',
      'a.symbol',
      'a.decimals',
    ])
    .where((eb) => eb.or([eb('mg.promotion_id', '=', promotionId), eb('g.promotion_id', '=', promotionId)]))
    .orderBy('r.created_at')
    .execute();
}
