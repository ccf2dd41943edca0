// Every answer has the error body {code, name, message}, also those produced by Fastify's router
// (bad percent-encoding) and by Node's HTTP parser (URL or headers too large, bad framing): checked
// over a real socket with raw bytes, since inject never meets Node's parser.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { loadConfig } from '../src/config.ts';
import { ManualClock } from '../src/domain/clock.ts';
import { buildApp } from '../src/app.ts';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { rawExchange } from './raw-socket.ts';
import type { RawAnswer } from './raw-socket.ts';

let ctx: TestContext;
let port: number;

beforeAll(async () => {
  ctx = await startTestApp({ captureLogs: true });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as AddressInfo).port;
});
afterAll(() => ctx.close());

function expectErrorBody(answer: RawAnswer, status: number, code: number, name: string): void {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(body).toMatchObject({ code, name });
  expect(typeof body.message).toBe('string');
  expect(answer.headers['x-request-id']).toBeTruthy();
}

// Connection: close, so the exchange ends when the server has answered.
const get = (target: string, headers = '') =>
  `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${headers}\r\n`;

describe("answers of Fastify's router", () => {
  it('a bad percent-encoding in the path -> 400 MALFORMED_URL', async () => {
    expectErrorBody(await rawExchange(port, { send: get('/v1/draws/%zz') }), 400, 3007, 'MALFORMED_URL');
    expectErrorBody(
      await rawExchange(port, { send: get('/admin/v1/partners/%E0%A4%A') }),
      400,
      3007,
      'MALFORMED_URL',
    );
  });

  it('a path segment longer than the router takes -> 414 URI_TOO_LONG', async () => {
    expectErrorBody(
      await rawExchange(port, { send: get(`/v1/draws/${'a'.repeat(500)}`) }),
      414,
      3008,
      'URI_TOO_LONG',
    );
  });
});

describe("answers of Node's HTTP parser", () => {
  it('an over-long URL -> 414 URI_TOO_LONG, below and above the parser limit', async () => {
    const query = (n: number) => `/v1/mission-users?partnerUid=${'a'.repeat(n)}`;
    expectErrorBody(await rawExchange(port, { send: get(query(10_000)) }), 414, 3008, 'URI_TOO_LONG');
    expectErrorBody(await rawExchange(port, { send: get(query(40_000)) }), 414, 3008, 'URI_TOO_LONG');
  });

  it('oversized headers -> 431 HEADERS_TOO_LARGE', async () => {
    const answer = await rawExchange(port, { send: get('/healthz', `X-Big: ${'b'.repeat(40_000)}\r\n`) });
    expectErrorBody(answer, 431, 3009, 'HEADERS_TOO_LARGE');
  });

  const malformed: Array<[string, string]> = [
    [
      'a broken chunk size',
      'POST /v1/achieve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    ],
    [
      'Content-Length and Transfer-Encoding together',
      'POST /admin/v1/partners HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
    ],
    [
      'a Content-Length that is not a number',
      'POST /v1/achieve HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}',
    ],
    [
      'two different Content-Lengths',
      'POST /v1/achieve HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    ],
    [
      'an unknown Transfer-Encoding',
      'POST /v1/achieve HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, zz\r\n\r\n{}',
    ],
    ['a request line that is not HTTP', 'HELLO THERE\r\n\r\n'],
    ['a raw NUL in a header value', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Partner-Id: a\u0000b\r\n\r\n'],
    ['a header without a colon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n'],
    ['a space before the colon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Api-Key : k\r\n\r\n'],
  ];
  it.each(malformed)('%s -> 400 MALFORMED_REQUEST', async (_name, bytes) => {
    const answer = await rawExchange(port, { send: Buffer.from(bytes, 'latin1') });
    expectErrorBody(answer, 400, 3011, 'MALFORMED_REQUEST');
    expect(answer.closedByServer).toBe(true);
  });

  it('an HTTP/1.1 request without Host -> 400 MALFORMED_REQUEST (Node alone answers with no body)', async () => {
    const answer = await rawExchange(port, { send: 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n' });
    expectErrorBody(answer, 400, 3011, 'MALFORMED_REQUEST');
  });

  it('an Expect other than 100-continue -> 417 EXPECTATION_FAILED', async () => {
    const answer = await rawExchange(port, {
      send: 'POST /admin/v1/partners HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Length: 2\r\n\r\n{}',
    });
    expectErrorBody(answer, 417, 3013, 'EXPECTATION_FAILED');
    expect(answer.closedByServer).toBe(true);
  });

  it('CONNECT -> 404 ROUTE_NOT_FOUND (Node alone drops the connection without a word)', async () => {
    const answer = await rawExchange(port, {
      send: 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    });
    expectErrorBody(answer, 404, 3004, 'ROUTE_NOT_FOUND');
  });

  it('HTTP/1.0 without Host is still served', async () => {
    const answer = await rawExchange(port, { send: 'GET /healthz HTTP/1.0\r\n\r\n' });
    expect(answer.status).toBe(200);
  });

  it('the refusals are logged at info, without the raw bytes', () => {
    const lines = ctx.logs.filter((line) => line.msg === 'request refused by the HTTP parser');
    expect(lines.length).toBeGreaterThanOrEqual(malformed.length);
    expect(lines.every((line) => line.level === 30)).toBe(true);
    expect(JSON.stringify(lines)).not.toContain('bbbbbbbbbb');
  });

  it('a well-formed request on the same server still answers (the cases above are meaningful)', async () => {
    const answer = await rawExchange(port, { send: get('/healthz') });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'ok' });
  });
});

describe('while shutting down', () => {
  it("a request that still arrives on a kept-alive connection gets 503 with the error body, not Fastify's", async () => {
    const app = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'info' }),
      database: ctx.database,
      clock: new ManualClock('2026-11-22T03:00:00Z'),
      logger: false,
    });
    // Holds close() in its preClose phase: routes are closing, the connection is still open.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    app.addHook('preClose', () => gate);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const socket = connect({ port: (app.server.address() as AddressInfo).port, host: '127.0.0.1' });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const waitFor = async (text: string) => {
      for (let i = 0; i < 100 && !received.includes(text); i++) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await waitFor('"ok"');
      expect(received).toMatch(/^HTTP\/1.1 200/);
      received = '';
      const closed = app.close();
      await new Promise((r) => setTimeout(r, 50));
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await waitFor('}');
      expect(received).toMatch(/^HTTP\/1.1 503/);
      expect(received.toLowerCase()).toContain('retry-after: 1');
      expect(received.toLowerCase()).toContain('x-request-id: ');
      expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))).toMatchObject({
        code: 3098,
        name: 'SERVICE_UNAVAILABLE',
      });
      release();
      await closed;
    } finally {
      release();
      socket.destroy();
    }
  });
});
