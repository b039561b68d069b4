import { Queue, Worker, type Job as BullJob } from 'bullmq';
import { Redis } from 'ioredis';
import { OperationalError } from '../errors.js';
import type { Logger } from '../logger.js';
import { measuredHandler } from './job-metrics.js';
import type { Jobs, ScheduleStatus } from './jobs.js';

// BullMQ refuses ':' in queue names and job ids, and all-digit job ids; encoding keeps any name
// usable and distinct. The 'id-' mark also tells our ids apart from BullMQ's numeric ones.
const queueNameOf = (name: string) => encodeURIComponent(name);
const encodeJobId = (jobId: string) => `id-${encodeURIComponent(jobId)}`;
const decodeJobId = (id: string) => (id.startsWith('id-') ? decodeURIComponent(id.slice(3)) : id);

export interface BullJobsOptions {
  redisUrl: string;
  prefix: string;
  logger: Logger;
  /**
   * How long a worker's lock on a running job lasts (renewed every half of it while the handler
   * runs). A worker that died holding a job gives it up once its lock expired. Default 30 000 ms.
   */
  lockDurationMs?: number;
  /** How often each worker looks for jobs whose lock expired and puts them back in the queue. Default 30 000 ms. */
  stalledIntervalMs?: number;
  /**
   * How often the schedules this instance wants are checked against Redis, and re-created when
   * missing (a FLUSHALL, or keys evicted, leaves the connection up). A reconnect checks at once.
   * Default 30 000 ms.
   */
  scheduleCheckMs?: number;
}

/** What `repeat` was last asked for a name, kept to re-create the schedule. */
interface WantedSchedule {
  data: unknown;
  everyMs: number;
}

/**
 * Jobs on BullMQ: one Queue and one Worker per job name, all under `prefix` in Redis. Completed
 * and failed jobs are removed, so a `jobId` dedupes only while its job is pending (as in memory);
 * failures are reported through the logger. A job whose worker died (its process killed) runs
 * again once its lock expired and another worker's stalled check found it.
 *
 * Schedules (BullMQ job schedulers) live in Redis only, so a Redis that restarts without
 * persistence, or a FLUSHALL, drops them all. The adapter remembers what it was last asked to
 * schedule and re-creates each missing one whenever its connection is ready again and every
 * `scheduleCheckMs` (a FLUSHALL does not drop the connection). Only a missing schedule is
 * written: one that is there is left alone, so checks never move its next run and replicas
 * checking together add no second one; its next run is due at once (its slot was lost).
 */
