// Retries of one logical call: on a network error, 429 and 503, with exponential backoff and full
// jitter, honouring Retry-After, within a bounded number of answered attempts and a bounded total
// time. A connection that fails (refused, reset: a service restarting) is retried until that time is
// up, whatever the number of attempts. The request (and so its Idempotency-Key header) is the same on
// every attempt.
import { PartnerAbortError, PartnerConnectionError } from './errors.js';

/** How the client retries. Every field has a default; `retry: false` turns retries off. */
export interface RetryOptions {
  /**
   * Answers worth a retry (429, 503, a 409 of a key in use) taken at most, the first included
   * (default 4). Attempts that got no answer at all do not count: they are bounded by maxElapsedMs.
   */
  maxAttempts?: number;
  /** No retry starts later than this many milliseconds after the first attempt (default 30 000). */
  maxElapsedMs?: number;
  /** Backoff before the second attempt, doubled for each later one (default 250). */
  initialDelayMs?: number;
  /** Largest backoff between two attempts, Retry-After aside (default 8 000). */
  maxDelayMs?: number;
}

export interface RetryPolicy {
  maxAttempts: number;
  maxElapsedMs: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 4,
  maxElapsedMs: 30_000,
  initialDelayMs: 250,
  maxDelayMs: 8_000,
};

export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return { ...DEFAULT_RETRY, maxAttempts: 1 };
  const policy = { ...DEFAULT_RETRY, ...options };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1)
    throw new RangeError('retry.maxAttempts must be an integer of 1 or more');
  for (const key of ['maxElapsedMs', 'initialDelayMs', 'maxDelayMs'] as const)
    if (!Number.isFinite(policy[key]) || policy[key] < 0)
      throw new RangeError(`retry.${key} must be a number of 0 or more`);
  return policy;
}

const RETRIED_STATUSES = new Set([429, 503]);

/**
 * Worth another attempt: 429 and 503, and the 409 of an idempotency key whose first request is
 * still running (IDEMPOTENCY_KEY_IN_USE, the only 409 that carries Retry-After): the repeat then
 * gets the first request's answer.
 */
function isRetried(response: Response): boolean {
  return (
    RETRIED_STATUSES.has(response.status) || (response.status === 409 && response.headers.has('retry-after'))
  );
}

/** Milliseconds a Retry-After header asks for (delta-seconds or an HTTP date); undefined when absent or bad. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The backoff before attempt `attempt + 1` (attempt counts from 1): full jitter over an exponential cap. */
function backoffMs(policy: RetryPolicy, attempt: number): number {
  const cap = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
  return Math.random() * cap;
}

function sleep(ms: number, signal: AbortSignal | null, attempts: number): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted(signal, attempts));
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted(signal as AbortSignal, attempts));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function aborted(signal: AbortSignal, attempts: number): PartnerAbortError {
  return new PartnerAbortError(`the call was aborted after ${attempts} attempt(s)`, {
    cause: signal.reason,
    attempts,
  });
}

/**
 * A fetch that retries `request` under `policy`. It answers the last response (a 429 or 503 that
 * could not be retried any more is answered, not thrown); it throws PartnerConnectionError when no
 * attempt got an answer within maxElapsedMs, and PartnerAbortError when the caller's signal aborts
 * (never retried).
 */
export function retryingFetch(
  policy: RetryPolicy,
  fetchImpl: (request: Request) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const started = Date.now();
    let answered = 0;
    for (let attempt = 1; ; attempt++) {
      // A body can be read once: each attempt sends a copy, the original stays for the next.
      const copy = request.clone();
      let delay: number;
      try {
        const response = await fetchImpl(copy);
        answered++;
        if (answered >= policy.maxAttempts || !isRetried(response)) return response;
        const asked = retryAfterMs(response.headers.get('retry-after'));
        // Honour Retry-After, spreading retries over a tenth more so that clients do not return together.
        delay = asked === undefined ? backoffMs(policy, answered) : asked + Math.random() * asked * 0.1;
        if (Date.now() - started + delay > policy.maxElapsedMs) return response;
        await response.body?.cancel();
      } catch (error) {
        if (request.signal.aborted) throw aborted(request.signal, attempt);
        if (!isNetworkError(error)) throw error;
        delay = backoffMs(policy, attempt);
        const elapsed = Date.now() - started;
        if (policy.maxAttempts === 1 || elapsed + delay > policy.maxElapsedMs) {
          const cause = (error as { cause?: unknown }).cause ?? error;
          const reason = (cause as { code?: unknown }).code ?? (error as Error).message;
          throw new PartnerConnectionError(
            `no answer from ${new URL(request.url).origin} after ${attempt} attempt(s) in ${elapsed} ms: ${String(reason)}`,
            { cause, attempts: attempt },
          );
        }
      }
      await sleep(delay, request.signal, attempt);
    }
  };
}

/** fetch rejects with a TypeError when no answer came (refused, reset, dropped connection, DNS). */
function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError;
}
