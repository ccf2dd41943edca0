// prom-client's Histogram and Counter with an observe / inc of a few property writes. prom-client's
// own build a closure (histogram), a label hash string and (histogram) a float-keyed bucket name on
// every call: 1.6-2.2% (histograms) and 0.6-1.0% (the request counter) of the busy time of achieve
// and link check, one of each per answer (docs/performance.md, "Fourth round: CPU per request").
// These find prom-client's series once per label set and then add to the very fields its own calls
// add to, in the same order: the exposition is the same, to the bit (fast-metrics.test.ts holds
// them to plain ones). What they do not take on (exemplars, refusals) goes to prom-client's own.
import { Counter, Histogram } from 'prom-client';
import type { CounterConfiguration, HistogramConfiguration, LabelValues } from 'prom-client';

type Labels = Record<string, string | number | undefined>;

/** What prom-client keeps per label set (its `hashMap` values). */
interface Series {
  labels: Record<string, string | number>;
}
interface HistogramSeries extends Series {
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}
interface CounterSeries extends Series {
  value: number;
}

/** The prom-client fields read here (not in its typings). */
interface Internals<S> {
  hashMap: Record<string, S>;
  labelNames: readonly string[];
}

/**
 * prom-client's series by label value, one map level per label name (in labelNames order): two Map
 * lookups with the strings the caller already holds, instead of a hash string built per call.
 */
class SeriesIndex<S extends Series> {
  #root = new Map<unknown, unknown>();

  constructor(
    readonly labelNames: readonly string[],
    /** Makes prom-client's series for a label set (as its own first call would). */
    private readonly make: (labels: Labels) => void,
    private readonly hashMap: () => Record<string, S>,
  ) {}

  /** Whether every label name is one of the metric's (prom-client refuses others). */
  known(labels: Labels): boolean {
    for (const name in labels) if (!this.labelNames.includes(name)) return false;
    return true;
  }

  seriesOf(labels: Labels): S {
    let level = this.#root;
    const names = this.labelNames;
    const last = names.length - 1;
    for (let i = 0; i < last; i++) {
      const key = keyOf(labels[names[i] as string]);
      let next = level.get(key) as Map<unknown, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(key, next);
      }
      level = next;
    }
    const key = last < 0 ? undefined : keyOf(labels[names[last] as string]);
    let series = level.get(key) as S | undefined;
    if (series === undefined) {
      series = this.#find(labels);
      if (series === undefined) {
        this.make(labels);
        series = this.#find(labels);
        if (series === undefined) throw new Error('prom-client made no series for these labels');
      }
      level.set(key, series);
    }
    return series;
  }

  /** Forgets every series: prom-client's were replaced (reset, zero, remove). */
  clear(): void {
    this.#root = new Map();
  }

  /** prom-client's series for these label values, compared as its hash compares them. */
  #find(labels: Labels): S | undefined {
    const same = (series: S) =>
      this.labelNames.every((name) => keyOf(series.labels[name]) === keyOf(labels[name]));
    return Object.values(this.hashMap()).find(same);
  }
}

/** A label value as prom-client's hash has it (`${value}`; an absent one is left out). */
function keyOf(value: string | number | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}

function withoutUndefined(labels: Labels): Record<string, string | number> {
  const copy: Record<string, string | number> = {};
  for (const name in labels) if (labels[name] !== undefined) copy[name] = labels[name] as string | number;
  return copy;
}

export class FastHistogram<T extends string = string> extends Histogram<T> {
  readonly #index: SeriesIndex<HistogramSeries>;
  readonly #bounds: readonly number[];
  /** The bucket names prom-client uses (String(bound)), made once. */
  readonly #bucketKeys: readonly string[];
  /** prom-client's own observe: for what it refuses, so that it refuses it as before. */
  readonly #plainObserve: (labels: unknown, value: unknown) => void;

