// Operator look-up: which partner users of a partner are linked to one platform account.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { getPartner } from '../partners/service.ts';
import type { findMappingWithAccount } from './store.ts';
import { mappingsWithAccounts } from './store.ts';

type MappingWithAccount = NonNullable<Awaited<ReturnType<typeof findMappingWithAccount>>>;

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
  const rows = await mappingsWithAccounts(db, partnerId)
    .where('m.account_id', '=', accountId)
    .orderBy('m.partner_uid')
    .execute();
  return rows.map(linkedUserView);
}

/** A mapping row joined with its account, as operators see it. */
export function linkedUserView(row: MappingWithAccount): LinkedUser {
  return {
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
  };
}
