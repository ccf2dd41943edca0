// Listings of lucky-draw tickets, for operators and for the signed-in user.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

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
