import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createBullJobs } from '../src/jobs/bullmq-jobs.js';
import type { Jobs } from '../src/jobs/jobs.js';
import { createMemoryJobs } from '../src/jobs/memory-jobs.js';
import { createSilentLogger } from '../src/logger.js';
import { deleteRedisKeys, waitFor } from '../src/testing/infrastructure.js';
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

describe('Jobs on BullMQ: a worker that dies holding a job', () => {
  it('gives the job to another worker once its lock expired (lockDurationMs, stalledIntervalMs), and runs it once', async () => {
    const { redisUrl } = await testServices();
    const testPrefix = `${prefix}-stalled`;
    const producer = createBullJobs({ redisUrl, prefix: testPrefix, logger });
    await producer.add('mail', { to: 'a@example.com' }, { jobId: 'delivery:7', attempts: 5 });
    // A worker that takes the job and vanishes without finishing it: a process killed mid-run
    // (BullMQ's manual mode: the lock is never renewed, the job never completed).
    const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const doomed = new Worker('mail', null, { connection, prefix: testPrefix, lockDuration: 800 });
    const taken = await doomed.getNextJob('doomed-token');
    expect(taken?.id).toBe('id-delivery%3A7');
    await doomed.close(true);
    await connection.quit();

    const started = Date.now();
    const runs: Array<{ id: string; attempt: number; attempts: number }> = [];
    const survivor = createBullJobs({ redisUrl, prefix: testPrefix, logger, lockDurationMs: 800, stalledIntervalMs: 250 });
    await survivor.work('mail', async (job) => {
      runs.push({ id: job.id, attempt: job.attempt, attempts: job.attempts });
    });
    await waitFor(() => runs.length > 0, 10_000, 'the job taken over');
    const recoveredMs = Date.now() - started;
    // A fixed wait: a second run would come a stalled check (250 ms) or a lock (800 ms) later, and nothing marks its absence.
    await sleep(600);
    // Not a failure: the same first attempt, on the surviving worker, exactly once.
    expect(runs).toEqual([{ id: 'delivery:7', attempt: 1, attempts: 5 }]);
    expect(recoveredMs).toBeLessThan(5_000);
    await survivor.close();
    await producer.close();
  });
});

describe('Jobs on BullMQ: schedules another replica wants', () => {
  it('shows them as held by the shared store, with their interval and next run, without wanting them', async () => {
    const { redisUrl } = await testServices();
    const testPrefix = `${prefix}-listing`;
    const owner = createBullJobs({ redisUrl, prefix: testPrefix, logger });
    const viewer = createBullJobs({ redisUrl, prefix: testPrefix, logger });
    await owner.repeat('sweep', {}, { everyMs: 60_000 });
    const [seen] = await viewer.schedules(['sweep']);
    expect(seen).toEqual({ name: 'sweep', wanted: false, everyMs: 60_000, registered: true, nextRunAt: expect.any(Number) });
    expect(await viewer.schedules()).toEqual([]);
    await owner.unrepeat('sweep');
    expect(await viewer.schedules(['sweep'])).toEqual([{ name: 'sweep', wanted: false, everyMs: null, registered: false, nextRunAt: null }]);
    await Promise.all([owner.close(), viewer.close()]);
  });
});

afterAll(async () => {
  await deleteRedisKeys((await testServices()).redisUrl, `${prefix}-*`);
});
