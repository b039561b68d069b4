import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from './registry.js';

/** The label value standing for every value a label does not take one by one (docs/architecture.md section 11). */
export const OTHER = 'other';

export interface CounterSeries {
  /** Adds `amount` (default 1); anything but a positive number is ignored, so a counter never goes down. */
  inc(amount?: number): void;
}

export interface HistogramSeries {
  observe(value: number): void;
}

export interface FamilyConfig<L extends string> {
  /** `aigw_<area>_<what>_<unit>`, counters ending in `_total`. */
  name: string;
  help: string;
  labelNames: readonly L[];
}

/**
 * One node of a family's label tree: the series of a full set of label values sits at the end of
 * the path of its values, so looking a known series up is a Map read per label, with no key
 * joined from the values and no labels object.
 */
interface LabelTree<S> {
  children: Map<string, LabelTree<S>>;
  series: S | undefined;
}

const labelTree = <S>(): LabelTree<S> => ({ children: new Map(), series: undefined });

/** The node of `values` under `root`, made on first use. */
function nodeAt<S>(root: LabelTree<S>, values: readonly string[]): LabelTree<S> {
  let node = root;
  for (const value of values) {
    let child = node.children.get(value);
    if (!child) {
      child = labelTree<S>();
      node.children.set(value, child);
    }
    node = child;
  }
  return node;
}

function labelsOf<L extends string>(labelNames: readonly L[], values: readonly string[], name: string): Record<L, string> {
  if (values.length !== labelNames.length) throw new TypeError(`${name} takes ${labelNames.length} label values, got ${values.length}`);
  return Object.fromEntries(labelNames.map((label, index) => [label, values[index]!])) as Record<L, string>;
}

class CounterCell<L extends string> implements CounterSeries {
  value = 0;

  constructor(readonly labels: Record<L, string>) {}

  inc(amount = 1): void {
    if (amount > 0) this.value += amount;
  }
}

/**
 * A counter whose series add to a plain number: prom-client's own series hash their labels on
 * every increment (about a microsecond each, measured), which the relay's hot path would pay for
 * every counter of every request. The numbers are handed to prom-client when it is scraped.
 * Callers bound the label values they pass (docs/architecture.md section 11).
 */
export class CounterFamily<L extends string> {
  private readonly tree = labelTree<CounterCell<L>>();
  private readonly cells: Array<CounterCell<L>> = [];

  constructor(private readonly config: FamilyConfig<L>) {
    const cells = this.cells;
    new Counter<L>({
      name: config.name,
      help: config.help,
      labelNames: config.labelNames,
      registers: [metricsRegistry],
      collect() {
        this.reset();
        for (const cell of cells) this.inc(cell.labels, cell.value);
      },
    });
  }

  /** The series of these label values (in `labelNames` order), made at zero on first use. */
  child(...values: string[]): CounterSeries {
    const node = nodeAt(this.tree, values);
    if (!node.series) {
      node.series = new CounterCell(labelsOf(this.config.labelNames, values, this.config.name));
      this.cells.push(node.series);
    }
    return node.series;
  }
}

class HistogramCell<L extends string> implements HistogramSeries {
  /** Observations per bucket, not cumulative; the last is above every bound (+Inf). */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Record<L, string>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  clear(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }

  observe(value: number): void {
    // The same refusal as prom-client's own observe.
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    let bucket = 0;
    while (bucket < this.bounds.length && value > this.bounds[bucket]!) bucket++;
    this.counts[bucket]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

/**
 * The histogram as the registry sees it: a metric whose `get()` (the one method every prom-client
 * metric answers a scrape with, and the registry falls back to when a metric has no private
 * string form) makes the samples from the family's cells. Registered as a prom-client metric: the
 * registry reads only `name`, `type`, `get()` and `reset()` of what it holds.
 */
class CellsHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    private readonly cells: Array<HistogramCell<L>>,
  ) {}

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Array<{ metricName: string; labels: object; value: number }> }> {
    const values = [];
    const bucket = `${this.name}_bucket`;
    for (const cell of this.cells) {
      let cumulative = 0;
      for (let index = 0; index < this.bounds.length; index++) {
        cumulative += cell.counts[index]!;
        values.push({ metricName: bucket, labels: Object.assign({}, cell.labels, { le: this.bounds[index]! }), value: cumulative });
      }
      values.push(
        { metricName: bucket, labels: Object.assign({}, cell.labels, { le: '+Inf' }), value: cell.count },
        { metricName: `${this.name}_sum`, labels: cell.labels, value: cell.sum },
        { metricName: `${this.name}_count`, labels: cell.labels, value: cell.count },
      );
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /** The registry's resetMetrics: every series back to zero (they stay, as prom-client's zeroed ones do). */
  reset(): void {
    for (const cell of this.cells) cell.clear();
  }
}

/**
 * A histogram whose series add to their own bucket arrays, handed to prom-client when it is
 * scraped, as CounterFamily's numbers are: prom-client's own children validate and hash their
 * labels on every observation (1.7% of the all-in-one process's busy time at 32 requests in
 * flight, three observations per request), and it offers no way to add bucket counts in bulk.
 */
export class HistogramFamily<L extends string> {
  private readonly tree = labelTree<HistogramCell<L>>();
  private readonly cells: Array<HistogramCell<L>> = [];
  private readonly bounds: readonly number[];

  constructor(private readonly config: FamilyConfig<L> & { buckets: number[] }) {
    this.bounds = [...config.buckets].sort((a, b) => a - b);
    if (this.bounds.length === 0 || this.bounds.some((bound) => !Number.isFinite(bound))) throw new TypeError(`${config.name} needs finite buckets`);
    if ((config.labelNames as readonly string[]).includes('le')) throw new TypeError('le is a reserved label name of histograms');
    metricsRegistry.registerMetric(new CellsHistogram(config.name, config.help, this.bounds, this.cells) as unknown as Histogram);
  }

  /** The series of these label values (in `labelNames` order), at zero from the start (so it is there before its first observation). */
  child(...values: string[]): HistogramSeries {
    const node = nodeAt(this.tree, values);
    if (!node.series) {
      node.series = new HistogramCell(labelsOf(this.config.labelNames, values, this.config.name), this.bounds);
      this.cells.push(node.series);
    }
    return node.series;
  }
}

/** A gauge without labels read when the registry is scraped (a queue's depth, what is in flight). */
export function collectedGauge(config: { name: string; help: string; read: () => number }): void {
  new Gauge({
    name: config.name,
    help: config.help,
    registers: [metricsRegistry],
    collect() {
      this.set(config.read());
    },
  });
}

/**
 * A label that takes at most `max` distinct values, then `other` for any value not seen yet: a
 * guard for values that come from code (error codes, job names) against a path that would make
 * them unbounded.
 */
export function cappedLabel(max: number): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    if (seen.has(value)) return value;
    if (seen.size >= max) return OTHER;
    seen.add(value);
    return value;
  };
}

const statusClasses = ['1xx', '2xx', '3xx', '4xx', '5xx'];

/** `2xx`, `4xx`, ...; `other` for anything outside 100-599. */
export function statusClass(status: number): string {
  return statusClasses[Math.floor(status / 100) - 1] ?? OTHER;
}
