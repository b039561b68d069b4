import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, Jobs, ScheduleStatus } from '../../src/jobs/jobs.js';
import { waitFor } from '../../src/testing/infrastructure.js';

export interface JobsHarness {
  /**
   * A Jobs on the shared backend. With a real backend every call is a new instance (another
   * replica); in memory there is nothing to share, so it is the same instance.
   */
  open(): Jobs;
  /** Closes every instance opened. */
  close(): Promise<void>;
}

/** The behaviour every Jobs adapter must have; `factory` gives each test an empty backend. */
export function defineJobsContract(name: string, factory: () => Promise<JobsHarness>): void {
  describe(`Jobs contract: ${name}`, () => {
    let harness: JobsHarness;
    let jobs: Jobs;

    beforeEach(async () => {
      harness = await factory();
      jobs = harness.open();
    });

    afterEach(async () => {
      await harness.close();
    });

    it('runs an added job with its data on the first attempt', async () => {
      const seen: Job[] = [];
      await jobs.work('greet', async (job) => {
        seen.push(job);
      });
      await jobs.add('greet', { to: 'world', tags: ['a'] });
      await waitFor(() => seen.length === 1);
      // Three runs in all unless the job says otherwise.
      expect(seen[0]).toMatchObject({ name: 'greet', data: { to: 'world', tags: ['a'] }, attempt: 1, attempts: 3 });
      expect(typeof seen[0]!.id).toBe('string');
    });

    it('retries a failing handler with doubling backoff, then gives up', async () => {
      const runs: Array<{ attempt: number; attempts: number; at: number }> = [];
      await jobs.work('flaky', async (job) => {
        runs.push({ attempt: job.attempt, attempts: job.attempts, at: Date.now() });
        throw new Error('boom');
      });
      await jobs.add('flaky', {}, { attempts: 3, backoffMs: 60 });
      await waitFor(() => runs.length === 3);
      // A fixed wait: a fourth run would come 240 ms later (the doubled backoff), and nothing marks its absence.
      await sleep(400);
      expect(runs.map((run) => run.attempt)).toEqual([1, 2, 3]);
      // Every run knows the limit, so a handler can tell its last run (attempt === attempts).
      expect(runs.map((run) => run.attempts)).toEqual([3, 3, 3]);
      expect(runs[1]!.at - runs[0]!.at).toBeGreaterThanOrEqual(50);
      expect(runs[2]!.at - runs[1]!.at).toBeGreaterThanOrEqual(110);
    });

    it('stops retrying once the handler succeeds', async () => {
      const attempts: number[] = [];
      await jobs.work('recovers', async (job) => {
        attempts.push(job.attempt);
        if (job.attempt === 1) throw new Error('first time fails');
      });
      await jobs.add('recovers', {}, { attempts: 5, backoffMs: 20 });
      await waitFor(() => attempts.length === 2);
      // A fixed wait: a third run would come 40 ms later (the doubled backoff), and nothing marks its absence.
      await sleep(120);
      expect(attempts).toEqual([1, 2]);
    });

    it('runs a delayed job no earlier than its delay', async () => {
      let ranAt = 0;
      await jobs.work('later', async () => {
        ranAt = Date.now();
      });
      const addedAt = Date.now();
      await jobs.add('later', {}, { delayMs: 300 });
      await waitFor(() => ranAt > 0);
      expect(ranAt - addedAt).toBeGreaterThanOrEqual(280);
    });

    it('does not add a job whose jobId is still pending, but accepts it again once done', async () => {
      const runs: Array<{ id: string; n: number }> = [];
      await jobs.work('once', async (job) => {
        runs.push({ id: job.id, n: (job.data as { n: number }).n });
      });
      await jobs.add('once', { n: 1 }, { jobId: 'order:42', delayMs: 100 });
      await jobs.add('once', { n: 2 }, { jobId: 'order:42', delayMs: 100 });
      await waitFor(() => runs.length === 1);
      // Its id is free again once the run is done: add until a run of the third comes (an add while
      // the first is still pending is refused, which is the rule under test).
      await waitFor(
        async () => {
          if (!runs.some((run) => run.n === 3)) await jobs.add('once', { n: 3 }, { jobId: 'order:42' });
          return runs.some((run) => run.n === 3);
        },
        5_000,
        'the jobId accepted again',
      );
      // Had the second add been taken, its run (due with the first) would have come before the third.
      expect(runs.slice(0, 2)).toEqual([
        { id: 'order:42', n: 1 },
        { id: 'order:42', n: 3 },
      ]);
    });

    it('repeats every interval with one schedule per name, until unrepeat', async () => {
      const replica = harness.open();
      let runs = 0;
      const limits = new Set<number>();
      await jobs.work('tick', async (job) => {
        runs += 1;
        limits.add(job.attempts);
      });
      await jobs.repeat('tick', { every: 'time' }, { everyMs: 200 });
      await replica.repeat('tick', { every: 'time' }, { everyMs: 200 });
      // A fixed wait: the number of runs in a window is what is measured.
      await sleep(1050);
      // One schedule gives about five runs; two would give about ten.
      expect(runs).toBeGreaterThanOrEqual(3);
      expect(runs).toBeLessThanOrEqual(7);
      // A scheduled run is not retried: the next tick is its retry.
      expect([...limits]).toEqual([1]);
      await jobs.unrepeat('tick');
      // Fixed waits: a run already started may still end, then no further tick may come (one
      // would within an interval); nothing marks either.
      await sleep(50);
      const afterUnrepeat = runs;
      await sleep(500);
      expect(runs).toBe(afterUnrepeat);
    });

    it('lists the schedules it wants, whether the store holds them and their next run, and other names asked for', async () => {
      let runs = 0;
      await jobs.work('listed', async () => {
        runs += 1;
      });
      const started = Date.now();
      await jobs.repeat('listed', { scope: 'all' }, { everyMs: 60_000 });
      await jobs.repeat('dropped', {}, { everyMs: 60_000 });
      await jobs.unrepeat('dropped');
      // The first run is immediate; the next is an interval later.
      await waitFor(() => runs === 1);
      let listed: ScheduleStatus[] = [];
      await waitFor(
        async () => {
          listed = await jobs.schedules(['elsewhere', 'listed']);
          return (listed[0]?.nextRunAt ?? 0) >= started + 60_000;
        },
        5_000,
        'the next run an interval after the first',
      );
      expect(listed).toEqual([
        { name: 'listed', wanted: true, everyMs: 60_000, registered: true, nextRunAt: expect.any(Number) },
        { name: 'elsewhere', wanted: false, everyMs: null, registered: false, nextRunAt: null },
      ]);
      expect(listed[0]!.nextRunAt).toBeLessThanOrEqual(Date.now() + 60_000);
      await jobs.unrepeat('listed');
      expect(await jobs.schedules()).toEqual([]);
    });

    it('never runs one job on two workers', async () => {
      const replica = harness.open();
      const ids: string[] = [];
      const handler = async (job: Job) => {
        ids.push(job.id);
        await sleep(5); // the handler's own work, not a wait
      };
      await jobs.work('shared', handler, { concurrency: 2 });
      await replica.work('shared', handler, { concurrency: 2 });
      await Promise.all(Array.from({ length: 20 }, (_, index) => jobs.add('shared', { index })));
      await waitFor(() => ids.length >= 20);
      // A fixed wait: a second run of a job would come after the twenty, and nothing marks its absence.
      await sleep(100);
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
    });

    it('runs at most `concurrency` handlers at once', async () => {
      let active = 0;
      let mostActive = 0;
      let done = 0;
      await jobs.work(
        'bounded',
        async () => {
          active += 1;
          mostActive = Math.max(mostActive, active);
          await sleep(60); // the handler's own work, not a wait
          active -= 1;
          done += 1;
        },
        { concurrency: 2 },
      );
      await Promise.all(Array.from({ length: 5 }, () => jobs.add('bounded', {})));
      await waitFor(() => done === 5);
      expect(mostActive).toBe(2);
    });

    it('stopWorking waits for a running handler and takes no more jobs; what is added waits for the next worker', async () => {
      const seen: number[] = [];
      let finished = false;
      await jobs.work('shift', async (job) => {
        const { n } = job.data as { n: number };
        seen.push(n);
        if (n === 1) {
          await sleep(200); // the slow handler under test, not a wait
          finished = true;
        }
      });
      await jobs.add('shift', { n: 1 });
      await waitFor(() => seen.length === 1);
      await jobs.stopWorking();
      expect(finished).toBe(true);
      await jobs.add('shift', { n: 2 });
      // A fixed wait: a stopped worker taking the job would do so at once, and nothing marks its absence.
      await sleep(200);
      expect(seen).toEqual([1]);
      await jobs.work('shift', async (job) => {
        seen.push((job.data as { n: number }).n);
      });
      await waitFor(() => seen.length === 2);
      expect(seen).toEqual([1, 2]);
    });

    it('close waits for a running handler', async () => {
      let started = false;
      let finished = false;
      await jobs.work('slow', async () => {
        started = true;
        await sleep(300); // the slow handler under test, not a wait
        finished = true;
      });
      await jobs.add('slow', {});
      await waitFor(() => started);
      await jobs.close();
      expect(finished).toBe(true);
    });
  });
}
