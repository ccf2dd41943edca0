import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

describe('admin authentication', () => {
  it('no, garbage or revoked bearer -> 401 3200', async () => {
    const none = await ctx.app.inject({ method: 'GET', url: '/admin/v1/partners' });
    expect(none.statusCode).toBe(401);
    expect(none.json().code).toBe(3200);
    const garbage = await ctx.admin('GET', '/admin/v1/partners', undefined, 'garbage-token-not-real');
    expect(garbage.statusCode).toBe(401);
    expect(garbage.json().code).toBe(3200);

    const created = await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'temp', role: 'VIEWER' });
    expect(created.statusCode).toBe(201);
    const { id, secret } = created.json() as { id: string; secret: string };
    expect((await ctx.admin('GET', '/admin/v1/partners', undefined, secret)).statusCode).toBe(200);
    const list = await ctx.admin('GET', '/admin/v1/admin-credentials');
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(secret);
    expect((await ctx.admin('DELETE', `/admin/v1/admin-credentials/${id}`)).statusCode).toBe(204);
    const revoked = await ctx.admin('GET', '/admin/v1/partners', undefined, secret);
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().code).toBe(3200);
  });

  it('VIEWER reads but cannot write (403 901); nothing created', async () => {
    const { secret } = (
      await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'viewer', role: 'VIEWER' })
    ).json() as { secret: string };
    expect((await ctx.admin('GET', '/admin/v1/promotions', undefined, secret)).statusCode).toBe(200);
    const denied = await ctx.admin('POST', '/admin/v1/partners', { name: 'nope' }, secret);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe(901);
    expect((await ctx.admin('GET', '/admin/v1/partners')).json().items).toHaveLength(0);
  });

  it('OPERATOR writes the catalog but cannot manage credentials (901)', async () => {
    const { secret } = (
      await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'op', role: 'OPERATOR' })
    ).json() as { secret: string };
    expect((await ctx.admin('POST', '/admin/v1/partners', { name: 'ok' }, secret)).statusCode).toBe(201);
    const denied = await ctx.admin(
      'POST',
      '/admin/v1/admin-credentials',
      { name: 'x', role: 'OWNER' },
      secret,
    );
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe(901);
  });
});
