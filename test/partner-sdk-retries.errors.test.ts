// The SDK's retries against a test server that fails the first attempts: 503 with Retry-After, 429,
// a dropped connection. Every attempt of one logical call carries the same Idempotency-Key; the
// attempts and the total time are bounded; other failures are not retried.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createPartnerClient,
  PartnerAbortError,
  PartnerApiError,
} from '../packages/partner-sdk/src/index.ts';

interface Attempt {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
  partnerId: string | undefined;
  apiKey: string | undefined;
  body: string;
  at: number;
}

type Step = (res: ServerResponse, req: IncomingMessage) => void;

const unavailable =
  (retryAfter?: string): Step =>
  (res) => {
    res.writeHead(503, {
      'content-type': 'application/json',
      ...(retryAfter && { 'retry-after': retryAfter }),
    });
    res.end(JSON.stringify({ code: 3098, name: 'SERVICE_UNAVAILABLE', message: 'busy' }));
  };
const tooMany: Step = (res) => {
  res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
  res.end(JSON.stringify({ code: 3005, name: 'RATE_LIMITED', message: 'slow down' }));
};
const keyInUse: Step = (res) => {
  res.writeHead(409, { 'content-type': 'application/json', 'retry-after': '0' });
  res.end(JSON.stringify({ code: 3902, name: 'IDEMPOTENCY_KEY_IN_USE', message: 'still running' }));
};
const conflict: Step = (res) => {
  res.writeHead(409, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ code: 3003, name: 'CONFLICT', message: 'conflict' }));
};
const dropped: Step = (_res, req) => req.socket.destroy();
const ok: Step = (res) => {
  res.writeHead(200, { 'content-length': '0' });
  res.end();
};
const linked: Step = (res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"result":true}');
};

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server answering its n-th request with steps[n] (the last step from then on); it records every attempt. */
async function failingServer(steps: Step[]): Promise<{ baseUrl: string; attempts: Attempt[] }> {
  const attempts: Attempt[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      attempts.push({
        method: req.method ?? '',
        url: req.url ?? '',
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        partnerId: req.headers['x-partner-id'] as string | undefined,
        apiKey: req.headers['x-api-key'] as string | undefined,
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
      });
      (steps[attempts.length - 1] ?? (steps.at(-1) as Step))(res, req);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, attempts };
}

const report = { partnerUid: 'u-1', missionKey: 'daily-login', completed: true };

