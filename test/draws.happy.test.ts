// Lucky draws: the commitment is public before the draw; after it, anyone can check the seed
// against the commitment and recompute the winners from the published tickets.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccount,
  createAsset,
  createBudget,
  partnerCall,
  setupMission,
  startTestApp,
} from './harness.ts';
import type { TestContext } from './harness.ts';
import { runPayoutBatch, startPayoutWorker } from '../src/payout/worker.ts';

let ctx: TestContext;
let budgetId: string;
let setup: Awaited<ReturnType<typeof setupMission>>;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'lucky', recurrence: 'ONE_TIME' });
  const assetId = (
    await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'GEM', name: 'Gems', decimals: 0 })
  ).json().id;
  budgetId = (
    await ctx.admin('POST', '/admin/v1/budgets', {
      type: 'LUCKY_DRAW',
      assetId,
      name: 'Gems draw',
      total: '100',
    })
  ).json().id;
  await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, { type: 'LUCKY_DRAW', budgetId });
  for (let i = 0; i < 12; i++) {
    if (i % 2 === 0)
      await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: `player-${i}` } });
    await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: `player-${i}`, missionKey: 'lucky', completed: true },
    });
  }
});
afterAll(async () => {
  await ctx?.close();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('lucky draw', () => {
  it("only linked players hold tickets; the others' wait, deferred, for their link", async () => {
    expect((await ctx.admin('GET', '/admin/v1/tickets?filter=RECEIVED')).json().items).toHaveLength(6);
    const deferred = await ctx.database.db
      .selectFrom('deferred_rewards')
      .select(['kind', 'partner_uid'])
      .where('budget_id', '=', budgetId)
      .orderBy('partner_uid')
      .execute();
    expect(deferred.map((d) => `${d.kind}:${d.partner_uid}`)).toEqual([
      'TICKET:player-1',
      'TICKET:player-11',
      'TICKET:player-3',
      'TICKET:player-5',
      'TICKET:player-7',
      'TICKET:player-9',
    ]);
  });

  it('commits, draws, reveals, and anyone can recompute the winners', async () => {
    const created = await ctx.admin('POST', '/admin/v1/draws', {
      budgetId,
      title: 'Winter draw',
      prizeAmount: '10',
      winnersCount: 3,
      // Its tickets close now: the draw may run at once.
      scheduledAt: '2026-11-22T03:00:00Z',
    });
    expect(created.statusCode, created.body).toBe(201);
    const draw = created.json();
    expect(draw).toMatchObject({
      status: 'COMMITTED',
      seed: null,
      winners: null,
      prizeAmount: '10',
      assetSymbol: 'GEM',
    });
    expect(draw.commitment).toMatch(/^[0-9a-f]{64}$/);
    // Public before the draw: the commitment, never the seed.
    const before = await ctx.app.inject({ method: 'GET', url: `/v1/draws/${draw.id}` });
    expect(before.statusCode).toBe(200);
    expect(before.json()).toMatchObject({ commitment: draw.commitment, seed: null });

    const ran = await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`);
    expect(ran.statusCode, ran.body).toBe(200);
    const published = (await ctx.app.inject({ method: 'GET', url: `/v1/draws/${draw.id}` })).json();
    expect(published.status).toBe('DRAWN');
    expect(published.ticketCount).toBe(6);
    expect(published.tickets).toHaveLength(6);
    // Recompute, independently of the service's code.
    expect(sha256(published.seed)).toBe(draw.commitment);
    const expected = [...published.tickets]
      .sort((a: string, b: string) =>
        sha256(`${published.seed}:${a}`) < sha256(`${published.seed}:${b}`) ? -1 : 1,
      )
      .slice(0, 3)
      .sort();
    expect(published.winners.map((w: { ticketId: string }) => w.ticketId).sort()).toEqual(expected);

    // Every ticket is DRAWN; the winners have claims from the LUCKY_DRAW budget.
    expect((await ctx.admin('GET', '/admin/v1/tickets?filter=RECEIVED')).json().items).toHaveLength(0);
    const drawn = (await ctx.admin('GET', '/admin/v1/tickets?filter=DRAWN')).json().items;
    expect(drawn).toHaveLength(6);
    expect(drawn.filter((t: { won: boolean }) => t.won)).toHaveLength(3);
    const claims = (await ctx.admin('GET', `/admin/v1/claims?budgetId=${budgetId}`)).json().items;
    expect(claims).toHaveLength(3);
    expect(
      claims.every((c: { source: string; amount: string }) => c.source === 'DRAW' && c.amount === '10'),
    ).toBe(true);
    expect((await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`)).json()).toMatchObject({
      remaining: '70',
      reserved: '30',
    });
    await runPayoutBatch(ctx.database.db, ctx.clock);

    const again = await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`);
    expect(again.statusCode).toBe(409);
    expect(again.json().name).toBe('DRAW_ALREADY_DRAWN');
  });

  it('a draw runs by itself at its scheduled time', async () => {
    await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'late-player', missionKey: 'lucky', completed: true },
    });
    const draw = (
      await ctx.admin('POST', '/admin/v1/draws', {
        budgetId,
        title: 'Scheduled',
        prizeAmount: '1',
        winnersCount: 1,
        scheduledAt: '2026-11-22T04:00:00Z',
      })
    ).json();
    const worker = startPayoutWorker(ctx.database.db, ctx.clock, { idleMs: 10 });
    try {
      await new Promise((r) => setTimeout(r, 100));
      expect((await ctx.app.inject({ method: 'GET', url: `/v1/draws/${draw.id}` })).json().status).toBe(
        'COMMITTED',
      );
      ctx.clock.set('2026-11-22T04:00:01Z');
      const deadline = Date.now() + 5000;
      let status = 'COMMITTED';
      while (status !== 'DRAWN' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        status = (await ctx.app.inject({ method: 'GET', url: `/v1/draws/${draw.id}` })).json().status;
      }
      expect(status).toBe('DRAWN');
    } finally {
      await worker.stop();
    }
  });

  it("draws over every partner's tickets of a shared budget (on Citus, locked partner by partner)", async () => {
    const assetId = await createAsset(ctx, { symbol: 'DUO', name: 'Shared', decimals: 0 });
    const shared = await createBudget(ctx, assetId, '50', { type: 'LUCKY_DRAW', name: 'Shared draw' });
    const partners = [
      await setupMission(ctx, { missionKey: 'duo-a', recurrence: 'ONE_TIME' }),
      await setupMission(ctx, { missionKey: 'duo-b', recurrence: 'ONE_TIME' }),
    ];
    for (const partner of partners) {
      await ctx.admin('PUT', `/admin/v1/missions/${partner.missionId}/reward`, {
        type: 'LUCKY_DRAW',
        budgetId: shared,
      });
      for (let i = 0; i < 3; i++) {
        await createAccount(ctx, { link: { partnerId: partner.partnerId, partnerUid: `duo-${i}` } });
        const answer = await partnerCall(ctx, partner, {
          method: 'POST',
          url: '/v1/achieve',
          body: { partnerUid: `duo-${i}`, missionKey: partner.missionKey, completed: true },
        });
        expect(answer.statusCode).toBe(200);
      }
    }
    const draw = (
      await ctx.admin('POST', '/admin/v1/draws', {
        budgetId: shared,
        title: 'Both partners',
        prizeAmount: '5',
        winnersCount: 6,
        scheduledAt: ctx.clock.now().toISOString(),
      })
    ).json();
    const ran = await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`);
    expect(ran.statusCode, ran.body).toBe(200);
    const published = (await ctx.app.inject({ method: 'GET', url: `/v1/draws/${draw.id}` })).json();
    expect(published.ticketCount).toBe(6);
    // Every ticket wins: each partner's three users got a claim of 5 from the shared budget.
    const claims: Array<{ partnerId: string; amount: string }> = (
      await ctx.admin('GET', `/admin/v1/claims?budgetId=${shared}`)
    ).json().items;
    expect(claims.map((c) => c.partnerId).sort()).toEqual(
      partners.flatMap((p) => [p.partnerId, p.partnerId, p.partnerId]).sort(),
    );
    expect(claims.every((c) => c.amount === '5')).toBe(true);
    expect((await ctx.admin('GET', `/admin/v1/budgets/${shared}`)).json()).toMatchObject({
      remaining: '20',
      reserved: '30',
    });
  });

  it('refuses bad draws', async () => {
    const fixedAsset = (
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'F', name: 'F', decimals: 2 })
    ).json().id;
    const fixed = (
      await ctx.admin('POST', '/admin/v1/budgets', {
        type: 'FIXED',
        assetId: fixedAsset,
        name: 'f',
        total: '1',
      })
    ).json().id;
    const base = { title: 'x', prizeAmount: '1', winnersCount: 1, scheduledAt: '2026-11-23T00:00:00Z' };
    expect((await ctx.admin('POST', '/admin/v1/draws', { ...base, budgetId: fixed })).json().name).toBe(
      'BUDGET_TYPE_MISMATCH',
    );
    expect(
      (await ctx.admin('POST', '/admin/v1/draws', { ...base, budgetId, prizeAmount: '0.5' })).json().name,
    ).toBe('INVALID_AMOUNT');
    expect(
      (await ctx.admin('POST', '/admin/v1/draws', { ...base, budgetId, winnersCount: 0 })).statusCode,
    ).toBe(400);
    expect((await ctx.admin('POST', '/admin/v1/draws', { ...base, budgetId: 'bdg_nope' })).json().code).toBe(
      1902,
    );
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/draws/drw_nope' })).json().name).toBe(
      'NOT_FOUND_DRAW',
    );
  });
});

