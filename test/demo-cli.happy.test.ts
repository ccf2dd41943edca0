// `npm run demo` run the moment a service's port opens (src/demo/patient-call.ts): the start-up
// server's 503s and a port not open yet are waited out, as their Retry-After says, and the call
// reaches the app that takes the port over; other answers come back at once; after its patience
// the caller gets the last 503.
import { createServer } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { patientOperatorCall, retryAfterMs, waitForAsset } from '../src/demo/patient-call.ts';
import type { OperatorCall } from '../src/demo/seed.ts';
import { listenWhileStarting } from '../src/http/start-up-server.ts';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A port free now (nothing listens on it until the test says). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The app behind the port: the operator call it answers, and who asked. */
function app() {
  const seen: Array<{ authorization?: string; body: unknown }> = [];
  const fastify = Fastify();
  fastify.post('/admin/v1/partners', async (request, reply) => {
    seen.push({ authorization: request.headers.authorization, body: request.body });
    return reply.code(201).send({ id: 'ptn_demo' });
  });
  fastify.get('/admin/v1/forbidden', async (_request, reply) => reply.code(401).send({ code: 900 }));
  closers.push(() => fastify.close());
  return { fastify, seen };
}

/** A patient call to the port, with twenty seconds' patience, and the waits it said (reason and ms). */
function patientCall(port: number, secret = 's') {
  const waits: string[] = [];
  const call = patientOperatorCall({
    baseUrl: `http://127.0.0.1:${port}`,
    secret,
    patienceMs: 20_000,
    onWait: (reason, ms) => waits.push(`${reason} ${ms}`),
  });
  return { call, waits };
}

describe('npm run demo against a service that is starting', () => {
  it('waits out the start-up 503s (Retry-After) and reaches the app once it has the port', async () => {
    const port = await freePort();
    const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'test' });
    const starting = await listenWhileStarting(config, { info: () => {} } as never);
    const { fastify, seen } = app();
    const { call, waits } = patientCall(port, 'adm_secret');
    // The app takes the port over 1.5 s later, as src/main.ts does once migrations have run.
    const handOver = new Promise<void>((resolve, reject) =>
      setTimeout(() => fastify.listen(starting.handOver()).then(() => resolve(), reject), 1500),
    );
    const answer = await call('POST', '/admin/v1/partners', { name: 'Demo' });
    await handOver;
    expect(answer).toEqual({ status: 201, body: { id: 'ptn_demo' } });
    expect(seen).toEqual([{ authorization: 'Bearer adm_secret', body: { name: 'Demo' } }]);
    // At least one 503 seen (the start-up server's body), each wait the second its Retry-After said.
    expect(waits.length).toBeGreaterThanOrEqual(1);
    for (const wait of waits) expect(wait).toMatch(/^POST \/admin\/v1\/partners answered 503 \(.+\) 1000$/);
  });

  it('waits for a port that is not open yet', async () => {
    const port = await freePort();
    const { fastify, seen } = app();
    const { call, waits } = patientCall(port);
    const listening = new Promise<void>((resolve, reject) =>
      setTimeout(() => fastify.listen({ port, host: '127.0.0.1' }).then(() => resolve(), reject), 1200),
    );
    const answer = await call('POST', '/admin/v1/partners', {});
    await listening;
    expect(answer.status).toBe(201);
    expect(seen).toHaveLength(1);
    expect(waits[0]).toBe(`http://127.0.0.1:${port} refused the connection 1000`);
  });

  it('answers any other status at once, without waiting', async () => {
    const { fastify } = app();
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    const { port } = fastify.server.address() as { port: number };
    const { call, waits } = patientCall(port);
    expect(await call('GET', '/admin/v1/forbidden')).toEqual({ status: 401, body: { code: 900 } });
    expect(waits).toEqual([]);
  });

  it('gives the caller the last 503 once its patience is spent, and a refused connection as an error', async () => {
    const port = await freePort();
    const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'test' });
    const starting = await listenWhileStarting(config, { info: () => {} } as never);
    closers.push(() => starting.close());
    // A clock the waits move: patience of 5 s is four waits of a second, then the 503 itself.
    let clock = 0;
    const slept: number[] = [];
    const options = {
      baseUrl: `http://127.0.0.1:${port}`,
      secret: 's',
      patienceMs: 5_000,
      now: () => clock,
      sleep: async (ms: number) => {
        slept.push(ms);
        clock += ms;
      },
    };
    const answer = await patientOperatorCall(options)('POST', '/admin/v1/partners', {});
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({
      name: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('the service is starting'),
    });
    expect(slept).toEqual([1000, 1000, 1000, 1000, 1000]);

    const closedPort = await freePort();
    clock = 0;
    slept.length = 0;
    await expect(
      patientOperatorCall({ ...options, baseUrl: `http://127.0.0.1:${closedPort}` })('GET', '/x'),
    ).rejects.toThrow();
    expect(slept).toEqual([1000, 1000, 1000, 1000, 1000]);
  });

  it('waits for the reward asset while it is 404, gives up after its patience, and stops at any other answer', async () => {
    // The asset appears at the fourth question; a clock the waits move.
    let clock = 0;
    const asked: string[] = [];
    const answers =
      (statuses: number[]): OperatorCall =>
      async (method, url) => {
        asked.push(`${method} ${url}`);
        const status = statuses.shift() ?? 404;
        return { status, body: status === 404 ? { code: 1401, name: 'NOT_FOUND_REWARD_ASSET' } : {} };
      };
    const waits: string[] = [];
    const options = {
      patienceMs: 10_000,
      now: () => clock,
      sleep: async (ms: number) => void (clock += ms),
      onWait: (reason: string, ms: number) => waits.push(`${reason} ${ms}`),
    };
    await waitForAsset(answers([404, 404, 404, 200]), 'ast_devtoken', options);
    expect(asked).toEqual(Array(4).fill('GET /admin/v1/reward-assets/ast_devtoken'));
    expect(waits).toEqual(
      Array(3).fill(
        'the reward asset ast_devtoken is not registered yet (the development chain is starting) 1000',
      ),
    );

    clock = 0;
    await expect(waitForAsset(answers([]), 'ast_devtoken', options)).rejects.toThrow(
      /^demo: the reward asset ast_devtoken is not there after 10 s: the development chain registers it/,
    );
    expect(clock).toBe(10_000);

    clock = 0;
    await expect(waitForAsset(answers([401]), 'ast_devtoken', options)).rejects.toThrow(
      'demo: GET /admin/v1/reward-assets/ast_devtoken answered 401: {}',
    );
    expect(clock).toBe(0);
  });

  it('reads Retry-After as seconds, a second when absent or not a number, a minute at most', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(null)).toBe(1000);
    expect(retryAfterMs('Wed, 21 Oct 2026 07:28:00 GMT')).toBe(1000);
    expect(retryAfterMs('0')).toBe(1000);
    expect(retryAfterMs('3600')).toBe(60_000);
  });
});
