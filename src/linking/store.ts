// SQL of user mappings (partner user -> platform account).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

export async function isLinked(db: Kysely<DB>, partnerId: string, partnerUid: string): Promise<boolean> {
  const row = await db
    .selectFrom('user_mappings')
    .select('account_id')
    .where('partner_id', '=', partnerId)
    .where('partner_uid', '=', partnerUid)
    .executeTakeFirst();
  return row !== undefined;
}
