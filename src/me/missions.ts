// The end user's missions: every mission of the ACTIVE promotions of the partners the account is
// linked to, with this period's progress gauge, the reward it carries, and check-in streaks.
import type { Kysely } from 'kysely';
import type { DB, RecurrenceType } from '../db/schema.ts';
import { formatAmount } from '../domain/amounts.ts';
import { periodKeyFor } from '../domain/periods.ts';
import { previousDate } from '../domain/streaks.ts';
import { titleIn } from '../catalog/titles.ts';
import type { Language } from '../catalog/titles.ts';
import {
  activeMissionRows,
  heldTickets,
  linksOf,
  missionClaimRows,
  missionTitleRows,
  progressRows,
  streakRowsOf,
} from './store.ts';

/** `lang`: the reader's language (catalog/titles.ts readerLanguage); titles come in it when given. */
export async function missionsOf(db: Kysely<DB>, accountId: string, now: Date, lang?: Language) {
  const links = await linksOf(db, accountId);
  return {
    items: await missionsFor(db, links, now, lang),
    streaks: await streaksOf(db, accountId, now, lang),
  };
}

/** The account's lucky-draw missions of this period without a ticket (TicketFilter NOT_RECEIVED). */
export async function ticketsNotReceivedOf(db: Kysely<DB>, accountId: string, now: Date, lang?: Language) {
  return ticketsNotReceived(db, await linksOf(db, accountId), now, lang);
}

/** Lucky-draw missions of this period for which the partner users hold no ticket (TicketFilter NOT_RECEIVED). */
export async function ticketsNotReceived(
  db: Kysely<DB>,
  links: Array<{ partner_id: string; partner_uid: string }>,
  now: Date,
  lang?: Language,
) {
  const items = await missionsFor(db, links, now, lang);
  const lucky = items.filter((m) => m.reward?.type === 'LUCKY_DRAW');
  if (lucky.length === 0) return [];
  const held = await heldTickets(db, lucky);
  const have = new Set(held.map((t) => `${t.mission_id}|${t.period_key}`));
  return lucky
    .filter((m) => !have.has(`${m.missionId}|${m.periodKey}`))
    .map((m) => ({
      id: null,
      partnerId: m.partnerId,
      partnerUid: m.partnerUid,
      missionId: m.missionId,
      missionTitle: m.title,
      status: 'NOT_RECEIVED' as const,
      periodKey: m.periodKey,
      drawId: null,
      won: null,
      createdAt: null,
    }));
}

async function missionsFor(
  db: Kysely<DB>,
  links: Array<{ partner_id: string; partner_uid: string }>,
  now: Date,
  lang: Language | undefined,
) {
  if (links.length === 0) return [];
  const uidOf = new Map(links.map((l) => [l.partner_id, l.partner_uid]));
  const missions = await activeMissionRows(db, [...uidOf.keys()], now);
  const withPeriod = missions.map((m) => ({
    ...m,
    periodKey: periodKeyFor(m.recurrence as RecurrenceType, now, m.timezone),
  }));
  const keys = withPeriod.map((m) => ({
    partnerId: m.partner_id,
    partnerUid: uidOf.get(m.partner_id) as string,
    missionId: m.id,
    periodKey: m.periodKey,
  }));
  const progress = await progressRows(db, keys);
  const record = new Map(progress.map((p) => [`${p.mission_id}|${p.period_key}`, p]));
  // This period's claim of each mission, so the page can say why a reward was refused.
  const claims = await missionClaimRows(db, keys);
  const claimOf = new Map(claims.map((c) => [`${c.source_id}|${c.period_key}`, c]));
  return withPeriod.map((m) => {
    const p = record.get(`${m.id}|${m.periodKey}`);
    return {
      partnerId: m.partner_id,
      partnerUid: uidOf.get(m.partner_id) as string,
      partnerName: m.partner_name,
      promotionId: m.promotion_id,
      promotionTitle: titleIn(m.promotion_title, m.promotion_titles, lang),
      promotionType: m.promotion_type,
      missionGroupId: m.group_id,
      groupTitle: titleIn(m.group_title, m.group_titles, lang),
      missionId: m.id,
      missionKey: m.mission_key,
      title: titleIn(m.title, m.titles, lang),
      recurrence: m.recurrence,
      periodKey: m.periodKey,
      target: p?.target ?? m.target,
      current: p?.current ?? null,
      completed: p?.completed ?? false,
      completedAt: p?.completed_at?.toISOString() ?? null,
      reward: m.reward_type
        ? {
            type: m.reward_type,
            amount: m.reward_amount === null ? null : formatAmount(m.reward_amount, m.decimals ?? 0),
            assetSymbol: m.symbol ?? '',
            decimals: m.decimals ?? 0,
          }
        : null,
      claim: claimView(claimOf.get(`${m.id}|${m.periodKey}`)),
    };
  });
}

/** A claim as the mission page shows it: its status, why it was refused, and whether it waited for the link. */
function claimView(
  c: { status: string; reason: string | null; completed_before_link: Date | null } | undefined,
) {
  if (!c) return null;
  return {
    status: c.status,
    reason: c.status === 'REJECTED' ? c.reason : null,
    grantedOnLink: c.completed_before_link !== null,
  };
}

async function streaksOf(db: Kysely<DB>, accountId: string, now: Date, lang: Language | undefined) {
  const streakRows = await streakRowsOf(db, accountId);
  return streakRows.map((s) => {
    const today = periodKeyFor('DAILY', now, s.timezone);
    // A streak whose last check-in is older than yesterday is broken.
    const alive = s.last_date === today || s.last_date === previousDate(today);
    return {
      promotionId: s.promotion_id,
      promotionTitle: titleIn(s.title, s.titles, lang),
      current: alive ? s.current : 0,
      best: s.best,
      lastCheckDate: s.last_date,
    };
  });
}

/** Rows that carry a mission's default title (e.g. tickets), with the title in `lang` instead. */
export async function withMissionTitlesIn<T extends { missionId: string; missionTitle: string }>(
  db: Kysely<DB>,
  rows: T[],
  lang: Language | undefined,
): Promise<T[]> {
  if (!lang || rows.length === 0) return rows;
  const ids = [...new Set(rows.map((r) => r.missionId))];
  const found = await missionTitleRows(db, ids);
  const titlesOf = new Map(found.map((m) => [m.id, m.titles]));
  return rows.map((r) => ({ ...r, missionTitle: titleIn(r.missionTitle, titlesOf.get(r.missionId), lang) }));
}
