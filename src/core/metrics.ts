/**
 * A small metrics registry rendered in Prometheus' text exposition format (version 0.0.4): counters, gauges and
 * histograms, each a family of series told apart by label values. Ours rather than prom-client: the controller needs
 * a handful of families, no global registry, no default process collectors and no exemplars (prom-client's reason to
 * depend on @opentelemetry/api), and this stays pure and testable.
 */

export type Labels = Readonly<Record<string, string>>;

/** Seconds: from 5 ms (a cached read) to a minute (a slow pass over the chain and the API). */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;

interface Family {
  render(): string[];
}

abstract class Metric<S> implements Family {
  readonly #series = new Map<string, { labels: Labels; value: S }>();

  readonly name: string;
  readonly #help: string;
  readonly #type: 'counter' | 'gauge' | 'histogram';
  readonly #labelNames: readonly string[];

  constructor(name: string, help: string, type: 'counter' | 'gauge' | 'histogram', labelNames: readonly string[]) {
    this.name = name;
    this.#help = help;
    this.#type = type;
    this.#labelNames = labelNames;
  }

  protected series(labels: Labels): S {
    const key = this.#labelNames.map((label) => {
      const value = labels[label];
      if (value === undefined) throw new Error(`metric ${this.name}: label ${label} missing`);
      return value;
    }).join('\u0000');
    let entry = this.#series.get(key);
    if (!entry) {
      entry = { labels: Object.fromEntries(this.#labelNames.map((label) => [label, labels[label]!])), value: this.initial() };
      this.#series.set(key, entry);
    }
    return entry.value;
  }

  protected abstract initial(): S;
  protected abstract lines(labels: Labels, value: S): string[];

  render(): string[] {
    const out = [`# HELP ${this.name} ${this.#help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${this.name} ${this.#type}`];
    for (const { labels, value } of this.#series.values()) out.push(...this.lines(labels, value));
    return out;
  }
}

export class Counter extends Metric<{ value: number }> {
  constructor(name: string, help: string, labelNames: readonly string[] = []) {
    super(name, help, 'counter', labelNames);
  }

  inc(labels: Labels = {}, by = 1): void {
    if (by < 0) throw new Error(`counter ${this.name} cannot go down`);
    this.series(labels).value += by;
  }

  protected initial() {
    return { value: 0 };
  }

  protected lines(labels: Labels, { value }: { value: number }): string[] {
    return [`${this.name}${labelText(labels)} ${number(value)}`];
  }
}

export class Gauge extends Metric<{ value: number }> {
  constructor(name: string, help: string, labelNames: readonly string[] = []) {
    super(name, help, 'gauge', labelNames);
  }

  set(value: number, labels: Labels = {}): void {
    this.series(labels).value = value;
  }

  protected initial() {
    return { value: 0 };
  }

  protected lines(labels: Labels, { value }: { value: number }): string[] {
    return [`${this.name}${labelText(labels)} ${number(value)}`];
  }
}

interface HistogramSeries {
  /** Per bucket, how many observations were at most its bound (cumulative, as exposed). */
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram extends Metric<HistogramSeries> {
  readonly #buckets: readonly number[];

  constructor(name: string, help: string, labelNames: readonly string[] = [], buckets: readonly number[] = DURATION_BUCKETS) {
    super(name, help, 'histogram', labelNames);
    this.#buckets = [...buckets].sort((a, b) => a - b);
  }

  observe(value: number, labels: Labels = {}): void {
    const series = this.series(labels);
    this.#buckets.forEach((bound, index) => {
      if (value <= bound) series.counts[index]!++;
    });
    series.sum += value;
    series.count++;
  }

  protected initial(): HistogramSeries {
    return { counts: this.#buckets.map(() => 0), sum: 0, count: 0 };
  }

  protected lines(labels: Labels, { counts, sum, count }: HistogramSeries): string[] {
    return [
      ...this.#buckets.map((bound, index) => `${this.name}_bucket${labelText({ ...labels, le: number(bound) })} ${counts[index]}`),
      `${this.name}_bucket${labelText({ ...labels, le: '+Inf' })} ${count}`,
      `${this.name}_sum${labelText(labels)} ${number(sum)}`,
      `${this.name}_count${labelText(labels)} ${count}`,
    ];
  }
}

/** Families in the order they were made; `render()` is the body of a scrape. */
export class MetricsRegistry {
  readonly #families: Family[] = [];
  readonly #names = new Set<string>();

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.#add(name, new Counter(name, help, labelNames));
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.#add(name, new Gauge(name, help, labelNames));
  }

  histogram(name: string, help: string, labelNames: readonly string[] = [], buckets?: readonly number[]): Histogram {
    return this.#add(name, new Histogram(name, help, labelNames, buckets));
  }

  render(): string {
    return this.#families.flatMap((family) => family.render()).join('\n') + '\n';
  }

  #add<F extends Family>(name: string, family: F): F {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) throw new Error(`metric name ${name} is not valid in Prometheus`);
    if (this.#names.has(name)) throw new Error(`metric ${name} registered twice`);
    this.#names.add(name);
    this.#families.push(family);
    return family;
  }
}

/** The content type a Prometheus scrape expects for `render()`. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function labelText(labels: Labels): string {
  const pairs = Object.entries(labels);
  if (pairs.length === 0) return '';
  return `{${pairs.map(([name, value]) => `${name}="${value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`).join(',')}}`;
}

function number(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
