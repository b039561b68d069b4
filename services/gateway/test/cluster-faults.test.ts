// Faults of the distributed topology that touch users' money (every service its own process, on
// PostgreSQL + NATS + Redis): the relay killed with -9 in the middle of streams (before and after
// their first checkpoint), and the same with Redis losing its data on top. After each, within the
// bound the issue sets (2 minutes; here the leases and sweeps are shortened so it takes seconds):
// the user's spendable balance equals the database balance, nothing is held, every cut request
// has exactly one usage record (charging what its checkpoint says was delivered, or nothing),
// and billing reconciles.
import crypto from 'node:crypto';
import type { DataSource } from 'typeorm';
import { counterKeys } from '@aigw/platform';
import { createTestEnvironment, deleteRedisKeys, waitFor, type TestEnvironment } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream } from '../../../tools/mock-upstream/server.mjs';
import type { Cluster } from '../../../tools/cluster/cluster.mjs';
import { LogEntity, PendingRequestEntity } from '../../billing/src/entities/index';
import { reconcile } from '../../billing/src/reconcile';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { Client, startTestCluster } from './support/cluster-client';

jest.setTimeout(180_000);

const rootPassword = 'root-pass-1234';
/** A stream of 20 s: long enough to be cut in the middle. */
const slowModel = 'mock-gpt@chunks=200,delay=100';

let environment: TestEnvironment;
let cluster: Cluster;
let mock: MockUpstream;
let billing: DataSource;
let alice: Client;
let apiKey: string;
const logs: string[] = [];
const open: Array<ReadableStreamDefaultReader<Uint8Array>> = [];

beforeAll(async () => {
  environment = await createTestEnvironment('real');
  mock = await startMockUpstream({ models: ['mock-gpt'] });
  cluster = await startTestCluster(
    environment,
    {
      INTERNAL_SECRET: crypto.randomBytes(32).toString('base64url'),
      INITIAL_ROOT_PASSWORD: rootPassword,
      // Shortened from 20 s, 30 s and 30 s, so the test takes seconds instead of a minute.
      HOLD_LEASE_TTL_MS: '1000',
      HOLD_SWEEP_INTERVAL_MS: '1000',
      PENDING_SWEEP_INTERVAL_MS: '1000',
    },
    logs,
  );
  billing = await openBillingDatabase(environment);

  const admin = new Client(cluster.gatewayUrl);
  expect(await admin.login('root', rootPassword)).toMatchObject({ success: true });
  for (const [key, value] of [
    ['AllowPrivateNetworkUpstreams', 'true'],
    ['ModelRatio', '{"mock-*":1}'],
    ['QuotaRemindThreshold', '0'],
  ]) {
    expect((await admin.call('PUT', '/api/option/', { key, value })).body).toMatchObject({ success: true });
  }
  expect(
    (
      await admin.call('POST', '/api/channel/', {
        type: 1,
        name: 'mock',
        key: 'mock-key',
        base_url: mock.url,
        models: 'mock-gpt,mock-slow',
        group: 'default',
        model_mapping: JSON.stringify({ 'mock-slow': slowModel }),
        allow_private_network: true, // the mock is on loopback (the channel's own flag, rule R2)
      })
    ).body,
  ).toMatchObject({ success: true });
  alice = new Client(cluster.gatewayUrl);
  expect((await alice.call('POST', '/api/user/register', { username: 'alice', password: 'alice-pass-1', password2: 'alice-pass-1' })).body).toMatchObject({
    success: true,
  });
  expect(await alice.login('alice', 'alice-pass-1')).toMatchObject({ success: true });
  await waitFor(async () => (await alice.call('GET', '/api/user/self')).body.success === true, 10_000, 'account');
  expect((await admin.call('PUT', '/api/user/', { id: alice.userId, quota: 10_000_000 })).body).toMatchObject({ success: true });
  const token = await alice.call('POST', '/api/token/', { name: 'faults', unlimited_quota: true });
  apiKey = token.body.data[0].key;
  await waitFor(async () => (await chat('mock-gpt')).status === 200, 20_000, 'relay routes mock-gpt');
  // That request is committed and no longer held: the tests start from a settled balance.
  await waitFor(async () => (await held()) === 0, 10_000, 'first request committed');
});

afterAll(async () => {
  for (const reader of open) await reader.cancel().catch(() => undefined);
  await billing?.destroy();
  await cluster?.stop();
  await mock?.close();
  await environment?.cleanup();
});

