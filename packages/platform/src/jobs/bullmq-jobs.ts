import { Queue, Worker, type Job as BullJob } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { Jobs } from './jobs.js';

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
}

/**
 * Jobs on BullMQ: one Queue and one Worker per job name, all under `prefix` in Redis. Completed
 * and failed jobs are removed, so a `jobId` dedupes only while its job is pending (as in memory);
 * failures are reported through the logger. A job whose worker died (its process killed) runs
 * again once its lock expired and another worker's stalled check found it.
 */
export function createBullJobs(options: BullJobsOptions): Jobs {
  const { prefix, logger } = options;
  // Queues share this connection; each Worker duplicates it for its blocking reads.
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', (error) => logger.error({ err: error }, 'jobs: redis connection error'));
  const queues = new Map<string, Queue>();
  const workers: Worker[] = [];
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

  function reportFailure(name: string, job: BullJob | undefined, error: Error): void {
    const attempts = job?.opts.attempts ?? 1;
    const fields = { err: error, job: name, jobId: job?.id && decodeJobId(job.id), attempt: job?.attemptsMade };
    if (job && job.attemptsMade < attempts) logger.warn(fields, 'job failed, will retry');
    else logger.error(fields, 'job failed for good');
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
      // The scheduler id is the job name, so replicas calling this at boot upsert one schedule.
      await queueOf(name).upsertJobScheduler(name, { every: everyMs }, { name, data, opts: { attempts: 1 } });
    },

    async unrepeat(name) {
      await queueOf(name).removeJobScheduler(name);
    },

    async work(name, handler, workOptions = {}) {
      const worker = new Worker(
        queueNameOf(name),
        async (job: BullJob) => handler({
          id: decodeJobId(job.id!), name, data: job.data, attempt: job.attemptsMade + 1, attempts: job.opts.attempts ?? 1,
        }),
        {
          connection, prefix, concurrency: workOptions.concurrency ?? 1,
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

    close() {
      // Workers first: their close waits for running handlers, which may still add jobs.
      closing ??= (async () => {
        await Promise.all(workers.map((worker) => worker.close()));
        await Promise.all([...queues.values()].map((queue) => queue.close()));
        await connection.quit();
      })();
      return closing;
    },
  };
}
