// The development first-OWNER sign-in (#29): with no ADMIN_TOKEN and no operator credential,
// start-up issues a one-time code (kept by hash) whose console address the service prints; the code
// becomes one OWNER credential once; never in production, never when a credential exists, never twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueFirstSignIn } from '../src/admins/first-sign-in.ts';
import { sha256Hex } from '../src/domain/ids.ts';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

const development = (adminToken?: string) => ({
  nodeEnv: 'development',
  adminToken,
  publicBaseUrl: 'http://localhost:8080',
});
const exchange = (code: string) =>
  ctx.app.inject({ method: 'POST', url: '/admin/v1/first-sign-in', payload: { code } });

describe('the first OWNER sign-in', () => {
  it('is not issued with ADMIN_TOKEN set, in production, or while an operator credential exists', async () => {
    // The harness made the ADMIN_TOKEN OWNER.
    expect(await issueFirstSignIn(ctx.database.db, ctx.clock, development())).toBeUndefined();
    await ctx.database.db.deleteFrom('admin_credentials').execute();
    expect(await issueFirstSignIn(ctx.database.db, ctx.clock, development('x'.repeat(20)))).toBeUndefined();
    expect(
      await issueFirstSignIn(ctx.database.db, ctx.clock, { ...development(), nodeEnv: 'production' }),
    ).toBeUndefined();
  });

  it('is a one-time code in the console address, kept by hash, that makes one OWNER once', async () => {
    await ctx.database.db.deleteFrom('admin_credentials').execute();
    const issued = await issueFirstSignIn(ctx.database.db, ctx.clock, development());
    expect(issued?.url).toMatch(/^http:\/\/localhost:8080\/console\/#first-sign-in=fsi_[A-Za-z0-9_-]+$/);
    const code = issued?.url.split('=')[1] ?? '';
    const stored = await ctx.database.db
      .selectFrom('admin_first_sign_ins' as never)
      .selectAll()
      .execute();
    expect(JSON.stringify(stored)).not.toContain(code);
    expect(JSON.stringify(stored)).toContain(sha256Hex(code));

    const wrong = await exchange('fsi_not-the-code');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ code: 3614, name: 'FIRST_SIGN_IN_INVALID', message: expect.any(String) });
    const created = await exchange(code);
    expect(created.statusCode).toBe(201);
    const { secret } = created.json<{ secret: string }>();
    expect(secret).toMatch(/^adm_/);
    const me = await ctx.admin('GET', '/admin/v1/me', undefined, secret);
    expect(me.json()).toMatchObject({ role: 'OWNER' });
    expect((await exchange(code)).json()).toMatchObject({ code: 3614 });
    // A second start issues nothing: an OWNER exists.
    expect(await issueFirstSignIn(ctx.database.db, ctx.clock, development())).toBeUndefined();
    const owners = await ctx.database.db.selectFrom('admin_credentials').select('role').execute();
    expect(owners).toEqual([{ role: 'OWNER' }]);
  });

  it('a code expires after an hour, and a newer start replaces an unused one', async () => {
    await ctx.database.db.deleteFrom('admin_credentials').execute();
    const first =
      (await issueFirstSignIn(ctx.database.db, ctx.clock, development()))?.url.split('=')[1] ?? '';
    const second =
      (await issueFirstSignIn(ctx.database.db, ctx.clock, development()))?.url.split('=')[1] ?? '';
    expect((await exchange(first)).json()).toMatchObject({ code: 3614 });
    ctx.clock.advance(61 * 60_000);
    expect((await exchange(second)).json()).toMatchObject({ code: 3614 });
  });
});

describe('in production', () => {
  let production: TestContext;
  beforeAll(async () => {
    production = await startTestApp({
      env: {
        NODE_ENV: 'production',
        PUBLIC_BASE_URL: 'https://rewards.example',
        SESSION_SECRET: 's'.repeat(32),
        LOGIN_OIDC_ISSUER: 'https://access.line.me',
        LOGIN_OIDC_CLIENT_ID: '1234567890',
        LOGIN_OIDC_CLIENT_SECRET: 'secret',
      },
    });
  });
  afterAll(() => production?.close());

  it('there is no first sign-in route', async () => {
    const answer = await production.app.inject({
      method: 'POST',
      url: '/admin/v1/first-sign-in',
      payload: { code: 'fsi_x' },
    });
    expect(answer.statusCode).not.toBe(201);
    expect(answer.json()).toMatchObject({ code: expect.any(Number), name: expect.any(String) });
    expect(answer.json().code).not.toBe(3614);
  });
});
