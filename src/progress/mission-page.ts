// The end user's view of their missions (GET /v1/me/missions): every mission of the ACTIVE
// promotions of the partners the account is linked to, with the current period's gauge, the
// mission's reward, and daily check-in streaks (docs/plans/me-api.md).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { formatAmount } from '../domain/amounts.ts';
import { periodKeyFor } from '../domain/periods.ts';
import { streakOf } from '../domain/streaks.ts';
import { listMissionsOfAccount, listProgressOf } from './store.ts';

export interface MyMission {
  partnerId: string;
  partnerName: string;
  promotionId: string;
  promotionTitle: string;
  promotionType: 'COMPOSITE' | 'DAILY_CHECK';
  missionGroupId: string;
  groupTitle: string;
  missionId: string;
  missionKey: string;
  title: string;
  recurrence: 'ONE_TIME' | 'DAILY' | 'WEEKLY' | 'MONTHLY';
  periodKey: string;
  target: number | null;
  current: number | null;
  completed: boolean;
  completedAt: string | null;
  reward: { type: 'FIXED' | 'LUCKY_DRAW'; amount: string | null; assetSymbol: string } | null;
}

export interface MyStreak {
  promotionId: string;
  promotionTitle: string;
  current: number;
  best: number;
  lastCheckDate: string | null;
}

export async function missionsOfAccount(db: Kysely<DB>, clock: Clock, accountId: string): Promise<{ items: MyMission[]; streaks: MyStreak[] }> {
  const now = clock.now();
  const rows = await listMissionsOfAccount(db, accountId, now);
  // One query per linked partner user (an account has few), not per mission.
  const users = new Map<string, { partnerId: string; partnerUid: string; missionIds: string[] }>();
  for (const row of rows) {
    const key = `${row.partnerId}\u0000${row.partnerUid}`;
    const user = users.get(key) ?? { partnerId: row.partnerId, partnerUid: row.partnerUid, missionIds: [] };
    user.missionIds.push(row.missionId);
    users.set(key, user);
  }
  const progress = new Map<string, Awaited<ReturnType<typeof listProgressOf>>>();
  for (const [key, user] of users) progress.set(key, await listProgressOf(db, user.partnerId, user.partnerUid, user.missionIds));

  const items: MyMission[] = [];
  const checkIns = new Map<string, { title: string; timezone: string; dates: string[] }>();
  for (const row of rows) {
    const records = progress.get(`${row.partnerId}\u0000${row.partnerUid}`) ?? [];
    const periodKey = periodKeyFor(row.recurrence, now, row.timezone);
    const record = records.find((r) => r.mission_id === row.missionId && r.period_key === periodKey);
    items.push({
      partnerId: row.partnerId,
      partnerName: row.partnerName,
      promotionId: row.promotionId,
      promotionTitle: row.promotionTitle,
      promotionType: row.promotionType,
      missionGroupId: row.missionGroupId,
      groupTitle: row.groupTitle,
      missionId: row.missionId,
      missionKey: row.missionKey,
      title: row.title,
      recurrence: row.recurrence,
      periodKey,
      // Without a report yet, the gauge is measured against the mission's own target.
      target: record ? record.target : row.missionTarget,
      current: record ? record.current : null,
      completed: record?.completed ?? false,
      completedAt: record?.completed_at?.toISOString() ?? null,
      reward:
        row.rewardType === null
          ? null
          : {
              type: row.rewardType,
              amount: row.rewardAmount === null ? null : formatAmount(row.rewardAmount, row.decimals ?? 0),
              assetSymbol: row.assetSymbol ?? '',
            },
    });
    if (row.promotionType === 'DAILY_CHECK' && row.recurrence === 'DAILY') {
      const streak = checkIns.get(row.promotionId) ?? { title: row.promotionTitle, timezone: row.timezone, dates: [] };
      for (const r of records) if (r.mission_id === row.missionId && r.completed) streak.dates.push(r.period_key);
      checkIns.set(row.promotionId, streak);
    }
  }
  const streaks = [...checkIns].map(([promotionId, s]) => ({
    promotionId,
    promotionTitle: s.title,
    ...streakOf(s.dates, periodKeyFor('DAILY', now, s.timezone)),
  }));
  return { items, streaks };
}
