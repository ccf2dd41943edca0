// The link sweep: connect requests a user's waiting claims inside its transaction, but a claim whose
// achieve transaction commits just after the link could see neither the mapping (achieve read it
// before connect committed) nor be seen by connect (it was not committed yet). Left alone it would
// wait in RESERVED and then expire, although its user is linked. The reward worker runs this sweep
// every cycle, over the links of the last hour (a race lasts as long as one transaction).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';

export const LINK_SWEEP_WINDOW_MS = 60 * 60 * 1000;

/** RESERVED claims of users linked since `sinceMs` ago become REQUESTED with their account. */
export async function requestClaimsOfLinkedUsers(db: Kysely<DB>, clock: Clock, options: { sinceMs?: number; limit?: number } = {}): Promise<number> {
  const now = clock.now();
  const since = new Date(now.getTime() - (options.sinceMs ?? LINK_SWEEP_WINDOW_MS));
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('claims as c')
      .innerJoin('user_mappings as m', (join) => join.onRef('m.partner_id', '=', 'c.partner_id').onRef('m.partner_uid', '=', 'c.partner_uid'))
      .select(['c.id', 'm.account_id'])
      .where('c.status', '=', 'RESERVED')
      .where('m.created_at', '>=', since)
      .orderBy('c.id')
      .limit(options.limit ?? 1000)
      .forUpdate('c')
      .skipLocked()
      .execute();
    for (const claim of due) {
      await trx
        .updateTable('claims')
        .set({ status: 'REQUESTED', account_id: claim.account_id, next_attempt_at: now, updated_at: now })
        .where('id', '=', claim.id)
        .where('status', '=', 'RESERVED')
        .execute();
    }
    if (due.length > 0) {
      await trx
        .insertInto('claim_events')
        .values(due.map((c) => ({ claim_id: c.id, from_status: 'RESERVED', to_status: 'REQUESTED', reason: 'user linked', at: now })))
        .execute();
    }
    return due.length;
  });
}
