import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';

let ctx: TestContext;
let setup: MissionSetup;

beforeAll(async () => {
  ctx = await startTestApp({ captureLogs: true, env: { BODY_LIMIT_BYTES: '2048' } });
  setup = await setupMission(ctx, { target: 10 });
});
afterAll(() => ctx.close());

const TABLES = [
  'partners',
  'partner_api_keys',
  'admin_credentials',
  'promotions',
  'mission_groups',
  'missions',
  'platform_accounts',
  'user_mappings',
  'mission_progress',
];

/** A snapshot of every row of the tables we care about, to prove nothing changed. */
async function snapshot(): Promise<string> {
  const parts: string[] = [];
  for (const table of TABLES) {
    const { rows } = await sql<{
      j: unknown;
    }>`SELECT coalesce(json_agg(t ORDER BY t::text), '[]') AS j FROM ${sql.table(table)} t`.execute(
      ctx.database.db,
    );
    parts.push(`${table}:${JSON.stringify(rows[0]?.j)}`);
  }
  return parts.join('\n');
}

type Reply = { statusCode: number; headers: Record<string, unknown>; json: () => unknown };
const expectRefusal = (response: Reply, status?: number, code?: number) => {
  expect(response.statusCode).toBeGreaterThanOrEqual(400);
  expect(response.statusCode).toBeLessThan(500);
  if (status !== undefined) expect(response.statusCode).toBe(status);
  const body = response.json() as { code: unknown; name: unknown; message: unknown };
  expect(typeof body.code).toBe('number');
  if (code !== undefined) expect(body.code).toBe(code);
  expect(typeof body.name).toBe('string');
  expect(typeof body.message).toBe('string');
  expect(response.headers['x-request-id']).toBeTruthy();
};

const valid = () => ({
  partnerUid: 'u1',
  missionKey: setup.missionKey,
  completed: false,
  metadata: { target: 10, current: 1 },
});

const achieveCases: Array<[string, (b: Record<string, unknown>) => unknown]> = [
  ['partnerUid number', (b) => ({ ...b, partnerUid: 1 })],
  ['partnerUid null', (b) => ({ ...b, partnerUid: null })],
  ['partnerUid array', (b) => ({ ...b, partnerUid: ['u1'] })],
  ['partnerUid object', (b) => ({ ...b, partnerUid: { a: 1 } })],
  ['partnerUid empty', (b) => ({ ...b, partnerUid: '' })],
  ['partnerUid too long', (b) => ({ ...b, partnerUid: 'x'.repeat(1000) })],
  ['partnerUid missing', ({ partnerUid: _p, ...rest }) => rest],
  ['missionKey number', (b) => ({ ...b, missionKey: 5 })],
  ['missionKey null', (b) => ({ ...b, missionKey: null })],
  ['missionKey empty', (b) => ({ ...b, missionKey: '' })],
  ['missionKey bad chars', (b) => ({ ...b, missionKey: 'no spaces!' })],
  ['completed "true"', (b) => ({ ...b, completed: 'true' })],
  ['completed 1', (b) => ({ ...b, completed: 1 })],
  ['completed null', (b) => ({ ...b, completed: null })],
  ['completed missing', ({ completed: _c, ...rest }) => rest],
  ['metadata string', (b) => ({ ...b, metadata: 'x' })],
  ['metadata array', (b) => ({ ...b, metadata: [1] })],
  ['metadata.target string', (b) => ({ ...b, metadata: { target: '10' } })],
  ['metadata.target float', (b) => ({ ...b, metadata: { target: 1.5 } })],
  ['metadata.target negative', (b) => ({ ...b, metadata: { target: -1 } })],
  ['metadata.target huge', (b) => ({ ...b, metadata: { target: 2 ** 60 } })],
  ['metadata.current string', (b) => ({ ...b, metadata: { current: '1' } })],
  ['metadata.current float', (b) => ({ ...b, metadata: { current: 0.5 } })],
  ['metadata.current negative', (b) => ({ ...b, metadata: { current: -3 } })],
  ['metadata.current huge', (b) => ({ ...b, metadata: { current: 1e300 } })],
  ['metadata extra field', (b) => ({ ...b, metadata: { current: 1, extra: 1 } })],
  ['unknown top-level field', (b) => ({ ...b, extra: true })],
];

