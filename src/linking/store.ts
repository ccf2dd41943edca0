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

export async function findAccountWithMappings(db: Kysely<DB>, accountId: string) {
  const account = await db
    .selectFrom('platform_accounts')
    .select(['id', 'display_name'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account) return undefined;
  const mappings = await db
    .selectFrom('user_mappings as m')
    .innerJoin('partners as p', 'p.id', 'm.partner_id')
    .select(['m.partner_id', 'p.name', 'm.partner_uid', 'm.region', 'm.created_at'])
    .where('m.account_id', '=', accountId)
    .orderBy('m.created_at')
    .execute();
  return {
    accountId: account.id,
    displayName: account.display_name,
    mappings: mappings.map((m) => ({
      partnerId: m.partner_id,
      partnerName: m.name,
      partnerUid: m.partner_uid,
      region: m.region,
      linkedAt: m.created_at.toISOString(),
    })),
  };
}
