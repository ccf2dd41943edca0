// GET /admin/v1/partners/:partnerId/users?account=: a partner's users found by platform account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { linkUsers } from './link-users.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

describe('finding users by platform account', () => {
  it("answers the partner's users linked to the account, and only that partner's", async () => {
    const acme = (await ctx.admin('POST', '/admin/v1/partners', { name: 'Acme' })).json();
    const other = (await ctx.admin('POST', '/admin/v1/partners', { name: 'Other' })).json();
    const [mina, joon] = await linkUsers(ctx, acme.id, ['mina', 'joon']);
    // The same platform account linked at another partner too.
    await ctx.database.db
      .insertInto('user_mappings')
      .values({
        partner_id: other.id,
        partner_uid: 'mina-elsewhere',
        account_id: mina as string,
        region: 'JP',
      })
      .execute();

    const found = await ctx.admin('GET', `/admin/v1/partners/${acme.id}/users?account=${mina}`);
    expect(found.statusCode).toBe(200);
    expect(found.json().items).toEqual([
      {
        partnerId: acme.id,
        partnerUid: 'mina',
        region: 'KR',
        linkedAt: expect.any(String),
        account: {
          id: mina,
          issuer: 'test',
          subject: mina,
          displayName: null,
          createdAt: expect.any(String),
        },
      },
    ]);
    const atOther = (await ctx.admin('GET', `/admin/v1/partners/${other.id}/users?account=${mina}`)).json();
    expect(atOther.items.map((u: { partnerUid: string }) => u.partnerUid)).toEqual(['mina-elsewhere']);
    const joonFound = (await ctx.admin('GET', `/admin/v1/partners/${acme.id}/users?account=${joon}`)).json();
    expect(joonFound.items.map((u: { partnerUid: string }) => u.partnerUid)).toEqual(['joon']);
    // An account with no user at this partner: an empty list, not an error.
    const none = await ctx.admin('GET', `/admin/v1/partners/${acme.id}/users?account=acc_nobody`);
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ items: [] });
  });

  it('refuses an unknown partner, a missing account parameter and a missing credential in the catalog shape', async () => {
    const unknown = await ctx.admin('GET', '/admin/v1/partners/ptn_nope/users?account=acc_x');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: expect.any(Number), name: 'NOT_FOUND_PARTNER' });
    const partner = (await ctx.admin('POST', '/admin/v1/partners', { name: 'Q' })).json();
    const missing = await ctx.admin('GET', `/admin/v1/partners/${partner.id}/users`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({
      code: expect.any(Number),
      name: expect.any(String),
      field: 'querystring.account',
    });
    const anonymous = await ctx.app.inject({
      method: 'GET',
      url: `/admin/v1/partners/${partner.id}/users?account=a`,
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ code: 3200 });
  });
});
