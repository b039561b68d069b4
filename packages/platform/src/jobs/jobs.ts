/**
 * The Jobs port: background work with retries, and repeatable jobs. Two adapters: BullMQ
 * (`REDIS_URL` set) and in-process. Both pass test/contracts/jobs.contract.ts.
 * Delivery is at least once: handlers must be idempotent.
 */

export interface Job<T = unknown> {
  id: string;
  name: string;
  data: T;
  /** 1 on the first run, 2 on the first retry, ... */
  attempt: number;
  /** Runs the job may have in all (its `attempts` option): the run with `attempt === attempts` is its last. */
  attempts: number;
}

export interface JobOptions {
  /** Total runs before the job is failed for good. Default 3. */
  attempts?: number;
  /** First retry delay; doubles on every further retry. Default 1000 ms. */
  backoffMs?: number;
  /** Run no earlier than this many ms from now. */
  delayMs?: number;
  /** A job with an id that is still pending is not added twice. */
  jobId?: string;
}

export interface RepeatOptions {
  /** Interval between runs. */
  everyMs: number;
}

export type JobHandler<T = unknown> = (job: Job<T>) => Promise<void>;

export interface Jobs {
  add(name: string, data: unknown, options?: JobOptions): Promise<void>;
  /** Schedules `name` every `everyMs`; calling it again for the same name replaces the schedule (one schedule per name across replicas). */
  repeat(name: string, data: unknown, options: RepeatOptions): Promise<void>;
  /** Removes the schedule made by `repeat`. */
  unrepeat(name: string): Promise<void>;
  /** Starts processing jobs called `name`; each job runs on exactly one worker at a time. */
  work(name: string, handler: JobHandler, options?: { concurrency?: number }): Promise<void>;
  /** Stops workers (waiting for running handlers) and timers. */
  close(): Promise<void>;
}
