// DAILY_CHECK check-ins: a completion extends the user's streak (domain/streaks.ts), and a streak
// length with a reward becomes a grant.
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { checkIn } from '../domain/streaks.ts';
import type { CompletionEvent } from '../progress/service.ts';
import type { Grant } from './grants.ts';
import { lockStreak, selectStreakReward, upsertStreak } from './store.ts';

/** A DAILY_CHECK check-in: extend the user's streak; answers the grant when that streak length has a reward. */
export async function recordCheckIn(
  trx: Transaction<DB>,
  event: CompletionEvent,
): Promise<Grant | undefined> {
  const key = { partner_id: event.partnerId, partner_uid: event.partnerUid, promotion_id: event.promotionId };
  const existing = await lockStreak(trx, key);
  const before = existing
    ? { current: existing.current, best: existing.best, lastDate: existing.last_date }
    : undefined;
  const after = checkIn(before, event.periodKey);
  if (after === before) return undefined;
  await upsertStreak(trx, key, { current: after.current, best: after.best, last_date: after.lastDate });
  const reward = await selectStreakReward(trx, event.promotionId, after.current);
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
