// Text PostgreSQL cannot store (a NUL) or that is not Unicode (unpaired surrogates, broken UTF-8) is
// refused at the edge with 400 INVALID_CHARACTER on every route, with or without credentials, before
// authentication, logged at info and changing nothing; a database refusal we missed is a 400 too.
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { ManualClock } from '../src/domain/clock.ts';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/server.ts';
import {
  ADMIN_TOKEN,
  OUT_OF_THE_WAY,
  createAccount,
  partnerCall,
  sessionCookie,
  setupMission,
  startTestApp,
} from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { databaseFingerprint } from './database-fingerprint.ts';

let ctx: TestContext;
let setup: MissionSetup;
let userCookie: string;

beforeAll(async () => {
  ctx = await startTestApp({ captureLogs: true });
  setup = await setupMission(ctx, { target: 10 });
  userCookie = await sessionCookie(
    ctx,
    await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'u1' } }),
  );
});
afterAll(() => ctx.close());

type Reply = { statusCode: number; headers: Record<string, unknown>; body: string };

function expectInvalidCharacter(response: Reply, field?: string): void {
  expect(response.statusCode, response.body).toBe(400);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(body).toMatchObject({ code: 3006, name: 'INVALID_CHARACTER' });
  expect(typeof body.message).toBe('string');
  if (field !== undefined) expect(body.field).toBe(field);
  expect(response.headers['x-request-id']).toBeTruthy();
}

const NUL = '\u0000';
const partnerHeaders = () => ({ 'x-partner-id': setup.partnerId, 'x-api-key': setup.apiKey });
const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('a NUL in the URL', () => {
  const urls = () => [
    '/v1/mission-users?partnerUid=a%00b',
    `/v1/mission-users?partnerUid=ok&other=%00`,
    '/admin/v1/partners/a%00b',
    '/admin/v1/promotions/%00',
    '/v1/draws/%00',
    '/v1/mission-users/auth?partnerId=a%00&redirectUrl=https%3A%2F%2Fpartner.example%2F',
    '/v1/me/missions?x=%00',
    '/v1/no-such-route%00',
  ];

  it('is a 400 with credentials of every scope, and logged at info without a stack', async () => {
    const before = await databaseFingerprint(ctx.database.db);
    const logsBefore = ctx.logs.length;
    for (const url of urls()) {
      const headers = { ...partnerHeaders(), ...adminHeaders, cookie: userCookie };
      expectInvalidCharacter(
        await ctx.app.inject({ method: 'GET', url, headers, remoteAddress: '127.0.0.1' }),
      );
    }
    const lines = ctx.logs.slice(logsBefore);
    expect(lines.filter((line) => (line.level as number) >= 40)).toEqual([]);
    expect(lines.filter((line) => line.code === 3006 && line.level === 30)).toHaveLength(urls().length);
    expect(await databaseFingerprint(ctx.database.db)).toBe(before);
  });

  it('is a 400 before authentication: without credentials too (not a 401)', async () => {
    for (const url of urls()) expectInvalidCharacter(await ctx.app.inject({ method: 'GET', url }));
  });

  it('is a 400 in a POST whose body is fine', async () => {
    const response = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve?x=%00',
      body: { partnerUid: 'u1', missionKey: setup.missionKey, completed: false },
    });
    expectInvalidCharacter(response, 'url');
  });
});

