// Listings of lucky-draw tickets, for operators and for the signed-in user.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ticketsNotReceivedNeedsUser } from '../error-factories.ts';

/** The lucky-draw missions of this period the partner users hold no ticket for (me/missions.ts). */
export type TicketsNotReceived = (
  db: Kysely<DB>,
  links: Array<{ partner_id: string; partner_uid: string }>,
  now: Date,
) => Promise<
  Array<{
    id: null;
    status: 'NOT_RECEIVED';
    partnerId: string;
    partnerUid: string;
    missionId: string;
    missionTitle: string;
    periodKey: string;
    drawId: null;
    won: null;
    createdAt: null;
  }>
>;

/** The operator's ticket listing: by status, or (NOT_RECEIVED) one partner user's missing tickets. */
export async function ticketsOfFilter(
  db: Kysely<DB>,
  now: Date,
  query: {
    filter?: 'NOT_RECEIVED' | 'RECEIVED' | 'DRAWN';
    partnerId?: string;
    partnerUid?: string;
    limit?: number;
    offset?: number;
  },
  ticketsNotReceived: TicketsNotReceived,
) {
  const { filter, partnerId, partnerUid } = query;
  if (filter === 'NOT_RECEIVED') {
    if (!partnerId || !partnerUid) throw ticketsNotReceivedNeedsUser();
    return ticketsNotReceived(db, [{ partner_id: partnerId, partner_uid: partnerUid }], now);
  }
  return listTickets(db, { status: filter, partnerId, partnerUid }, query.limit ?? 100, query.offset ?? 0);
}

export async function listTickets(
  db: Kysely<DB>,
  filter: { status?: 'RECEIVED' | 'DRAWN'; partnerId?: string; partnerUid?: string; accountId?: string },
  limit: number,
  offset: number,
) {
  let query = db
    .selectFrom('tickets as t')
    .innerJoin('missions as m', 'm.id', 't.mission_id')
    .select([
      't.id',
      't.status',
      't.partner_id',
      't.partner_uid',
      't.mission_id',
      'm.title',
      't.period_key',
      't.draw_id',
      't.won',
      't.created_at',
    ]);
  if (filter.status) query = query.where('t.status', '=', filter.status);
  if (filter.partnerId) query = query.where('t.partner_id', '=', filter.partnerId);
  if (filter.partnerUid) query = query.where('t.partner_uid', '=', filter.partnerUid);
  if (filter.accountId) {
    const accountId = filter.accountId;
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('user_mappings as u')
          .select('u.partner_uid')
          .whereRef('u.partner_id', '=', 't.partner_id')
          .whereRef('u.partner_uid', '=', 't.partner_uid')
          .where('u.account_id', '=', accountId),
      ),
    );
  }
  const rows = await query.orderBy('t.created_at', 'desc').limit(limit).offset(offset).execute();
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    partnerId: r.partner_id,
    partnerUid: r.partner_uid,
    missionId: r.mission_id,
    missionTitle: r.title,
    periodKey: r.period_key,
    drawId: r.draw_id,
    won: r.won,
    createdAt: r.created_at.toISOString(),
  }));
}
