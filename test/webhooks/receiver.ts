// A webhook receiver for tests: a real HTTP server on loopback that records what it is sent and
// answers with a status the test chooses (or does not answer, or is down).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: Record<string, string>;
  body: string;
}

export async function startReceiver() {
  const received: Received[] = [];
  let status = 204;
  let delayMs = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((request, response) => {
    let body = '';
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    response.on('close', () => (inFlight -= 1));
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({
        headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])),
        body,
      });
      // 0: hold the request without ever answering (a receiver that hangs).
      if (status === 0) return;
      const code = status;
      const answer = () => {
        response.statusCode = code;
        response.end();
      };
      if (delayMs === 0) answer();
      else setTimeout(answer, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    /** What the receiver answers from now on. */
    answer(code: number) {
      status = code;
    },
    /** Answer each request this long after it arrived (a receiver far away), from now on. */
    answerAfter(ms: number) {
      delayMs = ms;
    },
    /** The most requests it has held at once since it started (or since `reset`). */
    maxInFlight: () => maxInFlight,
    /** Forgets what it received and the most it held at once. */
    reset() {
      received.length = 0;
      maxInFlight = inFlight;
    },
    /** The messages received so far, each verified with the standardwebhooks package (throws if a signature is wrong). */
    verified(secret: string) {
      const webhook = new Webhook(secret);
      return received.map((r) => ({
        id: r.headers['webhook-id'] as string,
        payload: webhook.verify(r.body, r.headers) as {
          type: string;
          timestamp: string;
          data: Record<string, unknown>;
        },
      }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
