// Operator look-up: which partner users of a partner are linked to one platform account.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { getPartner } from '../partners/service.ts';

export interface LinkedUser {
  partnerId: string;
  partnerUid: string;
  region: string;
  linkedAt: string;
  account: { id: string; issuer: string; subject: string; displayName: string | null; createdAt: string };
}

/** The partner's users mapped to the platform account `accountId` (none when it has no such account). */
export async function findUsersByAccount(
  db: Kysely<DB>,
  partnerId: string,
  accountId: string,
): Promise<LinkedUser[]> {
  await getPartner(db, partnerId);
  const rows = await db
    .selectFrom('user_mappings as m')
    .innerJoin('platform_accounts as a', 'a.id', 'm.account_id')
    .select([
      'm.partner_id',
      'm.partner_uid',
      'm.region',
      'm.created_at',
      'a.id as account_id',
      'a.issuer',
      'a.subject',
      'a.display_name',
      'a.created_at as account_created_at',
    ])
    .where('m.partner_id', '=', partnerId)
    .where('m.account_id', '=', accountId)
    .orderBy('m.partner_uid')
    .execute();
  return rows.map((row) => ({
    partnerId: row.partner_id,
    partnerUid: row.partner_uid,
    region: row.region,
    linkedAt: row.created_at.toISOString(),
    account: {
      id: row.account_id,
      issuer: row.issuer,
      subject: row.subject,
      displayName: row.display_name,
      createdAt: row.account_created_at.toISOString(),
    },
  }));
}
