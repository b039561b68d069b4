import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createBullJobs, type BullJobsOptions } from '../src/jobs/bullmq-jobs.js';
import type { Jobs } from '../src/jobs/jobs.js';
import { reportSchedules } from '../src/jobs/schedules-report.js';
import { createSilentLogger } from '../src/logger.js';
import { waitFor } from '../src/testing/infrastructure.js';
import { startThrowawayRedis, type ThrowawayRedis } from './throwaway-redis.js';

/**
 * Issue 18.3: a Redis restart without persistence (or a FLUSHALL) wiped every BullMQ job
 * scheduler, and nothing put them back until the processes restarted. The adapter remembers
 * the schedules wanted and re-creates missing ones when its connection is ready again and on a
 * periodic check. These tests lose the data of a redis-server of their own.
 */

const logger = createSilentLogger();
let redis: ThrowawayRedis;
let inspector: Redis;
const opened: Jobs[] = [];
const queues: Queue[] = [];
let prefixes = 0;

beforeAll(async () => {
  redis = await startThrowawayRedis();
  inspector = new Redis(redis.url, { maxRetriesPerRequest: null });
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((jobs) => jobs.close()));
  await Promise.all(queues.splice(0).map((queue) => queue.close()));
});

afterAll(async () => {
  await inspector?.quit();
  await redis?.stop();
});

/** A fresh prefix (a world of its own on the throwaway server) and a way to open replicas on it. */
function world(options: Partial<BullJobsOptions> = {}) {
  const prefix = `loss-${++prefixes}`;
  const open = () => {
    const jobs = createBullJobs({ redisUrl: redis.url, prefix, logger, ...options });
    opened.push(jobs);
    return jobs;
  };
  const inspected = new Map<string, Queue>();
  /** BullMQ's queue of `name`, read beside the adapter. */
  const queue = (name: string) => {
    let made = inspected.get(name);
    if (!made) {
      made = new Queue(name, { connection: inspector, prefix });
      inspected.set(name, made);
      queues.push(made);
    }
    return made;
  };
  /** What BullMQ holds for the schedule of `name`. */
  const scheduler = (name: string) => queue(name).getJobScheduler(name);
  return { open, scheduler, queue };
}

