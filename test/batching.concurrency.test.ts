// Batched writes and reads (docs/performance.md): requests that arrive together are answered by one
// statement or one transaction. What this must never change: each answer is its own, a record's
// rules hold (sticky completion, target replaced only when reported), one bad report fails alone,
// and a batched reservation never overspends, even with many batches at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createAccount, partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { createAchiever } from '../src/progress/service.ts';
import { findMissionForAchieve } from '../src/progress/store.ts';
import { linkedAmong } from '../src/linking/store.ts';
import { createBudget } from '../src/budgets/service.ts';
import { POOL, reserveMany } from '../src/budgets/reservations.ts';
import { grantClaims } from '../src/claims/grants.ts';
import type { Grant } from '../src/claims/grants.ts';
import { linkUsers } from './link-users.ts';
import { itUnless, needsPostgres } from './requirements.ts';

let ctx: TestContext;
let setup: MissionSetup;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'steps', recurrence: 'DAILY', target: 10 });
});
afterAll(async () => {
  await ctx?.close();
});

async function record(partnerUid: string, missionId = setup.missionId) {
  return ctx.database.db
    .selectFrom('mission_progress')
    .select(['completed', 'target', 'current', 'report_count'])
    .where('partner_id', '=', setup.partnerId)
    .where('partner_uid', '=', partnerUid)
    .where('mission_id', '=', missionId)
    .executeTakeFirst();
}

describe('link checks answered together', () => {
  it('give each partner user its own answer, scoped to its partner', async () => {
    const other = await setupMission(ctx, { missionKey: 'other' });
    const linked = Array.from({ length: 30 }, (_, i) => `lc-${i}`).filter((_, i) => i % 3 === 0);
    for (const partnerUid of linked)
      await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid } });
    // The other partner has a user of the same name linked: it must not count for this partner.
    await createAccount(ctx, { link: { partnerId: other.partnerId, partnerUid: 'lc-1' } });
    const asks = Array.from({ length: 30 }, (_, i) => `lc-${i}`).flatMap((uid) => [
      { who: setup, uid },
      { who: other, uid },
    ]);
    const answers = await Promise.all(
      asks.map(({ who, uid }) =>
        partnerCall(ctx, who, { method: 'GET', url: `/v1/mission-users?partnerUid=${uid}` }),
      ),
    );
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    const got = asks.map(
      ({ who, uid }, i) =>
        `${who === setup ? 'a' : 'b'}:${uid}:${(answers[i]?.json() as { result: boolean }).result}`,
    );
    const expected = asks.map(
      ({ who, uid }) =>
        `${who === setup ? 'a' : 'b'}:${uid}:${who === setup ? linked.includes(uid) : uid === 'lc-1'}`,
    );
    expect(got).toEqual(expected);
  });

  it('answer in the order asked, one statement for many users', async () => {
    const users = [
      { partnerId: setup.partnerId, partnerUid: 'lc-0' },
      { partnerId: setup.partnerId, partnerUid: 'nobody' },
      { partnerId: setup.partnerId, partnerUid: 'lc-3' },
      { partnerId: 'ptn_none', partnerUid: 'lc-0' },
    ];
    expect(await linkedAmong(ctx.database.db, users)).toEqual([true, false, true, false]);
    expect(await linkedAmong(ctx.database.db, [])).toEqual([]);
  });
});

