// Connect with the one-time mapping token: single use (also under concurrency), bound to its
// partner, short-lived; region validated; conflicting links refused with 409.
import { beforeAll, describe, expect, it } from 'vitest';
import { partnerCall } from './harness.ts';
import type { TestContext } from './harness.ts';
import { createLinkingPartner, loginAtPartner, TestBrowser, useLoginApp } from './login-helpers.ts';
import type { LinkingPartner } from './login-helpers.ts';

let ctx: TestContext;
let partner: LinkingPartner;
let other: LinkingPartner;
useLoginApp({}, (started) => ({ ctx, partner } = started));
beforeAll(async () => {
  other = await createLinkingPartner(ctx);
});

async function tokenFor(username: string, at = partner): Promise<string> {
  const landed = await loginAtPartner(new TestBrowser(ctx), at.partnerId, username);
  return landed.searchParams.get('token') as string;
}

function connect(body: unknown, as = partner) {
  return partnerCall(ctx, as, { method: 'POST', url: '/v1/mission-users/connect', body });
}

async function linked(partnerUid: string, as = partner): Promise<boolean> {
  const response = await partnerCall(ctx, as, {
    method: 'GET',
    url: `/v1/mission-users?partnerUid=${encodeURIComponent(partnerUid)}`,
  });
  return response.json<{ result: boolean }>().result;
}

describe('connect', () => {
  it('a token works once: a replay is 409 MAPPING_TOKEN_USED', async () => {
    const token = await tokenFor('once');
    expect((await connect({ token, partnerUid: 'u-once', region: 'KR' })).statusCode).toBe(200);
    const replay = await connect({ token, partnerUid: 'u-once-2', region: 'KR' });
    expect(replay.statusCode).toBe(409);
    expect(replay.json()).toMatchObject({ code: 3412, name: 'MAPPING_TOKEN_USED' });
    expect(await linked('u-once-2')).toBe(false);
  });

  it('of many concurrent connects with one token, exactly one succeeds', async () => {
    const token = await tokenFor('racer');
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => connect({ token, partnerUid: `u-race-${i}`, region: 'JP' })),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(11);
    const rows = await ctx.database.db
      .selectFrom('user_mappings')
      .select('partner_uid')
      .where('partner_uid', 'like', 'u-race-%')
      .execute();
    expect(rows).toHaveLength(1);
  });

  it("another partner's token is refused and stays usable by its own partner", async () => {
    const token = await tokenFor('crossing');
    const wrong = await connect({ token, partnerUid: 'u-cross', region: 'KR' }, other);
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().name).toBe('MAPPING_TOKEN_WRONG_PARTNER');
    expect(await linked('u-cross', other)).toBe(false);
    expect((await connect({ token, partnerUid: 'u-cross', region: 'KR' })).statusCode).toBe(200);
  });

  it('an expired token is refused', async () => {
    const token = await tokenFor('slow');
    ctx.clock.advance(ctx.config.login.tokenTtlSeconds * 1000 + 1000);
    try {
      const late = await connect({ token, partnerUid: 'u-slow', region: 'KR' });
      expect(late.statusCode).toBe(400);
      expect(late.json()).toMatchObject({ code: 3411, name: 'MAPPING_TOKEN_EXPIRED' });
      expect(await linked('u-slow')).toBe(false);
    } finally {
      ctx.clock.set(new Date().toISOString());
    }
  });

  it.each([
    ['unknown', `mtk_${'A'.repeat(43)}`],
    ['malformed', 'not-a-token'],
    ['a token with its last character changed', null],
  ])('an %s token is 400 MAPPING_TOKEN_INVALID', async (_label, value) => {
    const token = value ?? (await tokenFor('changed')).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const response = await connect({ token, partnerUid: 'u-invalid', region: 'KR' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 3410, name: 'MAPPING_TOKEN_INVALID' });
  });

  it.each(['XX', 'korea', 'K', 'EU', '12'])('region %s is refused and consumes nothing', async (region) => {
    const token = await tokenFor(`region-${region}`);
    const response = await connect({ token, partnerUid: `u-region-${region}`, region });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 3414, name: 'INVALID_REGION' });
    expect(await linked(`u-region-${region}`)).toBe(false);
    // The token was not used up by the refused call.
    expect((await connect({ token, partnerUid: `u-region-${region}`, region: 'tw' })).statusCode).toBe(200);
  });

  it('missing or mistyped fields are 400 VALIDATION_FAILED', async () => {
    for (const body of [
      {},
      { token: 'x', partnerUid: 'u' },
      { token: 1, partnerUid: 'u', region: 'KR' },
      { token: 'x', partnerUid: '', region: 'KR' },
      { token: 'x', partnerUid: 'u', region: 'KR', extra: 1 },
    ]) {
      const response = await connect(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().name).toBe('VALIDATION_FAILED');
    }
  });

  it('needs partner credentials', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/mission-users/connect',
      payload: { token: 'x', partnerUid: 'u', region: 'KR' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().name).toBe('PARTNER_UNAUTHORIZED');
  });

  it('refuses a partner user linked to another account, and an account linked to another partner user', async () => {
    expect(
      (await connect({ token: await tokenFor('dave'), partnerUid: 'u-dave', region: 'KR' })).statusCode,
    ).toBe(200);

    const takenUid = await connect({ token: await tokenFor('eve'), partnerUid: 'u-dave', region: 'KR' });
    expect(takenUid.statusCode).toBe(409);
    expect(takenUid.json()).toMatchObject({ code: 3415, name: 'PARTNER_USER_LINKED_ELSEWHERE' });

    const secondUid = await connect({ token: await tokenFor('dave'), partnerUid: 'u-dave-2', region: 'KR' });
    expect(secondUid.statusCode).toBe(409);
    expect(secondUid.json()).toMatchObject({ code: 3416, name: 'ACCOUNT_LINKED_ELSEWHERE' });

    // The same account may link to a user of another partner.
    expect(
      (await connect({ token: await tokenFor('dave', other), partnerUid: 'u-dave', region: 'KR' }, other))
        .statusCode,
    ).toBe(200);
    const mapping = await ctx.admin('GET', `/admin/v1/partners/${partner.partnerId}/users/u-dave/mapping`);
    expect(mapping.json().account.subject).toBe('dave');
  });
});

