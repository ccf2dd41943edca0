// Per-language titles (docs/i18n.md "Titles"): operators give promotion, group and mission titles
// per language; the end-user API answers each title in the reader's language, else the default.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, sessionCookie, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

let ctx: TestContext;
let partnerId: string;
let promotionId: string;
let groupId: string;
let missionId: string;
let accountId: string;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-20T03:00:00Z' });
  partnerId = (
    await ctx.admin('POST', '/admin/v1/partners', { name: 'Titles partner', allowedIps: ['127.0.0.1'] })
  ).json().id;
  accountId = await createAccount(ctx, { link: { partnerId, partnerUid: 'reader' } });
});
afterAll(async () => {
  await ctx?.close();
});

const mine = async (query: string, headers: Record<string, string> = {}) => {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/v1/me/missions${query}`,
    headers: { cookie: await sessionCookie(ctx, accountId), ...headers },
  });
  expect(response.statusCode).toBe(200);
  const body = response.json();
  expect(body.items).toHaveLength(1);
  const [m] = body.items;
  return { promotion: m.promotionTitle, group: m.groupTitle, mission: m.title };
};

describe('titles per language', () => {
  it('operators create and read titles per language on promotions, groups and missions', async () => {
    const promotion = await ctx.admin('POST', '/admin/v1/promotions', {
      partnerId,
      type: 'COMPOSITE',
      title: 'Autumn festival',
      titles: { ko: '가을 축제', ja: '秋祭り', 'zh-TW': '秋季慶典' },
      timezone: 'Asia/Seoul',
      startAt: '2026-01-01T00:00:00Z',
      status: 'ACTIVE',
    });
    expect(promotion.statusCode).toBe(201);
    expect(promotion.json().titles).toEqual({ ko: '가을 축제', ja: '秋祭り', 'zh-TW': '秋季慶典' });
    promotionId = promotion.json().id;

    const group = await ctx.admin('POST', `/admin/v1/promotions/${promotionId}/mission-groups`, {
      title: 'Daily',
      titles: { ko: '매일' },
    });
    expect(group.statusCode).toBe(201);
    groupId = group.json().id;

    const mission = await ctx.admin('POST', `/admin/v1/mission-groups/${groupId}/missions`, {
      missionKey: 'walk',
      title: 'Take a walk',
      recurrence: 'DAILY',
    });
    expect(mission.statusCode).toBe(201);
    // Without titles, the answer carries an empty object (never missing).
    expect(mission.json().titles).toEqual({});
    missionId = mission.json().id;

    const patched = await ctx.admin('PATCH', `/admin/v1/missions/${missionId}`, {
      titles: { ko: '산책하기', th: 'ออกไปเดินเล่น' },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({
      title: 'Take a walk',
      titles: { ko: '산책하기', th: 'ออกไปเดินเล่น' },
    });

    const renamed = await ctx.admin('PATCH', `/admin/v1/mission-groups/${groupId}`, {
      titles: { ko: '매일 미션', ja: '毎日' },
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ title: 'Daily', titles: { ko: '매일 미션', ja: '毎日' } });

    // Read back through GET and the lists: stored in PostgreSQL, not in the answer only.
    expect((await ctx.admin('GET', `/admin/v1/missions/${missionId}`)).json().titles).toEqual({
      ko: '산책하기',
      th: 'ออกไปเดินเล่น',
    });
    expect((await ctx.admin('GET', `/admin/v1/promotions/${promotionId}`)).json().titles.ja).toBe('秋祭り');
    const groups = (await ctx.admin('GET', `/admin/v1/promotions/${promotionId}/mission-groups`)).json();
    expect(groups.items[0].titles).toEqual({ ko: '매일 미션', ja: '毎日' });
  });

  it('the end user reads titles in ?lang=, else Accept-Language, else the default title', async () => {
    expect(await mine('?lang=ko')).toEqual({
      promotion: '가을 축제',
      group: '매일 미션',
      mission: '산책하기',
    });
    // Japanese: the mission has no ja title, so it falls back to the default one.
    expect(await mine('?lang=ja')).toEqual({ promotion: '秋祭り', group: '毎日', mission: 'Take a walk' });
    expect(await mine('?lang=th')).toEqual({
      promotion: 'Autumn festival',
      group: 'Daily',
      mission: 'ออกไปเดินเล่น',
    });
    expect(await mine('?lang=zh-TW')).toMatchObject({ promotion: '秋季慶典', group: 'Daily' });
    expect(await mine('', { 'accept-language': 'fr-FR, ko-KR;q=0.8, ja;q=0.9' })).toEqual({
      promotion: '秋祭り',
      group: '毎日',
      mission: 'Take a walk',
    });
    // ?lang= wins over Accept-Language; an unoffered language falls back to the default title.
    expect(await mine('?lang=ko', { 'accept-language': 'ja' })).toMatchObject({ mission: '산책하기' });
    expect(await mine('?lang=fr')).toEqual({
      promotion: 'Autumn festival',
      group: 'Daily',
      mission: 'Take a walk',
    });
    expect(await mine('')).toEqual({ promotion: 'Autumn festival', group: 'Daily', mission: 'Take a walk' });
    // Simplified Chinese is not Traditional: it gets the default title.
    expect(await mine('?lang=zh-CN')).toMatchObject({ promotion: 'Autumn festival' });
    expect(await mine('?lang=zh-Hant-HK')).toMatchObject({ promotion: '秋季慶典' });
  });

  it('the lucky-draw tickets still to earn carry the mission title in the reader language', async () => {
    const assetId = (
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'TIX', name: 'Tickets', decimals: 0 })
    ).json().id;
    const budgetId = (
      await ctx.admin('POST', '/admin/v1/budgets', { type: 'LUCKY_DRAW', assetId, name: 'draw', total: '10' })
    ).json().id;
    const reward = await ctx.admin('PUT', `/admin/v1/missions/${missionId}/reward`, {
      type: 'LUCKY_DRAW',
      budgetId,
    });
    expect(reward.statusCode, reward.body).toBe(200);
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/v1/me/tickets?filter=NOT_RECEIVED&lang=ko',
      headers: { cookie: await sessionCookie(ctx, accountId) },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().items.map((t: { missionTitle: string }) => t.missionTitle)).toEqual(['산책하기']);
  });

  it('refuses unknown language keys and over-long titles with 3000 and the error body', async () => {
    for (const [url, method, body] of [
      [
        '/admin/v1/promotions',
        'POST',
        {
          partnerId,
          type: 'COMPOSITE',
          title: 'x',
          titles: { fr: 'Fête' },
          timezone: 'Asia/Seoul',
          startAt: '2026-01-01T00:00:00Z',
        },
      ],
      [`/admin/v1/promotions/${promotionId}`, 'PATCH', { titles: { 'zh-CN': '秋季' } }],
      [`/admin/v1/promotions/${promotionId}/mission-groups`, 'POST', { title: 'g', titles: { KO: '매일' } }],
      [`/admin/v1/mission-groups/${groupId}`, 'PATCH', { titles: { ko: '' } }],
      [
        `/admin/v1/mission-groups/${groupId}/missions`,
        'POST',
        {
          missionKey: 'bad-titles',
          title: 'x',
          recurrence: 'DAILY',
          titles: { ja: 'x'.repeat(201) },
        },
      ],
      [`/admin/v1/missions/${missionId}`, 'PATCH', { titles: { ko: 42 } }],
      [`/admin/v1/missions/${missionId}`, 'PATCH', { titles: ['ko'] }],
    ] as const) {
      const response = await ctx.admin(method, url, body);
      expect(response.statusCode, `${method} ${url}`).toBe(400);
      const error = response.json();
      expect(error).toMatchObject({ code: 3000, name: 'VALIDATION_FAILED' });
      expect(Object.keys(error).sort()).toEqual(expect.arrayContaining(['code', 'message', 'name']));
      expect(typeof error.message).toBe('string');
    }
    // Nothing refused was stored.
    expect((await ctx.admin('GET', `/admin/v1/missions/${missionId}`)).json().titles).toEqual({
      ko: '산책하기',
      th: 'ออกไปเดินเล่น',
    });
    // A bad ?lang= is a request error too, in the same shape.
    const badLang = await ctx.app.inject({
      method: 'GET',
      url: '/v1/me/missions?lang=%3Cscript%3E',
      headers: { cookie: await sessionCookie(ctx, accountId) },
    });
    expect(badLang.statusCode).toBe(400);
    expect(badLang.json()).toMatchObject({ code: 3000, name: 'VALIDATION_FAILED' });
  });
});
