// Counters and histograms counted through series handles, for the metrics
// every request moves. prom-client's inc() and observe() validate, hash and
// look up their label object on every call: with the HTTP pair, a third of the
// CPU of a GET answered from memory. Here a label set's series is found in
// nested maps by its values (no key string built per call) and counts go
// straight into it. Both are still prom-client metrics, registered and written
// by its registry like the others: only the values they report come from the
// series, in the shape prom-client's own give (test/metrics/series.test.ts
// compares the two).
import { Counter, Histogram, type CounterConfiguration, type HistogramConfiguration } from 'prom-client';

type LabelValue = string | number;
type Labels<T extends string> = Partial<Record<T, LabelValue>>;

/** Series by their label values in the metric's label order; each made on first use. */
class SeriesTable<S> {
  private root = new Map<LabelValue, unknown>();
  /** Every series, in the order they were made (the order the registry writes them, as prom-client's). */
  all: S[] = [];

  constructor(private readonly names: readonly string[], private readonly make: (values: readonly LabelValue[]) => S) {}

  find(values: readonly LabelValue[]): S {
    if (values.length !== this.names.length) throw new Error(`expected ${this.names.length} label values (${this.names.join(', ')}), got ${values.length}`);
    let level = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]) as Map<LabelValue, unknown> | undefined;
      if (!next) level.set(values[i], (next = new Map()));
      level = next;
    }
    let series = level.get(values[last]) as S | undefined;
    if (series === undefined) {
      series = this.make(values);
      level.set(values[last], series);
      this.all.push(series);
    }
    return series;
  }

  clear() {
    this.root = new Map();
    this.all = [];
  }
}

/** The labels object of `values`, named by `names` in order. */
function labelsOf<T extends string>(names: readonly T[], values: readonly LabelValue[]): Labels<T> {
  const labels: Labels<T> = {};
  names.forEach((name, i) => {
    labels[name] = values[i];
  });
  return labels;
}

class CounterSeries<T extends string> {
  value = 0;
  constructor(readonly labels: Labels<T>) {}
  inc(by = 1) {
    if (!(by >= 0) || !Number.isFinite(by)) throw new Error(`a counter goes up by a finite amount, not ${by}`);
    this.value += by;
  }
}

/** A counter whose counts go through `series(...labelValues).inc()`. */
export class SeriesCounter<T extends string> extends Counter<T> {
  // Made after prom-client's constructor, which calls reset() (hence `?.` there).
  private readonly table: SeriesTable<CounterSeries<T>>;

  constructor(config: CounterConfiguration<T> & { labelNames: readonly T[] }) {
    super(config);
    this.table = new SeriesTable(config.labelNames, (values) => new CounterSeries(labelsOf(config.labelNames, values)));
  }

  /** The series of these label values, in the order of labelNames. */
  series(...values: LabelValue[]): CounterSeries<T> {
    return this.table.find(values);
  }

  override async get() {
    const base = await super.get();
    return { ...base, values: this.table.all.map((s) => ({ labels: s.labels, value: s.value })) };
  }

  override reset() {
    super.reset();
    this.table?.clear();
  }
}

class HistogramSeries<T extends string> {
  sum = 0;
  count = 0;
  /** Observations by the first bound they are within (not cumulative); beyond the last, only in `count`. */
  readonly within: number[];
  constructor(readonly labels: Labels<T>, private readonly bounds: readonly number[]) {
    this.within = bounds.map(() => 0);
  }
  observe(value: number) {
    if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
    const { bounds } = this;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        this.within[i]++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }
}

/** A histogram whose observations go through `series(...labelValues).observe(value)`. */
export class SeriesHistogram<T extends string> extends Histogram<T> {
  // Made after prom-client's constructor, which calls reset() (hence `?.` there).
  private readonly table: SeriesTable<HistogramSeries<T>>;
  private readonly bounds: readonly number[];
  private readonly config: HistogramConfiguration<T>;

  constructor(config: HistogramConfiguration<T> & { labelNames: readonly T[]; buckets: readonly number[] }) {
    super(config);
    this.config = config;
    this.bounds = config.buckets;
    this.table = new SeriesTable(config.labelNames, (values) => new HistogramSeries(labelsOf(config.labelNames, values), config.buckets));
  }

  /** The series of these label values, in the order of labelNames. */
  series(...values: LabelValue[]): HistogramSeries<T> {
    return this.table.find(values);
  }

  /**
   * What prom-client's registry writes a histogram from (its get() makes the
   * JSON form from it too): per series, each bucket's cumulative count under
   * `le`, then `+Inf`, the sum and the count, with the series' labels shared.
   */
  async getForPromString() {
    const { name, help } = this.config;
    const values = this.table.all.flatMap((s) => {
      let below = 0;
      const buckets = this.bounds.map((bound, i) => {
        below += s.within[i];
        return { labels: { le: bound }, sharedLabels: s.labels, value: below, metricName: `${name}_bucket`, exemplar: null };
      });
      return [
        ...buckets,
        { labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${name}_bucket`, exemplar: null },
        { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum`, exemplar: undefined },
        { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count`, exemplar: undefined },
      ];
    });
    return { name, help, type: 'histogram' as const, values, aggregator: this.config.aggregator ?? 'sum' };
  }

  override reset() {
    super.reset();
    this.table?.clear();
  }
}
