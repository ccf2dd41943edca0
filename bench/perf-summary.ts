// Summarises `perf script -F tid,ip,sym,dso` of a service recorded with `perf record -e cpu-clock -g`
// and node's --perf-basic-prof (JavaScript frames named). Unlike V8's sampler (profile-summary.ts),
// perf samples CPU only: a thread descheduled inside a system call is not counted. Each sample is
// counted once, to the nearest JavaScript frame's area (our folders, each package, Node's own
// modules), so the V8 builtins and runtime a function calls count with it; a sample inside the
// garbage collector counts to it wherever it was triggered, and one with no JavaScript frame to the
// kernel or to native code.
import { areaOf } from './profile-summary.ts';

export interface PerfFrame {
  symbol: string;
  dso: string;
}

export interface PerfSample {
  tid: number;
  /** Leaf first. */
  frames: PerfFrame[];
}

export const GC_AREA = '(garbage collector)';
export const KERNEL_AREA = '(kernel, no JavaScript frame)';
export const NATIVE_AREA = '(native, no JavaScript frame)';

const GC_FRAME = /Heap::|Scavenger|MarkCompact|ConcurrentMarking|IncrementalMarking|Sweeper|GCTracer/;

/** The samples of `perf script -F tid,ip,sym,dso` output (a header line, then one frame a line). */
export function parsePerfScript(text: string): PerfSample[] {
  const samples: PerfSample[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((line) => line.trim() !== '');
    // The header is the thread id, padded with spaces to a column; frames begin with a tab.
    const header = lines[0];
    if (header === undefined || header.startsWith('\t')) continue;
    const frames: PerfFrame[] = [];
    for (const line of lines.slice(1)) {
      // "\t    7f12ab34 Builtins_LoadIC (/usr/bin/node)"
      const match = /^\s*[0-9a-f]+\s+(.*?)\s+\(([^()]*)\)\s*$/.exec(line);
      if (match) frames.push({ symbol: match[1] as string, dso: match[2] as string });
    }
    if (frames.length > 0) samples.push({ tid: Number(header.trim().split(/\s+/).at(-1)), frames });
  }
  return samples;
}

/** The samples of one thread (a process's main thread has the process's id). */
export function samplesOfThread(samples: readonly PerfSample[], tid: number): PerfSample[] {
  return samples.filter((sample) => sample.tid === tid);
}

/** The area of a JavaScript frame named by --perf-basic-prof ("JS:*name url:line:col"), else undefined. */
export function areaOfJsFrame(symbol: string): string | undefined {
  if (!symbol.startsWith('JS:')) return undefined;
  const rest = symbol.slice(3).replace(/^[*~^+]/, '');
  const space = rest.indexOf(' ');
  if (space < 0) return undefined;
  const url = rest
    .slice(space + 1)
    .replace(/:\d+:\d+$/, '')
    .replace(/^file:\/\//, '');
  return url === '' ? undefined : areaOf(url, rest.slice(0, space));
}

/** Where a sample's CPU belongs: the garbage collector, the nearest JavaScript frame's area, or neither. */
export function areaOfSample(sample: PerfSample): string {
  if (sample.frames.some((frame) => GC_FRAME.test(frame.symbol))) return GC_AREA;
  for (const frame of sample.frames) {
    const area = areaOfJsFrame(frame.symbol);
    if (area !== undefined) return area;
  }
  return sample.frames[0]?.dso.includes('kernel') ? KERNEL_AREA : NATIVE_AREA;
}

const shortSymbol = (symbol: string) =>
  symbol.replace(/ file:\/\/\S*\/(src|node_modules)\//, ' $1/').replace(/ \/\S*\/(node_modules)\//, ' $1/');

/**
 * A text summary: samples by area (with the leaf functions most sampled in each) and the symbols
 * with the most self samples. `cpuMicrosPerRequest`, when given, turns shares into µs a request.
 */
export function summarizePerf(
  samples: readonly PerfSample[],
  cpuMicrosPerRequest?: number,
  top = 30,
  of = 'all threads',
): string {
  const total = Math.max(1, samples.length);
  const areas = new Map<string, { count: number; leaves: Map<string, number> }>();
  const self = new Map<string, number>();
  for (const sample of samples) {
    const area = areaOfSample(sample);
    const leaf = shortSymbol(sample.frames[0]?.symbol ?? '?');
    const entry = areas.get(area) ?? { count: 0, leaves: new Map<string, number>() };
    entry.count += 1;
    entry.leaves.set(leaf, (entry.leaves.get(leaf) ?? 0) + 1);
    areas.set(area, entry);
    self.set(leaf, (self.get(leaf) ?? 0) + 1);
  }
  const share = (count: number) => {
    const pct = `${((100 * count) / total).toFixed(1).padStart(5)}%`;
    return cpuMicrosPerRequest === undefined
      ? pct
      : `${pct} ${((count / total) * cpuMicrosPerRequest).toFixed(1).padStart(6)} µs`;
  };
  const lines = [
    `${samples.length} samples of CPU (${of})${cpuMicrosPerRequest === undefined ? '' : `, ${cpuMicrosPerRequest.toFixed(0)} µs of CPU a request`}`,
    '',
    'by area (each sample to its nearest JavaScript frame; its three leaf functions most sampled):',
  ];
  for (const [area, { count, leaves }] of [...areas].sort((a, b) => b[1].count - a[1].count)) {
    const common = [...leaves]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([leaf]) => leaf.slice(0, 60))
      .join('; ');
    lines.push(`  ${share(count)}  ${area}  [${common}]`);
  }
  lines.push('', `top ${top} symbols (self):`);
  for (const [symbol, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`  ${share(count)}  ${symbol.slice(0, 120)}`);
  }
  return `${lines.join('\n')}\n`;
}
