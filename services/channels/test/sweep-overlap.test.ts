import { JobName, type JobView } from '@aigw/contracts';
import { createApp, createInfrastructure, createSilentLogger, loadOrCreateSecret, type App, type Infrastructure } from '@aigw/platform';
import { backends, waitFor, type Backend, type TestEnvironment } from '@aigw/platform/testing';
import channelsPlugin from '../src/plugin';
import { startMockUpstream, type MockUpstream } from '../../../tools/mock-upstream/server.mjs';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { setOption } from './support/channels';

/**
 * A scheduled and a manual "test all" started together, with a second channels replica
 * working the same queues (its own BullMQ workers and Redis connection on the real backend; a
 * second worker on the shared in-process queue otherwise): the sweeps' lock lets one run test
 * the channels and the other is skipped. The mock upstream proves it: one request per channel,
 * one after the other.
 */

const CHANNELS = 4;
const LATENCY_MS = 250;

jest.setTimeout(60_000);

/** Another channels replica on the test environment's database, bus, jobs and Kv. */
async function startChannelsReplica(backend: Backend, env: TestEnvironment): Promise<{ app: App; close(): Promise<void> }> {
  const logger = createSilentLogger();
  let infra: Infrastructure = env.infra;
  if (backend === 'real') {
    const urls = env.processEnv();
    infra = await createInfrastructure({ NAMESPACE: env.namespace, NATS_URL: urls.NATS_URL, REDIS_URL: urls.REDIS_URL }, logger);
  }
  const app = createApp({ logger, bodyLimitBytes: 1024 * 1024 });
  await app.register(channelsPlugin, {
    infra,
    databaseUrl: env.databaseUrl,
    dataDir: env.dataDir,
    schema: env.schema('channels'),
    keySecret: loadOrCreateSecret(env.dataDir, 'channel-key'),
  });
  await app.ready();
  return {
    app,
    async close() {
      await app.close();
      if (infra !== env.infra) await infra.close();
    },
  };
}

describe.each(backends)('test-all runs never overlap (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let mock: MockUpstream;
  let replica: Awaited<ReturnType<typeof startChannelsReplica>> | undefined;

  beforeAll(async () => {
    mock = await startMockUpstream({ models: ['mock-gpt'] });
    gateway = await startGateway(backend);
    root = await gateway.login('root', ROOT_PASSWORD);
    await setOption(gateway, root, 'AllowPrivateNetworkUpstreams', true);
    await waitFor(
      async () => (await gateway.call('GET', '/internal/relay/options', { session: root })).json().data?.AllowPrivateNetworkUpstreams === true,
      5_000,
      'relay options',
    );
    replica = await startChannelsReplica(backend, gateway.env);
  });
  afterAll(async () => {
    await replica?.close();
    await gateway?.close();
    await mock?.close();
  });

  const job = async () =>
    ((await gateway.call('GET', '/api/job/', { session: root })).json().data as JobView[]).find((view) => view.name === JobName.ChannelsTestAll)!;

  it('skips the second of a scheduled and a manual run started together', async () => {
    for (let index = 0; index < CHANNELS; index++) {
      const answer = (
        await gateway.call('POST', '/api/channel/', {
          session: root,
          body: {
            type: 1,
            name: `slow-${index}`,
            group: 'default',
            models: 'mock-gpt',
            test_model: `mock-gpt@latency=${LATENCY_MS}`,
            key: `sk-${index}`,
            base_url: mock.url,
          },
        })
      ).json();
      expect(answer.success).toBe(true);
    }

    // The schedule's first run starts at once (the minute is the real one: no second tick here),
    // and the console button is pressed meanwhile.
    await setOption(gateway, root, 'ChannelTestFrequency', 1);
    expect((await gateway.call('POST', '/api/channel/test', { session: root })).json().success).toBe(true);

    await waitFor(async () => (await job()).last_run?.outcome === 'ok', 20_000, 'the run finished');
    const view = await job();
    expect(view.last_run!.summary).toBe(`tested ${CHANNELS} channels, 0 failed, 0 disabled, 0 enabled`);
    expect(view.last_skipped).toMatchObject({ outcome: 'skipped', summary: 'another run is in progress' });
    expect(view.last_skipped!.started_at).toBeLessThanOrEqual(view.last_run!.finished_at);

    // One request per channel, each after the previous one was answered. Both runs are recorded
    // (the one that tested ended with its last answer; the skipped one sent nothing), so every
    // request has arrived: no wait.
    const tests = mock.requests.filter((request) => request.path === '/v1/chat/completions');
    expect(tests).toHaveLength(CHANNELS);
    for (let index = 1; index < tests.length; index++) expect(tests[index]!.time - tests[index - 1]!.time).toBeGreaterThanOrEqual(LATENCY_MS - 10);

    await setOption(gateway, root, 'ChannelTestFrequency', 0);
  });
});
