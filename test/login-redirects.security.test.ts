// Where a login may send the browser: only pages of ours after the mission-page sign-in (finding 5),
// and the partner's redirect URL with exactly our outcome, whatever token/error it carried (finding 7).
import { describe, expect, it } from 'vitest';
import type { TestContext } from './harness.ts';
import {
  APP_ORIGIN,
  authUrl,
  loginAtPartner,
  loginFormAction,
  PARTNER_REDIRECT,
  TestBrowser,
  useLoginApp,
} from './login-helpers.ts';
import type { LinkingPartner } from './login-helpers.ts';
import { RETURN_TO_BYPASSES } from './return-to-bypasses.ts';

let ctx: TestContext;
let partner: LinkingPartner;
useLoginApp({}, (started) => ({ ctx, partner } = started));

/** Signs in on the mission page with this returnTo and answers where the browser is sent at the end. */
async function signInReturningTo(returnTo: string): Promise<string | undefined> {
  const browser = new TestBrowser(ctx);
  const start = await browser.follow(`${APP_ORIGIN}/v1/login?returnTo=${encodeURIComponent(returnTo)}`);
  const posted = await browser.request('POST', loginFormAction(start.hops.at(-1)!).login, {
    form: { username: 'dana' },
  });
  const back = await browser.follow(
    posted.location as string,
    (next) => new URL(next).origin === APP_ORIGIN && !next.includes('/v1/'),
  );
  return back.next;
}

describe('GET /v1/login returnTo', () => {
  it('the reported bypass is a 400 with no Location', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/v1/login?returnTo=%2F.%2F%2Fevil.example%2Fphish',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 3407, name: 'INVALID_RETURN_PATH' });
    expect(response.headers.location).toBeUndefined();
  });

  it.each(RETURN_TO_BYPASSES.filter((raw) => raw !== ''))(
    'refuses %j (also encoded twice over)',
    async (raw) => {
      for (const query of [encodeURIComponent(raw), encodeURIComponent(raw).replaceAll('%2F', '/')]) {
        const response = await ctx.app.inject({ method: 'GET', url: `/v1/login?returnTo=${query}` });
        expect(response.statusCode, query).toBe(400);
        // A NUL byte is refused by the edge's input guard before the route sees it (3006).
        expect(response.json().name, query).toBe(
          raw.includes('\u0000') ? 'INVALID_CHARACTER' : 'INVALID_RETURN_PATH',
        );
        expect(response.headers.location, query).toBeUndefined();
      }
    },
  );

  it('no login started with an accepted returnTo ends anywhere but our own pages', async () => {
    const states = await ctx.database.db
      .selectFrom('login_states')
      .select('return_to')
      .where('purpose', '=', 'SESSION')
      .execute();
    for (const { return_to } of states) expect(new URL(return_to).origin).toBe(APP_ORIGIN);
    expect(await signInReturningTo('/app/draws/../missions?tab=2')).toBe(`${APP_ORIGIN}/app/missions?tab=2`);
  });
});

describe('the partner redirect URL', () => {
  it('a token or error already in redirectUrl never reaches the partner beside ours', async () => {
    const smuggling = `${PARTNER_REDIRECT}?token=mtk_forged&error=access_denied&keep=1`;
    const landed = await loginAtPartner(new TestBrowser(ctx), partner.partnerId, 'erin', smuggling);
    expect(landed.searchParams.getAll('token')).toHaveLength(1);
    expect(landed.searchParams.get('token')).toMatch(/^mtk_[A-Za-z0-9_-]{43}$/);
    expect(landed.searchParams.has('error')).toBe(false);
    expect(landed.searchParams.get('keep')).toBe('1');
  });

  it('a refused login goes back with our error only, never the token the URL carried', async () => {
    const browser = new TestBrowser(ctx);
    const start = await browser.follow(
      authUrl(partner.partnerId, `${PARTNER_REDIRECT}?token=mtk_forged&error=fake`),
    );
    const cancelled = await browser.request('POST', loginFormAction(start.hops.at(-1)!).abort);
    const { next } = await browser.follow(cancelled.location as string);
    const back = new URL(next as string);
    expect(back.searchParams.has('token')).toBe(false);
    expect(back.searchParams.getAll('error')).toEqual(['access_denied']);
  });
});
