// POST /admin/v1/demo is for development only: a production service refuses it with the error body
// (3625 DEMO_DEVELOPMENT_ONLY) and creates nothing; a body of the wrong shape is a 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

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
}, 120_000);
afterAll(() => production?.close());

describe('POST /admin/v1/demo in production', () => {
  it('is refused with 3625 and creates no partner', async () => {
    const answer = await production.admin('POST', '/admin/v1/demo', {});
    expect(answer.statusCode).toBe(403);
    expect(answer.json()).toEqual({
      code: 3625,
      name: 'DEMO_DEVELOPMENT_ONLY',
      message: expect.stringContaining('development'),
    });
    const partners = await production.database.db.selectFrom('partners').select('id').execute();
    expect(partners).toEqual([]);
  });

  it('a body of the wrong shape is a 400 with the error body', async () => {
    const answer = await production.admin('POST', '/admin/v1/demo', { partnerServerUrl: 42 });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ code: expect.any(Number), name: expect.any(String) });
  });
});
