import crypto from 'node:crypto';
import os from 'node:os';
import { jobRunSchema, type JobName, type JobRun } from '@aigw/contracts';
import type { Kv } from '../counters/counters.js';
import type { Logger } from '../logger.js';
import type { Job, JobHandler } from './jobs.js';

/**
 * Run records: a recorded job stores its last run (times, outcome, a short summary or the error)
 * in the Kv store, which replicas share (Redis), so root sees the last run whichever replica did
 * it. Optionally a run is exclusive: it holds a Kv lock, and a run that finds the lock held is
 * skipped, which keeps a scheduled and a manual run (or two replicas' runs) from overlapping.
 */

/** What a recorded handler returns: the summary of what it did, or why it did nothing. */
export type RunResult = string | { skipped: string };

export interface RecordedJobOptions {
  kv: Kv;
  logger: Logger;
  /**
   * One run at a time across replicas: the run holds a Kv lock for `lockTtlMs`, renewed every
   * third of that while it runs and released at its end. A run that finds the lock held is
   * skipped (recorded and logged). The TTL bounds how long a crashed holder blocks the job.
   */
  exclusive?: { lockTtlMs: number };
}

/** Summaries and error messages are cut to this many characters. */
const SUMMARY_MAX = 500;

export const jobRunKey = (name: JobName) => `jobs:run:${name}`;
export const jobSkipKey = (name: JobName) => `jobs:skip:${name}`;
export const jobLockKey = (name: JobName) => `jobs:lock:${name}`;

/** What is kept per job: the last run that did its work, and apart from it the last run skipped for the lock. */
export interface JobRecord {
  /** Outcome ok, failed, or skipped by the handler itself (nothing to do by configuration). */
  last_run: JobRun | null;
  /** Skipped because another run held the lock: kept apart, so it never hides the outcome of the run that held it. */
  last_skipped: JobRun | null;
}

/** Wraps `handler` so each run is recorded under `name`; a failure is recorded and rethrown (the Jobs port retries it). */
export function recordedJob<T = unknown>(name: JobName, handler: (job: Job<T>) => Promise<RunResult>, options: RecordedJobOptions): JobHandler<T> {
  const { kv, logger, exclusive } = options;
  return async (job) => {
    const started = Date.now();
    const lock = exclusive ? await acquireLock(kv, logger, name, exclusive.lockTtlMs) : undefined;
    if (lock && !lock.acquired) {
      logger.info({ job: name, heldBy: lock.holder }, 'job skipped: another run is in progress');
      await saveRun(kv, logger, jobSkipKey(name), started, 'skipped', 'another run is in progress');
      return;
    }
    try {
      const result = await handler(job);
      if (typeof result === 'string') await saveRun(kv, logger, jobRunKey(name), started, 'ok', result);
      else {
        logger.info({ job: name, reason: result.skipped }, 'job skipped');
        await saveRun(kv, logger, jobRunKey(name), started, 'skipped', result.skipped);
      }
    } catch (error) {
      await saveRun(kv, logger, jobRunKey(name), started, 'failed', error instanceof Error ? error.message : String(error));
      throw error;
    } finally {
      if (lock?.acquired) await lock.release();
    }
  };
}

/** The records of each job (nulls when it never ran, or a record does not parse). */
export async function readJobRuns<N extends JobName>(kv: Kv, names: readonly N[]): Promise<Map<N, JobRecord>> {
  const read = async (key: string): Promise<JobRun | null> => {
    const stored = await kv.get(key);
    if (stored === null) return null;
    try {
      const parsed = jobRunSchema.safeParse(JSON.parse(stored));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  };
  const records = await Promise.all(names.map(async (name) => ({ last_run: await read(jobRunKey(name)), last_skipped: await read(jobSkipKey(name)) })));
  return new Map(names.map((name, index) => [name, records[index]!]));
}

async function saveRun(kv: Kv, logger: Logger, key: string, started: number, outcome: JobRun['outcome'], summary: string): Promise<void> {
  const finished = Date.now();
  const run: JobRun = {
    started_at: Math.floor(started / 1000),
    finished_at: Math.floor(finished / 1000),
    duration_ms: finished - started,
    outcome,
    summary: summary.length > SUMMARY_MAX ? `${summary.slice(0, SUMMARY_MAX - 1)}…` : summary,
  };
  try {
    await kv.set(key, JSON.stringify(run));
  } catch (error) {
    // The record is for people; the job's own work is done (or failed) either way.
    logger.warn({ err: error, key }, 'job run record not saved');
  }
}

type Lock = { acquired: true; release(): Promise<void> } | { acquired: false; holder: string | null };

/**
 * setIfAbsent with a TTL takes the lock. The Kv port has no compare-and-set, so renewing and
 * releasing read the holder first: only the holder touches the key, and since it renews every
 * third of the TTL, its lock can only have passed to another run if this process stalled for
 * two thirds of the TTL, the one case in which two runs may overlap.
 */
async function acquireLock(kv: Kv, logger: Logger, name: JobName, ttlMs: number): Promise<Lock> {
  const key = jobLockKey(name);
  const token = `${os.hostname()}:${process.pid}:${crypto.randomUUID()}`;
  if (!(await kv.setIfAbsent(key, token, { ttlMs }))) return { acquired: false, holder: await kv.get(key) };
  const renew = async () => {
    try {
      if ((await kv.get(key)) === token) await kv.set(key, token, { ttlMs });
      else logger.warn({ job: name }, 'job lock lost while the run goes on (the process stalled past its TTL?)');
    } catch (error) {
      logger.warn({ err: error, job: name }, 'job lock not renewed');
    }
  };
  // A renewal still in flight when the run ends would set the key again after the release.
  let renewing: Promise<void> | undefined;
  const timer = setInterval(
    () => {
      renewing ??= renew().finally(() => (renewing = undefined));
    },
    Math.max(1, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return {
    acquired: true,
    async release() {
      clearInterval(timer);
      await renewing;
      try {
        if ((await kv.get(key)) === token) await kv.delete(key);
      } catch (error) {
        logger.warn({ err: error, job: name }, 'job lock not released; it expires by itself');
      }
    },
  };
}
