import { setTimeout as sleep } from 'node:timers/promises';
import { JobName, type JobView } from '@aigw/contracts';
import { jobLockKey } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream } from '../../../tools/mock-upstream/server.mjs';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { setOption } from './support/channels';

/**
 * The health schedules on the real path: ChannelTestFrequency and ChannelUpdateFrequency set
 * through the option API start repeatable jobs (a "minute" is MINUTE_MS here), which test and
 * read balances through the real relay against the mock upstream; 0 removes the schedule.
 */

const MINUTE_MS = 400;
const GOOD_KEY = 'sk-good-key';
const WRONG_KEY = 'sk-wrong-key';
const RESELLER_KEY = 'sk-reseller';

jest.setTimeout(60_000);

describe.each(backends)('channel health schedules (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let mock: MockUpstream;

  beforeAll(async () => {
    // An upstream account per key: the wrong key is refused, the good one has no balance endpoint
    // (as many upstreams), the reseller's reports a balance the test changes.
    mock = await startMockUpstream({
      models: ['mock-gpt'],
      keys: { [WRONG_KEY]: 'status=401', [GOOD_KEY]: 'nobilling', [RESELLER_KEY]: 'hard-limit=10' },
    });
    gateway = await startGateway(backend, { SCHEDULE_MINUTE_MS: String(MINUTE_MS) });
    root = await gateway.login('root', ROOT_PASSWORD);
    for (const [key, value] of [
      ['AutomaticDisableChannelEnabled', true],
      ['AutomaticEnableChannelEnabled', true],
      ['ChannelDisableThreshold', 1],
    ] as const) {
      await setOption(gateway, root, key, value);
    }
    // The relay makes the upstream calls: it must allow the loopback upstreams.
    await setOption(gateway, root, 'AllowPrivateNetworkUpstreams', true);
    await waitFor(
      async () => (await gateway.call('GET', '/internal/relay/options', { session: root })).json().data?.AllowPrivateNetworkUpstreams === true,
      5_000,
      'relay options',
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await mock?.close();
  });

  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => (await gateway.call(method, url, { session: root, body })).json();
  const channel = async (id: number) => (await call('GET', `/api/channel/${id}`)).data;
  const created: number[] = [];
  const create = async (fields: Record<string, unknown>) => {
    const answer = await call('POST', '/api/channel/', { type: 1, group: 'default', models: 'mock-gpt', base_url: mock.url, ...fields });
    if (!answer.success) throw new Error(answer.message);
    created.push(answer.data.ids[0]);
    return answer.data.ids[0] as number;
  };
  const jobView = async (name: JobName) => ((await call('GET', '/api/job/')).data as JobView[]).find((job) => job.name === name)!;
  const lastRun = async (name: JobName) => (await jobView(name)).last_run;
  /** No process wants the schedule and the job store holds none. */
  const unscheduled = async (name: JobName) => {
    const { wanted, registered } = (await jobView(name)).schedule_status;
    return !wanted && !registered;
  };

  /** Every distinct run record of `name` seen while `during` runs (runs follow each other quickly, so it polls). */
  async function watchRuns<T>(name: JobName, during: () => Promise<T>): Promise<{ result: T; summaries: string[] }> {
    const seen = new Set<string>();
    const look = async () => {
      const run = await lastRun(name);
      if (run) seen.add(`${run.outcome}: ${run.summary}`);
    };
    let watching = true;
    const poll = (async () => {
      while (watching) {
        await look();
        await sleep(15); // the poll's interval
      }
    })();
    try {
      const result = await during();
      watching = false;
      await poll;
      await look(); // the record that ended `during` may have come after the last poll
      return { result, summaries: [...seen] };
    } finally {
      watching = false;
      await poll;
    }
  }

  /** After a frequency went to 0: the schedule is gone, and once no run holds the lock, no further run comes. */
  async function expectNoMoreRuns(name: JobName, count: () => number) {
    await waitFor(() => unscheduled(name), 10_000, 'the schedule removed');
    await waitFor(async () => (await gateway.env.infra.kv.get(jobLockKey(name))) === null, 10_000, 'the last run finished');
    // A run queued just before the schedule went away may still start (as soon as the worker is
    // free): wait until the count stayed still for a minute with no run holding the lock.
    let before = count();
    await waitFor(
      async () => {
        await sleep(MINUTE_MS); // a fixed window: nothing marks "no run queued"
        const now = count();
        const still = now === before && (await gateway.env.infra.kv.get(jobLockKey(name))) === null;
        before = now;
        return still;
      },
      10_000,
      'no run in flight',
    );
    // A fixed wait: a schedule still in place would run within a minute, and nothing marks its absence.
    await sleep(MINUTE_MS * 2);
    expect(count()).toBe(before);
  }

  it('tests on schedule: disables a channel with a wrong key and a too slow one, enables them once they recover; 0 stops it', async () => {
    const good = await create({ name: 'good', key: GOOD_KEY });
    const wrongKey = await create({ name: 'wrong-key', key: WRONG_KEY });
    const slow = await create({ name: 'slow', key: GOOD_KEY, test_model: 'mock-gpt@latency=1300' });
    const tests = () => mock.requests.filter((request) => request.path === '/v1/chat/completions').length;

    // Whole minutes, not negative: anything else is refused naming the option.
    for (const value of [-1, 1.5, 'soon']) {
      const refused = await call('PUT', '/api/option/', { key: 'ChannelTestFrequency', value });
      expect(refused).toMatchObject({ success: false, message: expect.stringMatching(/^ChannelTestFrequency/) });
    }

    // Frequency 0 (the default): no schedule, so nothing tests them.
    expect(await unscheduled(JobName.ChannelsTestAll)).toBe(true);
    expect(tests()).toBe(0);
    expect(await lastRun(JobName.ChannelsTestAll)).toBeNull();

    const disabled = await watchRuns(JobName.ChannelsTestAll, async () => {
      await setOption(gateway, root, 'ChannelTestFrequency', 1);
      await waitFor(async () => (await channel(wrongKey)).status === 3 && (await channel(slow)).status === 3, 15_000, 'failing channels disabled');
      await waitFor(async () => (await lastRun(JobName.ChannelsTestAll))?.outcome === 'ok', 10_000, 'a finished run');
    });
    expect((await channel(good)).status).toBe(1);
    expect(JSON.parse((await channel(wrongKey)).other_info).status_reason).toMatch(/^status 401: /);
    expect(JSON.parse((await channel(slow)).other_info).status_reason).toMatch(/^response time 1\.\d\d s exceeds the threshold of 1 s$/);
    expect(mock.requests.some((request) => request.headers.authorization === `Bearer ${WRONG_KEY}`)).toBe(true);
    expect(disabled.summaries).toContain('ok: tested 3 channels, 2 failed, 2 disabled, 0 enabled');

    // They recover: the next scheduled runs enable them again (AutomaticEnableChannelEnabled is on).
    const enabled = await watchRuns(JobName.ChannelsTestAll, async () => {
      expect((await call('PUT', '/api/channel/', { id: wrongKey, key: GOOD_KEY })).success).toBe(true);
      expect((await call('PUT', '/api/channel/', { id: slow, test_model: 'mock-gpt' })).success).toBe(true);
      await waitFor(async () => (await channel(wrongKey)).status === 1 && (await channel(slow)).status === 1, 15_000, 'recovered channels enabled');
      await waitFor(async () => /^tested 3 channels, 0 failed/.test((await lastRun(JobName.ChannelsTestAll))?.summary ?? ''), 10_000, 'a passing run');
    });
    expect(enabled.summaries.filter((summary) => /^ok: tested 3 channels, [01] failed, 0 disabled, [12] enabled$/.test(summary))).not.toEqual([]);
    expect((await channel(wrongKey)).other_info).toBe('{}');

    await setOption(gateway, root, 'ChannelTestFrequency', 0);
    await expectNoMoreRuns(JobName.ChannelsTestAll, tests);
  });

  it('refreshes balances on schedule, following the upstream; 0 stops it', async () => {
    const rich = await create({ name: 'reseller', key: RESELLER_KEY });
    await setOption(gateway, root, 'ChannelUpdateFrequency', 1);
    await waitFor(async () => (await channel(rich)).balance === 10, 10_000, 'first balance');
    mock.keys[RESELLER_KEY] = 'hard-limit=7.5';
    await waitFor(async () => (await channel(rich)).balance === 7.5, 10_000, 'balance refreshed by a later run');
    expect((await channel(rich)).balance_updated_time).toBeGreaterThan(Date.now() / 1000 - 60);
    // The good key's account has no balance endpoint: counted, never disabled for it.
    await waitFor(async () => (await lastRun(JobName.ChannelsBalanceAll))?.outcome === 'ok', 5_000, 'balance run recorded');
    expect((await lastRun(JobName.ChannelsBalanceAll))!.summary).toMatch(/^updated 1 balance, 3 failed \(.+\)$/);
    for (const id of created) expect((await channel(id)).status).toBe(1);

    await setOption(gateway, root, 'ChannelUpdateFrequency', 0);
    // Test runs stopped in the test before: whatever reaches the upstream now is a balance run.
    await expectNoMoreRuns(JobName.ChannelsBalanceAll, () => mock.stats.received);
  });
});
