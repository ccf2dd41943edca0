// Reads the Prometheus text exposition format (0.0.4) the way a scraper does, for the metrics tests.

export interface MetricFamily {
  name: string;
  type: string;
  help: string;
  samples: Array<{ name: string; labels: Record<string, string>; value: number }>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The families of an exposition text, by name; throws on a line a scraper would refuse. */
export function parseExposition(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const family = (name: string) => {
    let found = families.get(name);
    if (!found) {
      found = { name, type: 'untyped', help: '', samples: [] };
      families.set(name, found);
    }
    return found;
  };
  const owner = (sample: string) => {
    if (families.has(sample)) return family(sample);
    for (const suffix of ['_bucket', '_sum', '_count']) {
      const base = sample.endsWith(suffix) ? sample.slice(0, -suffix.length) : undefined;
      if (base !== undefined && families.has(base)) return family(base);
    }
    throw new Error(`sample ${sample} belongs to no declared family`);
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      if (kind === 'HELP') family(name).help = rest;
      else family(name).type = rest;
      continue;
    }
    if (line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`unreadable exposition line: ${line}`);
    const [, name, labelText, value] = match as unknown as [string, string, string | undefined, string];
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (labelText ?? '').matchAll(LABEL)) labels[key as string] = raw as string;
    owner(name).samples.push({ name, labels, value: Number(value) });
  }
  return families;
}

/** The value of one sample (labels given must all match; the sum when several match), or undefined. */
export function sampleValue(
  families: Map<string, MetricFamily>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  let total: number | undefined;
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== name) continue;
      if (!Object.entries(labels).every(([k, v]) => sample.labels[k] === v)) continue;
      total = (total ?? 0) + sample.value;
    }
  }
  return total;
}
