// The distributed cluster on a NATS server with one user per service (deploy/nats/authorization.conf,
// rendered for this test's namespace), every process connecting as its own user as docker-compose
// and deploy/k8s make them: the services start, answer and consume under their permissions, a
// relay request is charged as usual, and a usage record forged with another service's user, or
// with none, is refused and never charged.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventExamples } from '@aigw/contracts';
import { createBus, createSilentLogger, natsPasswordVariable, renderNatsAuthorization } from '@aigw/platform';
import { createTestEnvironment, waitFor, type TestEnvironment } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream } from '../../../tools/mock-upstream/server.mjs';
import type { Cluster } from '../../../tools/cluster/cluster.mjs';
import { Client, startTestCluster } from './support/cluster-client';
import { natsUsers, operatorUser, serviceUsers } from './support/nats-authorization';
import { startThrowawayNats, type ThrowawayNats } from './support/throwaway-nats';

jest.setTimeout(180_000);

const rootPassword = 'root-pass-1234';
const passwords = Object.fromEntries([...serviceUsers, operatorUser].map((user) => [user, `n${crypto.randomBytes(16).toString('hex')}`]));
const passwordEnv = Object.fromEntries(Object.entries(passwords).map(([user, password]) => [natsPasswordVariable(user), password]));

let environment: TestEnvironment;
let configDir: string;
let nats: ThrowawayNats;
let cluster: Cluster;
let mock: MockUpstream;
let alice: Client;
let apiKey: string;
const logs: string[] = [];

beforeAll(async () => {
  environment = await createTestEnvironment('real');
  configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-nats-users-'));
  const configFile = path.join(configDir, 'authorization.conf');
  fs.writeFileSync(configFile, renderNatsAuthorization(natsUsers(environment.namespace)));
  nats = await startThrowawayNats(configFile, passwordEnv, { user: operatorUser, password: passwords[operatorUser]! });
  mock = await startMockUpstream({ models: ['mock-gpt'] });
  const { [natsPasswordVariable(operatorUser)]: _operatorOnly, ...servicePasswords } = passwordEnv;
  cluster = await startTestCluster(
    environment,
    { INTERNAL_SECRET: crypto.randomBytes(32).toString('base64url'), INITIAL_ROOT_PASSWORD: rootPassword, NATS_URL: nats.url, ...servicePasswords },
    logs,
  );

  const admin = new Client(cluster.gatewayUrl);
  expect(await admin.login('root', rootPassword)).toMatchObject({ success: true });
  for (const [key, value] of [
    ['AllowPrivateNetworkUpstreams', 'true'],
    ['ModelRatio', '{"mock-*":1}'],
  ]) {
    expect((await admin.call('PUT', '/api/option/', { key, value })).body).toMatchObject({ success: true });
  }
  const channel = { type: 1, name: 'mock', key: 'mock-key', base_url: mock.url, models: 'mock-gpt', group: 'default', allow_private_network: true };
  expect((await admin.call('POST', '/api/channel/', channel)).body).toMatchObject({ success: true });
  alice = new Client(cluster.gatewayUrl);
  const registration = { username: 'alice', password: 'alice-pass-1', password2: 'alice-pass-1' };
  expect((await alice.call('POST', '/api/user/register', registration)).body).toMatchObject({ success: true });
  expect(await alice.login('alice', 'alice-pass-1')).toMatchObject({ success: true });
  await waitFor(async () => (await alice.call('GET', '/api/user/self')).body.success === true, 10_000, 'account');
  expect((await admin.call('PUT', '/api/user/', { id: alice.userId, quota: 10_000_000 })).body).toMatchObject({ success: true });
  apiKey = (await alice.call('POST', '/api/token/', { name: 'nats-users', unlimited_quota: true })).body.data[0].key;
  await waitFor(async () => (await chat()).status === 200, 20_000, 'relay routes mock-gpt');
});

afterAll(async () => {
  await cluster?.stop();
  await mock?.close();
  await nats?.stop();
  await environment?.cleanup();
  if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
});

function chat(): Promise<Response> {
  return fetch(`${cluster.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hello' }] }),
  });
}

interface UsageLog {
  quota: number;
}
const usage = async () => (await alice.call('GET', '/api/log/self?type=2')).body.data as { total: number; items: UsageLog[] };
const balance = async () => (await alice.call('GET', '/api/user/self')).body.data.quota as number;

describe('the cluster on NATS with a user per service', () => {
  it('meters a relay request: the relay publishes the usage as its own user and billing consumes it', async () => {
    await waitFor(async () => (await usage()).total >= 1, 15_000, 'usage logged by billing');
  });

  it('refuses a usage record forged with another service user, or without one, and charges only genuine requests', async () => {
    const forged = { ...eventExamples['relay.usage.recorded'], user_id: alice.userId!, request_id: 'forged-request', quota: 9_000_000 };
    const logger = createSilentLogger();
    for (const user of serviceUsers.filter((user) => user !== 'relay')) {
      const bus = await createBus({ natsUrl: nats.url, namespace: environment.namespace, natsUser: user, natsPassword: passwords[user], logger });
      try {
        await expect(bus.publish('relay.usage.recorded', forged, { id: forged.request_id })).rejects.toThrow(/permissions violation/i);
      } finally {
        await bus.close();
      }
    }
    await expect(createBus({ natsUrl: nats.url, namespace: environment.namespace, logger })).rejects.toThrow(/authorization violation/i);

    const before = { usage: await usage(), balance: await balance() };
    expect((await chat()).status).toBe(200);
    // Billing consumes in stream order: once the genuine record is logged, a forged one before it would have been too.
    await waitFor(async () => (await usage()).total === before.usage.total + 1, 15_000, 'the genuine request logged');
    const after = { usage: await usage(), balance: await balance() };
    expect(before.balance - after.balance).toBe(after.usage.items[0]!.quota);
    // Nothing a service does in normal work is refused (a refusal is logged as NATS connection trouble).
    expect(logs.filter((line) => /permissions[ _]violation/i.test(line))).toEqual([]);
  });
});
