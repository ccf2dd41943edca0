// A refused callback must not burn the login (finding 6): the state is checked, then consumed, so a
// callback replayed in another browser or without the binding cookie leaves the real one working.
import { describe, expect, it } from 'vitest';
import type { TestContext } from './harness.ts';
import { APP_ORIGIN, TestBrowser, upToCallback as upToCallbackOf, useLoginApp } from './login-helpers.ts';
import type { LinkingPartner } from './login-helpers.ts';

let ctx: TestContext;
let partner: LinkingPartner;
useLoginApp({}, (started) => ({ ctx, partner } = started));

const upToCallback = (browser: TestBrowser) => upToCallbackOf(browser, partner.partnerId, 'frank');

describe('the callback checks before it consumes', () => {
  it('a callback in another browser is refused and the real browser still finishes', async () => {
    const real = new TestBrowser(ctx);
    const callback = await upToCallback(real);
    const elsewhere = await new TestBrowser(ctx).request('GET', callback);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toContain('LOGIN_STATE_INVALID');

    const finished = await real.request('GET', callback);
    expect(finished.status).toBe(302);
    expect(new URL(finished.location as string).searchParams.get('token')).toMatch(/^mtk_/);
  });

  it('a callback without the cookie, or with a wrong one, leaves the login to its browser', async () => {
    const real = new TestBrowser(ctx);
    const callback = await upToCallback(real);
    const path = callback.slice(APP_ORIGIN.length);
    for (const cookie of [undefined, 'mrs_login=wrong-binding-value']) {
      const refused = await ctx.app.inject({
        method: 'GET',
        url: path,
        headers: { accept: 'application/json', ...(cookie && { cookie }) },
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().name).toBe('LOGIN_STATE_INVALID');
    }
    expect(await ctx.database.db.selectFrom('login_states').select('state_hash').execute()).toHaveLength(1);

    const finished = await real.request('GET', callback);
    expect(finished.status).toBe(302);
    expect(new URL(finished.location as string).searchParams.get('token')).toMatch(/^mtk_/);
    // Used once: it is gone now, and a replay from the same browser is refused.
    expect(await ctx.database.db.selectFrom('login_states').select('state_hash').execute()).toHaveLength(0);
    expect((await real.request('GET', callback)).status).toBe(400);
  });
});
