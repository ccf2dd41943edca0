// Listings of lucky-draw tickets, for operators and for the signed-in user.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ticketsNotReceivedNeedsUser } from '../error-factories.ts';
import { ticketRows } from './store.ts';
import type { TicketRowFilter } from './store.ts';

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

export async function listTickets(db: Kysely<DB>, filter: TicketRowFilter, limit: number, offset: number) {
  const rows = await ticketRows(db, filter, limit, offset);
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
