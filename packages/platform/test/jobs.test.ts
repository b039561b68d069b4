import { Redis } from 'ioredis';
import { createBullJobs } from '../src/jobs/bullmq-jobs.js';
import type { Jobs } from '../src/jobs/jobs.js';
import { createMemoryJobs } from '../src/jobs/memory-jobs.js';
import { createSilentLogger } from '../src/logger.js';
import { testServices, uniqueName } from '../src/testing/services.js';
import { defineJobsContract } from './contracts/jobs.contract.js';

const logger = createSilentLogger();

defineJobsContract('memory', async () => {
  const jobs = createMemoryJobs({ logger });
  return { open: () => jobs, close: () => jobs.close() };
});

const prefix = uniqueName('jobs');
let harnesses = 0;

defineJobsContract('bullmq', async () => {
  const { redisUrl } = await testServices();
  // A fresh BullMQ prefix per test; every open() is another replica on it.
  const testPrefix = `${prefix}-${++harnesses}`;
  const opened: Jobs[] = [];
  return {
    open() {
      const jobs = createBullJobs({ redisUrl, prefix: testPrefix, logger });
      opened.push(jobs);
      return jobs;
    },
    async close() {
      await Promise.all(opened.map((jobs) => jobs.close()));
    },
  };
});

afterAll(async () => {
  const redis = new Redis((await testServices()).redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}-*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
});
