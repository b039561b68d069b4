import type { Logger } from '../logger.js';
import type { Jobs } from './jobs.js';
import { createMemoryJobs } from './memory-jobs.js';

export * from './jobs.js';
export * from './run-records.js';
export * from './schedules-report.js';
export type { BullJobsOptions } from './bullmq-jobs.js';

/**
 * BullMQ when `redisUrl` is set, in-process otherwise. `prefix` namespaces BullMQ's Redis keys.
 * BullMQ is loaded only when used (about 11 MB of resident memory the all-in-one process spares).
 */
export async function createJobs(options: { redisUrl?: string; prefix: string; logger: Logger }): Promise<Jobs> {
  const { redisUrl, prefix, logger } = options;
  if (!redisUrl) return createMemoryJobs({ logger });
  const { createBullJobs } = await import('./bullmq-jobs.js');
  return createBullJobs({ redisUrl, prefix, logger });
}
