import { BusRequestError } from '@aigw/platform';
import { JobName, recordedJobs, type JobView } from '@aigw/contracts';
import { backends, waitFor } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream } from '../../../tools/mock-upstream/server.mjs';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { createChannels, onMock, ordinaryUser, withRelayFailing } from '../../channels/test/support/channels';

/** GET /api/job/: root's list of the background jobs and their last runs, recorded by the services that ran them. */
describe.each(backends)('background job list (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let mock: MockUpstream;

  beforeAll(async () => {
    // The channel sweep tests through the relay against this upstream; the key sk-b's account fails.
    mock = await startMockUpstream({ models: ['mock-gpt'], keys: { 'sk-b': 'status=500' } });
    gateway = await startGateway(backend);
    root = await gateway.login('root', ROOT_PASSWORD);
  });
  afterAll(async () => {
    await gateway?.close();
    await mock?.close();
  });

  const list = async () => {
    const answer = (await gateway.call('GET', '/api/job/', { session: root })).json();
    expect(answer.success).toBe(true);
    return answer.data as JobView[];
  };
  const view = async (name: JobName) => (await list()).find((job) => job.name === name)!;

  it('lists every recorded job, those that never ran too, with what the last run did', async () => {
    // The repeatable jobs run once at start.
    await waitFor(async () => (await list()).filter((job) => job.last_run).length >= 4, 10_000, 'the start runs recorded');
    const jobs = await list();
    expect(jobs.map((job) => job.name)).toEqual(recordedJobs.map((job) => job.name));
    expect(jobs.every((job) => job.service && job.schedule && job.description)).toBe(true);
    const byName = Object.fromEntries(jobs.map((job) => [job.name, job]));
    expect(byName[JobName.IdentitySessionsSweep]!.last_run).toEqual({
      started_at: expect.any(Number),
      finished_at: expect.any(Number),
      duration_ms: expect.any(Number),
      outcome: 'ok',
      summary: expect.stringMatching(/^removed \d+ expired sessions?$/),
    });
    expect(byName[JobName.RelayHoldsSweep]!.last_run).toMatchObject({
      outcome: 'ok',
      summary: expect.stringMatching(/^released \d+ holds? of stopped relays, \d+ usage records? published$/),
    });
    expect(byName[JobName.BillingPendingSweep]!.last_run).toMatchObject({
      outcome: 'ok',
      summary: expect.stringMatching(/^\d+ requests? of stopped relays recorded, \d+ still in flight$/),
    });
    expect(byName[JobName.BillingLogRetention]!.last_run).toMatchObject({ outcome: 'skipped', summary: 'LogRetentionDays is 0: logs are kept' });
    // The channel sweeps run on schedule only when a frequency is set (0 by default), or from the buttons.
    expect(byName[JobName.ChannelsTestAll]).toMatchObject({ last_run: null, last_skipped: null });
    expect(byName[JobName.ChannelsBalanceAll]).toMatchObject({ last_run: null, last_skipped: null });
  });

  it('shows whether the job store holds each schedule and its next run', async () => {
    const byName = Object.fromEntries((await list()).map((job) => [job.name, job]));
    const now = Math.floor(Date.now() / 1000);
    // All-in-one: the answering process runs every service, so it wants their schedules.
    expect(byName[JobName.IdentitySessionsSweep]!.schedule_status).toEqual({
      wanted: true,
      every_ms: 3_600_000,
      registered: true,
      next_run_at: expect.any(Number),
    });
    expect(byName[JobName.IdentitySessionsSweep]!.schedule_status.next_run_at).toBeGreaterThanOrEqual(now - 1);
    expect(byName[JobName.IdentitySessionsSweep]!.schedule_status.next_run_at).toBeLessThanOrEqual(now + 3_600);
    expect(byName[JobName.RelayHoldsSweep]!.schedule_status).toMatchObject({ wanted: true, registered: true });
    // Off by default (frequency 0): neither wanted nor in the store.
    expect(byName[JobName.ChannelsTestAll]!.schedule_status).toEqual({ wanted: false, every_ms: null, registered: false, next_run_at: null });
  });

  it('records a manual sweep: done, then failed when the relay does not answer', async () => {
    await gateway.call('POST', '/api/channel/test', { session: root });
    await waitFor(async () => (await view(JobName.ChannelsTestAll)).last_run?.outcome === 'ok', 5_000, 'empty sweep recorded');
    expect((await view(JobName.ChannelsTestAll)).last_run!.summary).toBe('no channels to test');

    await createChannels(gateway, root, onMock(mock, { name: 'a', key: 'sk-a\nsk-b' }));
    // The relay of this gateway always answers: its absence is stood in for (see withRelayFailing).
    const away = new BusRequestError('no responder for relay.channel.operate', 'relay.channel.operate', 'no-responder');
    await withRelayFailing(gateway.env.infra.bus, away, async () => {
      await gateway.call('POST', '/api/channel/test', { session: root });
      await waitFor(async () => (await view(JobName.ChannelsTestAll)).last_run?.outcome === 'failed', 5_000, 'failed sweep recorded');
    });
    expect((await view(JobName.ChannelsTestAll)).last_run!.summary).toBe('relay: the relay did not answer; try again later (no channel tested)');
    expect(mock.requests).toEqual([]);

    await gateway.call('POST', '/api/channel/test', { session: root });
    await waitFor(async () => (await view(JobName.ChannelsTestAll)).last_run?.outcome === 'ok', 5_000, 'sweep recorded');
    expect((await view(JobName.ChannelsTestAll)).last_run!.summary).toBe('tested 2 channels, 1 failed, 0 disabled, 0 enabled');
    expect(mock.requests.map((request) => [request.path, request.headers.authorization]).sort()).toEqual([
      ['/v1/chat/completions', 'Bearer sk-a'],
      ['/v1/chat/completions', 'Bearer sk-b'],
    ]);
  });

  it('is for root only', async () => {
    const user = await ordinaryUser(gateway, 'jobwatcher');
    expect((await gateway.call('GET', '/api/job/')).statusCode).toBe(401);
    expect((await gateway.call('GET', '/api/job/', { session: user })).statusCode).toBe(403);
    await gateway.call('POST', '/api/user/manage', { session: root, body: { id: user.id, action: 'promote' } });
    const admin = await gateway.login('jobwatcher', 'jobwatcher-password');
    expect((await gateway.call('GET', '/api/job/', { session: admin })).statusCode).toBe(403);
  });
});
