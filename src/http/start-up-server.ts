// The public port while the process waits for its database at start-up (docs/operations.md, "Start-up
// and shutdown"): it listens at once, so that liveness (/healthz 200) holds while the process waits as
// designed; /readyz and every other route answer 503 with the error body. When the app is ready it
// takes over the listening socket itself (no moment where the port is closed).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyListenOptions } from 'fastify';
import type { Config } from '../config.ts';
import { serviceNotReady, serviceStarting } from '../error-factories.ts';
import { handleClientError } from './error-handler.ts';

export interface StartUpServer {
  /** Why it is not ready yet (first 'waiting for the database'), in /readyz and the other 503s. */
  setWaitingReason(reason: string): void;
  /**
   * Hands the listening socket to the app: `app.listen` with this as its options takes the socket
   * over, so a connection arriving meanwhile is accepted by the one or the other, never refused.
   */
  handOver(): FastifyListenOptions;
  /** Stops listening (start-up failed). */
  close(): Promise<void>;
}

type Log = Pick<FastifyInstance['log'], 'info'>;

function answer(response: ServerResponse, status: number, body: unknown, requestId: string): void {
  const text = JSON.stringify(body);
  // One request per connection: once the app has taken the port over, the next request should
  // reach it on a fresh connection, not this server on a kept-alive one.
  response.shouldKeepAlive = false;
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-request-id': requestId,
    ...(status === 503 && { 'retry-after': '1' }),
  });
  response.end(text);
}

/** Listens on the configured port now, answering as described in the header until the app takes over. */
export async function listenWhileStarting(config: Config, log: Log): Promise<StartUpServer> {
  const timeouts = config.httpTimeouts;
  let reason = 'waiting for the database';
  const server: Server = createServer(
    { requestTimeout: timeouts.requestMs, headersTimeout: timeouts.headersMs, requireHostHeader: false },
    (request: IncomingMessage, response: ServerResponse) => {
      const requestId = randomUUID();
      const path = (request.url ?? '/').split('?')[0];
      if (request.method === 'GET' && path === '/healthz') {
        answer(response, 200, { status: 'ok' }, requestId);
        return;
      }
      const error = path === '/readyz' ? serviceNotReady(reason) : serviceStarting(reason);
      answer(response, error.status, error.toBody(), requestId);
    },
  );
  server.keepAliveTimeout = timeouts.keepAliveMs;
  server.on('clientError', (error: Parameters<typeof handleClientError>[0], socket: Socket) =>
    handleClientError.call({ log } as unknown as FastifyInstance, error, socket),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: config.port, host: config.host }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    setWaitingReason(next) {
      reason = next;
    },
    handOver() {
      const internal = server as Server & { _handle: unknown };
      const handle = internal._handle;
      // This server forgets the socket (closing it would close the app's); its connections end after
      // their one answer, the idle ones now.
      internal._handle = null;
      server.closeIdleConnections();
      // Node ignores the host when given a socket; Fastify would bind a second address for 'localhost'.
      return { handle, host: config.host === 'localhost' ? '127.0.0.1' : config.host };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