describe('titles per language (issue #31 item 9)', () => {
  it("are kept, served in the reader's language on the public page (falling back like promotions), and can be changed", async () => {
    const created = await ctx.admin('POST', '/admin/v1/draws', {
      budgetId,
      title: 'Winter draw',
      titles: { ko: '겨울 추첨', th: 'จับรางวัลฤดูหนาว', 'zh-TW': '冬季抽獎' },
      prizeAmount: '1',
      winnersCount: 1,
      scheduledAt: '2026-12-24T00:00:00Z',
    });
    expect(created.statusCode, created.body).toBe(201);
    const draw = created.json();
    // The operator reads the default title and every language's.
    expect(draw).toMatchObject({
      title: 'Winter draw',
      titles: { ko: '겨울 추첨', th: 'จับรางวัลฤดูหนาว', 'zh-TW': '冬季抽獎' },
    });
    const publicTitle = async (query: string, headers: Record<string, string> = {}) =>
      (await ctx.app.inject({ method: 'GET', url: `/v1/draws/${draw.id}${query}`, headers })).json().title;
    expect(await publicTitle('?lang=ko')).toBe('겨울 추첨');
    expect(await publicTitle('?lang=zh-Hant')).toBe('冬季抽獎');
    // No Japanese title: the default one.
    expect(await publicTitle('?lang=ja')).toBe('Winter draw');
    expect(await publicTitle('', { 'accept-language': 'th-TH,en;q=0.5' })).toBe('จับรางวัลฤดูหนาว');
    expect(await publicTitle('')).toBe('Winter draw');
    // ?lang= wins over Accept-Language, as on /v1/me/missions.
    expect(await publicTitle('?lang=ko', { 'accept-language': 'th' })).toBe('겨울 추첨');

    // A PATCH with titles replaces them all; the title alone changes the fallback.
    const patched = await ctx.admin('PATCH', `/admin/v1/draws/${draw.id}`, {
      title: 'Holiday draw',
      titles: { ja: '冬の抽選' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ title: 'Holiday draw', titles: { ja: '冬の抽選' } });
    expect(await publicTitle('?lang=ja')).toBe('冬の抽選');
    expect(await publicTitle('?lang=ko')).toBe('Holiday draw');
    // Nothing that takes part in the draw changed.
    expect(patched.json()).toMatchObject({
      commitment: draw.commitment,
      closesAt: draw.closesAt,
      prizeAmount: '1',
    });
    // Refusals: an unknown language, an empty title, an empty body, an unknown draw.
    for (const [body, status, code] of [
      [{ titles: { fr: 'Tirage' } }, 400, 3000],
      [{ titles: { ko: '' } }, 400, 3000],
      [{}, 400, 3000],
      [{ closesAt: '2027-01-01T00:00:00Z' }, 400, 3000],
    ] as const) {
      const refused = await ctx.admin('PATCH', `/admin/v1/draws/${draw.id}`, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(status);
      expect(refused.json()).toMatchObject({ code, name: expect.any(String), message: expect.any(String) });
    }
    const unknown = await ctx.admin('PATCH', '/admin/v1/draws/drw_nope', { title: 'x' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 3506, name: 'NOT_FOUND_DRAW' });
  });
});
