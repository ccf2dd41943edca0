// Where a scenario's CPU goes, per request, on this machine: the load generator (autocannon, in the
// bench process), the server under load, PostgreSQL (every postgres process: backends, WAL writer,
// checkpointer), and the rest of the machine's busy time (the kernel's own work, such as loopback
// packets handled in soft interrupts, and anything else running). From the empty server's run and
// the service's run it works out what a target demands: the machine's CPU per request at the target
// rate, and what is left of it for the service once the HTTP exchange itself and PostgreSQL's work
// are paid. When that is below what an empty server spends, no service code can meet the target on
// this machine (docs/performance.md, "Ninth round").
import { readFileSync, readdirSync } from 'node:fs';
import type { PgWaits } from './pg-waits.ts';

/** CPU seconds counted so far, by part (Linux /proc; the bench runs on Linux). */
export interface CpuSnapshot {
  /** This process: the load generator. */
  bench: number;
  /** The server processes under load (the service, or the empty server), and its kernel part. */
  server: number;
  serverKernel: number;
  /**
   * Each server process's main thread (the one running JavaScript and the event loop), by pid: a
   * Node server cannot go faster than that thread, whatever the other core has free.
   */
  serverMainThreads: Map<number, number>;
  /** Wall-clock seconds (monotonic), to turn the main thread's CPU into a share of the load's time. */
  wall: number;
  /** Every process named postgres, by pid (one that exits during a load loses its last ticks). */
  postgres: Map<number, number>;
  /** The machine's busy time, all cores: user, nice, system, irq, softirq and steal. */
  machineBusy: number;
  /** The machine's time, all cores, busy or not. */
  machineTotal: number;
}

/** CPU microseconds per request, by part, over one load. */
export interface CpuPerRequest {
  bench: number;
  server: number;
  /** The part of the server's CPU spent in the kernel on its behalf (system calls, its sockets). */
  serverKernel: number;
  postgres: number;
  /** The server's main thread (of several servers, the busiest's). */
  mainThread: number;
  /**
   * The share of the load's wall time that main thread was on a CPU (0..1). Near 1, the service is
   * bound by its one thread, not by the machine.
   */
  mainThreadBusy: number;
  /** Busy time not counted to the three above: the kernel's own work and anything else. */
  other: number;
  /** All of the machine's busy time. */
  machine: number;
  /** The share of the machine's time that was idle during the load (0..1). */
  idle: number;
  /**
   * Bytes of write-ahead log a request (the whole cluster's, from its insert position), when read:
   * what PostgreSQL wrote for it, exact where its CPU a request moves with the machine.
   */
  walBytes?: number;
  /** With BENCH_PG_WAITS=1, what PostgreSQL's backends were doing during the load (bench/pg-waits.ts). */
  pgWaits?: PgWaits;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/**
 * utime and stime of a process (or, with `thread`, one of its threads) in ticks, and its command
 * name; undefined once it is gone.
 */
function statOf(pid: number, thread?: number): { user: number; system: number; name: string } | undefined {
  try {
    const file = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
    const stat = readFileSync(file, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    return { user: Number(fields[11]), system: Number(fields[12]), name };
  } catch {
    return undefined;
  }
}

/** utime + stime in ticks of a process's main thread (its thread id is its pid), 0 once gone. */
function mainThreadTicks(pid: number): number {
  const stat = statOf(pid, pid);
  return stat === undefined ? 0 : stat.user + stat.system;
}

/** CPU seconds (user + system) a process has used, 0 when it is gone. */
export function cpuSecondsOf(pid: number): number {
  const stat = statOf(pid);
  return stat === undefined ? 0 : (stat.user + stat.system) / TICKS_PER_SECOND;
}

function postgresTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (stat?.name === 'postgres') ticks.set(Number(entry), stat.user + stat.system);
  }
  return ticks;
}

/** The machine's busy and total ticks from the first line of /proc/stat. */
export function machineTicks(procStat: string): { busy: number; total: number } {
  const line = procStat.split('\n', 1)[0] as string;
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest is inside user)
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  const busy = [user, nice, system, irq, softirq, steal].reduce((sum: number, x) => sum + (x ?? 0), 0);
  return { busy, total: busy + (idle ?? 0) + (iowait ?? 0) };
}

export function cpuSnapshot(serverPids: readonly number[]): CpuSnapshot {
  const usage = process.cpuUsage();
  const machine = machineTicks(readFileSync('/proc/stat', 'utf8'));
  const servers = serverPids.map((pid) => statOf(pid));
  return {
    bench: (usage.user + usage.system) / 1e6,
    server: servers.reduce((sum, s) => sum + (s ? s.user + s.system : 0), 0) / TICKS_PER_SECOND,
    serverKernel: servers.reduce((sum, s) => sum + (s?.system ?? 0), 0) / TICKS_PER_SECOND,
    serverMainThreads: new Map(serverPids.map((pid) => [pid, mainThreadTicks(pid) / TICKS_PER_SECOND])),
    wall: performance.now() / 1000,
    postgres: postgresTicks(),
    machineBusy: machine.busy / TICKS_PER_SECOND,
    machineTotal: machine.total / TICKS_PER_SECOND,
  };
}