describe('progress reports written together', () => {
  it('keep each record its own rules when reports with and without a target, and repeats, arrive at once', async () => {
    const report = (partnerUid: string, body: Record<string, unknown>) =>
      partnerCall(ctx, setup, {
        method: 'POST',
        url: '/v1/achieve',
        body: { partnerUid, missionKey: 'steps', ...body },
      });
    // A record first written with a target of 50 (a reported target replaces the mission's 10).
    expect(
      (await report('mix-0', { completed: false, metadata: { target: 50, current: 1 } })).statusCode,
    ).toBe(200);
    const answers = await Promise.all([
      report('mix-0', { completed: false, metadata: { current: 7 } }), // no target: keeps 50
      report('mix-1', { completed: false, metadata: { current: 2 } }), // new, no target: the mission's 10
      report('mix-2', { completed: false, metadata: { target: 30, current: 3 } }), // new, reported: 30
      ...Array.from({ length: 5 }, () => report('mix-3', { completed: false, metadata: { current: 4 } })),
      report('mix-4', { completed: true, metadata: { current: 10 } }),
      report('mix-4', { completed: false, metadata: { current: 2 } }), // completion is sticky
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual(Array(answers.length).fill(200));
    expect(await record('mix-0')).toEqual({ completed: false, target: 50, current: 7, report_count: 2 });
    expect(await record('mix-1')).toEqual({ completed: false, target: 10, current: 2, report_count: 1 });
    expect(await record('mix-2')).toEqual({ completed: false, target: 30, current: 3, report_count: 1 });
    expect(await record('mix-3')).toMatchObject({
      completed: false,
      target: 10,
      current: 4,
      report_count: 5,
    });
    expect(await record('mix-4')).toMatchObject({ completed: true, report_count: 2 });
  });

  it('fail only the report that cannot be written when its batch fails', async () => {
    // A mission lookup that hands one report a mission id that does not exist: its row breaks the
    // foreign key, which fails the whole batch statement; the others must still be written.
    const achiever = createAchiever(ctx.database.db, ctx.clock, {
      findMission: async (db, partnerId, missionKey) => {
        const mission = await findMissionForAchieve(db, partnerId, missionKey.replace(/^broken-/, ''));
        return mission && missionKey.startsWith('broken-') ? { ...mission, missionId: 'mis_gone' } : mission;
      },
    });
    const reports = ['iso-0', 'iso-1', 'broken-', 'iso-2'].map((uid) =>
      achiever.achieve(setup.partnerId, {
        partnerUid: uid === 'broken-' ? 'iso-broken' : uid,
        missionKey: uid === 'broken-' ? 'broken-steps' : 'steps',
        completed: false,
        metadata: { current: 1 },
      }),
    );
    const settled = await Promise.allSettled(reports);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ code: '23503' });
    for (const uid of ['iso-0', 'iso-1', 'iso-2'])
      expect(await record(uid)).toMatchObject({ current: 1, report_count: 1 });
    expect(await record('iso-broken')).toBeUndefined();
  });
});

