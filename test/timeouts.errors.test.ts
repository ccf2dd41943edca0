// Slow and idle clients are cut off: a trickled body or trickled headers get 408 with the error body,
// idle and keep-alive connections are closed; the four HTTP_*_TIMEOUT_MS variables are validated.
// Checked over real sockets with timeouts of a few hundred milliseconds, in-process and on the real
// process.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { ADMIN_TOKEN, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { rawExchange } from './raw-socket.ts';
import type { RawAnswer } from './raw-socket.ts';

const TIMEOUTS = {
  HTTP_REQUEST_TIMEOUT_MS: '600',
  HTTP_HEADERS_TIMEOUT_MS: '300',
  HTTP_KEEP_ALIVE_TIMEOUT_MS: '300',
  HTTP_IDLE_TIMEOUT_MS: '3000',
};

let ctx: TestContext;
let port: number;

beforeAll(async () => {
  ctx = await startTestApp({ env: TIMEOUTS });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as AddressInfo).port;
});
afterAll(() => ctx.close());

function expectTimeoutAnswer(answer: RawAnswer): void {
  expect(answer.status, answer.body).toBe(408);
  expect(JSON.parse(answer.body)).toMatchObject({ code: 3010, name: 'REQUEST_TIMEOUT' });
  expect(answer.headers['x-request-id']).toBeTruthy();
  expect(answer.closedByServer).toBe(true);
}

const trickledBody = (target: string) => ({
  send:
    `POST ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n` +
    'Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{',
  // One byte every 100 ms: never idle long enough for the idle timeout, but never done either.
  trickle: { chunks: Array.from({ length: 60 }, () => ' '), everyMs: 100 },
  limitMs: 5000,
});

describe('the in-process server with HTTP_*_TIMEOUT_MS of a few hundred ms', () => {
  it('a body trickled byte by byte -> 408 REQUEST_TIMEOUT once the request timeout passes', async () => {
    const answer = await rawExchange(port, trickledBody('/admin/v1/partners'));
    expectTimeoutAnswer(answer);
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(550);
    expect(answer.elapsedMs).toBeLessThan(3000);
  });

  it('headers trickled byte by byte -> 408 once the headers timeout passes', async () => {
    const answer = await rawExchange(port, {
      send: 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ',
      trickle: { chunks: Array.from({ length: 60 }, () => 'a'), everyMs: 50 },
      limitMs: 5000,
    });
    expectTimeoutAnswer(answer);
    expect(answer.elapsedMs).toBeLessThan(2000);
  });

  it('a keep-alive connection left idle after its answer is closed by the server', async () => {
    const answer = await rawExchange(port, {
      send: 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
      limitMs: 5000,
    });
    expect(answer.status).toBe(200);
    expect(answer.closedByServer).toBe(true);
    // Well before the idle timeout (3 s): it is the keep-alive timeout that closed it.
    expect(answer.elapsedMs).toBeLessThan(2500);
  });

  it('many connections that never send a byte are all closed', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => rawExchange(port, { limitMs: 5000 })));
    for (const answer of answers) {
      expect(answer.closedByServer).toBe(true);
      expect(answer.elapsedMs).toBeLessThan(3000);
      // Where the server says anything, it is our error body.
      if (answer.status !== undefined) expectTimeoutAnswer(answer);
    }
  });

  it('a request that arrives in time is answered (the timeouts are not too tight)', async () => {
    const body = '{"name":"in time"}';
    const answer = await rawExchange(port, {
      send:
        `POST /admin/v1/partners HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    });
    expect(answer.status, answer.body).toBe(201);
  });
});

describe('configuration', () => {
  it('defaults: request 30 s, headers 10 s, keep-alive 5 s, idle 60 s', () => {
    expect(loadConfig({}).httpTimeouts).toEqual({
      requestMs: 30_000,
      headersMs: 10_000,
      keepAliveMs: 5_000,
      idleMs: 60_000,
    });
  });

  it.each([
    ['HTTP_REQUEST_TIMEOUT_MS', 'soon'],
    ['HTTP_REQUEST_TIMEOUT_MS', '0'],
    ['HTTP_HEADERS_TIMEOUT_MS', '-5'],
    ['HTTP_KEEP_ALIVE_TIMEOUT_MS', '1.5'],
    ['HTTP_IDLE_TIMEOUT_MS', '99999999999'],
  ])('%s=%s stops start-up naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('a headers timeout longer than the request timeout is refused, naming it', () => {
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '2000' })).toThrow(
      'HTTP_HEADERS_TIMEOUT_MS',
    );
  });
});

describe('the real process', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mrs-timeouts-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const freePort = () =>
    new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as AddressInfo;
        server.close(() => resolve(free));
      });
    });

  it('reads HTTP_*_TIMEOUT_MS and answers a trickled body with 408 and the error body', async () => {
    const processPort = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        ...process.env,
        ...TIMEOUTS,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(processPort),
        LOG_LEVEL: 'warn',
        ADMIN_TOKEN,
        PAYOUT_WORKER: 'false',
        // A process that has just started (tsx compiling) has a busy event loop; this test is about
        // timeouts, not shedding (test/load-shedding.security.test.ts covers that).
        LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
        LOAD_SHED_MAX_LOOP_UTILIZATION: '0',
        // This file's own database on PostgreSQL; an embedded one in dataDir otherwise.
        DATABASE_URL: ctx.databaseUrl ?? '',
      },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      let healthy = false;
      for (let i = 0; i < 120 && !healthy; i++) {
        healthy = await fetch(`http://127.0.0.1:${processPort}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (!healthy) await new Promise((r) => setTimeout(r, 500));
      }
      expect(healthy).toBe(true);
      const answer = await rawExchange(processPort, trickledBody('/admin/v1/partners'));
      expectTimeoutAnswer(answer);
      expect(answer.elapsedMs).toBeLessThan(3000);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 90_000);
});
