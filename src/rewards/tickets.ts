// Lucky-draw tickets as operators and users see them, by TicketFilter: RECEIVED (waiting for a draw),
// DRAWN (took part in a draw; won true or false), and NOT_RECEIVED (a LUCKY_DRAW mission of an ACTIVE
// promotion the user has no ticket for in its current period; such an item has no id).
import type { Kysely } from 'kysely';
import type { DB, RecurrenceType } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { periodKeyFor } from '../domain/periods.ts';

export type TicketFilter = 'NOT_RECEIVED' | 'RECEIVED' | 'DRAWN';

export interface TicketView {
  id: string | null;
  status: TicketFilter;
  partnerId: string;
  partnerUid: string;
  /** The mission that earned it; null for a mission group's ticket. */
  missionId: string | null;
  /** The mission's title, or the group's for a group ticket. */
  missionTitle: string;
  missionGroupId: string | null;
  periodKey: string;
  budgetId: string;
  drawId: string | null;
  won: boolean | null;
  createdAt: string | null;
}

export interface PartnerUser {
  partnerId: string;
  partnerUid: string;
}

export interface TicketQuery {
  filter?: TicketFilter;
  users?: readonly PartnerUser[];
  partnerId?: string;
  missionId?: string;
  budgetId?: string;
  drawId?: string;
  won?: boolean;
  limit: number;
  offset: number;
}

async function issuedTickets(db: Kysely<DB>, query: TicketQuery): Promise<TicketView[]> {
  let q = db
    .selectFrom('tickets as t')
    .leftJoin('missions as m', 'm.id', 't.mission_id')
    .leftJoin('mission_groups as g', 'g.id', 't.mission_group_id')
    .select([
      't.id',
      't.status',
      't.partner_id',
      't.partner_uid',
      't.mission_id',
      't.mission_group_id',
      'm.title as missionTitle',
      'g.title as groupTitle',
      't.period_key',
      't.budget_id',
      't.draw_id',
      't.won',
      't.created_at',
    ]);
  if (query.filter === 'RECEIVED' || query.filter === 'DRAWN') q = q.where('t.status', '=', query.filter);
  if (query.partnerId !== undefined) q = q.where('t.partner_id', '=', query.partnerId);
  if (query.missionId !== undefined) q = q.where('t.mission_id', '=', query.missionId);
  if (query.budgetId !== undefined) q = q.where('t.budget_id', '=', query.budgetId);
  if (query.drawId !== undefined) q = q.where('t.draw_id', '=', query.drawId);
  if (query.won !== undefined) q = q.where('t.won', '=', query.won);
  if (query.users !== undefined) {
    const users = query.users;
    if (users.length === 0) return [];
    q = q.where((eb) => eb.or(users.map((u) => eb.and([eb('t.partner_id', '=', u.partnerId), eb('t.partner_uid', '=', u.partnerUid)]))));
  }
  const rows = await q.orderBy('t.created_at', 'desc').orderBy('t.id').limit(query.limit).offset(query.offset).execute();
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    partnerId: r.partner_id,
    partnerUid: r.partner_uid,
    missionId: r.mission_id,
    missionTitle: r.missionTitle ?? r.groupTitle ?? '',
    missionGroupId: r.mission_group_id,
    periodKey: r.period_key,
    budgetId: r.budget_id,
    drawId: r.draw_id,
    won: r.won,
    createdAt: r.created_at.toISOString(),
  }));
}

/** LUCKY_DRAW missions of ACTIVE promotions of the users' partners without a ticket this period. */
async function ticketsNotReceived(db: Kysely<DB>, clock: Clock, users: readonly PartnerUser[], query: TicketQuery): Promise<TicketView[]> {
  if (users.length === 0) return [];
  const partnerIds = [...new Set(users.map((u) => u.partnerId))];
  let q = db
    .selectFrom('reward_rules as r')
    .innerJoin('missions as m', 'm.id', 'r.mission_id')
    .innerJoin('mission_groups as g', 'g.id', 'm.mission_group_id')
    .innerJoin('promotions as p', 'p.id', 'g.promotion_id')
    .select(['m.id', 'm.title', 'm.partner_id', 'm.recurrence', 'p.timezone', 'r.budget_id'])
    .where('r.type', '=', 'LUCKY_DRAW')
    .where('p.status', '=', 'ACTIVE')
    .where('m.partner_id', 'in', partnerIds);
  if (query.missionId !== undefined) q = q.where('m.id', '=', query.missionId);
  if (query.budgetId !== undefined) q = q.where('r.budget_id', '=', query.budgetId);
  const missions = await q.orderBy('m.created_at').orderBy('m.id').execute();
  const now = clock.now();
  const wanted = users.flatMap((u) =>
    missions
      .filter((m) => m.partner_id === u.partnerId)
      .map((m) => ({ user: u, mission: m, periodKey: periodKeyFor(m.recurrence as RecurrenceType, now, m.timezone) })),
  );
  if (wanted.length === 0) return [];
  const held = await db
    .selectFrom('tickets')
    .select(['partner_id', 'partner_uid', 'mission_id', 'period_key'])
    .where((eb) =>
      eb.or(
        wanted.map((w) =>
          eb.and([
            eb('partner_id', '=', w.user.partnerId),
            eb('partner_uid', '=', w.user.partnerUid),
            eb('mission_id', '=', w.mission.id),
            eb('period_key', '=', w.periodKey),
          ]),
        ),
      ),
    )
    .execute();
  const has = new Set(held.map((t) => `${t.partner_id}\n${t.partner_uid}\n${t.mission_id}\n${t.period_key}`));
  return wanted
    .filter((w) => !has.has(`${w.user.partnerId}\n${w.user.partnerUid}\n${w.mission.id}\n${w.periodKey}`))
    .slice(query.offset, query.offset + query.limit)
    .map((w) => ({
      id: null,
      status: 'NOT_RECEIVED' as const,
      partnerId: w.user.partnerId,
      partnerUid: w.user.partnerUid,
      missionId: w.mission.id,
      missionTitle: w.mission.title,
      missionGroupId: null,
      periodKey: w.periodKey,
      budgetId: w.mission.budget_id,
      drawId: null,
      won: null,
      createdAt: null,
    }));
}

/** Tickets by filter; NOT_RECEIVED needs the users (`users`) it is about. */
export async function listTickets(db: Kysely<DB>, clock: Clock, query: TicketQuery): Promise<TicketView[]> {
  if (query.filter === 'NOT_RECEIVED') return ticketsNotReceived(db, clock, query.users ?? [], query);
  return issuedTickets(db, query);
}

/** The partner users linked to a platform account. */
export async function usersOfAccount(db: Kysely<DB>, accountId: string): Promise<PartnerUser[]> {
  const rows = await db.selectFrom('user_mappings').select(['partner_id', 'partner_uid']).where('account_id', '=', accountId).execute();
  return rows.map((r) => ({ partnerId: r.partner_id, partnerUid: r.partner_uid }));
}
