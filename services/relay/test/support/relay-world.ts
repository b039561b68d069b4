import type { AddressInfo } from 'node:net';
import { backends, waitFor, type Backend } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream } from '../../../../tools/mock-upstream/server.mjs';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../../gateway/test/support/gateway';
import type { DataSource } from 'typeorm';
import { openBillingDatabase } from '../../../billing/test/support/billing-db';
import { LogEntity } from '../../../billing/src/entities/index';

export { backends };

/**
 * A whole relay world for tests: the all-in-one gateway listening on loopback, the mock upstream,
 * root, a funded user with an sk- token, and helpers to add channels. Channels and prices are set
 * through the console API, as an admin would.
 */
export interface RelayWorld {
  gateway: TestGateway;
  mock: MockUpstream;
  /** http://127.0.0.1:<port> of the gateway. */
  baseUrl: string;
  root: Session;
  user: Session;
  /** The user's full sk- key. */
  apiKey: string;
  tokenId: number;
  addChannel(fields: Record<string, unknown>): Promise<number>;
  /** Waits until the relay's routing table serves `model` to the default group. */
  waitForModel(model: string): Promise<void>;
  setOption(key: string, value: string | number | boolean): Promise<void>;
  /** The user's balance (quota). */
  balance(): Promise<number>;
  /** The consume log row of a request (X-Oneapi-Request-Id), once billing wrote it. */
  usageLog(requestId: string): Promise<LogEntity>;
  close(): Promise<void>;
}

export async function startRelayWorld(backend: Backend, options: { userQuota?: number; env?: Record<string, string> } = {}): Promise<RelayWorld> {
  const mock = await startMockUpstream({ models: ['mock-gpt', 'mock-embed'] });
  const gateway = await startGateway(backend, options.env ?? {});
  try {
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const baseUrl = `http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`;
    const root = await gateway.login('root', ROOT_PASSWORD);
    const setOption = async (key: string, value: string | number | boolean) => {
      const answer = (await gateway.call('PUT', '/api/option/', { session: root, body: { key, value } })).json();
      if (!answer.success) throw new Error(`option ${key}: ${answer.message}`);
    };
    // The mock upstream is on loopback: channels created from here on take this default and may
    // reach it (each channel's own flag decides, rule R2). Channels read it from their mirror.
    await setOption('AllowPrivateNetworkUpstreams', true);
    await waitFor(
      async () => (await gateway.call('GET', '/internal/channels/options', { session: root })).json().data?.AllowPrivateNetworkUpstreams === true,
      10_000,
      'channels options',
    );
    await setOption('ModelRatio', JSON.stringify({ 'mock-*': 1 }));
    await setOption('CompletionRatio', JSON.stringify({ 'mock-*': 2 }));
    // The relay applies options from events: wait until it prices the mock models.
    await waitFor(
      async () => (await gateway.call('GET', '/internal/relay/options', { session: root })).json().data?.CompletionRatio?.['mock-*'] === 2,
      10_000,
      'relay options',
    );

    await gateway.register('alice', 'alice-password');
    const user = await gateway.login('alice', 'alice-password');
    await waitFor(async () => (await gateway.call('GET', '/api/user/self', { session: user })).json().success === true, 10_000, 'account');
    const funded = (await gateway.call('PUT', '/api/user/', { session: root, body: { id: user.id, quota: options.userQuota ?? 50_000_000 } })).json();
    if (!funded.success) throw new Error(`funding failed: ${funded.message}`);
    const created = (await gateway.call('POST', '/api/token/', { session: user, body: { name: 'relay-test', unlimited_quota: true } })).json();
    if (!created.success) throw new Error(`token: ${created.message}`);

    /** Opened once, by the first caller: concurrent callers share it (each opening its own left all but one open). */
    let billing: Promise<DataSource> | undefined;
    const world: RelayWorld = {
      gateway,
      mock,
      baseUrl,
      root,
      user,
      apiKey: created.data[0].key,
      tokenId: created.data[0].id,
      setOption,
      async addChannel(fields) {
        const answer = (
          await gateway.call('POST', '/api/channel/', {
            session: root,
            body: { type: 1, key: 'mock-key', base_url: mock.url, group: 'default', ...fields },
          })
        ).json();
        if (!answer.success) throw new Error(`channel: ${answer.message}`);
        const ids = answer.data?.ids ?? answer.data;
        return Array.isArray(ids) ? Number(ids[0]) : Number(answer.data?.id ?? answer.data);
      },
      async waitForModel(model) {
        await waitFor(
          async () => {
            const response = await fetch(`${baseUrl}/v1/models`, { headers: { authorization: `Bearer ${world.apiKey}` } });
            const list = (await response.json()) as { data?: Array<{ id: string }> };
            return Boolean(list.data?.some((entry) => entry.id === model));
          },
          10_000,
          `model ${model} routable`,
        );
      },
      async balance() {
        return (await gateway.call('GET', '/api/user/self', { session: user })).json().data.quota as number;
      },
      async usageLog(requestId) {
        billing ??= openBillingDatabase(gateway.env);
        const logs = (await billing).getRepository(LogEntity);
        await waitFor(async () => (await logs.countBy({ request_id: requestId, type: 2 })) > 0, 10_000, `usage log of ${requestId}`);
        return logs.findOneByOrFail({ request_id: requestId, type: 2 });
      },
      async close() {
        await (await billing)?.destroy();
        await gateway.close();
        await mock.close();
      },
    };
    return world;
  } catch (error) {
    await gateway.close();
    await mock.close();
    throw error;
  }
}