export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): CpuPerRequest {
  const perRequest = (seconds: number) => (seconds * 1e6) / Math.max(1, requests);
  let postgresTicksUsed = 0;
  for (const [pid, ticks] of after.postgres) postgresTicksUsed += ticks - (before.postgres.get(pid) ?? 0);
  const bench = perRequest(after.bench - before.bench);
  const server = perRequest(after.server - before.server);
  const postgres = perRequest(postgresTicksUsed / TICKS_PER_SECOND);
  const machine = perRequest(after.machineBusy - before.machineBusy);
  const total = after.machineTotal - before.machineTotal;
  const wall = after.wall - before.wall;
  let mainThreadSeconds = 0;
  for (const [pid, seconds] of after.serverMainThreads)
    mainThreadSeconds = Math.max(mainThreadSeconds, seconds - (before.serverMainThreads.get(pid) ?? 0));
  return {
    bench,
    server,
    serverKernel: perRequest(after.serverKernel - before.serverKernel),
    postgres,
    mainThread: perRequest(mainThreadSeconds),
    mainThreadBusy: wall > 0 ? Math.min(1, mainThreadSeconds / wall) : 0,
    other: Math.max(0, machine - bench - server - postgres),
    machine,
    idle: total > 0 ? 1 - (after.machineBusy - before.machineBusy) / total : 0,
  };
}

/**
 * Runs a load and counts its CPU per request; `requests` reads the count from the load's result.
 * With `walPosition` (the database's WAL insert position in bytes), the WAL a request too.
 */
export async function measured<T>(
  serverPids: readonly number[],
  run: () => Promise<T>,
  requests: (result: T) => number,
  walPosition?: () => Promise<number>,
): Promise<{ result: T; cpu: CpuPerRequest }> {
  const walBefore = await walPosition?.();
  const before = cpuSnapshot(serverPids);
  const result = await run();
  const after = cpuSnapshot(serverPids);
  const walAfter = await walPosition?.();
  const count = requests(result);
  const cpu = cpuPerRequest(before, after, count);
  if (walBefore !== undefined && walAfter !== undefined)
    cpu.walBytes = (walAfter - walBefore) / Math.max(1, count);
  return { result, cpu };
}

export interface CpuBudget {
  /** The rate the target asks for (requests/s). */
  targetRps: number;
  /** The machine's CPU per request that rate allows, all cores (µs). */
  allowed: number;
  /** The HTTP exchange alone: the machine's CPU per request with the empty server (µs). */
  http: number;
  /** PostgreSQL's CPU per request in the service's run (µs). */
  database: number;
  /** What is left for the service's own work beyond the empty server's (µs); negative: none. */
  leftForService: number;
  /** What the service's work beyond the empty server's costs today (µs). */
  serviceExtra: number;
  /** The fastest any service could go here: no work beyond the empty server's (requests/s). */
  bestPossibleRps: number;
  /**
   * The fastest this service's one main thread could go at its CPU a request, with a core of its
   * own (requests/s; Infinity when it was not read).
   */
  oneThreadRps: number;
}

/**
 * What a target rate leaves for the service. The empty server's run gives the cost of the HTTP
 * exchange (load generator, least server, kernel); the service's run gives PostgreSQL's cost per
 * request. Both are floors for any service doing the same database work over the same HTTP, so
 * `cores / (http + database)` bounds the rate from above.
 */
export function cpuBudget(
  cores: number,
  targetRps: number,
  empty: CpuPerRequest,
  service: CpuPerRequest,
): CpuBudget {
  const allowed = (cores * 1e6) / targetRps;
  const http = empty.machine;
  const database = service.postgres;
  return {
    targetRps,
    allowed,
    http,
    database,
    leftForService: allowed - http - database,
    serviceExtra: service.machine - http - database,
    bestPossibleRps: (cores * 1e6) / (http + database),
    oneThreadRps: service.mainThread > 0 ? 1e6 / service.mainThread : Number.POSITIVE_INFINITY,
  };
}

const us = (x: number) => `${Math.round(x)} µs`;

/** Bytes, to one decimal in kB from 1,000 up. */
export const walSize = (bytes: number) =>
  bytes < 1000 ? `${Math.round(bytes)} B` : `${(bytes / 1000).toFixed(1)} kB`;

export function describeCpu(cpu: CpuPerRequest): string {
  const wal = cpu.walBytes === undefined ? '' : ` (its WAL ${walSize(cpu.walBytes)})`;
  return `load generator ${us(cpu.bench)}, server ${us(cpu.server)} (kernel ${us(cpu.serverKernel)}, main thread ${us(cpu.mainThread)}: busy ${Math.round(cpu.mainThreadBusy * 100)}% of the load), PostgreSQL ${us(cpu.postgres)}${wal}, other ${us(cpu.other)}; machine ${us(cpu.machine)} a request, ${Math.round(cpu.idle * 100)}% idle`;
}

export function describeBudget(budget: CpuBudget): string {
  return `the target's ${Math.round(budget.targetRps)}/s allows ${us(budget.allowed)} of machine CPU a request; the HTTP exchange with the empty server takes ${us(budget.http)} and PostgreSQL ${us(budget.database)}, leaving ${us(budget.leftForService)} for the service's own work (it spends ${us(budget.serviceExtra)} today); no service could pass ${Math.round(budget.bestPossibleRps)}/s here${
    Number.isFinite(budget.oneThreadRps)
      ? `, and this one's main thread, at its CPU a request, not ${Math.round(budget.oneThreadRps)}/s`
      : ''
  }`;
}
