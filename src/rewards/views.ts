// The end user's mission page data (GET /v1/me/missions, docs/plans/me-api.md): the missions of the
// ACTIVE promotions of every partner the account is linked to, each with the record of its current
// period (the progress gauge) and its reward, and the check-in streaks of DAILY_CHECK promotions.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB, PromotionType, RecurrenceType } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { formatAmount } from '../domain/amounts.ts';
import { periodKeyFor } from '../domain/periods.ts';
import { streakOn } from '../domain/streaks.ts';
import { usersOfAccount } from './tickets.ts';

export interface MyMission {
  partnerId: string;
  partnerName: string;
  promotionId: string;
  promotionTitle: string;
  promotionType: PromotionType;
  missionGroupId: string;
  groupTitle: string;
  missionId: string;
  missionKey: string;
  title: string;
  recurrence: RecurrenceType;
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

export async function myMissions(db: Kysely<DB>, clock: Clock, accountId: string): Promise<{ items: MyMission[]; streaks: MyStreak[] }> {
  const users = await usersOfAccount(db, accountId);
  if (users.length === 0) return { items: [], streaks: [] };
  const uidOf = new Map(users.map((u) => [u.partnerId, u.partnerUid]));
  const missions = await db
    .selectFrom('missions as m')
    .innerJoin('mission_groups as g', 'g.id', 'm.mission_group_id')
    .innerJoin('promotions as p', 'p.id', 'g.promotion_id')
    .innerJoin('partners as pt', 'pt.id', 'p.partner_id')
    .leftJoin('reward_rules as r', 'r.mission_id', 'm.id')
    .leftJoin('budgets as b', 'b.id', 'r.budget_id')
    .leftJoin('reward_assets as a', 'a.id', 'b.asset_id')
    .select([
      'pt.id as partnerId',
      'pt.name as partnerName',
      'p.id as promotionId',
      'p.title as promotionTitle',
      'p.type as promotionType',
      'p.timezone',
      'g.id as groupId',
      'g.title as groupTitle',
      'm.id as missionId',
      'm.mission_key as missionKey',
      'm.title',
      'm.recurrence',
      'm.target as missionTarget',
      'r.type as rewardType',
      sql<string | null>`r.amount::text`.as('rewardAmount'),
      'a.symbol as assetSymbol',
      'a.decimals',
    ])
    .where('p.status', '=', 'ACTIVE')
    .where('p.partner_id', 'in', [...uidOf.keys()])
    .orderBy('p.created_at')
    .orderBy('p.id')
    .orderBy('g.created_at')
    .orderBy('g.id')
    .orderBy('m.created_at')
    .orderBy('m.mission_key')
    .execute();
  const now = clock.now();
  const wanted = missions.map((m) => ({ ...m, partnerUid: uidOf.get(m.partnerId) as string, periodKey: periodKeyFor(m.recurrence, now, m.timezone) }));
  const records = wanted.length
    ? await db
        .selectFrom('mission_progress')
        .select(['partner_id', 'partner_uid', 'mission_id', 'period_key', 'completed', 'target', 'current', 'completed_at'])
        .where((eb) =>
          eb.or(
            wanted.map((w) =>
              eb.and([
                eb('partner_id', '=', w.partnerId),
                eb('partner_uid', '=', w.partnerUid),
                eb('mission_id', '=', w.missionId),
                eb('period_key', '=', w.periodKey),
              ]),
            ),
          ),
        )
        .execute()
    : [];
  const recordOf = new Map(records.map((r) => [`${r.partner_id}\n${r.partner_uid}\n${r.mission_id}\n${r.period_key}`, r]));
  const items = wanted.map((w): MyMission => {
    const record = recordOf.get(`${w.partnerId}\n${w.partnerUid}\n${w.missionId}\n${w.periodKey}`);
    return {
      partnerId: w.partnerId,
      partnerName: w.partnerName,
      promotionId: w.promotionId,
      promotionTitle: w.promotionTitle,
      promotionType: w.promotionType,
      missionGroupId: w.groupId,
      groupTitle: w.groupTitle,
      missionId: w.missionId,
      missionKey: w.missionKey,
      title: w.title,
      recurrence: w.recurrence,
      periodKey: w.periodKey,
      target: record?.target ?? w.missionTarget,
      current: record?.current ?? null,
      completed: record?.completed ?? false,
      completedAt: record?.completed_at?.toISOString() ?? null,
      reward:
        w.rewardType !== null && w.assetSymbol !== null
          ? {
              type: w.rewardType,
              amount: w.rewardAmount === null ? null : formatAmount(w.rewardAmount, w.decimals ?? 0),
              assetSymbol: w.assetSymbol,
            }
          : null,
    };
  });

  const dailyChecks = new Map<string, { promotionId: string; promotionTitle: string; timezone: string; partnerId: string }>();
  for (const m of missions) {
    if (m.promotionType === 'DAILY_CHECK') {
      dailyChecks.set(m.promotionId, { promotionId: m.promotionId, promotionTitle: m.promotionTitle, timezone: m.timezone, partnerId: m.partnerId });
    }
  }
  const stored = dailyChecks.size
    ? await db
        .selectFrom('check_streaks')
        .select(['promotion_id', 'partner_id', 'partner_uid', 'current', 'best', sql<string>`last_check_date::text`.as('last_check_date')])
        .where('promotion_id', 'in', [...dailyChecks.keys()])
        .where((eb) => eb.or(users.map((u) => eb.and([eb('partner_id', '=', u.partnerId), eb('partner_uid', '=', u.partnerUid)]))))
        .execute()
    : [];
  const streaks = [...dailyChecks.values()].map((p): MyStreak => {
    const row = stored.find((s) => s.promotion_id === p.promotionId && s.partner_id === p.partnerId && s.partner_uid === uidOf.get(p.partnerId));
    if (!row) return { promotionId: p.promotionId, promotionTitle: p.promotionTitle, current: 0, best: 0, lastCheckDate: null };
    const today = periodKeyFor('DAILY', now, p.timezone);
    return {
      promotionId: p.promotionId,
      promotionTitle: p.promotionTitle,
      current: streakOn({ current: row.current, best: row.best, lastCheckDate: row.last_check_date }, today),
      best: row.best,
      lastCheckDate: row.last_check_date,
    };
  });
  return { items, streaks };
}