function chat(model: string, stream = false): Promise<Response> {
  return fetch(`${cluster.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'a long answer, please' }] }),
  });
}

/** Starts `count` long streams and returns their request ids and readers once each has delivered a first chunk. */
async function streamsInFlight(count: number): Promise<Array<{ id: string; reader: ReadableStreamDefaultReader<Uint8Array> }>> {
  const streams: Array<{ id: string; reader: ReadableStreamDefaultReader<Uint8Array> }> = [];
  for (let index = 0; index < count; index++) {
    const response = await chat('mock-slow', true);
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    open.push(reader);
    expect((await reader.read()).done).toBe(false);
    streams.push({ id: response.headers.get('x-oneapi-request-id')!, reader });
  }
  expect(streams.every((stream) => Boolean(stream.id))).toBe(true);
  return streams;
}

/** Reads a stream until `count` SSE events reached the client. */
async function readEvents(reader: ReadableStreamDefaultReader<Uint8Array>, count: number): Promise<void> {
  const decoder = new TextDecoder();
  for (let events = 0; events < count;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended early');
    events += (decoder.decode(value).match(/^data: /gm) ?? []).length;
  }
}

const balance = async () => (await alice.call('GET', '/api/user/self')).body.data.quota as number;
const spendable = () => environment.infra.counters.get(counterKeys.user(alice.userId!));
const held = () => environment.infra.counters.get(counterKeys.userHeld(alice.userId!));
const records = (requestId: string) => billing.getRepository(LogEntity).findBy({ request_id: requestId });

/**
 * Spendable = database balance, nothing held, each cut request recorded once (charged what its
 * checkpoint says it delivered, or nothing without one), no pending rows, ledger reconciled.
 */
async function settledAfterFault(cut: string[], startedAt: number): Promise<{ recoveredMs: number; charged: number }> {
  await waitFor(async () => (await Promise.all(cut.map(records))).every((rows) => rows.length === 1), 120_000, 'a record for each cut request');
  await waitFor(async () => (await spendable()) === (await balance()) && (await held()) === 0, 120_000, 'spendable balance equals the database balance');
  const recoveredMs = Date.now() - startedAt;
  expect(await billing.getRepository(PendingRequestEntity).countBy({ user_id: alice.userId! })).toBe(0);
  expect(await reconcile(billing)).toEqual([]);
  const rows = (await Promise.all(cut.map(records))).flat();
  return { recoveredMs, charged: rows.reduce((sum, row) => sum + row.quota, 0) };
}

const cutWithoutCharge = expect.objectContaining({ quota: 0, content: expect.stringContaining('relay stopped mid-request') });

test('a relay killed with -9 mid-stream: its holds are released and each cut request is recorded once, within 2 minutes', async () => {
  const before = await balance();
  const cut = await streamsInFlight(3);
  expect(await spendable()).toBeLessThan(before); // the three holds
  const killedAt = Date.now();
  await cluster.kill('relay');
  // Billing records the cut requests on its own (the relay's lease ended); the restarted relay
  // (a new process: a new incarnation) releases the dead one's holds at its sweeps.
  await cluster.restart('relay');
  const { recoveredMs } = await settledAfterFault(
    cut.map((stream) => stream.id),
    killedAt,
  );
  expect(recoveredMs).toBeLessThan(120_000);
  // Cut before their first checkpoint: nothing of them is charged.
  for (const { id } of cut) expect(await records(id)).toEqual([cutWithoutCharge]);
  expect(await balance()).toBe(before);
  // Served again.
  expect((await chat('mock-gpt')).status).toBe(200);
});

test('a relay killed with -9 after streams passed a checkpoint: what reached the clients is charged, once', async () => {
  // The previous test's last request committed first, so the balance is where this one starts.
  await waitFor(async () => (await held()) === 0, 10_000, 'earlier requests committed');
  const before = await balance();
  const cut = await streamsInFlight(2);
  // Forty events each: past the first checkpoint (every 32 pieces), well before the 200-chunk end.
  await Promise.all(cut.map((stream) => readEvents(stream.reader, 40)));
  const killedAt = Date.now();
  await cluster.kill('relay');
  await cluster.restart('relay');
  const { recoveredMs, charged } = await settledAfterFault(
    cut.map((stream) => stream.id),
    killedAt,
  );
  expect(recoveredMs).toBeLessThan(120_000);
  for (const { id } of cut) {
    const [row] = await records(id);
    expect(row).toEqual(expect.objectContaining({ content: expect.stringContaining('relay stopped mid-stream; charged what was delivered') }));
    // At least the 32 pieces of the checkpoint (one token each at completion ratio 1), at most the whole answer.
    expect(row!.completion_tokens).toBeGreaterThanOrEqual(32);
    expect(row!.completion_tokens).toBeLessThan(200);
    expect(row!.quota).toBeGreaterThan(0);
  }
  expect(await balance()).toBe(before - charged);
});

test('a relay killed mid-stream while Redis loses its data: the records survive (billing kept them), counters re-seed from the database', async () => {
  const cut = await streamsInFlight(2);
  // Requests running for a second are announced to billing, which keeps them beyond Redis.
  await waitFor(async () => (await billing.getRepository(PendingRequestEntity).countBy({ user_id: alice.userId! })) === 2, 10_000, 'announced to billing');
  const killedAt = Date.now();
  await cluster.kill('relay');
  // Redis restarted without persistence: every key of this deployment is gone (holds, leases, counters).
  await deleteRedisKeys(environment.processEnv().REDIS_URL!, `aigw:${environment.namespace}:*`);
  await cluster.restart('relay');
  // The next request re-seeds the counter from the database.
  expect((await chat('mock-gpt')).status).toBe(200);
  const { recoveredMs } = await settledAfterFault(
    cut.map((stream) => stream.id),
    killedAt,
  );
  expect(recoveredMs).toBeLessThan(120_000);
  // Redis lost the holds and their checkpoints: billing's pending rows record them without a charge (the known gap).
  for (const { id } of cut) expect(await records(id)).toEqual([cutWithoutCharge]);
});