describe('unlink (operator)', () => {
  it('shows a mapping, removes it, and the user may link again', async () => {
    expect(
      (await connect({ token: await tokenFor('frank'), partnerUid: 'u-frank', region: 'KR' })).statusCode,
    ).toBe(200);
    const viewer = await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'viewer', role: 'VIEWER' });
    const viewerSecret = viewer.json<{ secret: string }>().secret;
    const url = `/admin/v1/partners/${partner.partnerId}/users/u-frank/mapping`;

    expect((await ctx.admin('GET', url, undefined, viewerSecret)).statusCode).toBe(200);
    const refused = await ctx.admin('DELETE', url, undefined, viewerSecret);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe(901);
    expect(await linked('u-frank')).toBe(true);

    expect((await ctx.admin('DELETE', url)).statusCode).toBe(204);
    expect(await linked('u-frank')).toBe(false);
    const gone = await ctx.admin('DELETE', url);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().name).toBe('NOT_FOUND_MAPPING');
    expect((await ctx.admin('GET', url)).statusCode).toBe(404);
    expect((await ctx.admin('GET', `/admin/v1/partners/ptn_nope/users/u-frank/mapping`)).json().name).toBe(
      'NOT_FOUND_PARTNER',
    );

    expect(
      (await connect({ token: await tokenFor('frank'), partnerUid: 'u-frank', region: 'KR' })).statusCode,
    ).toBe(200);
    expect(await linked('u-frank')).toBe(true);
  });
});
