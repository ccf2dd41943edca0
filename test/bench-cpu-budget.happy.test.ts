// The bench's CPU accounting (bench/cpu-budget.ts): the pure arithmetic behind "no service could
// pass N/s here", and one real snapshot of this machine's /proc.
import { describe, expect, it } from 'vitest';
import {
  cpuBudget,
  cpuPerRequest,
  cpuSecondsOf,
  cpuSnapshot,
  describeCpu,
  machineTicks,
  measured,
} from '../bench/cpu-budget.ts';
import type { CpuPerRequest, CpuSnapshot } from '../bench/cpu-budget.ts';
import { itUnless } from './requirements.ts';

const snapshot = (over: Partial<CpuSnapshot>): CpuSnapshot => ({
  bench: 0,
  server: 0,
  serverKernel: 0,
  serverMainThreads: new Map(),
  wall: 0,
  postgres: new Map(),
  machineBusy: 0,
  machineTotal: 0,
  ...over,
});

const perRequest = (over: Partial<CpuPerRequest>): CpuPerRequest => ({
  bench: 0,
  server: 0,
  serverKernel: 0,
  postgres: 0,
  mainThread: 0,
  mainThreadBusy: 0,
  other: 0,
  machine: 0,
  idle: 0,
  ...over,
});

describe('machineTicks', () => {
  it('counts user, nice, system, irq, softirq and steal as busy, and idle and iowait only in the total', () => {
    const stat = 'cpu  100 2 30 500 7 1 4 6 50 0\ncpu0 50 1 15 250 3 0 2 3 25 0\n';
    // guest (50) is already inside user: not counted twice
    expect(machineTicks(stat)).toEqual({ busy: 100 + 2 + 30 + 1 + 4 + 6, total: 143 + 500 + 7 });
  });
});

describe('cpuPerRequest', () => {
  it('divides each part by the requests, in microseconds, and puts the unattributed busy time in other', () => {
    const before = snapshot({
      bench: 1,
      server: 2,
      serverKernel: 0.5,
      postgres: new Map([
        [10, 300],
        [11, 100],
      ]),
      machineBusy: 10,
      machineTotal: 20,
    });
    const after = snapshot({
      bench: 1.2, // +0.2 s
      server: 2.5, // +0.5 s
      serverKernel: 0.7, // +0.2 s
      // pid 10 used 20 ticks, pid 11 exited (its ticks are lost), pid 12 started and used 10
      postgres: new Map([
        [10, 320],
        [12, 10],
      ]),
      machineBusy: 11.2, // +1.2 s
      machineTotal: 22, // +2 s: 40% idle
    });
    const cpu = cpuPerRequest(before, after, 1000);
    expect(cpu.bench).toBeCloseTo(200);
    expect(cpu.server).toBeCloseTo(500);
    expect(cpu.serverKernel).toBeCloseTo(200);
    expect(cpu.postgres).toBeCloseTo(300); // 30 ticks = 0.3 s
    expect(cpu.machine).toBeCloseTo(1200);
    expect(cpu.other).toBeCloseTo(200);
    expect(cpu.idle).toBeCloseTo(0.4);
  });

  it("reads the busiest server's main thread: its CPU a request and its share of the load's wall time", () => {
    const before = snapshot({
      wall: 100,
      serverMainThreads: new Map([
        [20, 5],
        [21, 9],
      ]),
    });
    const after = snapshot({
      wall: 102, // a load of 2 s
      // pid 20's main thread ran 1.8 s, pid 21's (more in all, but before the load) 1.0 s, and a
      // server that started during the load 0.5 s
      serverMainThreads: new Map([
        [20, 6.8],
        [21, 10],
        [22, 0.5],
      ]),
    });
    const cpu = cpuPerRequest(before, after, 9000);
    expect(cpu.mainThread).toBeCloseTo(200); // 1.8 s / 9,000
    expect(cpu.mainThreadBusy).toBeCloseTo(0.9);
  });

  it('never reports negative other time when the parts were counted past the machine (tick rounding)', () => {
    const cpu = cpuPerRequest(snapshot({}), snapshot({ server: 1, machineBusy: 0.9, machineTotal: 2 }), 100);
    expect(cpu.other).toBe(0);
  });
});

