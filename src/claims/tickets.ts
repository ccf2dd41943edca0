// Lucky-draw tickets issued by completions (a LUCKY_DRAW rule on a mission); a later draw
// (src/draws/) may turn a ticket into a prize.
import { sql } from 'kysely';
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';
import { newId } from '../domain/ids.ts';

/** A lucky-draw ticket earned by a completion. */
export interface TicketGrant {
  partnerId: string;
  partnerUid: string;
  promotionId: string | null;
  missionId: string;
  budgetId: string;
  periodKey: string;
  now: Date;
}

/**
 * One statement: the tickets of linked users are issued (one per user, mission and period); those
 * of users who have not linked are deferred, so a made-up user never holds a ticket that a draw
 * could turn into a prize.
 */
export async function grantTickets(trx: Transaction<DB>, tickets: readonly TicketGrant[]): Promise<void> {
  if (tickets.length === 0) return;
  const column = <T>(pick: (t: TicketGrant) => T) => tickets.map(pick);
  const query = sql`
    WITH input AS (
      SELECT * FROM unnest(${column(() => newId('tkt'))}::text[], ${column((t) => t.partnerId)}::text[], ${column((t) => t.partnerUid)}::text[],
                           ${column((t) => t.promotionId)}::text[], ${column((t) => t.missionId)}::text[], ${column((t) => t.budgetId)}::text[],
                           ${column((t) => t.periodKey)}::text[], ${column((t) => t.now.toISOString())}::timestamptz[])
             AS i(id, partner_id, partner_uid, promotion_id, mission_id, budget_id, period_key, at)
    ), facts AS (
      SELECT i.*, EXISTS (SELECT 1 FROM user_mappings m WHERE m.partner_id = i.partner_id AND m.partner_uid = i.partner_uid) AS linked
      FROM input i
    ), issued AS (
      INSERT INTO tickets (id, partner_id, partner_uid, mission_id, budget_id, period_key, status, created_at)
      SELECT id, partner_id, partner_uid, mission_id, budget_id, period_key, 'RECEIVED', at FROM facts WHERE linked
      ORDER BY partner_id, partner_uid, mission_id, period_key
      ON CONFLICT (partner_id, partner_uid, mission_id, period_key) DO NOTHING
    )
    INSERT INTO deferred_rewards (id, kind, partner_id, partner_uid, promotion_id, source, source_id, period_key, budget_id, amount, completed_at)
    SELECT id, 'TICKET', partner_id, partner_uid, promotion_id, 'MISSION', mission_id, period_key, budget_id, NULL, at FROM facts WHERE NOT linked
    ORDER BY partner_id, partner_uid, mission_id, period_key
    ON CONFLICT DO NOTHING`;
  await trx.executeQuery(prepared('tickets_grant', query.compile(trx)));
}