describe('a NUL or an unpaired surrogate in a JSON body', () => {
  const bodies: Array<[string, string, Record<string, unknown>, string]> = [
    [
      'achieve partnerUid',
      '/v1/achieve',
      { partnerUid: `a${NUL}`, missionKey: 'daily-login', completed: false },
      'body.partnerUid',
    ],
    [
      'achieve missionKey',
      '/v1/achieve',
      { partnerUid: 'u', missionKey: `${NUL}`, completed: true },
      'body.missionKey',
    ],
    [
      'achieve field name',
      '/v1/achieve',
      { partnerUid: 'u', missionKey: 'k', completed: true, [`x${NUL}`]: 1 },
      'body',
    ],
    [
      'connect token',
      '/v1/mission-users/connect',
      { token: `t${NUL}`, partnerUid: 'u', region: 'KR' },
      'body.token',
    ],
    [
      'connect region surrogate',
      '/v1/mission-users/connect',
      { token: 't', partnerUid: 'u', region: 'K\ud800' },
      'body.region',
    ],
    ['admin partner name', '/admin/v1/partners', { name: `evil${NUL}` }, 'body.name'],
    [
      'admin nested array',
      '/admin/v1/partners',
      { name: 'p', allowedIps: ['127.0.0.1', `\udc00`] },
      'body.allowedIps.1',
    ],
  ];

  it.each(bodies)(
    '%s -> 400, with or without credentials, nothing written',
    async (_name, url, body, field) => {
      const before = await databaseFingerprint(ctx.database.db);
      for (const headers of [{ ...partnerHeaders(), ...adminHeaders }, {}]) {
        const response = await ctx.app.inject({
          method: 'POST',
          url,
          remoteAddress: '127.0.0.1',
          headers: { ...headers, 'content-type': 'application/json' },
          // JSON.stringify writes NUL as \u0000 and a lone surrogate as \udXXX: the escapes a client sends.
          payload: JSON.stringify(body),
        });
        if (Object.keys(headers).length > 0) expectInvalidCharacter(response, field);
        else expect([400, 401]).toContain(response.statusCode); // the partner scope's auth runs before the body is read
      }
      expect(await databaseFingerprint(ctx.database.db)).toBe(before);
    },
  );

  it('a body that is not UTF-8 (raw 0xff, an overlong NUL, an encoded surrogate) -> 400', async () => {
    for (const bytes of [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80]]) {
      const payload = Buffer.concat([
        Buffer.from('{"partnerUid":"a'),
        Buffer.from(bytes),
        Buffer.from(`","missionKey":"${setup.missionKey}","completed":true}`),
      ]);
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/achieve',
        remoteAddress: '127.0.0.1',
        headers: { ...partnerHeaders(), 'content-type': 'application/json' },
        payload,
      });
      expectInvalidCharacter(response, 'body');
    }
  });

  it('a NUL at the bottom of a body nested thousands deep is found, and deeper bodies are refused too', async () => {
    const nested = (depth: number, leaf: string) =>
      `{"partnerUid":${'['.repeat(depth)}${leaf}${']'.repeat(depth)}}`;
    const send = (payload: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/v1/achieve',
        remoteAddress: '127.0.0.1',
        headers: { ...partnerHeaders(), 'content-type': 'application/json' },
        payload,
      });
    const found = await send(nested(3000, '"\\u0000"'));
    expectInvalidCharacter(found, `body.partnerUid${'.0'.repeat(3000)}`);
    for (const depth of [8000, 20_000]) {
      const response = await send(nested(depth, '"x"'));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        name: expect.stringMatching(/^(MALFORMED_JSON|VALIDATION_FAILED)$/),
      });
    }
  });

  it('the control body is accepted (the cases above are meaningful)', async () => {
    const response = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'ctl-ü-😀', missionKey: setup.missionKey, completed: false },
    });
    expect(response.statusCode).toBe(200);
  });
});

describe('a NUL in a header', () => {
  it.each([
    ['x-partner-id', { 'x-partner-id': `p${NUL}`, 'x-api-key': 'k' }],
    ['x-api-key', { 'x-partner-id': 'p', 'x-api-key': `k${NUL}` }],
    ['authorization', { authorization: `Bearer ${NUL}` }],
    ['cookie', { cookie: `mrs_session=${NUL}` }],
  ])('%s -> 400 before authentication', async (name, headers) => {
    const url =
      name === 'authorization'
        ? '/admin/v1/partners'
        : name === 'cookie'
          ? '/v1/me/missions'
          : '/v1/mission-users?partnerUid=u';
    expectInvalidCharacter(await ctx.app.inject({ method: 'GET', url, headers }), `headers.${name}`);
  });
});

describe('an over-long URL', () => {
  it('-> 414 URI_TOO_LONG with the error body', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: `/v1/mission-users?partnerUid=${'a'.repeat(9000)}`,
    });
    expect(response.statusCode).toBe(414);
    expect(response.json()).toMatchObject({ code: 3008, name: 'URI_TOO_LONG' });
  });
});

