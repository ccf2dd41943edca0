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

describe('overload arriving as new connections', () => {
  let ctx: TestContext;
  let port: number;
  beforeAll(async () => {
    ctx = await startTestApp({
      env: {
        LOAD_SHED_MAX_CONNECTIONS: String(BOUND),
        // The held clients send half a request: the server must not time them out while the test,
        // on a loaded machine, takes its time (the headers' default is 10 s).
        HTTP_REQUEST_TIMEOUT_MS: '600000',
        HTTP_HEADERS_TIMEOUT_MS: '600000',
      },
    });
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => ctx?.close());

  /**
   * Waits until the server holds `count` connections. No wall-time bound of its own (the test's
   * timeout is the bound): on a loaded machine accepting can lag, and going on before the count is
   * reached would test something else.
   */
  async function connectionsReach(count: number): Promise<void> {
    for (;;) {
      const now = await new Promise<number>((resolve) =>
        ctx.app.server.getConnections((_err, n) => resolve(n)),
      );
      if (now === count) return;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it(`closes a connection beyond ${BOUND} open ones as it is accepted, and serves again once they close`, async () => {
    // BOUND clients hold a connection each, their requests' headers still arriving.
    const held = await Promise.all(Array.from({ length: BOUND }, () => open(port)));
    for (const socket of held) {
      socket.on('error', () => {});
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    }
    // Until the server has them all.
    await connectionsReach(BOUND);

    // One more: closed without an answer, instead of waiting for one.
    const extra = await open(port);
    const answer = await exchange(extra, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toBe('');
    expect(ctx.app.connectionsRefused()).toBeGreaterThanOrEqual(1);

    // The held clients go away: a new connection is served.
    for (const socket of held) socket.destroy();
    await connectionsReach(0);
    const served = await exchange(
      await open(port),
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(served).toMatch(/^HTTP\/1\.1 200 /);
  });
});
