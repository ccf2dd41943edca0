// The audit log: who changed what, before and after, in the transaction of the change; rolled-back
// writes leave nothing; the table is append-only; filters; secrets never enter it.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { operatorWrites } from '../src/audit/operator-writes.ts';
import { createPartner } from '../src/partners/service.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

const events = async (query = '', token?: string) =>
  ctx.admin('GET', `/admin/v1/audit-events${query}`, undefined, token);

describe('audit log', () => {
  it('records the operator, the action and the row before and after', async () => {
    const partner = (await ctx.admin('POST', '/admin/v1/partners', { name: 'Before' })).json();
    ctx.clock.advance(60_000);
    const patched = await ctx.app.inject({
      method: 'PATCH',
      url: `/admin/v1/partners/${partner.id}`,
      headers: { authorization: 'Bearer test-owner-token-0123456789', 'x-request-id': 'req-rename' },
      payload: { name: 'After' },
    });
    expect(patched.statusCode).toBe(200);
    const listed = (await events(`?entityType=partner&entityId=${partner.id}`)).json();
    expect(listed.total).toBe(2);
    const [update, create] = listed.items;
    expect(update).toMatchObject({
      action: 'update',
      entityType: 'partner',
      entityId: partner.id,
      actor: { name: 'ADMIN_TOKEN', id: expect.stringMatching(/^adc_/) },
      before: { name: 'Before' },
      after: { name: 'After' },
      requestId: 'req-rename',
      at: '2026-11-22T03:01:00.000Z',
    });
    expect(create).toMatchObject({ action: 'create', before: null, after: { name: 'Before' } });
  });

  it('keeps nothing of a write that fails midway, not even what a service committed inside it', async () => {
    const run = operatorWrites(ctx.database.db, ctx.clock);
    const owner = (await events()).json().items[0].actor.id as string;
    const write = { adminId: owner, requestId: 'req-fails', route: 'POST /test', params: {} };
    await expect(
      run(write, async () => {
        // createPartner commits its insert as far as it knows; then the request fails.
        await createPartner(ctx.database.db, ctx.clock, { name: 'Ghost' });
        throw new Error('fails after the first statement');
      }),
    ).rejects.toThrow('fails after the first statement');
    const ghosts = await ctx.database.db
      .selectFrom('partners')
      .select('id')
      .where('name', '=', 'Ghost')
      .execute();
    expect(ghosts).toEqual([]);
    expect(
      (await events('?entityType=partner')).json().items.map((e: { requestId: string }) => e.requestId),
    ).not.toContain('req-fails');

    // Through HTTP: streak rewards are replaced by a delete and then inserts; the insert fails.
    const asset = (
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'P', name: 'P', decimals: 0 })
    ).json();
    const budget = (
      await ctx.admin('POST', '/admin/v1/budgets', {
        type: 'FIXED',
        assetId: asset.id,
        name: 'b',
        total: '9',
      })
    ).json();
    const partner = (await ctx.admin('POST', '/admin/v1/partners', { name: 'Daily' })).json();
    const promotion = (
      await ctx.admin('POST', '/admin/v1/promotions', {
        partnerId: partner.id,
        type: 'DAILY_CHECK',
        title: 'Daily',
        timezone: 'UTC',
        startAt: '2026-01-01T00:00:00Z',
      })
    ).json();
    const url = `/admin/v1/promotions/${promotion.id}/streak-rewards`;
    expect(
      (await ctx.admin('PUT', url, { items: [{ days: 3, budgetId: budget.id, amount: '1' }] })).statusCode,
    ).toBe(200);
    await sql`CREATE FUNCTION refuse_13() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.days = 13 THEN RAISE EXCEPTION 'no 13' USING ERRCODE = '23514'; END IF; RETURN NEW; END $$`.execute(
      ctx.database.db,
    );
    await sql`CREATE TRIGGER refuse_13 BEFORE INSERT ON streak_rewards FOR EACH ROW EXECUTE FUNCTION refuse_13()`.execute(
      ctx.database.db,
    );
    const failed = await ctx.admin('PUT', url, {
      items: [
        { days: 5, budgetId: budget.id, amount: '1' },
        { days: 13, budgetId: budget.id, amount: '1' },
      ],
    });
    await sql`DROP TRIGGER refuse_13 ON streak_rewards`.execute(ctx.database.db);
    expect(failed.statusCode).toBeGreaterThanOrEqual(400);
    expect(failed.json()).toHaveProperty('code');
    const kept = await ctx.database.db
      .selectFrom('streak_rewards')
      .select('days')
      .where('promotion_id', '=', promotion.id)
      .execute();
    expect(kept).toEqual([{ days: 3 }]);
    const streakEvents = (await events('?entityType=streak_reward')).json().items;
    expect(streakEvents.map((e: { action: string }) => e.action)).toEqual(['create']);
  });

  it('is append-only in the database and has no route that changes it', async () => {
    for (const statement of [
      sql`UPDATE audit_events SET actor_name = 'someone else'`,
      sql`DELETE FROM audit_events`,
      sql`TRUNCATE audit_events`,
    ])
      await expect(statement.execute(ctx.database.db)).rejects.toThrow(/append-only/);
    expect((await events()).json().total).toBeGreaterThan(0);
    const paths = (ctx.app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths;
    const auditPaths = Object.entries(paths).filter(([path]) => path.includes('audit'));
    expect(auditPaths.map(([path, ops]) => [path, Object.keys(ops)])).toEqual([
      ['/admin/v1/audit-events', ['get']],
    ]);
    const deleted = await ctx.admin('DELETE', '/admin/v1/audit-events');
    expect(deleted.statusCode).toBe(404);
    expect(deleted.json()).toHaveProperty('code');
  });

  it('filters by actor, action, time and pages with a total; any role reads it', async () => {
    const viewer = (
      await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'viewer', role: 'VIEWER' })
    ).json();
    const operator = (
      await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'op', role: 'OPERATOR' })
    ).json();
    ctx.clock.advance(3_600_000);
    const since = ctx.clock.now().toISOString();
    await ctx.admin('POST', '/admin/v1/partners', { name: 'By operator' }, operator.secret);
    const byOperator = (await events(`?actorId=${operator.id}`, viewer.secret)).json();
    expect(byOperator.total).toBe(1);
    expect(byOperator.items[0]).toMatchObject({ actor: { id: operator.id, name: 'op' }, action: 'create' });
    expect((await events(`?since=${since}`)).json().total).toBe(1);
    expect((await events(`?until=${since}&actorId=${operator.id}`)).json().total).toBe(0);
    const creates = (await events('?action=create&limit=2&offset=1')).json();
    expect(creates.items).toHaveLength(2);
    expect(creates.total).toBeGreaterThan(3);
    expect(creates.items.every((e: { action: string }) => e.action === 'create')).toBe(true);
    const bad = await events('?action=upsert');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty('code');
    const anonymous = await ctx.app.inject({ method: 'GET', url: '/admin/v1/audit-events' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('never holds a secret: API keys, admin secrets and their hashes are redacted', async () => {
    const partner = (await ctx.admin('POST', '/admin/v1/partners', { name: 'Secrets' })).json();
    const key = (await ctx.admin('POST', `/admin/v1/partners/${partner.id}/api-keys`, {})).json();
    const admin = (
      await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'x', role: 'VIEWER' })
    ).json();
    const hashes = await sql<{
      h: string;
    }>`SELECT key_hash AS h FROM partner_api_keys UNION ALL SELECT secret_hash FROM admin_credentials`.execute(
      ctx.database.db,
    );
    const body = (await events('?limit=500')).body;
    for (const secret of [key.apiKey, admin.secret, ...hashes.rows.map((r) => r.h)])
      expect(body).not.toContain(secret);
    const keyEvent = (await events(`?entityType=partner_api_key&entityId=${key.id}`)).json().items[0];
    expect(keyEvent.after.key_hash).toBe('[redacted]');
  });
  it('keeps every amount exact: a top-up of one base unit on 10^21 shows in before and after', async () => {
    const asset = (
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'WEI', name: 'Eighteen', decimals: 18 })
    ).json();
    const budget = (
      await ctx.admin('POST', '/admin/v1/budgets', {
        type: 'FIXED',
        assetId: asset.id,
        name: 'Big "1e3" pool 42',
        total: '1000',
      })
    ).json();
    const topUp = await ctx.admin('POST', `/admin/v1/budgets/${budget.id}/top-up`, {
      amount: '0.000000000000000001',
    });
    expect(topUp.statusCode).toBe(200);
    const [update] = (await events(`?entityType=budget&entityId=${budget.id}&action=update`)).json().items;
    expect(update.before.total).toBe('1000000000000000000000');
    expect(update.after.total).toBe('1000000000000000000001');
    // Every number of a row image is its exact decimal string, so a field has one type whatever its size.
    expect(typeof update.after.stripes).toBe('string');
    expect(update.after.name).toBe('Big "1e3" pool 42');
  });
});