describe('cpuBudget', () => {
  it('says what a target leaves for the service once HTTP and PostgreSQL are paid', () => {
    // 2 cores at 10,000/s allow 200 µs a request; HTTP 50 and PostgreSQL 70 leave 80.
    const budget = cpuBudget(
      2,
      10_000,
      perRequest({ machine: 50 }),
      perRequest({ machine: 260, postgres: 70, server: 140 }),
    );
    expect(budget.allowed).toBeCloseTo(200);
    expect(budget.http).toBe(50);
    expect(budget.database).toBe(70);
    expect(budget.leftForService).toBeCloseTo(80);
    expect(budget.serviceExtra).toBeCloseTo(140);
    expect(budget.bestPossibleRps).toBeCloseTo(2e6 / 120);
    expect(budget.oneThreadRps).toBe(Number.POSITIVE_INFINITY); // the main thread was not read
  });

  it("bounds the service by its main thread's CPU a request, whatever the machine leaves", () => {
    const budget = cpuBudget(
      2,
      5_000,
      perRequest({ machine: 120 }),
      perRequest({ machine: 330, postgres: 60, server: 190, mainThread: 170 }),
    );
    expect(budget.bestPossibleRps).toBeCloseTo(2e6 / 180); // about 11,111/s
    expect(budget.oneThreadRps).toBeCloseTo(1e6 / 170); // about 5,882/s
  });

  it('leaves nothing, and bounds the rate below the target, when PostgreSQL alone takes the allowance', () => {
    const budget = cpuBudget(
      2,
      14_000,
      perRequest({ machine: 46 }),
      perRequest({ machine: 350, postgres: 137 }),
    );
    expect(budget.leftForService).toBeLessThan(0);
    expect(budget.bestPossibleRps).toBeLessThan(14_000);
  });
});

describe('cpuSnapshot', () => {
  itUnless(process.platform === 'linux' ? undefined : 'it reads /proc, which only Linux has')(
    'reads this machine: its own process, the machine, and PostgreSQL by pid',
    () => {
      const before = cpuSnapshot([process.pid]);
      // 60 ms of this process's CPU, however long that takes on a loaded machine.
      const start = process.cpuUsage();
      let x = 0;
      while (process.cpuUsage(start).user < 60_000) x += Math.sqrt(x + 1);
      const after = cpuSnapshot([process.pid]);
      expect(x).toBeGreaterThan(0);
      expect(after.bench - before.bench).toBeGreaterThanOrEqual(0.06);
      // The same process read from /proc (in ticks of 10 ms), and the machine busy at least as long.
      expect(after.server - before.server).toBeGreaterThanOrEqual(0.04);
      // The spin ran on this process's main thread, which /proc names by the process's own id.
      const main = (s: CpuSnapshot) => s.serverMainThreads.get(process.pid) ?? Number.NaN;
      expect(main(after) - main(before)).toBeGreaterThanOrEqual(0.04);
      expect(after.wall).toBeGreaterThan(before.wall);
      expect(after.machineBusy - before.machineBusy).toBeGreaterThanOrEqual(0.04);
      expect(after.machineTotal).toBeGreaterThan(before.machineTotal);
      expect(cpuSecondsOf(process.pid)).toBeGreaterThanOrEqual(after.server - 0.01);
      expect(cpuSecondsOf(2 ** 22 + 1)).toBe(0); // above Linux's largest pid: no such process
      for (const pid of after.postgres.keys()) expect(Number.isInteger(pid)).toBe(true);
    },
  );
});

describe('the WAL a request', () => {
  it("divides the WAL position's advance over the load by its requests, and names it after PostgreSQL's CPU", async () => {
    const positions = [16_000_000, 16_000_000 + 250 * 5_700];
    const { cpu } = await measured(
      [process.pid],
      async () => ({ total: 250 }),
      (result) => result.total,
      async () => positions.shift() as number,
    );
    expect(cpu.walBytes).toBe(5_700);
    expect(positions).toEqual([]); // read once before the load and once after
    expect(describeCpu({ ...cpu, postgres: 164 })).toContain('PostgreSQL 164 µs (its WAL 5.7 kB)');
    expect(describeCpu(perRequest({ postgres: 35, walBytes: 412.4 }))).toContain(
      'PostgreSQL 35 µs (its WAL 412 B)',
    );
  });

  it('says nothing of WAL when it was not read (the empty server has no database)', async () => {
    const { cpu } = await measured(
      [process.pid],
      async () => ({ total: 10 }),
      (result) => result.total,
    );
    expect(cpu.walBytes).toBeUndefined();
    expect(describeCpu(cpu)).not.toContain('WAL');
  });
});
