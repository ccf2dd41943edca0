// Summarises a V8 .cpuprofile: self time by area (our code by folder, each package, Node's
// internals, garbage collection, idle) and the functions with the most self time.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
/** Frames of callers shown for a native function (BENCH_PROFILE_DEPTH, default 4). */
const CALLER_DEPTH = Number(process.env.BENCH_PROFILE_DEPTH ?? 4);
export interface CpuProfile {
  startTime: number;
  endTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The area a frame belongs to: src/<folder>, a package, node internals, or a V8 pseudo-frame. */
export function areaOf(url: string, name: string): string {
  if (url === '') {
    if (name === '(idle)') return '(idle)';
    if (name === '(garbage collector)') return '(garbage collector)';
    if (name === '(program)') return '(program: native, not attributed)';
    return `(native) ${name}`;
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const src = url.indexOf('/src/');
  if (src >= 0)
    return `src/${
      url
        .slice(src + 5)
        .split('/')
        .slice(0, -1)
        .join('/') || '.'
    }`;
  return url;
}

/**
 * The summary of the samples taken in a window that ends `endGapMicros` before the profile's end
 * (the process's shutdown) and lasts `windowMicros` (the load): start-up and shutdown are left out.
 */
export function summarizeProfile(
  profile: CpuProfile,
  window: { endGapMicros: number; windowMicros: number } = { endGapMicros: 0, windowMicros: Infinity },
  top = 40,
): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const to = profile.endTime - window.endGapMicros;
  const from = to - window.windowMicros;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < from || at > to) continue;
    const id = profile.samples[i] as number;
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let total = 0;
  let idle = 0;
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, micros] of self) {
    const node = byId.get(id) as ProfileNode;
    const { functionName, url, lineNumber } = node.callFrame;
    const area = areaOf(url, functionName);
    total += micros;
    if (area === '(idle)') idle += micros;
    areas.set(area, (areas.get(area) ?? 0) + micros);
    const key = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${lineNumber + 1}` : ''}`;
    functions.set(key, (functions.get(key) ?? 0) + micros);
  }
  const busy = total - idle;
  const pct = (x: number) => `${((100 * x) / Math.max(busy, 1)).toFixed(1).padStart(5)}%`;
  const lines = [
    `profiled ${(total / 1e6).toFixed(1)} s, of which busy ${(busy / 1e6).toFixed(1)} s (shares below are of busy time)`,
    '',
    'by area (self time):',
  ];
  for (const [area, micros] of [...areas].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    if (area !== '(idle)') lines.push(`  ${pct(micros)}  ${area}`);
  }
  lines.push('', `top ${top} functions (self time):`);
  for (const [fn, micros] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`  ${pct(micros)}  ${fn}`);
  }
  // Native frames (writev, string writes) say little by themselves: who called them.
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const callers = new Map<string, number>();
  for (const [id, micros] of self) {
    const node = byId.get(id) as ProfileNode;
    if (node.callFrame.url !== '' || node.callFrame.functionName.startsWith('(')) continue;
    const chain: string[] = [];
    for (let at = parentOf.get(id); at !== undefined && chain.length < CALLER_DEPTH; at = parentOf.get(at)) {
      const frame = (byId.get(at) as ProfileNode).callFrame;
      if (frame.url === '') continue;
      chain.push(`${frame.functionName || '(anonymous)'}@${areaOf(frame.url, frame.functionName)}`);
    }
    const key = `${node.callFrame.functionName} <- ${chain.join(' <- ')}`;
    callers.set(key, (callers.get(key) ?? 0) + micros);
  }
  lines.push('', 'native functions by caller (self time):');
  for (const [key, micros] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    lines.push(`  ${pct(micros)}  ${key}`);
  }
  return `${lines.join('\n')}\n`;
}