  constructor(config: HistogramConfiguration<T>) {
    if ((config as { enableExemplars?: boolean }).enableExemplars) {
      throw new Error('FastHistogram does not take exemplars; use prom-client Histogram');
    }
    super(config);
    const internals = this as unknown as Internals<HistogramSeries> & { upperBounds: readonly number[] };
    this.#bounds = [...internals.upperBounds];
    this.#bucketKeys = this.#bounds.map(String);
    this.#index = new SeriesIndex(
      [...internals.labelNames],
      (labels) => super.zero(withoutUndefined(labels) as LabelValues<T>),
      () => internals.hashMap,
    );
    // prom-client sets `observe` on the instance in its constructor (observeWithoutExemplar): this
    // one takes its place there, a prototype method would be shadowed by it.
    this.#plainObserve = this.observe.bind(this) as (labels: unknown, value: unknown) => void;
    (this as { observe: unknown }).observe = this.#observe;
  }

  readonly #observe = (labelsOrValue: LabelValues<T> | number, maybeValue?: number): void => {
    const given = typeof labelsOrValue === 'object' && labelsOrValue !== null;
    const labels = (given ? labelsOrValue : {}) as Labels;
    const value = given ? maybeValue : labelsOrValue;
    // prom-client's refusals, unchanged: an unknown label name, a value that is not a finite number.
    if (typeof value !== 'number' || !Number.isFinite(value) || !this.#index.known(labels))
      return this.#plainObserve(labelsOrValue, maybeValue);
    const series = this.#index.seriesOf(labels);
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

  // Whatever replaces prom-client's series drops the index: it is found again on the next call.
  // (prom-client's constructor resets before this class's fields exist.)
  override reset(): void {
    super.reset();
    if (#index in this) this.#index.clear();
  }

  override zero(labels: LabelValues<T>): void {
    super.zero(labels);
    this.#index.clear();
  }

  override remove(...values: Array<string | number> | [LabelValues<T>]): void {
    (super.remove as (...args: unknown[]) => void)(...values);
    this.#index.clear();
  }
}

export class FastCounter<T extends string = string> extends Counter<T> {
  readonly #index: SeriesIndex<CounterSeries>;
  /** prom-client's own inc: for what it refuses or reads differently. */
  readonly #plainInc: (labels: unknown, value: unknown) => void;

  constructor(config: CounterConfiguration<T>) {
    if ((config as { enableExemplars?: boolean }).enableExemplars) {
      throw new Error('FastCounter does not take exemplars; use prom-client Counter');
    }
    super(config);
    const internals = this as unknown as Internals<CounterSeries>;
    // prom-client's inc sets this.inc on the instance (incWithoutExemplar), as Histogram's observe.
    this.#plainInc = this.inc.bind(this) as (labels: unknown, value: unknown) => void;
    // An increment by 0 makes the series as the first real increment would (same labels, value 0).
    this.#index = new SeriesIndex(
      [...internals.labelNames],
      (labels) => this.#plainInc(labels, 0),
      () => internals.hashMap,
    );
    (this as { inc: unknown }).inc = this.#inc;
  }

  readonly #inc = (labelsOrValue?: LabelValues<T> | number, maybeValue?: number): void => {
    const given = typeof labelsOrValue === 'object' && labelsOrValue !== null;
    const labels = (given ? labelsOrValue : {}) as Labels;
    const value = (given ? maybeValue : labelsOrValue) ?? 1;
    // prom-client's checks and readings, unchanged: not finite, negative, an unknown label name.
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || !this.#index.known(labels))
      return this.#plainInc(labelsOrValue, maybeValue);
    this.#index.seriesOf(labels).value += value;
  };

  // (prom-client's constructor resets before this class's fields exist.)
  override reset(): void {
    super.reset();
    if (#index in this) this.#index.clear();
  }

  override remove(...values: Array<string | number> | [LabelValues<T>]): void {
    (super.remove as (...args: unknown[]) => void)(...values);
    this.#index.clear();
  }
}
