// The open-loop row of the bench (issue #28, fault 12; issue #35): requests arrive at a fixed rate
// whatever the service answers, each on a NEW connection, as a crowd of clients does, above what the
// service can serve. A closed loop (autocannon's fixed connections) waits for each answer before it
// sends again and never shows the waiting in the kernel's accept queue: this does. It reports the
// p99 of the 200s, the share shed (answered 503, or the connection refused or closed unanswered),
// and how many requests were still unanswered some seconds after the load ended (they must be none).
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import type { OutgoingHttpHeaders } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface OpenLoopOptions {
  /** Base URL of the service (http only). */
  base: string;
  path: string;
  method: 'GET' | 'POST';
  headers: OutgoingHttpHeaders;
  /** A fresh body for each request (POST). */
  body?: () => string;
  /** New requests (each a new connection) a second. */
  rate: number;
  seconds: number;
  /** How long after the last request is sent the answers are awaited; then what is left is unanswered. */
  drainSeconds: number;
}

export interface OpenLoopResult {
  /** Requests the generator sent, and their rate over the load's seconds (it may fall short of `rate`). */
  sent: number;
  sentRate: number;
  ok: number;
  /** Of the 200s: per second of the load, and exact percentiles (ms, from before the connection). */
  okRate: number;
  p50: number;
  p99: number;
  unavailable: number;
  /** Connections refused, reset or closed without an answer. */
  refused: number;
  /** Other answers, by status. */
  otherStatus: Record<string, number>;
  /** Errors of this machine's own (no local port free), not the service's doing. */
  clientErrors: Record<string, number>;
  /** Still unanswered `drainSeconds` after the last request was sent. */
  unanswered: number;
  /** Share of the requests sent that were answered 503 or refused. */
  shedShare: number;
}

/** The service's refusal of a connection: closed at accept, reset, or refused by the kernel. */
const REFUSAL_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE']);

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const url = new URL(options.path, options.base);
  const times: number[] = [];
  const otherStatus: Record<string, number> = {};
  const clientErrors: Record<string, number> = {};
  let sent = 0;
  let ok = 0;
  let unavailable = 0;
  let refused = 0;
  const pending = new Set<ReturnType<typeof request>>();

  const send = () => {
    sent += 1;
    const startedAt = performance.now();
    const body = options.body?.();
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method: options.method,
      // A new connection for each request, closed after its answer.
      agent: false,
      headers: {
        ...options.headers,
        connection: 'close',
        ...(body !== undefined && { 'content-length': Buffer.byteLength(body) }),
      },
    });
    pending.add(req);
    let settled = false;
    const settle = () => {
      settled = true;
      pending.delete(req);
    };
    req.on('response', (response) => {
      response.resume();
      response.on('end', () => {
        if (settled) return;
        settle();
        const status = response.statusCode ?? 0;
        if (status === 200) {
          ok += 1;
          times.push(performance.now() - startedAt);
        } else if (status === 503) unavailable += 1;
        else otherStatus[`HTTP ${status}`] = (otherStatus[`HTTP ${status}`] ?? 0) + 1;
      });
    });
    req.on('error', (error: Error & { code?: string }) => {
      if (settled) return;
      settle();
      const code = error.code ?? error.message;
      if (REFUSAL_CODES.has(code)) refused += 1;
      else clientErrors[code] = (clientErrors[code] ?? 0) + 1;
    });
    req.end(body);
  };

  // Open loop: every millisecond or so, send what the schedule says is due by now, whatever has been
  // answered. A generator that falls behind (its own CPU) catches up in bursts; sentRate says so.
  const started = performance.now();
  const total = Math.round(options.rate * options.seconds);
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * options.rate));
      while (sent < due) send();
      if (sent >= total) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  const loadSeconds = (performance.now() - started) / 1000;
  const drainUntil = performance.now() + options.drainSeconds * 1000;
  while (pending.size > 0 && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 50));
  const unanswered = pending.size;
  for (const req of pending) req.destroy();

  const sorted = Float64Array.from(times).sort();
  const round2 = (x: number) => Math.round(x * 100) / 100;
  return {
    sent,
    sentRate: sent / loadSeconds,
    ok,
    okRate: ok / loadSeconds,
    p50: round2(percentile(sorted, 50)),
    p99: round2(percentile(sorted, 99)),
    unavailable,
    refused,
    otherStatus,
    clientErrors,
    unanswered,
    shedShare: sent === 0 ? 0 : (unavailable + refused) / sent,
  };
}

/** One line of what happened, for the bench's notes. */
export function describeOpenLoop(r: OpenLoopResult, rate: number, drainSeconds: number): string {
  const pct = (n: number) => `${((n / Math.max(1, r.sent)) * 100).toFixed(1)}%`;
  const other = Object.entries(r.otherStatus).map(([k, v]) => `${k} ${v}`);
  const client = Object.entries(r.clientErrors).map(([k, v]) => `${k} ${v}`);
  return [
    `offered ${rate}/s, sent ${r.sent} (${r.sentRate.toFixed(0)}/s)`,
    `200 ${r.ok} (${pct(r.ok)}, p50 ${r.p50} ms, p99 ${r.p99} ms)`,
    `503 ${r.unavailable} (${pct(r.unavailable)})`,
    `refused or closed unanswered ${r.refused} (${pct(r.refused)})`,
    ...(other.length > 0 ? [`other ${other.join(', ')}`] : []),
    ...(client.length > 0 ? [`the load generator's own errors ${client.join(', ')}`] : []),
    `unanswered ${drainSeconds} s after the load ${r.unanswered}`,
  ].join('; ');
}

/** What the generator's own process is given: the options, with bodies drawn from a sample. */
export type OpenLoopProcessOptions = Omit<OpenLoopOptions, 'body'> & { bodies?: string[] };

/**
 * The same load from a process of its own (`node --import tsx bench/open-loop.ts`), so that the
 * generator's CPU and descriptors are not the bench's: in the bench's process it fell behind the
 * rate (3,567 of 5,000/s) and ran out of descriptors (EMFILE), measuring its own starvation.
 */
export async function openLoopInProcess(options: OpenLoopProcessOptions): Promise<OpenLoopResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    cwd: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'),
    env: { ...process.env, OPEN_LOOP_CHILD: '1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // The options on standard input: a sample of bodies is more than an environment variable holds.
  child.stdin.end(JSON.stringify(options));
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`the open-loop generator exited ${code}`);
  return JSON.parse(out) as OpenLoopResult;
}

if (process.env.OPEN_LOOP_CHILD === '1' && process.argv[1] === fileURLToPath(import.meta.url)) {
  let input = '';
  for await (const chunk of process.stdin) input += String(chunk);
  const { bodies, ...options } = JSON.parse(input) as OpenLoopProcessOptions;
  let next = 0;
  const body = bodies && bodies.length > 0 ? () => bodies[next++ % bodies.length] as string : undefined;
  process.stdout.write(JSON.stringify(await openLoop({ ...options, body })));
}
