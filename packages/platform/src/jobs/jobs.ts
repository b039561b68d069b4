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

/** A schedule as `schedules()` reports it. */
export interface ScheduleStatus {
  name: string;
  /** This instance wants it (a `repeat` not undone by `unrepeat`): it re-creates the schedule when the store lost it. */
  wanted: boolean;
  /** The interval wanted here, else the one the store holds; null when neither has one. */
  everyMs: number | null;
  /** The job store holds the schedule now (in memory: whenever it is wanted). */
  registered: boolean;
  /** When it runs next, in epoch ms; null when not registered. */
  nextRunAt: number | null;
}

export interface Jobs {
  add(name: string, data: unknown, options?: JobOptions): Promise<void>;
  /**
   * Schedules `name` every `everyMs`; calling it again for the same name replaces the schedule
   * (one schedule per name across replicas). The instance keeps wanting it until `unrepeat` or
   * `close`: a store that lost it (a Redis restart without persistence, FLUSHALL) gets it back.
   */
  repeat(name: string, data: unknown, options: RepeatOptions): Promise<void>;
  /** Removes the schedule made by `repeat`. */
  unrepeat(name: string): Promise<void>;
  /**
   * The schedules this instance wants, then any of `names` it does not (schedules another
   * process wants: the store replicas share may hold them), each with whether the store holds it
   * now and its next run. Throws an OperationalError when the store is unreachable.
   */
  schedules(names?: readonly string[]): Promise<ScheduleStatus[]>;
  /** Starts processing jobs called `name`; each job runs on exactly one worker at a time. */
  work(name: string, handler: JobHandler, options?: { concurrency?: number }): Promise<void>;
  /**
   * Stops the workers started so far, waiting for their running handlers; `add` still works, and
   * what is added waits for a later `work` (or another replica). An owner calls it before closing
   * what the handlers use (databases, HTTP pools), so no handler runs against a closed one.
   */
  stopWorking(): Promise<void>;
  /** Stops workers (as stopWorking) and timers. */
  close(): Promise<void>;
}
