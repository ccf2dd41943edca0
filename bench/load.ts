// The load generator of the bench: autocannon in this process, with exact latency percentiles.
import autocannon from 'autocannon';

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** What went wrong, when anything did: answers by status (non-2xx) and errors by kind. */
  failures: Record<string, number>;
  total: number;
  seconds: number;
}

/** Exact percentile (ms) of the recorded response times. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export const round2 = (x: number) => Math.round(x * 100) / 100;

export async function load(options: autocannon.Options): Promise<LoadResult> {
  const { duration, ...rest } = options;
  // autocannon's own histogram keeps whole milliseconds; each response's time is exact, so the
  // percentiles are taken from those (2xx only, as autocannon does).
  const times: number[] = [];
  const failures: Record<string, number> = {};
  const count = (what: string) => (failures[what] = (failures[what] ?? 0) + 1);
  const started = performance.now();
  // The instant of the last answer (or failure): a request-bounded run ends there.
  let lastAt = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { connections: CONNECTIONS, ...(rest.amount ? {} : { duration: duration ?? SECONDS }), ...rest },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      lastAt = performance.now();
      if (statusCode >= 200 && statusCode < 300) times.push(responseTime);
      else count(`HTTP ${statusCode}`);
    });
    instance.on('reqError', (error: Error & { code?: string }) => {
      lastAt = performance.now();
      count(error.code ?? error.message);
    });
  });
  // A request-bounded run (amount) lasts until its last answer. Not until autocannon's callback:
  // autocannon notices that every request was answered only at its next once-a-second sample, so
  // timing to the callback rounded each such run up to whole seconds (a 10,000-request flash crowd
  // answered in 2.6 s counted as 3.0 s).
  const seconds = ((options.amount ? lastAt : performance.now()) - started) / 1000;
  const sorted = Float64Array.from(times).sort();
  const total = result.requests.total;
  return {
    rps: options.amount ? total / seconds : result.requests.average,
    p50: round2(percentile(sorted, 50)),
    p99: round2(percentile(sorted, 99)),
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    failures,
    total,
    seconds,
  };
}
