// /v1/me/claims and /v1/me/tickets answer a page at a time (cursor + limit, like the operator's
// lists): following nextCursor lists every item once, in order, also across items created at the
// same instant, and past the 500 rows at which these lists used to stop without a word.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, sessionCookie, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';

let ctx: TestContext;
let setup: MissionSetup;
let cookie: string;
let budgetId: string;
let assetId: string;
const PARTNER_UID = 'pager';

beforeAll(async () => {
  ctx = await startTestApp();
  setup = await setupMission(ctx, { missionKey: 'paged', recurrence: 'DAILY' });
  const accountId = await createAccount(ctx, {
    link: { partnerId: setup.partnerId, partnerUid: PARTNER_UID },
  });
  cookie = await sessionCookie(ctx, accountId);
  assetId = (
    await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'PGS', name: 'Pages', decimals: 0 })
  ).json<{ id: string }>().id;
  budgetId = (
    await ctx.admin('POST', '/admin/v1/budgets', {
      type: 'LUCKY_DRAW',
      assetId,
      name: 'Paged',
      total: '100000',
    })
  ).json<{ id: string }>().id;
});
afterAll(async () => {
  await ctx?.close();
});

/** `count` rows' times: three share each instant, so that pages end inside a tie. */
const createdAt = (i: number) => new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 1000);
const id = (prefix: string, i: number) => `${prefix}_${String(i).padStart(4, '0')}`;

async function readAll(url: string, query: Record<string, string>, limit?: number) {
  const ids: string[] = [];
  let pages = 0;
  let cursor: string | null = null;
  do {
    const params: URLSearchParams = new URLSearchParams({
      ...query,
      ...(limit ? { limit: String(limit) } : {}),
      ...(cursor ? { cursor } : {}),
    });
    const page: { statusCode: number; body: string; json<T>(): T } = await ctx.app.inject({
      method: 'GET',
      url: `${url}?${params}`,
      headers: { cookie },
    });
    expect(page.statusCode, page.body).toBe(200);
    const body = page.json<{ items: Array<{ id: string }>; nextCursor: string | null }>();
    if (limit) expect(body.items.length).toBeLessThanOrEqual(limit);
    ids.push(...body.items.map((item) => item.id));
    cursor = body.nextCursor;
    pages += 1;
  } while (cursor !== null && pages < 100);
  return { ids, pages };
}

/** Newest first, ties by id: the order the lists promise. */
const expectedOrder = (ids: string[], at: (i: number) => Date) =>
  ids
    .map((value, i) => ({ value, at: at(i).getTime() }))
    .sort((a, b) => b.at - a.at || (a.value < b.value ? -1 : 1))
    .map((x) => x.value);

describe('/v1/me/claims', () => {
  const COUNT = 602;
  beforeAll(async () => {
    const rows = Array.from({ length: COUNT }, (_, i) => ({
      id: id('clm_pg', i),
      budget_id: budgetId,
      asset_id: assetId,
      partner_id: setup.partnerId,
      partner_uid: PARTNER_UID,
      account_id: null,
      promotion_id: null,
      source: 'MISSION' as const,
      source_id: setup.missionId,
      period_key: `p${i}`,
      amount: '1',
      status: 'SUCCEEDED' as const,
      reason: null,
      next_attempt_at: null,
      created_at: createdAt(i),
      updated_at: createdAt(i),
      completed_before_link: null,
      trace_context: null,
    }));
    const accountId = (
      await ctx.database.db
        .selectFrom('user_mappings')
        .select('account_id')
        .where('partner_uid', '=', PARTNER_UID)
        .executeTakeFirstOrThrow()
    ).account_id;
    await ctx.database.db
      .insertInto('claims')
      .values(rows.map((r) => ({ ...r, account_id: accountId })))
      .execute();
  });

  it('lists every claim once, newest first, page by page (pages ending inside a tie)', async () => {
    const all = Array.from({ length: COUNT }, (_, i) => id('clm_pg', i));
    const { ids, pages } = await readAll('/v1/me/claims', {}, 7);
    expect(pages).toBe(Math.ceil(COUNT / 7));
    expect(ids).toEqual(expectedOrder(all, createdAt));
  });

  it('answers 100 by default and more than 500 in all (the list used to stop at 500)', async () => {
    const first = await ctx.app.inject({ method: 'GET', url: '/v1/me/claims', headers: { cookie } });
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json<{ items: unknown[]; nextCursor: string | null }>();
    expect(body.items).toHaveLength(100);
    expect(body.nextCursor).not.toBeNull();
    const { ids } = await readAll('/v1/me/claims', {}, 500);
    expect(new Set(ids).size).toBe(COUNT);
  });

  it('refuses a limit beyond 500 with the error body', async () => {
    const answer = await ctx.app.inject({
      method: 'GET',
      url: '/v1/me/claims?limit=501',
      headers: { cookie },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ code: expect.any(Number), name: expect.any(String) });
  });
});

describe('/v1/me/tickets', () => {
  const COUNT = 25;
  it('lists every ticket once, newest first, page by page', async () => {
    const all = Array.from({ length: COUNT }, (_, i) => id('tkt_pg', i));
    await ctx.database.db
      .insertInto('tickets')
      .values(
        all.map((ticket, i) => ({
          id: ticket,
          partner_id: setup.partnerId,
          partner_uid: PARTNER_UID,
          mission_id: setup.missionId,
          budget_id: budgetId,
          period_key: `p${i}`,
          status: 'RECEIVED' as const,
          draw_id: null,
          won: null,
          created_at: createdAt(i),
        })),
      )
      .execute();
    const { ids, pages } = await readAll('/v1/me/tickets', { filter: 'RECEIVED' }, 4);
    expect(pages).toBe(Math.ceil(COUNT / 4));
    expect(ids).toEqual(expectedOrder(all, createdAt));
  });
});