export function createBullJobs(options: BullJobsOptions): Jobs {
  const { prefix, logger } = options;
  // Queues share this connection; each Worker duplicates it for its blocking reads.
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', (error) => logger.error({ err: error }, 'jobs: redis connection error'));
  const queues = new Map<string, Queue>();
  const workers: Worker[] = [];
  const wanted = new Map<string, WantedSchedule>();
  let closing: Promise<void> | undefined;

  function queueOf(name: string): Queue {
    let queue = queues.get(name);
    if (!queue) {
      queue = new Queue(queueNameOf(name), {
        connection,
        prefix,
        defaultJobOptions: { removeOnComplete: true, removeOnFail: true },
      });
      queue.on('error', (error) => logger.error({ err: error, job: name }, 'jobs: queue error'));
      queues.set(name, queue);
    }
    return queue;
  }

  function upsertSchedule(name: string, { data, everyMs }: WantedSchedule): Promise<unknown> {
    // The scheduler id is the job name, so replicas calling this at boot upsert one schedule.
    return queueOf(name).upsertJobScheduler(name, { every: everyMs }, { name, data, opts: { attempts: 1 } });
  }

  // Schedule writes and checks run one at a time, so a check that found a schedule missing
  // cannot re-create it after an unrepeat that came in meanwhile has removed it.
  let scheduleWrites: Promise<unknown> = Promise.resolve();
  function serially<T>(task: () => Promise<T>): Promise<T> {
    const result = scheduleWrites.then(task);
    scheduleWrites = result.catch(() => undefined);
    return result;
  }

  async function restoreMissingSchedules(): Promise<void> {
    const restored: string[] = [];
    for (const name of [...wanted.keys()]) {
      const schedule = wanted.get(name);
      if (!schedule || closing || (await queueOf(name).getJobScheduler(name))) continue;
      await upsertSchedule(name, schedule);
      restored.push(name);
    }
    if (restored.length > 0) logger.warn({ schedules: restored }, 'jobs: schedules missing from Redis re-created (does Redis persist its data?)');
  }

  // One check at a time; a request during a check (a reconnect) runs one more after it.
  let checking = false;
  let checkAgain = false;
  function checkSchedules(): void {
    if (closing || wanted.size === 0 || connection.status !== 'ready') return;
    if (checking) {
      checkAgain = true;
      return;
    }
    checking = true;
    void serially(restoreMissingSchedules)
      .catch((error) => logger.error({ err: error }, 'jobs: schedules not checked'))
      .finally(() => {
        checking = false;
        if (checkAgain) {
          checkAgain = false;
          checkSchedules();
        }
      });
  }
  // 'ready' comes after every (re)connect: a Redis that restarted may have come back empty.
  connection.on('ready', checkSchedules);
  const checkTimer = setInterval(checkSchedules, options.scheduleCheckMs ?? 30_000);
  checkTimer.unref();

  function reportFailure(name: string, job: BullJob | undefined, error: Error): void {
    const attempts = job?.opts.attempts ?? 1;
    const fields = { err: error, job: name, jobId: job?.id && decodeJobId(job.id), attempt: job?.attemptsMade };
    if (job && job.attemptsMade < attempts) logger.warn(fields, 'job failed, will retry');
    else logger.error(fields, 'job failed for good');
  }

  async function stopWorking(): Promise<void> {
    // Worker.close waits for its running jobs; a later work() starts fresh workers.
    await Promise.all(workers.splice(0).map((worker) => worker.close()));
  }

  return {
    async add(name, data, jobOptions = {}) {
      await queueOf(name).add(name, data, {
        attempts: jobOptions.attempts ?? 3,
        backoff: { type: 'exponential', delay: jobOptions.backoffMs ?? 1000 },
        delay: jobOptions.delayMs,
        jobId: jobOptions.jobId === undefined ? undefined : encodeJobId(jobOptions.jobId),
      });
    },

    async repeat(name, data, { everyMs }) {
      if (closing) throw new Error('jobs: repeat after close');
      const schedule = { data, everyMs };
      // Wanted from now on, even if this write fails: the checks keep trying.
      wanted.set(name, schedule);
      await serially(() => upsertSchedule(name, schedule));
    },

    async unrepeat(name) {
      wanted.delete(name);
      await serially(() => queueOf(name).removeJobScheduler(name));
    },

    async schedules(names = []) {
      // Commands wait for a reconnect (maxRetriesPerRequest: null); a caller such as /readyz must not.
      if (connection.status !== 'ready') throw new OperationalError('jobs: Redis is unreachable, schedules unknown', 'jobs_store_unavailable');
      const all = [...new Set([...wanted.keys(), ...names])];
      return Promise.all(
        all.map(async (name): Promise<ScheduleStatus> => {
          const schedule = wanted.get(name);
          const stored = await queueOf(name).getJobScheduler(name);
          return {
            name,
            wanted: schedule !== undefined,
            everyMs: schedule?.everyMs ?? stored?.every ?? null,
            registered: stored !== undefined,
            nextRunAt: stored?.next ?? null,
          };
        }),
      );
    },

    async work(name, handler, workOptions = {}) {
      const measured = measuredHandler(name, handler);
      const worker = new Worker(
        queueNameOf(name),
        async (job: BullJob) =>
          measured({
            id: decodeJobId(job.id!),
            name,
            data: job.data,
            attempt: job.attemptsMade + 1,
            attempts: job.opts.attempts ?? 1,
          }),
        {
          connection,
          prefix,
          concurrency: workOptions.concurrency ?? 1,
          // BullMQ reads an explicit undefined as a value: pass only what was set.
          ...(options.lockDurationMs === undefined ? {} : { lockDuration: options.lockDurationMs }),
          ...(options.stalledIntervalMs === undefined ? {} : { stalledInterval: options.stalledIntervalMs }),
        },
      );
      worker.on('failed', (job, error) => reportFailure(name, job, error));
      worker.on('error', (error) => logger.error({ err: error, job: name }, 'jobs: worker error'));
      workers.push(worker);
      await worker.waitUntilReady();
    },

    stopWorking,

    close() {
      // Workers first: their close waits for running handlers, which may still add jobs.
      closing ??= (async () => {
        clearInterval(checkTimer);
        connection.off('ready', checkSchedules);
        await stopWorking();
        await scheduleWrites;
        await Promise.all([...queues.values()].map((queue) => queue.close()));
        await connection.quit();
      })();
      return closing;
    },
  };
}
