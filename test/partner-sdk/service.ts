// Test helpers of the partner SDK's tests: the service listening on a real port of 127.0.0.1 (its
// PUBLIC_BASE_URL is that address, so the embedded development login works over real HTTP), a
// partner with a registered redirect URL and a mission, and the browser's login journey.
import { startTestApp } from '../harness.ts';
import type { TestContext } from '../harness.ts';
import { loginFormAction, TestBrowser } from '../login-helpers.ts';
import type { Hop } from '../login-helpers.ts';
import { freePort } from '../free-port.ts';

export { freePort };

export interface ListeningService {
  ctx: TestContext;
  baseUrl: string;
  close(): Promise<void>;
}

/** The service on a real port with the embedded development login, at the real time. */
export async function startListeningService(env: Record<string, string> = {}): Promise<ListeningService> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const ctx = await startTestApp({
    env: { PUBLIC_BASE_URL: baseUrl, ...env },
    now: new Date().toISOString(),
  });
  await ctx.app.listen({ host: '127.0.0.1', port });
  return { ctx, baseUrl, close: () => ctx.close() };
}

export interface SdkPartner {
  partnerId: string;
  apiKey: string;
  missionKey: string;
}

/**
 * A partner (allow-listing 127.0.0.1, with `redirectUrl` registered), an API key, an ACTIVE
 * promotion, a group and a ONE_TIME mission with a target of 10, through the operator API.
 */
export async function createSdkPartner(ctx: TestContext, redirectUrl: string): Promise<SdkPartner> {
  const ok = async <T>(call: ReturnType<TestContext['admin']>): Promise<T> => {
    const response = await call;
    if (response.statusCode !== 201) throw new Error(`setup failed: ${response.statusCode} ${response.body}`);
    return response.json<T>();
  };
  const partner = await ok<{ id: string }>(
    ctx.admin('POST', '/admin/v1/partners', {
      name: 'SDK partner',
      redirectUrls: [redirectUrl],
      allowedIps: ['127.0.0.1'],
    }),
  );
  const key = await ok<{ apiKey: string }>(
    ctx.admin('POST', `/admin/v1/partners/${partner.id}/api-keys`, {}),
  );
  const promotion = await ok<{ id: string }>(
    ctx.admin('POST', '/admin/v1/promotions', {
      partnerId: partner.id,
      type: 'COMPOSITE',
      title: 'SDK promotion',
      timezone: 'UTC',
      startAt: '2020-01-01T00:00:00Z',
      status: 'ACTIVE',
    }),
  );
  const group = await ok<{ id: string }>(
    ctx.admin('POST', `/admin/v1/promotions/${promotion.id}/mission-groups`, { title: 'Group' }),
  );
  await ok(
    ctx.admin('POST', `/admin/v1/mission-groups/${group.id}/missions`, {
      missionKey: 'read-ten-articles',
      title: 'Read ten articles',
      recurrence: 'ONE_TIME',
      target: 10,
    }),
  );
  return { partnerId: partner.id, apiKey: key.apiKey, missionKey: 'read-ten-articles' };
}

/**
 * A browser over real HTTP that starts at `authUrl`, logs in to the development provider as
 * `username`, and stops at the first redirect to `partnerOrigin`; answers that address.
 */
export async function loginThroughBrowser(
  ctx: TestContext,
  authUrl: string,
  username: string,
  partnerOrigin: string,
): Promise<string> {
  // No origin is served through inject: every hop is real HTTP.
  const browser = new TestBrowser(ctx, 'http://inject.invalid');
  const toPartner = (next: string) => new URL(next).origin === partnerOrigin;
  const first = await browser.follow(authUrl, toPartner);
  const page = first.hops.at(-1) as Hop;
  if (page.status !== 200)
    throw new Error(`expected the login page, got ${page.status}: ${page.body.slice(0, 300)}`);
  const posted = await browser.request('POST', loginFormAction(page).login, { form: { username } });
  if (!posted.location) throw new Error(`login form answered ${posted.status}: ${posted.body.slice(0, 300)}`);
  const landed = await browser.follow(posted.location, toPartner);
  if (!landed.next)
    throw new Error(`did not come back to the partner: ${JSON.stringify(landed.hops.at(-1))}`);
  return landed.next;
}
