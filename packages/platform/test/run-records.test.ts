import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { JobName } from '@aigw/contracts';
import type { Kv } from '../src/counters/counters.js';
import { createMemoryKv } from '../src/counters/memory-counters.js';
import { createRedisKv } from '../src/counters/redis-counters.js';
import { jobLockKey, readJobRuns, recordedJob } from '../src/jobs/run-records.js';
import { createSilentLogger } from '../src/logger.js';
import { deleteRedisKeys, waitFor } from '../src/testing/infrastructure.js';
import { testServices, uniqueName } from '../src/testing/services.js';

const logger = createSilentLogger();
const prefix = uniqueName('runs');
const job = (id = '1') => ({ id, name: JobName.ChannelsTestAll, data: {}, attempt: 1, attempts: 1 });
const name = JobName.ChannelsTestAll;

interface KvWorld {
  /** Two handles on one store: two replicas' views of it. */
  kv: Kv;
  replica: Kv;
  close(): Promise<void>;
}

const worlds: Array<[string, () => Promise<KvWorld>]> = [
  [
    'memory',
    async () => {
      const kv = createMemoryKv();
      return { kv, replica: kv, close: async () => {} };
    },
  ],
  [
    'redis',
    async () => {
      const { redisUrl } = await testServices();
      const keyPrefix = `${prefix}:${Math.random().toString(36).slice(2)}`;
      const [one, two] = [new Redis(redisUrl), new Redis(redisUrl)];
      return {
        kv: createRedisKv(one, keyPrefix),
        replica: createRedisKv(two, keyPrefix),
        close: async () => void (await Promise.all([one.quit(), two.quit()])),
      };
    },
  ],
];