describe('batched reservation', () => {
  async function budget(total: string, stripes: number) {
    const asset = await ctx.admin('POST', '/admin/v1/reward-assets', {
      symbol: 'RSV',
      name: 'Reserve',
      decimals: 0,
    });
    return createBudget(ctx.database.db, ctx.clock, {
      type: 'FIXED',
      assetId: asset.json<{ id: string }>().id,
      name: 'batch',
      total,
      stripes,
    });
  }
  const stripesOf = async (budgetId: string) =>
    (
      await ctx.database.db
        .selectFrom('budget_stripes')
        .select(['remaining'])
        .where('budget_id', '=', budgetId)
        .orderBy('stripe')
        .execute()
    ).map((r) => r.remaining);

  it('covers what whole stripes hold, then gathers the rest from several stripes, and refuses what is not there', async () => {
    // 10 over 4 stripes is 3, 3, 2, 2: two amounts of 3 fit in stripes, the third only gathered
    // from two stripes, the fourth not at all (1 left).
    const b = await budget('10', 4);
    const covered = await ctx.database.db.transaction().execute((trx) =>
      reserveMany(
        trx,
        b.id,
        4,
        Array.from({ length: 4 }, (_, i) => ({ amount: 3n, owner: POOL, key: `k${i}` })),
      ),
    );
    expect(covered).toEqual([true, true, true, false]);
    expect((await stripesOf(b.id)).reduce((a, s) => a + BigInt(s), 0n)).toBe(1n);
  });

  it('takes many whole amounts from one stripe in one go, and mixes amounts in one batch', async () => {
    const b = await budget('1000', 4);
    const requests = [
      ...Array.from({ length: 30 }, (_, i) => ({ amount: 5n, owner: 'p1', key: `five-${i}` })),
      ...Array.from({ length: 10 }, (_, i) => ({ amount: 7n, owner: 'p1', key: `seven-${i}` })),
    ];
    const covered = await ctx.database.db.transaction().execute((trx) => reserveMany(trx, b.id, 4, requests));
    expect(covered.every(Boolean)).toBe(true);
    expect((await stripesOf(b.id)).reduce((a, s) => a + BigInt(s), 0n)).toBe(1000n - 30n * 5n - 10n * 7n);
  });

  const owners = async (budgetId: string) =>
    Object.fromEntries(
      (
        await ctx.database.db
          .selectFrom('budget_stripes')
          .select(['partner_id', (eb) => eb.fn.sum<string>('remaining').as('left')])
          .where('budget_id', '=', budgetId)
          .groupBy('partner_id')
          .execute()
      ).map((r) => [r.partner_id, BigInt(r.left)]),
    );

  it("takes a partner's amounts from its own stripes, refilled from the pool by half a pool stripe", async () => {
    // 1,600 in one pool stripe: the first reservation of ten 1s finds no stripe of the partner's,
    // so a refill moves half of the pool stripe (800) to the partner.
    const b = await budget('1600', 1);
    const ten = (partnerId: string) =>
      Array.from({ length: 10 }, (_, i) => ({ amount: 1n, owner: partnerId, key: `${partnerId}-${i}` }));
    const reserve = (partnerId: string) =>
      ctx.database.db.transaction().execute((trx) => reserveMany(trx, b.id, 1, ten(partnerId)));
    expect(await reserve('pa')).toEqual(ten('pa').map(() => true));
    expect(await owners(b.id)).toEqual({ '': 800n, pa: 790n });
    // The partner's stripes hold enough: nothing moves from the pool.
    await reserve('pa');
    expect(await owners(b.id)).toEqual({ '': 800n, pa: 780n });
    // Another partner's reservation refills its own stripes, not the first partner's.
    await reserve('pb');
    expect(await owners(b.id)).toEqual({ '': 400n, pa: 780n, pb: 390n });
  });

  it('moves all of a pool stripe that holds less than four times what is needed', async () => {
    const b = await budget('30', 1);
    const covered = await ctx.database.db
      .transaction()
      .execute((trx) => reserveMany(trx, b.id, 1, [{ amount: 8n, owner: 'pa', key: 'a' }]));
    expect(covered).toEqual([true]);
    expect(await owners(b.id)).toEqual({ '': 0n, pa: 22n });
  });

  it("covers the budget's last units from the pool and other partners' stripes, and refuses only what is not there", async () => {
    const b = await budget('1600', 2);
    await ctx.database.db
      .transaction()
      .execute((trx) => reserveMany(trx, b.id, 2, [{ amount: 1n, owner: 'pa', key: 'a' }]));
    // 'pa' holds 399 after its refill (half of a pool stripe of 800), the pool 1,200: 'pb' asks for
    // 1,600 in 16 amounts of 100. No pool stripe holds it all, so the last units are gathered from
    // every stripe: 15 of the 16 are covered, from the pool (1,200), then from 'pa' (300; its last
    // 99 is not 100: refused).
    const covered = await ctx.database.db.transaction().execute((trx) =>
      reserveMany(
        trx,
        b.id,
        2,
        Array.from({ length: 16 }, (_, i) => ({ amount: 100n, owner: 'pb', key: `b${i}` })),
      ),
    );
    expect(covered.filter(Boolean)).toHaveLength(15);
    expect(await owners(b.id)).toEqual({ '': 0n, pa: 99n });
    // 'pb' asks for 99: its stripes and the pool are empty, 'pa' has 99, and it is gathered.
    const last = await ctx.database.db
      .transaction()
      .execute((trx) => reserveMany(trx, b.id, 2, [{ amount: 99n, owner: 'pb', key: 'z' }]));
    expect(last).toEqual([true]);
    expect(Object.values(await owners(b.id)).reduce((a, s) => a + s, 0n)).toBe(0n);
  });

  it('never overspends with many batches of several partners at once, of mixed amounts, and never deadlocks', async () => {
    const total = 997n;
    const b = await budget(total.toString(), 8);
    const amounts = [1n, 2n, 3n, 5n, 8n, 13n, 130n];
    const batches = Array.from({ length: 24 }, (_, batch) =>
      Array.from({ length: 12 }, (_, i) => ({
        amount: amounts[(batch * 7 + i * 3) % amounts.length] as bigint,
        owner: ['', 'p1', 'p2'][(batch + i) % 3] as string,
        key: `b${batch}-${i}`,
      })),
    );
    const results = await Promise.all(
      batches.map((requests) =>
        ctx.database.db.transaction().execute((trx) => reserveMany(trx, b.id, 8, requests)),
      ),
    );
    const granted = results
      .flatMap((covered, batch) =>
        covered.map((ok, i) => (ok ? (batches[batch]?.[i]?.amount as bigint) : 0n)),
      )
      .reduce((a, x) => a + x, 0n);
    const left = (await stripesOf(b.id)).map((s) => BigInt(s));
    expect(left.every((s) => s >= 0n)).toBe(true);
    expect(granted + left.reduce((a, s) => a + s, 0n)).toBe(total);
    // The budget is oversubscribed (24 x 12 requests): what is left cannot cover the smallest refused amount.
    const refused = results.flatMap((covered, batch) =>
      covered.flatMap((ok, i) => (ok ? [] : [batches[batch]?.[i]?.amount as bigint])),
    );
    expect(refused.length).toBeGreaterThan(0);
    expect(left.reduce((a, s) => a + s, 0n)).toBeLessThan(refused.reduce((a, x) => (x < a ? x : a)));
  });
});

