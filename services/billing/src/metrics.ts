import { CounterFamily, HistogramFamily } from '@aigw/platform';
import type { UsageOutcome } from './usage-consumer.js';

/** Billing's usage ledger metrics (docs/architecture.md sections 5.3 and 11). */

const events = new CounterFamily({
  name: 'aigw_billing_usage_events_total',
  help: 'Usage events handled by the ledger, by event (recorded: a usage record; started: a request announced) and outcome: applied, duplicate (applied before), pending (kept until its record).',
  labelNames: ['event', 'outcome'],
});

const batchSizes = new HistogramFamily({
  name: 'aigw_billing_usage_batch_events',
  help: 'Events applied per ledger transaction (one when a batch failed and its events went one by one).',
  labelNames: [],
  buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000],
});

const commits = new HistogramFamily({
  name: 'aigw_billing_usage_commit_seconds',
  help: 'How long a ledger transaction took, from its start to its commit.',
  labelNames: [],
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
});

const batchFailures = new CounterFamily({
  name: 'aigw_billing_usage_batch_failures_total',
  help: 'Ledger transactions of a batch that failed (its events were then applied one per transaction).',
  labelNames: [],
});

const lags = new HistogramFamily({
  name: 'aigw_billing_usage_lag_seconds',
  help: "Age of a usage event when the ledger had applied it: from its publication to its transaction's commit (the consumer's lag).",
  labelNames: ['event'],
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
});

/** An event the ledger handled, `publishedAt` being its bus time (ISO-8601). */
export function observeUsageEvent(event: 'recorded' | 'started', outcome: UsageOutcome, publishedAt: string): void {
  events.child(event, outcome).inc();
  const ageMs = Date.now() - Date.parse(publishedAt);
  if (Number.isFinite(ageMs)) lags.child(event).observe(Math.max(0, ageMs) / 1000);
}

/** Runs one ledger transaction of `size` events, timed; a failed one counts when it was a batch's. */
export async function measuredCommit<T>(size: number, commit: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await commit();
    commits.child().observe((performance.now() - started) / 1000);
    batchSizes.child().observe(size);
    return result;
  } catch (error) {
    if (size > 1) batchFailures.child().inc();
    throw error;
  }
}