describe('a database refusal of a value the edge missed', () => {
  // A route the edge knows nothing about hands the database values it refuses: the classes of
  // errors bad input causes must answer 400 UNSTORABLE_VALUE (409 CONFLICT), not 500.
  const withTempTable = (app: App, columns: string, statement: ReturnType<typeof sql>) =>
    app.deps.database.db.transaction().execute(async (trx) => {
      await sql`CREATE TEMP TABLE edge_t (${sql.raw(columns)}) ON COMMIT DROP`.execute(trx);
      await statement.execute(trx);
    });
  const statements: Record<string, (app: App) => Promise<unknown>> = {
    '22P02 invalid text representation': (app) => sql`SELECT ${'abc'}::int`.execute(app.deps.database.db),
    '22003 numeric out of range': (app) => sql`SELECT ${'99999999999'}::int`.execute(app.deps.database.db),
    // An explicit cast truncates; only storing into a column refuses the long string.
    '22001 string too long': (app) =>
      app.deps.database.db.transaction().execute(async (trx) => {
        await sql`CREATE TEMP TABLE edge_short (v varchar(2)) ON COMMIT DROP`.execute(trx);
        await sql`INSERT INTO edge_short VALUES (${'abcdef'})`.execute(trx);
      }),
    '22021 NUL in text': (app) => sql`SELECT ${`a${NUL}b`}::text`.execute(app.deps.database.db),
    '22007 bad datetime': (app) => sql`SELECT ${'not a date'}::timestamptz`.execute(app.deps.database.db),
    '22008 datetime out of range': (app) =>
      sql`SELECT ${'2026-13-45T00:00:00Z'}::timestamptz`.execute(app.deps.database.db),
    '54000 too large': (app) => sql`SELECT repeat('x', ${1 << 30}::int)`.execute(app.deps.database.db),
    '23502 not null': (app) => withTempTable(app, 'v text NOT NULL', sql`INSERT INTO edge_t VALUES (NULL)`),
    '23514 check': (app) => withTempTable(app, 'v int CHECK (v > 0)', sql`INSERT INTO edge_t VALUES (${-1})`),
    '23505 unique': (app) => withTempTable(app, 'v int UNIQUE', sql`INSERT INTO edge_t VALUES (1), (1)`),
    '23503 foreign key': (app) =>
      app.deps.database.db.transaction().execute(async (trx) => {
        await sql`CREATE TEMP TABLE edge_parent (id text PRIMARY KEY) ON COMMIT DROP`.execute(trx);
        await sql`CREATE TEMP TABLE edge_child (v text REFERENCES edge_parent (id)) ON COMMIT DROP`.execute(
          trx,
        );
        await sql`INSERT INTO edge_child VALUES (${'no-such-parent'})`.execute(trx);
      }),
  };
  let app: App;
  const logs: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(JSON.parse(line));
        done();
      },
    });
    app = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'info', ...OUT_OF_THE_WAY }),
      database: ctx.database,
      clock: new ManualClock('2026-11-22T03:00:00Z'),
      logger: { level: 'info', stream },
    });
    app.get<{ Params: { name: string } }>('/test/sql/:name', async (request) => {
      await statements[request.params.name]?.(app);
      return { ran: request.params.name };
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it.each(Object.keys(statements))(
    '%s -> 400 UNSTORABLE_VALUE (409 CONFLICT), a warning without the value',
    async (name) => {
      const response = await app.inject({ method: 'GET', url: `/test/sql/${encodeURIComponent(name)}` });
      const conflict = ['23505', '23503'].includes(name.split(' ')[0] as string);
      expect(response.statusCode, response.body).toBe(conflict ? 409 : 400);
      expect(response.json()).toMatchObject(
        conflict ? { code: 3305, name: 'CONFLICT' } : { code: 3012, name: 'UNSTORABLE_VALUE' },
      );
      const warning = logs.find(
        (line) => line.reqId === response.headers['x-request-id'] && line.level === 40,
      );
      expect(warning?.sqlState).toBe(name.split(' ')[0]);
      expect(JSON.stringify(warning)).not.toContain('abcdef');
      expect(logs.filter((line) => (line.level as number) >= 50)).toEqual([]);
    },
  );
});