describe.each(worlds)('job run records (%s kv)', (_label, open) => {
  let world: KvWorld;
  beforeEach(async () => {
    world = await open();
  });
  afterEach(async () => {
    await world.close();
  });

  const lastRun = async (kv = world.kv) => (await readJobRuns(kv, [name])).get(name)!.last_run;
  const lastSkipped = async (kv = world.kv) => (await readJobRuns(kv, [name])).get(name)!.last_skipped;

  it('records nothing before the first run, then the outcome, times and summary of each run', async () => {
    expect(await readJobRuns(world.kv, [name])).toEqual(new Map([[name, { last_run: null, last_skipped: null }]]));
    const started = Math.floor(Date.now() / 1000);
    await recordedJob(
      name,
      async () => {
        await sleep(30); // the run's own work, whose duration is recorded: not a wait
        return 'tested 3 channels, 1 disabled';
      },
      { kv: world.kv, logger },
    )(job());
    const ok = await lastRun(world.replica);
    expect(ok).toEqual({
      started_at: expect.any(Number),
      finished_at: expect.any(Number),
      duration_ms: expect.any(Number),
      outcome: 'ok',
      summary: 'tested 3 channels, 1 disabled',
    });
    expect(ok!.started_at).toBeGreaterThanOrEqual(started);
    expect(ok!.finished_at).toBeGreaterThanOrEqual(ok!.started_at);
    expect(ok!.duration_ms).toBeGreaterThanOrEqual(25);

    await recordedJob(name, async () => ({ skipped: 'LogRetentionDays is 0' }), { kv: world.kv, logger })(job());
    expect(await lastRun()).toMatchObject({ outcome: 'skipped', summary: 'LogRetentionDays is 0' });
  });

  it('records a failure with its message and rethrows it for the retry', async () => {
    const failing = recordedJob(
      name,
      async () => {
        throw new Error('database unavailable');
      },
      { kv: world.kv, logger },
    );
    await expect(failing(job())).rejects.toThrow('database unavailable');
    expect(await lastRun()).toMatchObject({ outcome: 'failed', summary: 'database unavailable' });
    await expect(
      recordedJob(
        name,
        async () => {
          throw new Error('x'.repeat(2000));
        },
        { kv: world.kv, logger },
      )(job()),
    ).rejects.toThrow();
    expect((await lastRun())!.summary).toHaveLength(500);
  });

  it('skips an exclusive run while another holds the lock (also on another replica), and frees the lock after either outcome', async () => {
    let active = 0;
    let mostActive = 0;
    let runs = 0;
    const running = deferred();
    const release = deferred();
    const work = async () => {
      active += 1;
      mostActive = Math.max(mostActive, active);
      runs += 1;
      running.resolve();
      await release.promise;
      active -= 1;
      return 'done';
    };
    const here = recordedJob(name, work, { kv: world.kv, logger, exclusive: { lockTtlMs: 60_000 } });
    const there = recordedJob(name, work, { kv: world.replica, logger, exclusive: { lockTtlMs: 60_000 } });
    const first = here(job('a'));
    await running.promise; // the first run holds the lock
    await there(job('b'));
    // Recorded apart: the run before (none here) stays the last run.
    expect(await lastSkipped()).toMatchObject({ outcome: 'skipped', summary: 'another run is in progress' });
    expect(await lastRun()).toBeNull();
    release.resolve();
    await first;
    expect(await lastRun()).toMatchObject({ outcome: 'ok', summary: 'done' });
    expect([runs, mostActive]).toEqual([1, 1]);
    expect(await world.kv.get(jobLockKey(name))).toBeNull();

    // Released after a failure too: the next run goes.
    await expect(
      recordedJob(
        name,
        async () => {
          throw new Error('boom');
        },
        { kv: world.kv, logger, exclusive: { lockTtlMs: 60_000 } },
      )(job('c')),
    ).rejects.toThrow('boom');
    await there(job('d'));
    expect(runs).toBe(2);
  });

  it('keeps renewing the lock of a run longer than its TTL', async () => {
    // The holder renews every third of the TTL, so it keeps the lock through stalls of up to two
    // thirds of it: a TTL of 1.5 s rides out a loaded CI box (300 ms flaked there once).
    const lockTtlMs = 1_500;
    const renewals = jest.spyOn(world.kv, 'set');
    const lockRenewals = () => renewals.mock.calls.filter(([key]) => key === jobLockKey(name)).length;
    const release = deferred();
    const slow = recordedJob(
      name,
      async () => {
        await release.promise;
        return 'slow';
      },
      { kv: world.kv, logger, exclusive: { lockTtlMs } },
    );
    const started = Date.now();
    const running = slow(job('a'));
    // Four renewals are at least 4/3 of the TTL after the lock was taken: without them it would be gone.
    await waitFor(() => lockRenewals() >= 4, 10_000, 'four renewals of the lock');
    expect(Date.now() - started).toBeGreaterThan(lockTtlMs);
    expect(await world.replica.get(jobLockKey(name))).not.toBeNull();
    await recordedJob(name, async () => 'overlapping', { kv: world.replica, logger, exclusive: { lockTtlMs } })(job('b'));
    expect(await lastSkipped()).toMatchObject({ outcome: 'skipped' });
    release.resolve();
    await running;
    expect(await lastRun()).toMatchObject({ outcome: 'ok', summary: 'slow' });
    expect(await world.kv.get(jobLockKey(name))).toBeNull();
  });

  it('lets the next run go once a crashed holder’s lock expires', async () => {
    await world.kv.setIfAbsent(jobLockKey(name), 'dead-replica', { ttlMs: 200 });
    const run = recordedJob(name, async () => 'after expiry', { kv: world.kv, logger, exclusive: { lockTtlMs: 60_000 } });
    await run(job('a'));
    expect(await lastSkipped()).toMatchObject({ outcome: 'skipped' });
    expect(await lastRun()).toBeNull();
    await waitFor(async () => (await world.kv.get(jobLockKey(name))) === null, 2_000, 'the dead holder’s lock expired');
    await run(job('b'));
    expect(await lastRun()).toMatchObject({ outcome: 'ok', summary: 'after expiry' });
  });
});

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

afterAll(async () => {
  await deleteRedisKeys((await testServices()).redisUrl, `${prefix}:*`);
});