describe('claims granted in a batch', () => {
  async function budgetOf(total: string, stripes: number) {
    const asset = await ctx.admin('POST', '/admin/v1/reward-assets', {
      symbol: 'GRT',
      name: 'Grant',
      decimals: 0,
    });
    return createBudget(ctx.database.db, ctx.clock, {
      type: 'FIXED',
      assetId: asset.json<{ id: string }>().id,
      name: 'grants',
      total,
      stripes,
    });
  }
  const grant = (
    b: { id: string; assetId: string },
    partnerUid: string,
    amount: bigint,
    stripes: number,
  ): Grant => ({
    budget: { id: b.id, asset_id: b.assetId, stripes },
    amount,
    partnerId: setup.partnerId,
    partnerUid,
    promotionId: setup.promotionId,
    source: 'MISSION',
    sourceId: setup.missionId,
    periodKey: 'p1',
    now: ctx.clock.now(),
  });
  const left = async (budgetId: string) =>
    (
      await ctx.database.db
        .selectFrom('budget_stripes')
        .select('remaining')
        .where('budget_id', '=', budgetId)
        .orderBy('stripe')
        .execute()
    ).map((r) => BigInt(r.remaining));

  it('take all from one free stripe with room and write every claim in one go; a repeat gets nothing and costs nothing', async () => {
    const b = await budgetOf('400', 4); // 100 a stripe
    await linkUsers(ctx, setup.partnerId, ['g-1', 'g-2', 'g-3']);
    const grants = ['g-1', 'g-2', 'g-3', 'g-1'].map((uid) => grant(b, uid, 7n, 4));
    const answers = await ctx.database.db.transaction().execute((trx) => grantClaims(trx, grants));
    expect(answers.map((a) => a?.status)).toEqual(['REQUESTED', 'REQUESTED', 'REQUESTED', undefined]);
    const stripes = await left(b.id);
    expect(stripes.reduce((a, x) => a + x, 0n)).toBe(400n - 21n);
    // All three came from one stripe; the repeat's 7 went back (to its user's home stripe).
    expect(stripes.filter((x) => x !== 100n).length).toBeLessThanOrEqual(2);
  });

  it('fall back to sharing out the budget when no single stripe has room, rejecting only what is not there', async () => {
    // 5 a stripe: no stripe holds 7 x 4. Four amounts of 4 come from four stripes, a fifth is
    // gathered from the four crumbs of 1, the last two are not there.
    const b = await budgetOf('20', 4);
    const users = ['h-1', 'h-2', 'h-3', 'h-4', 'h-5', 'h-6', 'h-7'];
    await linkUsers(ctx, setup.partnerId, users);
    const answers = await ctx.database.db.transaction().execute((trx) =>
      grantClaims(
        trx,
        users.map((uid) => grant(b, uid, 4n, 4)),
      ),
    );
    expect(answers.map((a) => a?.status)).toEqual([
      'REQUESTED',
      'REQUESTED',
      'REQUESTED',
      'REQUESTED',
      'REQUESTED',
      'REJECTED',
      'REJECTED',
    ]);
    expect(await left(b.id)).toEqual([0n, 0n, 0n, 0n]);
  });
});

