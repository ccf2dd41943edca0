// Test set-up for rewards: links many partner users to fresh platform accounts at once (as connect
// would, without the login journey), since only linked users hold budget.
import { randomBytes } from 'node:crypto';
import type { TestContext } from './harness.ts';

/** Creates one platform account per partner user and links them; answers the account ids in order. */
export async function linkUsers(
  ctx: Pick<TestContext, 'database' | 'clock'>,
  partnerId: string,
  partnerUids: readonly string[],
): Promise<string[]> {
  if (partnerUids.length === 0) return [];
  const ids = partnerUids.map(() => `acc_${randomBytes(8).toString('hex')}`);
  await ctx.database.db
    .insertInto('platform_accounts')
    .values(ids.map((id) => ({ id, issuer: 'test', subject: id, display_name: null })))
    .execute();
  await ctx.database.db
    .insertInto('user_mappings')
    .values(
      partnerUids.map((partnerUid, i) => ({
        partner_id: partnerId,
        partner_uid: partnerUid,
        account_id: ids[i] as string,
        region: 'KR',
        created_at: ctx.clock.now(),
      })),
    )
    .execute();
  return ids;
}
