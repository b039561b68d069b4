import { cappedLabel, CounterFamily, HistogramFamily } from '../metrics/families.js';
import type { JobHandler } from './jobs.js';

/** Both adapters count the same things here (docs/architecture.md section 11). */

const runs = new CounterFamily({
  name: 'aigw_job_runs_total',
  help: 'Job runs, by job name and outcome: ok; retry (failed, will run again); failed (failed its last attempt, given up).',
  labelNames: ['job', 'outcome'],
});

const durations = new HistogramFamily({
  name: 'aigw_job_duration_seconds',
  help: 'How long a job run took, failed ones included, by job name.',
  labelNames: ['job'],
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900],
});

/** Job names come from code (a handful per service); the cap only guards against one made from data. */
const jobLabel = cappedLabel(200);

/** `handler`, counted and timed. A run of the last attempt that fails is `failed`, an earlier one `retry`. */
export function measuredHandler(name: string, handler: JobHandler): JobHandler {
  const job = jobLabel(name);
  const ok = runs.child(job, 'ok');
  const retry = runs.child(job, 'retry');
  const failed = runs.child(job, 'failed');
  const duration = durations.child(job);
  return async (run) => {
    const started = performance.now();
    try {
      await handler(run);
      ok.inc();
    } catch (error) {
      (run.attempt < run.attempts ? retry : failed).inc();
      throw error;
    } finally {
      duration.observe((performance.now() - started) / 1000);
    }
  };
}
