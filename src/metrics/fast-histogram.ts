// A prom-client Histogram whose observe costs a few property writes. prom-client's own observe builds
// a closure, a label hash string and a float-keyed bucket name on every call (1.6-2.2% of the busy
// time of achieve and link check, one per answer; docs/performance.md, "Fourth round: CPU per
// request"). This one finds the series once per label set and then adds to the very fields
// prom-client's observe adds to (sum, count, the bucket), in the same order: the exposition is the
// same, to the bit (fast-histogram.test.ts holds it to a plain Histogram).
import { Histogram } from 'prom-client';
import type { HistogramConfiguration, LabelValues } from 'prom-client';

/** What prom-client keeps per label set (its `hashMap` values). */
interface Series {
  labels: Record<string, string | number>;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

/** The prom-client fields this class reads (not in its typings). */
interface HistogramInternals {
  hashMap: Record<string, Series>;
  upperBounds: readonly number[];
  labelNames: readonly string[];
}

export class FastHistogram<T extends string = string> extends Histogram<T> {
  /** The series by label value, one level per label name (in labelNames order). */
  #index = new Map<unknown, unknown>();
  readonly #bounds: readonly number[];
  /** The bucket names prom-client uses (String(bound)), made once. */
  readonly #bucketKeys: readonly string[];
  readonly #labelNames: readonly string[];

  constructor(config: HistogramConfiguration<T>) {
    if ((config as { enableExemplars?: boolean }).enableExemplars) {
      throw new Error('FastHistogram does not take exemplars; use prom-client Histogram');
    }
    super(config);
    const internals = this as unknown as HistogramInternals;
    this.#bounds = [...internals.upperBounds];
    this.#bucketKeys = this.#bounds.map(String);
    this.#labelNames = [...internals.labelNames];
    // prom-client sets `observe` on the instance in its constructor (observeWithoutExemplar): this
    // one takes its place there, a prototype method would be shadowed by it.
    this.#plainObserve = this.observe.bind(this) as (labels: unknown, value: unknown) => void;
    (this as { observe: unknown }).observe = this.#observe;
  }

  /** prom-client's own observe: for what it refuses, so that it refuses it as before. */
  readonly #plainObserve: (labels: unknown, value: unknown) => void;

  readonly #observe = (labelsOrValue: LabelValues<T> | number, maybeValue?: number): void => {
    const labels = (
      typeof labelsOrValue === 'object' && labelsOrValue !== null ? labelsOrValue : {}
    ) as Record<string, string | number | undefined>;
    const value = labels === labelsOrValue ? maybeValue : labelsOrValue;
    // prom-client's refusals, unchanged: an unknown label name, a value that is not a finite number.
    for (const name in labels) {
      if (!this.#labelNames.includes(name)) return this.#plainObserve(labelsOrValue, maybeValue);
    }
    if (typeof value !== 'number' || !Number.isFinite(value))
      return this.#plainObserve(labelsOrValue, maybeValue);
    const series = this.#seriesOf(labels);
    const bounds = this.#bounds;
    series.sum += value;
    series.count += 1;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= (bounds[i] as number)) {
        const bucket = this.#bucketKeys[i] as string;
        series.bucketValues[bucket] = (series.bucketValues[bucket] as number) + 1;
        break;
      }
    }
  };

  /** prom-client's series for these label values, made (as its observe would) when new. */
  #seriesOf(labels: Record<string, string | number | undefined>): Series {
    let level: Map<unknown, unknown> = this.#index;
    const names = this.#labelNames;
    for (let i = 0; i < names.length - 1; i++) {
      const raw = labels[names[i] as string];
      const key = raw === undefined ? undefined : String(raw);
      let next = level.get(key) as Map<unknown, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(key, next);
      }
      level = next;
    }
    const lastName = names[names.length - 1];
    const raw = lastName === undefined ? undefined : labels[lastName];
    const key = raw === undefined ? undefined : String(raw);
    let series = level.get(key) as Series | undefined;
    if (series === undefined) {
      series = this.#findOrMakeSeries(labels);
      level.set(key, series);
    }
    return series;
  }

  /** Once per label set: the series prom-client holds for it (label values compared as its hash does). */
  #findOrMakeSeries(labels: Record<string, string | number | undefined>): Series {
    const internals = this as unknown as HistogramInternals;
    const same = (series: Series) =>
      this.#labelNames.every((name) => {
        const a = series.labels[name];
        const b = labels[name];
        return a === undefined || b === undefined ? a === b : String(a) === String(b);
      });
    let series = Object.values(internals.hashMap).find(same);
    if (series === undefined) {
      const copy: Record<string, string | number> = {};
      for (const name in labels) if (labels[name] !== undefined) copy[name] = labels[name] as string | number;
      super.zero(copy as LabelValues<T>);
      series = Object.values(internals.hashMap).find(same);
      if (series === undefined) throw new Error('FastHistogram: prom-client made no series');
    }
    return series;
  }

  // Whatever replaces prom-client's series drops the index: it is found again on the next observe.
  // (prom-client's constructor resets before this class's fields exist.)
  override reset(): void {
    super.reset();
    if (#index in this) this.#index = new Map();
  }

  override zero(labels: LabelValues<T>): void {
    super.zero(labels);
    this.#index = new Map();
  }

  override remove(...values: Array<string | number> | [LabelValues<T>]): void {
    (super.remove as (...args: unknown[]) => void)(...values);
    this.#index = new Map();
  }
}