describe('partner SDK retries', () => {
  it('a 503 with Retry-After, then a dropped connection, then success: one key on all three attempts', async () => {
    const { baseUrl, attempts } = await failingServer([unavailable('1'), dropped, ok]);
    const client = createPartnerClient({
      baseUrl,
      partnerId: 'p-1',
      apiKey: 'k-1',
      retry: { initialDelayMs: 20 },
    });
    await client.achieve(report);
    expect(attempts).toHaveLength(3);
    const keys = new Set(attempts.map((a) => a.idempotencyKey));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    // The body and the credentials are sent whole on every attempt.
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({ method: 'POST', url: '/v1/achieve', partnerId: 'p-1', apiKey: 'k-1' });
      expect(JSON.parse(attempt.body)).toEqual(report);
    }
    // Retry-After: 1 was honoured before the second attempt.
    expect((attempts[1] as Attempt).at - (attempts[0] as Attempt).at).toBeGreaterThanOrEqual(990);
  });

  it('waits out a 409 of its key still in use (it carries Retry-After) with the same key; another 409 is not retried', async () => {
    const { baseUrl, attempts } = await failingServer([keyInUse, ok]);
    const client = createPartnerClient({
      baseUrl,
      partnerId: 'p-1',
      apiKey: 'k-1',
      retry: { initialDelayMs: 20 },
    });
    await client.achieve(report);
    expect(attempts).toHaveLength(2);
    expect(new Set(attempts.map((a) => a.idempotencyKey)).size).toBe(1);

    const other = await failingServer([conflict, ok]);
    const again = createPartnerClient({
      baseUrl: other.baseUrl,
      partnerId: 'p-1',
      apiKey: 'k-1',
      retry: { initialDelayMs: 20 },
    });
    const error = await again.achieve(report).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PartnerApiError);
    expect((error as PartnerApiError).name).toBe('CONFLICT');
    expect(other.attempts).toHaveLength(1);
  });

  it('each logical call has its own key; a key given by the caller is sent as it is', async () => {
    const { baseUrl, attempts } = await failingServer([ok]);
    const client = createPartnerClient({ baseUrl, partnerId: 'p-1', apiKey: 'k-1' });
    await client.achieve(report);
    await client.achieve(report);
    await client.connect({ token: 'mtk_x', partnerUid: 'u-1', region: 'KR' }, { idempotencyKey: 'order-42' });
    expect(attempts).toHaveLength(3);
    expect(attempts[0]?.idempotencyKey).not.toBe(attempts[1]?.idempotencyKey);
    expect(attempts[2]).toMatchObject({ url: '/v1/mission-users/connect', idempotencyKey: 'order-42' });
  });

  it('retries 429 and a dropped connection for the link check (a GET, without a key)', async () => {
    const { baseUrl, attempts } = await failingServer([tooMany, dropped, linked]);
    const client = createPartnerClient({
      baseUrl,
      partnerId: 'p-1',
      apiKey: 'k-1',
      retry: { initialDelayMs: 10 },
    });
    expect(await client.isLinked('u 1')).toBe(true);
    expect(attempts.map((a) => a.url)).toEqual(Array(3).fill('/v1/mission-users?partnerUid=u%201'));
    expect(attempts.every((a) => a.idempotencyKey === undefined)).toBe(true);
  });

  it('stops after maxAttempts and throws the last answer as a typed error', async () => {
    const { baseUrl, attempts } = await failingServer([unavailable('0')]);
    const client = createPartnerClient({
      baseUrl,
      partnerId: 'p-1',
      apiKey: 'k-1',
      retry: { maxAttempts: 3 },
    });
    const error = await client.achieve(report).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).toMatchObject({ status: 503, name: 'SERVICE_UNAVAILABLE', code: 3098 });
    expect(attempts).toHaveLength(3);
  });

  it('does not wait past maxElapsedMs: a Retry-After beyond it ends the call at once', async () => {
    const { baseUrl, attempts } = await failingServer([unavailable('120'), ok]);
    const client = createPartnerClient({
      baseUrl,
      partnerId: 'p-1',
      apiKey: 'k-1',
      retry: { maxElapsedMs: 60_000 },
    });
    const started = Date.now();
    const error = await client.achieve(report).catch((e: unknown) => e);
    // At once: a client that slept toward maxElapsedMs (a minute) or the Retry-After (two) would take
    // that long (and this test would time out); 10 s leaves room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(error).toMatchObject({ name: 'SERVICE_UNAVAILABLE' });
    expect(attempts).toHaveLength(1);
  });

  it('does not retry other failures (a 500, a 4xx) nor with retry: false', async () => {
    const internal: Step = (res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<h1>proxy error</h1>');
    };
    const { baseUrl, attempts } = await failingServer([internal, unavailable('0')]);
    const client = createPartnerClient({ baseUrl, partnerId: 'p-1', apiKey: 'k-1' });
    const error = await client.achieve(report).catch((e: unknown) => e);
    // An answer without our error body is still a typed error.
    expect(error).toMatchObject({
      status: 500,
      name: 'UNEXPECTED_RESPONSE',
      code: 0,
      body: '<h1>proxy error</h1>',
    });
    expect(attempts).toHaveLength(1);

    const once = createPartnerClient({ baseUrl, partnerId: 'p-1', apiKey: 'k-1', retry: false });
    await expect(once.achieve(report)).rejects.toMatchObject({ name: 'SERVICE_UNAVAILABLE' });
    expect(attempts).toHaveLength(2);
  });

  it('an aborted call stops retrying, with a typed PartnerAbortError', async () => {
    const { baseUrl, attempts } = await failingServer([unavailable('1')]);
    const client = createPartnerClient({ baseUrl, partnerId: 'p-1', apiKey: 'k-1' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const error = await client.achieve(report, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerAbortError);
    expect(error).toMatchObject({ name: 'AbortError', attempts: 1 });
    expect(attempts).toHaveLength(1);
  });

  it('an abort during an attempt that has no answer yet is a PartnerAbortError too', async () => {
    const { baseUrl, attempts } = await failingServer([() => {}]);
    const client = createPartnerClient({ baseUrl, partnerId: 'p-1', apiKey: 'k-1' });
    const controller = new AbortController();
    const reason = new Error('the job was cancelled');
    setTimeout(() => controller.abort(reason), 200);
    const error = await client.isLinked('u-1', { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerAbortError);
    expect((error as PartnerAbortError).cause).toBe(reason);
    expect(attempts).toHaveLength(1);
  });

  it('the Retry-After of the last answer is on the error as retryAfter (seconds), in both header forms', async () => {
    const { baseUrl, attempts } = await failingServer([
      (res) => {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '57' });
        res.end(JSON.stringify({ code: 3005, name: 'RATE_LIMITED', message: 'slow down' }));
      },
    ]);
    const client = createPartnerClient({ baseUrl, partnerId: 'p-1', apiKey: 'k-1' });
    // 57 s is beyond maxElapsedMs (30 s): the call ends at once and says when to come back.
    const error = await client.achieve(report).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).toMatchObject({ name: 'RATE_LIMITED', status: 429, retryAfter: 57, replayed: false });
    expect(attempts).toHaveLength(1);

    const at = new Date(Date.now() + 90_000).toUTCString();
    const dated = await failingServer([
      (res) => {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': at });
        res.end(JSON.stringify({ code: 3098, name: 'SERVICE_UNAVAILABLE', message: 'busy' }));
      },
    ]);
    const other = createPartnerClient({ baseUrl: dated.baseUrl, partnerId: 'p-1', apiKey: 'k-1' });
    const late = (await other.achieve(report).catch((e: unknown) => e)) as PartnerApiError;
    expect(late.retryAfter).toBeGreaterThanOrEqual(88);
    expect(late.retryAfter).toBeLessThanOrEqual(90);
    // An error without the header has none.
    const plain = await failingServer([conflict]);
    const third = createPartnerClient({ baseUrl: plain.baseUrl, partnerId: 'p-1', apiKey: 'k-1' });
    expect(
      ((await third.achieve(report).catch((e: unknown) => e)) as PartnerApiError).retryAfter,
    ).toBeUndefined();
  });

  it('a replayed answer is visible: on a success and on an error', async () => {
    const replayedOk: Step = (res) => {
      res.writeHead(200, { 'content-length': '0', 'idempotent-replayed': 'true', 'x-request-id': 'r-2' });
      res.end();
    };
    const replayedError: Step = (res) => {
      res.writeHead(404, { 'content-type': 'application/json', 'idempotent-replayed': 'true' });
      res.end(JSON.stringify({ code: 1201, name: 'NOT_FOUND_MISSION', message: 'no mission' }));
    };
    const { baseUrl } = await failingServer([ok, replayedOk, replayedError]);
    const client = createPartnerClient({ baseUrl, partnerId: 'p-1', apiKey: 'k-1' });
    expect(await client.achieve(report)).toEqual({ replayed: false, requestId: undefined });
    expect(await client.connect({ token: 'mtk_x', partnerUid: 'u-1', region: 'KR' })).toEqual({
      replayed: true,
      requestId: 'r-2',
    });
    await expect(client.achieve(report)).rejects.toMatchObject({ name: 'NOT_FOUND_MISSION', replayed: true });
  });
});
