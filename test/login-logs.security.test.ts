// What is logged (finding 12): no query string of any route reaches the logs, so the login's
// `code` and `state`, a mapping token on its way to the partner and user ids stay out of them.
import { describe, expect, it } from 'vitest';
import { pathForLog } from '../src/http/log-redaction.ts';
import { partnerCall } from './harness.ts';
import type { TestContext } from './harness.ts';
import {
  APP_ORIGIN,
  authUrl,
  createLinkingPartner,
  loginFormAction,
  PARTNER_REDIRECT,
  TestBrowser,
  useLoginApp,
} from './login-helpers.ts';

let ctx: TestContext;
useLoginApp({ captureLogs: true }, (started) => ({ ctx } = started));

describe('request logs', () => {
  it('a whole login leaves no code, state, token, session id or query in the logs', async () => {
    const partner = await createLinkingPartner(ctx);
    const browser = new TestBrowser(ctx);
    const start = await browser.follow(
      authUrl(partner.partnerId, `${PARTNER_REDIRECT}?partnerSecret=p-9f8e7d`),
    );
    const posted = await browser.request('POST', loginFormAction(start.hops.at(-1)!).login, {
      form: { username: 'kim' },
    });
    const isCallback = (url: string) => url.startsWith(`${APP_ORIGIN}/v1/mission-users/auth/callback`);
    const { next: callback } = await browser.follow(posted.location as string, isCallback);
    const finished = await browser.request('GET', callback as string);
    const landed = new URL(finished.location as string);
    await partnerCall(ctx, partner, { method: 'GET', url: '/v1/mission-users?partnerUid=uid-secret-4711' });
    await ctx.app.inject({ method: 'GET', url: '/v1/no-such-route?q=query-secret-1234' });

    const callbackParams = new URL(callback as string).searchParams;
    const secrets = {
      code: callbackParams.get('code'),
      state: callbackParams.get('state'),
      token: landed.searchParams.get('token'),
      session: browser.cookies(APP_ORIGIN).get('mrs_session'),
    };
    for (const [name, value] of Object.entries(secrets)) expect(value, name).toBeTruthy();
    const logged = JSON.stringify(ctx.logs);
    for (const [name, value] of Object.entries(secrets)) expect(logged, name).not.toContain(value as string);
    for (const word of ['p-9f8e7d', 'uid-secret-4711', 'query-secret-1234', 'redirectUrl=', 'partnerId=']) {
      expect(logged, word).not.toContain(word);
    }

    const urls = ctx.logs
      .filter((line) => line.msg === 'incoming request')
      .map((line) => (line.req as { url: string }).url);
    expect(urls).toContain('/v1/mission-users/auth/callback');
    expect(urls).toContain('/v1/mission-users');
    for (const url of urls) expect(url).not.toMatch(/[?#]/);
  });

  it('pathForLog keeps the path only', () => {
    expect(pathForLog('/v1/login?returnTo=%2Fapp')).toBe('/v1/login');
    expect(pathForLog('/a#b?c')).toBe('/a');
    expect(pathForLog('/plain')).toBe('/plain');
  });
});
