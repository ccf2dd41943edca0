// Overload arriving as new connections (issue #28, fault 12): the waiting was in the kernel's accept
// queue, where no request-level limit sees it. With LOAD_SHED_MAX_CONNECTIONS open, a further
// connection is closed as it is accepted (the client learns at once, it never waits for an answer),
// the refusal is counted, and once connections close new ones are served again.
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

const BOUND = 4;

/** Opens a connection; resolves once it is connected. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends a whole request and reads until the server closes: what came back (maybe nothing). */
function exchange(socket: Socket, request: string): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
    socket.write(request);
  });
}

/** Waits until the server holds `count` connections (no bound of its own: the test's timeout is). */
async function connectionsReach(ctx: TestContext, count: number): Promise<void> {
  for (;;) {
    const now = await new Promise<number>((resolve) =>
      ctx.app.server.getConnections((_err, n) => resolve(n)),
    );
    if (now === count) return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The app on a loopback port, with `env`. */
async function listening(env: Record<string, string>): Promise<{ ctx: TestContext; port: number }> {
  const ctx = await startTestApp({
    env: {
      ...env,
      // The held clients send half a request: the server must not time them out while the test,
      // on a loaded machine, takes its time (the headers' default is 10 s).
      HTTP_REQUEST_TIMEOUT_MS: '600000',
      HTTP_HEADERS_TIMEOUT_MS: '600000',
    },
  });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  return { ctx, port: (ctx.app.server.address() as AddressInfo).port };
}

const HEALTHZ = 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

describe('overload arriving as new connections', () => {
  let ctx: TestContext;
  let port: number;
  beforeAll(async () => {
    // This part proves the fixed bound; the accept gate (below) is off so a late loop moves nothing.
    ({ ctx, port } = await listening({
      LOAD_SHED_MAX_CONNECTIONS: String(BOUND),
      LOAD_SHED_ACCEPT_LAG_MS: '0',
    }));
  });
  afterAll(async () => ctx?.close());

  it(`closes a connection beyond ${BOUND} open ones as it is accepted, and serves again once they close`, async () => {
    // BOUND clients hold a connection each, their requests' headers still arriving.
    const held = await Promise.all(Array.from({ length: BOUND }, () => open(port)));
    for (const socket of held) {
      socket.on('error', () => {});
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    }
    // Until the server has them all.
    await connectionsReach(ctx, BOUND);

    // One more: closed without an answer, instead of waiting for one.
    const extra = await open(port);
    const answer = await exchange(extra, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toBe('');
    expect(ctx.app.connectionsRefused()).toBeGreaterThanOrEqual(1);

    // The held clients go away: a new connection is served.
    for (const socket of held) socket.destroy();
    await connectionsReach(ctx, 0);
    const served = await exchange(
      await open(port),
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(served).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('the accept gate: a process whose event loop runs late takes no new connection', () => {
  let ctx: TestContext;
  let port: number;
  beforeAll(async () => {
    ({ ctx, port } = await listening({ LOAD_SHED_ACCEPT_LAG_MS: '50' }));
  });
  afterAll(async () => ctx?.close());

  it('refuses new connections at once while the loop is late, serves the open ones, and takes new ones again once it keeps time', async () => {
    // Four clients hold a connection each, their requests' headers still arriving: far below the
    // fixed bound (1,024), so only the gate can refuse a fifth.
    const held = await Promise.all(Array.from({ length: 4 }, () => open(port)));
    for (const socket of held) {
      socket.on('error', () => {});
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    }
    await connectionsReach(ctx, 4);
    const refusedBefore = ctx.app.connectionsRefused();

    // The process saturated by its own work: 80 ms of every 100 ms on the CPU, the loop late every turn.
    const hog = setInterval(() => {
      const until = performance.now() + 80;
      while (performance.now() < until);
    }, 100);
    try {
      await new Promise((r) => setTimeout(r, 600));
      const extra = await exchange(await open(port), HEALTHZ);
      expect(extra).toBe('');
      expect(ctx.app.connectionsRefused()).toBeGreaterThan(refusedBefore);
      // A connection that was open before is still served.
      const first = held.shift() as Socket;
      const answer = new Promise<string>((resolve) => {
        let received = '';
        first.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
        first.on('close', () => resolve(received));
      });
      first.write('Connection: close\r\n\r\n');
      expect(await answer).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      clearInterval(hog);
    }

    // The loop keeps time again: new connections are served (the bound grows back within about a
    // second here; polled without a bound of its own, the test's timeout is the bound).
    for (const socket of held) socket.destroy();
    for (;;) {
      const answer = await exchange(await open(port), HEALTHZ);
      if (answer !== '') {
        expect(answer).toMatch(/^HTTP\/1\.1 200 /);
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});
