// Lucky draws end to end: tickets from completions, a draw whose commitment is public before it runs,
// the worker running it at its time, and anyone recomputing the winners from the published seed and
// entries with nothing but SHA-256. Winners get claims from the LUCKY_DRAW budget (REJECTED when short).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, sessionCookie, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { budgetOf, complete, createAsset, createBudget, expectBudgetsBalanced, ok, workerCycle } from './rewards-helpers.ts';

let ctx: TestContext;
let setup: MissionSetup;
let budgetId: string;
const USERS = 20;
const accounts = new Map<string, string>();

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'lucky', recurrence: 'DAILY' });
  const assetId = await createAsset(ctx);
  budgetId = await createBudget(ctx, { assetId, total: '100', type: 'LUCKY_DRAW' });
  ok(await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, { type: 'LUCKY_DRAW', budgetId }));
  // Half the users are linked.
  for (let i = 0; i < USERS; i += 2) accounts.set(`player-${i}`, await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: `player-${i}` } }));
});
afterAll(async () => {
  await ctx?.close();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const publicDraw = async (id: string) => ok<Record<string, unknown>>(await ctx.app.inject({ method: 'GET', url: `/v1/draws/${id}` }));

describe('a lucky draw', () => {
  it('publishes its commitment first, runs at its time, and anyone can recompute the winners', async () => {
    for (let i = 0; i < USERS; i++) expect((await complete(ctx, setup, `player-${i}`, 'lucky')).statusCode).toBe(200);
    const draw = ok<{ id: string; commitment: string }>(
      await ctx.admin('POST', '/admin/v1/draws', {
        budgetId,
        missionId: setup.missionId,
        title: 'Sunday draw',
        prizeAmount: '30',
        winnersCount: 5,
        scheduledAt: '2026-11-22T05:00:00Z',
      }),
      201,
    );

    // Before: only the commitment is public.
    expect(await publicDraw(draw.id)).toEqual({
      id: draw.id,
      title: 'Sunday draw',
      status: 'SCHEDULED',
      scheduledAt: '2026-11-22T05:00:00.000Z',
      commitment: draw.commitment,
      seed: null,
      prizeAmount: '30',
      assetSymbol: 'PNT',
      winnersCount: 5,
      ticketCount: null,
      winners: null,
    });
    // Nothing happens before its time.
    await workerCycle(ctx);
    expect((await publicDraw(draw.id)).status).toBe('SCHEDULED');

    // A ticket issued after the entries closed waits for the next draw.
    ctx.clock.set('2026-11-22T05:00:01Z');
    expect((await publicDraw(draw.id)).status).toBe('COMMITTED');
    expect((await complete(ctx, setup, 'late-player', 'lucky')).statusCode).toBe(200);

    await workerCycle(ctx);
    const published = await publicDraw(draw.id);
    expect(published).toMatchObject({ status: 'DRAWN', ticketCount: USERS, commitment: draw.commitment });
    const seed = published.seed as string;
    // The seed is the one promised.
    expect(sha256(seed)).toBe(draw.commitment);

    // Recompute, from the published entries alone, with nothing but SHA-256.
    const entries = ok<{ seed: string; ticketIds: string[]; winners: string[] }>(await ctx.app.inject({ method: 'GET', url: `/v1/draws/${draw.id}/entries` }));
    expect(entries.seed).toBe(seed);
    expect(entries.ticketIds).toHaveLength(USERS);
    expect([...entries.ticketIds].sort()).toEqual(entries.ticketIds);
    const recomputed = [...entries.ticketIds].sort((a, b) => (sha256(`${seed}:${a}`) < sha256(`${seed}:${b}`) ? -1 : 1)).slice(0, 5);
    expect((published.winners as Array<{ ticketId: string }>).map((w) => w.ticketId).sort()).toEqual([...recomputed].sort());
    expect(entries.winners).toEqual(recomputed);

    // The entries are exactly the tickets issued before scheduledAt; every one is DRAWN, the late one is not.
    const tickets = ok<{ items: Array<{ id: string; partnerUid: string; status: string; won: boolean | null; drawId: string | null }> }>(
      await ctx.admin('GET', `/admin/v1/tickets?budgetId=${budgetId}&limit=500`),
    ).items;
    expect(tickets.filter((t) => t.status === 'DRAWN').map((t) => t.id).sort()).toEqual(entries.ticketIds);
    expect(tickets.find((t) => t.partnerUid === 'late-player')).toMatchObject({ status: 'RECEIVED', drawId: null, won: null });
    expect(tickets.filter((t) => t.won === true).map((t) => t.id).sort()).toEqual([...recomputed].sort());

    // Winners get prize claims; the budget of 100 covers three prizes of 30, the other two are REJECTED.
    const claims = ok<{ items: Array<{ status: string; source: string; sourceId: string; periodKey: string; amount: string; reason: string | null; partnerUid: string }> }>(
      await ctx.admin('GET', `/admin/v1/claims?budgetId=${budgetId}`),
    ).items;
    expect(claims).toHaveLength(5);
    expect(claims.every((c) => c.source === 'DRAW' && c.sourceId === draw.id && c.amount === '30')).toBe(true);
    expect(claims.map((c) => c.periodKey).sort()).toEqual([...recomputed].sort());
    expect(claims.filter((c) => c.status === 'REJECTED')).toHaveLength(2);
    expect(claims.filter((c) => c.status === 'REJECTED').every((c) => c.reason === 'BUDGET_EXHAUSTED')).toBe(true);
    // The same worker cycle paid the linked winners; the others wait for their link.
    for (const claim of claims.filter((c) => c.status !== 'REJECTED')) {
      expect(claim.status).toBe(accounts.has(claim.partnerUid) ? 'SUCCEEDED' : 'RESERVED');
    }
    const paidCount = claims.filter((c) => c.status === 'SUCCEEDED').length;
    expect(await budgetOf(ctx, budgetId)).toMatchObject({
      total: '100',
      remaining: '10',
      reserved: String(30 * (3 - paidCount)),
      paid: String(30 * paidCount),
      rejected: 2,
    });
    await expectBudgetsBalanced(ctx);

    // A linked player sees the ticket as DRAWN, with the result.
    const linked = tickets.find((t) => t.status === 'DRAWN' && accounts.has(t.partnerUid)) as { partnerUid: string; won: boolean };
    const mine = ok<{ items: Array<{ status: string; won: boolean; drawId: string }> }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/me/tickets?filter=DRAWN', headers: { cookie: sessionCookie(ctx, accounts.get(linked.partnerUid) as string) } }),
    ).items;
    expect(mine).toEqual([expect.objectContaining({ status: 'DRAWN', won: linked.won, drawId: draw.id })]);

    // Running it again changes nothing.
    await workerCycle(ctx);
    expect((await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`)).statusCode).toBe(409);
    expect(ok<{ items: unknown[] }>(await ctx.admin('GET', `/admin/v1/claims?budgetId=${budgetId}`)).items).toHaveLength(5);
  });

  it('a draw with more prizes than entries gives one to each entry; with none it draws nobody', async () => {
    const assetId = await createAsset(ctx);
    const budget = await createBudget(ctx, { assetId, total: '10', type: 'LUCKY_DRAW' });
    const mission = await setupMission(ctx, { missionKey: 'few', recurrence: 'ONE_TIME' });
    ok(await ctx.admin('PUT', `/admin/v1/missions/${mission.missionId}/reward`, { type: 'LUCKY_DRAW', budgetId: budget }));
    for (const uid of ['a', 'b']) await complete(ctx, mission, uid, 'few');
    const now = ctx.clock.now().getTime();
    const schedule = (title: string) =>
      ctx.admin('POST', '/admin/v1/draws', { budgetId: budget, title, prizeAmount: '1', winnersCount: 10, scheduledAt: new Date(now + 60_000).toISOString() });
    const generous = ok<{ id: string }>(await schedule('generous'), 201).id;
    const empty = ok<{ id: string }>(await schedule('empty'), 201).id;
    ctx.clock.set(new Date(now + 60_000));
    const first = ok<{ ticketCount: number; winners: unknown[] }>(await ctx.admin('POST', `/admin/v1/draws/${generous}/run`));
    expect(first.ticketCount).toBe(2);
    expect(first.winners).toHaveLength(2);
    // The second draw of the same budget finds every ticket already drawn.
    const second = ok<{ ticketCount: number; winners: unknown[] }>(await ctx.admin('POST', `/admin/v1/draws/${empty}/run`));
    expect(second).toMatchObject({ ticketCount: 0, winners: [] });
  });

  it('two workers running the same due draw at once draw it once', async () => {
    const assetId = await createAsset(ctx);
    const budget = await createBudget(ctx, { assetId, total: '100', type: 'LUCKY_DRAW' });
    const mission = await setupMission(ctx, { missionKey: 'twice', recurrence: 'ONE_TIME' });
    ok(await ctx.admin('PUT', `/admin/v1/missions/${mission.missionId}/reward`, { type: 'LUCKY_DRAW', budgetId: budget }));
    for (let i = 0; i < 10; i++) await complete(ctx, mission, `t-${i}`, 'twice');
    const at = new Date(ctx.clock.now().getTime() + 1000);
    const draw = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/draws', { budgetId: budget, title: 'once', prizeAmount: '1', winnersCount: 3, scheduledAt: at.toISOString() }),
      201,
    ).id;
    ctx.clock.set(at);
    await Promise.all([workerCycle(ctx), workerCycle(ctx), workerCycle(ctx)]);
    expect(await publicDraw(draw)).toMatchObject({ status: 'DRAWN', ticketCount: 10 });
    expect(ok<{ items: unknown[] }>(await ctx.admin('GET', `/admin/v1/claims?budgetId=${budget}`)).items).toHaveLength(3);
  });
});
