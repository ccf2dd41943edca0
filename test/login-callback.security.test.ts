// A refused callback must not burn the login (finding 6): the state is checked, then consumed, so a
// callback replayed in another browser or without the binding cookie leaves the real one working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import {
  APP_ORIGIN,
  authUrl,
  createLinkingPartner,
  issuerEnv,
  loginFormAction,
  PARTNER_REDIRECT,
  startTestIssuer,
  TestBrowser,
} from './login-helpers.ts';
import type { Hop, TestIssuer } from './login-helpers.ts';

let issuer: TestIssuer;
let ctx: TestContext;
let partner: { partnerId: string; apiKey: string };

beforeAll(async () => {
  issuer = await startTestIssuer();
  ctx = await startTestApp({ env: issuerEnv(issuer), now: new Date().toISOString() });
  partner = await createLinkingPartner(ctx);
});
afterAll(async () => {
  await ctx?.close();
  await issuer?.close();
});

const isCallback = (url: string) => url.startsWith(`${APP_ORIGIN}/v1/mission-users/auth/callback`);

async function upToCallback(browser: TestBrowser): Promise<string> {
  const start = await browser.request('GET', authUrl(partner.partnerId, PARTNER_REDIRECT));
  const page = (await browser.follow(start.location as string)).hops.at(-1) as Hop;
  const posted = await browser.request('POST', loginFormAction(page).login, { form: { username: 'frank' } });
  const { next } = await browser.follow(posted.location as string, isCallback);
  if (!next || !isCallback(next)) throw new Error('did not reach the callback');
  return next;
}

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
