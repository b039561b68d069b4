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

/**
 * A prom-client histogram whose children are kept per label values, so a label set's labels
 * object is made once. prom-client offers no way to add bucket counts in bulk, so an observation
 * costs what its own child does (well under a microsecond).
 */
export class HistogramFamily<L extends string> {
  private readonly tree = labelTree<HistogramSeries>();
  private readonly histogram: Histogram<L>;

  constructor(private readonly config: FamilyConfig<L> & { buckets: number[] }) {
    this.histogram = new Histogram<L>({
      name: config.name,
      help: config.help,
      labelNames: config.labelNames,
      buckets: config.buckets,
      registers: [metricsRegistry],
    });
  }

  /** The series of these label values (in `labelNames` order). */
  child(...values: string[]): HistogramSeries {
    const node = nodeAt(this.tree, values);
    if (!node.series) {
      const labels = labelsOf(this.config.labelNames, values, this.config.name);
      node.series = this.histogram.labels(labels);
      // At zero from the start, so a series is there before its first observation.
      this.histogram.zero(labels);
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
