import type { Logger } from '../logger.js';
import { createBullJobs } from './bullmq-jobs.js';
import type { Jobs } from './jobs.js';
import { createMemoryJobs } from './memory-jobs.js';

export * from './jobs.js';
export * from './run-records.js';
export * from './schedules-report.js';
/** For a process that tunes BullMQ itself (lock and stalled-check timing). */
export { createBullJobs, type BullJobsOptions } from './bullmq-jobs.js';

/** BullMQ when `redisUrl` is set, in-process otherwise. `prefix` namespaces BullMQ's Redis keys. */
export function createJobs(options: { redisUrl?: string; prefix: string; logger: Logger }): Jobs {
  const { redisUrl, prefix, logger } = options;
  return redisUrl ? createBullJobs({ redisUrl, prefix, logger }) : createMemoryJobs({ logger });
}
