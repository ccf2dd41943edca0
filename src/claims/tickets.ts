// Lucky-draw tickets issued by completions (a LUCKY_DRAW rule on a mission); a later draw
// (src/draws/) may turn a ticket into a prize.
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { insertTickets } from './store.ts';
import type { TicketGrant } from './store.ts';

export type { TicketGrant } from './store.ts';

/**
 * One statement: the tickets of linked users are issued (one per user, mission and period, and one
 * per person: none when the account holds one through another partnerUid); those of users who
 * have not linked are deferred, so a made-up user never holds a ticket that a draw
 * could turn into a prize.
 */
export async function grantTickets(trx: Transaction<DB>, tickets: readonly TicketGrant[]): Promise<void> {
  if (tickets.length === 0) return;
  await insertTickets(trx, tickets);
}