describe('POST /v1/achieve refuses every wrong shape with 400 and changes nothing', () => {
  it.each(achieveCases)('%s', async (_name, mutate) => {
    const before = await snapshot();
    const response = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: mutate(valid()) as object,
    });
    expectRefusal(response, 400, 3000);
    expect(await snapshot()).toBe(before);
  });

  it('the valid body itself is accepted (the table above is meaningful)', async () => {
    const response = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { ...valid(), partnerUid: 'control' },
    });
    expect(response.statusCode).toBe(200);
  });
});

describe('admin create bodies refuse wrong types', () => {
  const cases: Array<[string, string, unknown]> = [
    ['partner name number', '/admin/v1/partners', { name: 5 }],
    ['partner allowedIps string', '/admin/v1/partners', { name: 'p', allowedIps: '127.0.0.1' }],
    ['partner bad CIDR', '/admin/v1/partners', { name: 'p', allowedIps: ['999.1.1.1/40'] }],
    ['partner extra field', '/admin/v1/partners', { name: 'p', foo: 1 }],
    [
      'promotion missing partnerId',
      '/admin/v1/promotions',
      { type: 'COMPOSITE', title: 't', timezone: 'UTC', startAt: '2026-01-01T00:00:00Z' },
    ],
    [
      'promotion startAt not a date',
      '/admin/v1/promotions',
      { partnerId: 'x', type: 'COMPOSITE', title: 't', timezone: 'UTC', startAt: 'yesterday' },
    ],
    [
      'promotion title array',
      '/admin/v1/promotions',
      { partnerId: 'x', type: 'COMPOSITE', title: ['t'], timezone: 'UTC', startAt: '2026-01-01T00:00:00Z' },
    ],
  ];
  it.each(cases)('%s', async (_name, url, body) => {
    const before = await snapshot();
    expectRefusal(await ctx.admin('POST', url, body));
    expect(await snapshot()).toBe(before);
  });

  it('group and mission creation refuse wrong types', async () => {
    const before = await snapshot();
    expectRefusal(
      await ctx.admin('POST', `/admin/v1/promotions/${setup.promotionId}/mission-groups`, { title: 7 }),
      400,
    );
    expectRefusal(
      await ctx.admin('POST', `/admin/v1/mission-groups/${setup.groupId}/missions`, {
        missionKey: 'k',
        title: 't',
        recurrence: 'HOURLY',
      }),
      400,
    );
    expectRefusal(
      await ctx.admin('POST', `/admin/v1/mission-groups/${setup.groupId}/missions`, {
        missionKey: 'k',
        title: 't',
        recurrence: 'DAILY',
        target: '5',
      }),
      400,
    );
    expect(await snapshot()).toBe(before);
  });
});

describe('transport-level refusals', () => {
  const raw = (payload: string, contentType: string) =>
    ctx.app.inject({
      method: 'POST',
      url: '/v1/achieve',
      remoteAddress: '127.0.0.1',
      headers: { 'x-partner-id': setup.partnerId, 'x-api-key': setup.apiKey, 'content-type': contentType },
      payload,
    });

  it('malformed JSON -> 400 3001', async () => {
    const before = await snapshot();
    expectRefusal(await raw('{"partnerUid": ', 'application/json'), 400, 3001);
    expect(await snapshot()).toBe(before);
  });

  it('empty body with a JSON content type -> 400', async () => {
    expectRefusal(await raw('', 'application/json'), 400);
  });

  it('non-JSON content type -> 415 3003', async () => {
    expectRefusal(await raw('partnerUid=u1', 'application/x-www-form-urlencoded'), 415, 3003);
  });

  it('body over BODY_LIMIT_BYTES -> 413 3002', async () => {
    const before = await snapshot();
    const big = JSON.stringify({ ...valid(), partnerUid: 'big', pad: 'x'.repeat(4000) });
    expectRefusal(await raw(big, 'application/json'), 413, 3002);
    expect(await snapshot()).toBe(before);
  });

  it('unknown route -> 404 3004', async () => {
    expectRefusal(await ctx.app.inject({ method: 'GET', url: '/v1/nothing-here' }), 404, 3004);
  });

  it('a refusal is logged with its code', () => {
    expect(ctx.logs.some((line) => JSON.stringify(line).includes('3001'))).toBe(true);
  });
});
