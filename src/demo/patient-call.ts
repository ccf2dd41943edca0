// The demo CLI's operator call, patient with a service that is starting: `npm run demo` run the
// moment the service's port opens got a 503 ("the service is starting") for its first seconds, or
// had its connection refused before the port opened. Both are answers that nothing was done, so the
// call waits (the 503's Retry-After, else a second) and asks again, until `patienceMs` has passed;
// then the last answer, or the connection's error, is the caller's.
import type { OperatorCall } from './seed.ts';

/** How long to keep asking, and what to tell meanwhile (sleep and now: tests move a clock). */
export interface Patience {
  /** Longest the asking lasts, in ms. */
  patienceMs: number;
  /** Told before each wait: why, and for how long. */
  onWait?: (reason: string, ms: number) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface PatientCallOptions extends Patience {
  baseUrl: string;
  secret: string;
  fetch?: typeof fetch;
}

const sleepOf = (patience: Patience) =>
  patience.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
const nowOf = (patience: Patience) => patience.now ?? (() => performance.now());

/** Retry-After as seconds (the only form the service sends), else one second; at most a minute. */
export function retryAfterMs(header: string | null): number {
  const seconds = header !== null && /^\d+$/.test(header.trim()) ? Number(header.trim()) : 1;
  return Math.min(Math.max(seconds, 1), 60) * 1000;
}

/** A refused or reset connection: no request reached a service. */
function connectionRefused(error: unknown): boolean {
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET';
}

export function patientOperatorCall(options: PatientCallOptions): OperatorCall {
  const doFetch = options.fetch ?? fetch;
  const sleep = sleepOf(options);
  const now = nowOf(options);
  return async (method, url, body) => {
    const deadline = now() + options.patienceMs;
    for (;;) {
      let waitMs: number;
      let reason: string;
      try {
        const response = await doFetch(`${options.baseUrl}${url}`, {
          method,
          headers: {
            authorization: `Bearer ${options.secret}`,
            ...(body !== undefined && { 'content-type': 'application/json' }),
          },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        const parsed: unknown = await response.json().catch(() => null);
        if (response.status !== 503) return { status: response.status, body: parsed };
        waitMs = retryAfterMs(response.headers.get('retry-after'));
        const message = (parsed as { message?: unknown } | null)?.message;
        reason = `${method} ${url} answered 503${typeof message === 'string' ? ` (${message})` : ''}`;
        if (now() + waitMs > deadline) return { status: response.status, body: parsed };
      } catch (error) {
        if (!connectionRefused(error)) throw error;
        waitMs = 1000;
        reason = `${options.baseUrl} refused the connection`;
        if (now() + waitMs > deadline) throw error;
      }
      options.onWait?.(reason, waitMs);
      await sleep(waitMs);
    }
  };
}

/**
 * Waits until the operator API knows the reward asset `assetId`. `npm start`'s development chain
 * registers its token (ast_devtoken) in the background just after the service is ready, so a demo run
 * the moment the service answered created the partner and then failed on the budget with 404
 * NOT_FOUND_REWARD_ASSET. A 404 is waited out (a second at a time) until `patienceMs` has passed;
 * then, or on any other answer but 200, the error says what was answered.
 */
export async function waitForAsset(call: OperatorCall, assetId: string, options: Patience): Promise<void> {
  const sleep = sleepOf(options);
  const now = nowOf(options);
  const deadline = now() + options.patienceMs;
  const url = `/admin/v1/reward-assets/${encodeURIComponent(assetId)}`;
  for (;;) {
    const answer = await call('GET', url);
    if (answer.status === 200) return;
    if (answer.status !== 404)
      throw new Error(`demo: GET ${url} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    if (now() + 1000 > deadline)
      throw new Error(
        `demo: the reward asset ${assetId} is not there after ${Math.round(options.patienceMs / 1000)} s: ` +
          `the development chain registers it once started (the service logs "development chain started"; ` +
          `DEV_CHAIN, docs/payout.md)`,
      );
    options.onWait?.(
      `the reward asset ${assetId} is not registered yet (the development chain is starting)`,
      1000,
    );
    await sleep(1000);
  }
}
