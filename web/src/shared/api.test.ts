import { describe, expect, it, vi } from 'vitest';
import { ApiError, isTransient, retryTransient } from './api.ts';

const unavailable = new ApiError(503, { code: 3098, name: 'SERVICE_UNAVAILABLE', message: 'starting' });
const unreachable = new ApiError(0, { code: 0, name: 'NETWORK_ERROR', message: 'offline' });
const refused = new ApiError(401, { code: 3200, name: 'ADMIN_UNAUTHORIZED', message: 'revoked' });

/** A call failing with `failures` in turn, then answering 'ok'. */
function failingWith(...failures: unknown[]) {
  return vi.fn(async () => {
    const next = failures.shift();
    if (next !== undefined) throw next;
    return 'ok';
  });
}

describe('retryTransient', () => {
  it('tells a moment of unavailability from an answer', () => {
    expect([unavailable, unreachable, refused, new Error('bug')].map(isTransient)).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('tries a 503 and an unreachable service again until the call answers', async () => {
    const call = failingWith(unavailable, unreachable, unavailable);
    expect(await retryTransient(call, [1, 1, 1, 1])).toBe('ok');
    expect(call).toHaveBeenCalledTimes(4);
  });

  it('gives up after the last wait with the last failure', async () => {
    const call = failingWith(unavailable, unreachable, unavailable);
    await expect(retryTransient(call, [1, 1])).rejects.toBe(unavailable);
    expect(call).toHaveBeenCalledTimes(3);
  });

  it('never tries a refusal again', async () => {
    const call = failingWith(refused);
    await expect(retryTransient(call, [1, 1])).rejects.toBe(refused);
    expect(call).toHaveBeenCalledTimes(1);
  });

  it('stops once its signal is aborted', async () => {
    const controller = new AbortController();
    const call = vi.fn(async () => {
      controller.abort();
      throw unavailable;
    });
    await expect(retryTransient(call, [1, 1], controller.signal)).rejects.toBe(unavailable);
    expect(call).toHaveBeenCalledTimes(1);
  });
});