describe('two rewarded missions completed by a crowd at once', () => {
  it('reserve from both budgets in one order: every user gets both claims, nothing overspent', async () => {
    const asset = (
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'TWO', name: 'Two', decimals: 0 })
    ).json<{ id: string }>().id;
    const twin = await setupMission(ctx, { missionKey: 'twin-a', recurrence: 'ONE_TIME' });
    const second = await ctx.admin('POST', `/admin/v1/mission-groups/${twin.groupId}/missions`, {
      missionKey: 'twin-b',
      title: 'B',
      recurrence: 'ONE_TIME',
    });
    const budgets: string[] = [];
    for (const missionId of [twin.missionId, second.json<{ id: string }>().id]) {
      const b = await ctx.admin('POST', '/admin/v1/budgets', {
        type: 'FIXED',
        assetId: asset,
        name: missionId,
        total: '60',
        stripes: 4,
      });
      budgets.push(b.json<{ id: string }>().id);
      expect(
        (
          await ctx.admin('PUT', `/admin/v1/missions/${missionId}/reward`, {
            type: 'FIXED',
            budgetId: budgets.at(-1),
            amount: '1',
          })
        ).statusCode,
      ).toBe(200);
    }
    const users = Array.from({ length: 50 }, (_, i) => `twin-${i}`);
    await linkUsers(ctx, twin.partnerId, users);
    const answers = await Promise.all(
      users.flatMap((partnerUid) =>
        ['twin-b', 'twin-a'].map((missionKey) =>
          partnerCall(ctx, twin, {
            method: 'POST',
            url: '/v1/achieve',
            body: { partnerUid, missionKey, completed: true },
          }),
        ),
      ),
    );
    expect(answers.filter((a) => a.statusCode !== 200).map((a) => a.body)).toEqual([]);
    for (const budgetId of budgets) {
      const claims = await ctx.database.db
        .selectFrom('claims')
        .select(['partner_uid', 'status'])
        .where('budget_id', '=', budgetId)
        .execute();
      expect(claims.map((c) => c.partner_uid).sort()).toEqual([...users].sort());
      expect(new Set(claims.map((c) => c.status))).toEqual(new Set(['REQUESTED']));
      const left = await ctx.database.db
        .selectFrom('budget_stripes')
        .select(sql<string>`sum(remaining)::text`.as('s'))
        .where('budget_id', '=', budgetId)
        .executeTakeFirstOrThrow();
      expect(left.s).toBe('10');
    }
  });
});

describe('prepared statements', () => {
  itUnless(needsPostgres('prepared statements are a pg driver feature'))(
    'run the marked hot statements as named prepared statements, parsed once per connection',
    async () => {
      const { before, names } = await ctx.database.db.connection().execute(async (conn) => {
        const prepared = async () =>
          (
            await sql<{
              name: string;
              statement: string;
            }>`SELECT name, statement FROM pg_prepared_statements`.execute(conn)
          ).rows;
        const before = await prepared();
        for (let i = 0; i < 3; i++)
          await linkedAmong(conn, [{ partnerId: setup.partnerId, partnerUid: `lc-${i}` }]);
        return { before, names: await prepared() };
      });
      // The pool's connection may have run the statement (or its form for several partners) in an
      // earlier test: three calls prepare it at most once, and it is there, named, afterwards.
      const linked = names.filter((n) => n.name.startsWith('linked_among_'));
      const added = linked.filter((n) => !before.some((b) => b.name === n.name));
      expect(linked.length).toBeGreaterThan(0);
      expect(added.length).toBeLessThanOrEqual(1);
      for (const statement of linked) expect(statement.statement).toContain('/* prepared:linked_among */');
      // Unmarked statements stay unnamed.
      expect(names.every((n) => /^[a-z_]+_[0-9a-f]{12}$/.test(n.name))).toBe(true);
    },
  );
});
