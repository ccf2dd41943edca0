import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { migrate } from '../src/db/migrate.ts';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

describe('operations', () => {
  it('answers health, readiness, the OpenAPI document and the docs page', async () => {
    expect((await ctx.app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    expect((await ctx.app.inject('/readyz')).json()).toEqual({ status: 'ready' });
    const doc = (await ctx.app.inject('/openapi.json')).json();
    expect(doc.openapi).toMatch(/^3\./);
    for (const path of [
      '/v1/achieve',
      '/v1/mission-users',
      '/admin/v1/partners',
      '/admin/v1/promotions/{promotionId}',
    ]) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
    expect(Object.keys(doc.components.securitySchemes)).toEqual(
      expect.arrayContaining(['partnerId', 'partnerApiKey', 'adminBearer']),
    );
    const docs = await ctx.app.inject('/docs/');
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });

  it('running the migrations again applies nothing and keeps the data', async () => {
    const before = await ctx.database.db.selectFrom('admin_credentials').select('id').execute();
    expect(await migrate(ctx.database)).toEqual([]);
    const after = await ctx.database.db.selectFrom('admin_credentials').select('id').execute();
    expect(after).toEqual(before);
  });
});

describe('configuration', () => {
  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['LOG_LEVEL', 'loud'],
    ['TRUST_PROXY', 'somewhere'],
    ['TRUST_PROXY', '10.0.0.0/40'],
    ['DATABASE_URL', 'mysql://x'],
    ['PUBLIC_BASE_URL', 'not a url'],
    ['ADMIN_TOKEN', 'short'],
    ['BODY_LIMIT_BYTES', '12'],
    ['BATCH_CONCURRENCY', 'two'],
    ['BATCH_CONCURRENCY', '0'],
    ['BATCH_CONCURRENCY', '65'],
  ])('%s=%s stops start-up naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('takes the batch concurrency, 2 by default', () => {
    expect(loadConfig({}).batchConcurrency).toBe(2);
    expect(loadConfig({ BATCH_CONCURRENCY: '8' }).batchConcurrency).toBe(8);
  });

  it('parses good values', () => {
    const config = loadConfig({ PORT: '9000', TRUST_PROXY: '10.0.0.0/8, 192.168.1.1', LOG_LEVEL: 'warn' });
    expect(config).toMatchObject({ port: 9000, trustProxy: ['10.0.0.0/8', '192.168.1.1'], logLevel: 'warn' });
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({}).trustProxy).toBe(false);
  });
});