describe('Jobs on BullMQ when Redis loses its data', () => {
  it('re-creates the wanted schedules once Redis is back after a restart, and its workers run jobs again', async () => {
    // The periodic check is out of reach here: the connection's "ready" does it.
    const { open, scheduler } = world({ scheduleCheckMs: 60 * 60_000 });
    const jobs = open();
    let sweeps = 0;
    const mails: unknown[] = [];
    await jobs.work('sweep', async () => {
      sweeps += 1;
    });
    await jobs.work('mail', async (job) => {
      mails.push(job.data);
    });
    await jobs.repeat('sweep', { scope: 'all' }, { everyMs: 300 });
    await jobs.repeat('retired', {}, { everyMs: 300 });
    await jobs.unrepeat('retired');
    await waitFor(() => sweeps >= 1, 5_000, 'the first sweep');

    await inspector.set('before-the-loss', '1');
    await redis.restart();
    expect(await inspector.exists('before-the-loss')).toBe(0);

    await waitFor(async () => (await scheduler('sweep')) !== undefined, 10_000, 'the sweep schedule re-created');
    expect(await scheduler('sweep')).toMatchObject({ every: 300, template: { data: { scope: 'all' } } });
    const before = sweeps;
    await waitFor(() => sweeps > before, 10_000, 'a sweep after the restart');
    // A schedule removed at runtime stays removed.
    expect(await scheduler('retired')).toBeUndefined();

    await jobs.add('mail', { to: 'a@example.com' });
    await waitFor(() => mails.length === 1, 10_000, 'a job added after the restart');
    expect(mails).toEqual([{ to: 'a@example.com' }]);
  });

  it('finds the schedules gone after a FLUSHALL (the connection stays up) and re-creates them as last wanted', async () => {
    const { open, scheduler } = world({ scheduleCheckMs: 100 });
    const jobs = open();
    let sweeps = 0;
    const mails: unknown[] = [];
    await jobs.work('sweep', async () => {
      sweeps += 1;
    });
    await jobs.work('mail', async (job) => {
      mails.push(job.data);
    });
    await jobs.repeat('sweep', {}, { everyMs: 60_000 });
    // Changed at runtime (a frequency option), then wiped: it comes back with the last interval.
    await jobs.repeat('balance', {}, { everyMs: 60_000 });
    await jobs.repeat('balance', {}, { everyMs: 120_000 });
    await jobs.repeat('retired', {}, { everyMs: 60_000 });
    await jobs.unrepeat('retired');
    await waitFor(() => sweeps === 1, 5_000, 'the first sweep');

    await inspector.set('before-the-loss', '1');
    await redis.flushAll();
    expect(await inspector.exists('before-the-loss')).toBe(0);

    await waitFor(async () => (await scheduler('sweep')) !== undefined && (await scheduler('balance')) !== undefined, 10_000, 'the schedules re-created');
    expect(await scheduler('balance')).toMatchObject({ every: 120_000 });
    expect(await scheduler('retired')).toBeUndefined();
    // A re-created schedule runs at once (its slot was lost with the data), on the same worker.
    await waitFor(() => sweeps === 2, 10_000, 'a sweep after the FLUSHALL');

    await jobs.add('mail', { to: 'b@example.com' });
    await waitFor(() => mails.length === 1, 10_000, 'a job added after the FLUSHALL');
  });

  it('leaves a schedule that is present alone: no duplicate and the same next run, across replicas', async () => {
    const { open, scheduler, queue } = world({ scheduleCheckMs: 100 });
    const jobs = open();
    const replica = open();
    let steady = 0;
    await jobs.work('steady', async () => {
      steady += 1;
    });
    await jobs.repeat('steady', {}, { everyMs: 60_000 });
    await replica.repeat('steady', {}, { everyMs: 60_000 });
    await jobs.repeat('lost', {}, { everyMs: 60_000 });
    await waitFor(() => steady === 1, 5_000, 'the first steady run');
    await waitFor(async () => (await queue('steady').getDelayedCount()) === 1, 5_000, 'the next steady run scheduled');
    const planned = await scheduler('steady');

    // One schedule lost alone; its return shows the checks have run since.
    await queue('lost').removeJobScheduler('lost');
    await waitFor(async () => (await scheduler('lost')) !== undefined, 10_000, 'the lost schedule re-created');

    expect(await scheduler('steady')).toEqual(planned);
    expect(await queue('steady').getJobCounts('delayed', 'wait', 'active')).toEqual({ delayed: 1, wait: 0, active: 0 });
    expect(steady).toBe(1);
  });
});

describe('what /readyz says about the schedules (reportSchedules)', () => {
  it('names a wanted schedule missing from the store until the adapter re-created it', async () => {
    const { open, queue } = world({ scheduleCheckMs: 60 * 60_000 });
    const jobs = open();
    await jobs.repeat('sweep', {}, { everyMs: 60_000 });
    await jobs.repeat('retention', {}, { everyMs: 86_400_000 });
    expect(await reportSchedules(jobs)).toEqual({
      status: 'ok',
      schedules: [
        { name: 'sweep', every_ms: 60_000, registered: true, next_run_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
        { name: 'retention', every_ms: 86_400_000, registered: true, next_run_at: expect.any(String) },
      ],
    });

    await queue('retention').removeJobScheduler('retention');
    expect(await reportSchedules(jobs)).toEqual({
      status: 'degraded',
      schedules: [
        { name: 'sweep', every_ms: 60_000, registered: true, next_run_at: expect.any(String) },
        { name: 'retention', every_ms: 86_400_000, registered: false, next_run_at: null },
      ],
      missing: ['retention'],
    });
  });

  it('says the store did not answer rather than waiting for it', async () => {
    const jobs = createBullJobs({ redisUrl: 'redis://127.0.0.1:1', prefix: 'nowhere', logger });
    opened.push(jobs);
    const started = Date.now();
    expect(await reportSchedules(jobs, 300)).toEqual({ status: 'degraded', schedules: [], error: expect.stringMatching(/unreachable|did not answer/) });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
