// DAILY_CHECK check-ins: a completion extends the user's streak (domain/streaks.ts), and a streak
// length with a reward becomes a grant.
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { checkIn } from '../domain/streaks.ts';
import type { CompletionEvent } from '../progress/service.ts';
import type { Grant } from './grants.ts';

/** A DAILY_CHECK check-in: extend the user's streak; answers the grant when that streak length has a reward. */
export async function recordCheckIn(
  trx: Transaction<DB>,
  event: CompletionEvent,
): Promise<Grant | undefined> {
  const key = { partner_id: event.partnerId, partner_uid: event.partnerUid, promotion_id: event.promotionId };
  const existing = await trx
    .selectFrom('user_streaks')
    .select(['current', 'best', 'last_date'])
    .where('partner_id', '=', key.partner_id)
    .where('partner_uid', '=', key.partner_uid)
    .where('promotion_id', '=', key.promotion_id)
    .forUpdate()
    .executeTakeFirst();
  const before = existing
    ? { current: existing.current, best: existing.best, lastDate: existing.last_date }
    : undefined;
  const after = checkIn(before, event.periodKey);
  if (after === before) return undefined;
  await trx
    .insertInto('user_streaks')
    .values({ ...key, current: after.current, best: after.best, last_date: after.lastDate })
    .onConflict((oc) =>
      oc
        .columns(['partner_id', 'partner_uid', 'promotion_id'])
        .doUpdateSet({ current: after.current, best: after.best, last_date: after.lastDate }),
    )
    .execute();
  const reward = await trx
    .selectFrom('streak_rewards as r')
    .innerJoin('budgets as b', 'b.id', 'r.budget_id')
    .select(['r.amount', 'b.id', 'b.asset_id', 'b.stripes'])
    .where('r.promotion_id', '=', event.promotionId)
    .where('r.days', '=', after.current)
    .executeTakeFirst();
  if (!reward) return undefined;
  return {
    budget: { id: reward.id, asset_id: reward.asset_id, stripes: reward.stripes },
    amount: BigInt(reward.amount),
    partnerId: event.partnerId,
    partnerUid: event.partnerUid,
    promotionId: event.promotionId,
    source: 'STREAK',
    sourceId: `${event.promotionId}:${after.current}`,
    periodKey: after.lastDate,
    now: event.completedAt,
  };
}
