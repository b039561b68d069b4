// Async tasks in the distributed topology (every service its own process, on PostgreSQL + NATS +
// Redis) with two relays polling: the cluster's relay and a replica on its own port, both running
// the task poll job every second, one run at a time through the job's run lock. Tasks are
// submitted through the gateway (to the first relay) and straight to the replica; part-way the
// first relay is killed with -9 while it holds the run lock, and the replica carries on once that
// lock expired (within seconds, not the two minutes it took with a 120 s lock TTL): every
// task reaches the state the upstream (the mock) holds for it, every failed one is refunded once,
// balances are exact and billing reconciles, and no two poll runs ever overlapped.
import crypto from 'node:crypto';
import { In, type DataSource } from 'typeorm';
import { JobName } from '@aigw/contracts';
import { createSilentLogger, jobLockKey, jobSkipKey, openDatabase, readJobRuns } from '@aigw/platform';
import { createTestEnvironment, waitFor, type TestEnvironment } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream } from '../../../tools/mock-upstream/server.mjs';
import type { Cluster, Replica } from '../../../tools/cluster/cluster.mjs';
import { LedgerEntryEntity, LedgerKind, LogEntity } from '../../billing/src/entities/index';
import { reconcile } from '../../billing/src/reconcile';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { relayEntities, TaskEntity } from '../../relay/src/entities/index';
import { relayMigrations } from '../../relay/src/migrations/index';
import { Client, freePorts, startTestCluster } from './support/cluster-client';

jest.setTimeout(300_000);

const rootPassword = 'root-pass-1234';
/** Every Midjourney call of the channel's key answers after this long: a poll run outlasts the 1 s interval, so runs would overlap without the lock. */
const MJ_LATENCY_MS = 1_500;
/** QuotaPerUnit 500,000 x the default ModelPrice. */
const PRICE: Record<string, number> = { mj_imagine: 50_000, suno_music: 50_000, suno_lyrics: 5_000 };

type Platform = 'midjourney' | 'suno';
type Outcome = 'success' | 'fail' | 'stuck' | 'refused';
interface Planned {
  name: string;
  platform: Platform;
  model: 'mj_imagine' | 'suno_music' | 'suno_lyrics';
  outcome: Outcome;
  mock: string;
  via: 'gateway' | 'replica';
  key: 'unlimited' | 'limited';
}
interface Submitted extends Planned {
  status: number;
  requestId: string;
  /** The upstream's task id; '' when refused. */
  taskId: string;
}

/** Before the kill: slow enough (4 to 6 polls of 1.5 s and more) to be part-way when the first relay dies. */
const beforeKill: Planned[] = [
  ...[1, 2, 3, 4].map((n): Planned => ({
    name: `mj ok ${n}`,
    platform: 'midjourney',
    model: 'mj_imagine',
    outcome: 'success',
    mock: 'tasksteps=4',
    via: n % 2 ? 'gateway' : 'replica',
    key: n === 4 ? 'limited' : 'unlimited',
  })),
  ...[1, 2, 3].map((n): Planned => ({
    name: `mj fail ${n}`,
    platform: 'midjourney',
    model: 'mj_imagine',
    outcome: 'fail',
    mock: `tasksteps=4;taskfail=${3 + n}`,
    via: n % 2 ? 'gateway' : 'replica',
    key: n === 2 ? 'limited' : 'unlimited',
  })),
  { name: 'mj stuck', platform: 'midjourney', model: 'mj_imagine', outcome: 'stuck', mock: 'tasksteps=1;taskstuck', via: 'gateway', key: 'unlimited' },
  ...[1, 2, 3].map((n): Planned => ({
    name: `song ok ${n}`,
    platform: 'suno',
    model: 'suno_music',
    outcome: 'success',
    mock: 'tasksteps=4',
    via: n % 2 ? 'replica' : 'gateway',
    key: 'unlimited',
  })),
  ...[1, 2].map((n): Planned => ({
    name: `lyrics ok ${n}`,
    platform: 'suno',
    model: 'suno_lyrics',
    outcome: 'success',
    mock: 'tasksteps=3',
    via: n % 2 ? 'gateway' : 'replica',
    key: 'limited',
  })),
  ...[1, 2].map((n): Planned => ({
    name: `song fail ${n}`,
    platform: 'suno',
    model: 'suno_music',
    outcome: 'fail',
    mock: `tasksteps=4;taskfail=${5 + n}`,
    via: n % 2 ? 'gateway' : 'replica',
    key: n === 1 ? 'limited' : 'unlimited',
  })),
  { name: 'song stuck', platform: 'suno', model: 'suno_music', outcome: 'stuck', mock: 'tasksteps=1;taskstuck', via: 'replica', key: 'limited' },
];
/** After the kill, to the replica (the gateway's relay is gone). */
const afterKill: Planned[] = [
  ...[1, 2, 3, 4].map((n): Planned => ({
    name: `late mj ok ${n}`,
    platform: 'midjourney',
    model: 'mj_imagine',
    outcome: 'success',
    mock: `tasksteps=${1 + (n % 2)}`,
    via: 'replica',
    key: n === 1 ? 'limited' : 'unlimited',
  })),
  ...[1, 2, 3].map((n): Planned => ({
    name: `late mj fail ${n}`,
    platform: 'midjourney',
    model: 'mj_imagine',
    outcome: 'fail',
    mock: `tasksteps=2;taskfail=${1 + n}`,
    via: 'replica',
    key: n === 3 ? 'limited' : 'unlimited',
  })),
  { name: 'late mj refused', platform: 'midjourney', model: 'mj_imagine', outcome: 'refused', mock: 'mjcode=24', via: 'replica', key: 'unlimited' },
  ...[1, 2, 3].map((n): Planned => ({
    name: `late song ok ${n}`,
    platform: 'suno',
    model: n === 3 ? 'suno_lyrics' : 'suno_music',
    outcome: 'success',
    mock: 'tasksteps=1',
    via: 'replica',
    key: 'unlimited',
  })),
  ...[1, 2].map((n): Planned => ({
    name: `late song fail ${n}`,
    platform: 'suno',
    model: 'suno_music',
    outcome: 'fail',
    mock: `tasksteps=2;taskfail=${2 + n}`,
    via: 'replica',
    key: n === 2 ? 'limited' : 'unlimited',
  })),
  { name: 'late song refused', platform: 'suno', model: 'suno_lyrics', outcome: 'refused', mock: 'sunorefuse=429', via: 'replica', key: 'limited' },
];

let environment: TestEnvironment;
let cluster: Cluster;
let replica: Replica;
let mock: MockUpstream;
let billing: DataSource;
let relayDb: DataSource;
let alice: Client;
const keys = { unlimited: '', limited: '' };
let limitedTokenId = 0;
const logs: string[] = [];
const submitted: Submitted[] = [];
/** The run lock's holder as sampled every 25 ms: `host:pid:run` tokens and when each was first seen. */
const lockHolders = new Map<string, number>();
let sampling = true;
let sampler: Promise<void> | undefined;

beforeAll(async () => {
  environment = await createTestEnvironment('real');
  mock = await startMockUpstream({ keys: { 'mj-slow-key': `latency=${MJ_LATENCY_MS}` } });
  cluster = await startTestCluster(
    environment,
    { INTERNAL_SECRET: crypto.randomBytes(32).toString('base64url'), INITIAL_ROOT_PASSWORD: rootPassword, TASK_POLL_INTERVAL_MS: '1000' },
    logs,
  );
  const [replicaPort] = await freePorts(1);
  replica = await cluster.startReplica('relay', replicaPort!);
  billing = await openBillingDatabase(environment);
  relayDb = await openDatabase({
    url: environment.databaseUrl,
    dataDir: environment.dataDir,
    schema: environment.schema('relay'), // the cluster's relays use <NAMESPACE>_relay
    entities: relayEntities,
    migrations: relayMigrations,
    logger: createSilentLogger(),
  });

  const admin = new Client(cluster.gatewayUrl);
  expect(await admin.login('root', rootPassword)).toMatchObject({ success: true });
  // No Midjourney callbacks (ServerAddress empty): every upstream poll is the poller's.
  for (const [key, value] of [
    ['AllowPrivateNetworkUpstreams', 'true'],
    ['ServerAddress', ''],
  ]) {
    expect((await admin.call('PUT', '/api/option/', { key, value })).body).toMatchObject({ success: true });
  }
  for (const channel of [
    { type: 2, name: 'mj', key: 'mj-slow-key', models: 'mj_imagine,mj_upscale' },
    { type: 36, name: 'suno', key: 'suno-key', models: 'suno_music,suno_lyrics' },
  ]) {
    const created = await admin.call('POST', '/api/channel/', { ...channel, base_url: mock.url, group: 'default', allow_private_network: true });
    expect(created.body).toMatchObject({ success: true });
  }
  alice = new Client(cluster.gatewayUrl);
  expect((await alice.call('POST', '/api/user/register', { username: 'alice', password: 'alice-pass-1', password2: 'alice-pass-1' })).body).toMatchObject({
    success: true,
  });
  expect(await alice.login('alice', 'alice-pass-1')).toMatchObject({ success: true });
  await waitFor(async () => (await alice.call('GET', '/api/user/self')).body.success === true, 10_000, 'account');
  expect((await admin.call('PUT', '/api/user/', { id: alice.userId, quota: 10_000_000 })).body).toMatchObject({ success: true });
  keys.unlimited = (await alice.call('POST', '/api/token/', { name: 'tasks', unlimited_quota: true })).body.data[0].key;
  const limited = (await alice.call('POST', '/api/token/', { name: 'tasks-limited', unlimited_quota: false, remain_quota: 2_000_000 })).body.data[0];
  keys.limited = limited.key;
  limitedTokenId = limited.id;
  // Both relays learn the channels over NATS.
  for (const base of [cluster.gatewayUrl, replica.url]) {
    await waitFor(
      async () => {
        const response = await fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${keys.unlimited}` } });
        const ids = JSON.stringify(await response.json());
        return response.ok && ids.includes('"mj_imagine"') && ids.includes('"suno_music"') && ids.includes('"suno_lyrics"');
      },
      20_000,
      `task models routable at ${base}`,
    );
  }
  sampler = (async () => {
    while (sampling) {
      const token = await environment.infra.kv.get(jobLockKey(JobName.RelayTasksPoll)).catch(() => null);
      if (token && !lockHolders.has(token)) lockHolders.set(token, Date.now());
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
});

afterAll(async () => {
  sampling = false;
  await sampler;
  await relayDb?.destroy();
  await billing?.destroy();
  await cluster?.stop();
  await mock?.close();
  await environment?.cleanup();
});

const pidOf = (token: string) => Number(token.split(':').at(-2));
const balance = async () => (await alice.call('GET', '/api/user/self')).body.data.quota as number;
const limitedRemain = async () => (await alice.call('GET', `/api/token/${limitedTokenId}`)).body.data.remain_quota as number;
const accepted = () => submitted.filter((task) => task.taskId !== '');
const pollCalls = (path: string, since = 0) => mock.requests.filter((request) => request.path === path && request.method === 'POST' && request.time >= since);
const rows = async () => {
  const found = await relayDb.getRepository(TaskEntity).findBy({ task_id: In(accepted().map((task) => task.taskId)) });
  return new Map(found.map((row) => [`${row.platform}/${row.task_id}`, row]));
};
const rowOf = (all: Map<string, TaskEntity>, task: Submitted) => all.get(`${task.platform}/${task.taskId}`);
const finalStatus = (outcome: Outcome) => (outcome === 'success' ? 'SUCCESS' : 'FAILURE');

async function submit(task: Planned): Promise<Submitted> {
  const base = task.via === 'gateway' ? cluster.gatewayUrl : replica.url;
  const path = task.platform === 'midjourney' ? '/mj/submit/imagine' : task.model === 'suno_lyrics' ? '/suno/submit/lyrics' : '/suno/submit/music';
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keys[task.key]}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: `${task.name} --mock ${task.mock}`, ...(task.model === 'suno_music' ? { mv: 'chirp-v3-5', tags: 'pop' } : {}) }),
  });
  const body = (await response.json()) as { result?: string; data?: string };
  const taskId = response.status === 200 ? String((task.platform === 'midjourney' ? body.result : body.data) ?? '') : '';
  const result = { ...task, status: response.status, requestId: response.headers.get('x-oneapi-request-id') ?? '', taskId };
  submitted.push(result);
  return result;
}

/** Submits a batch six at a time. */
async function submitAll(batch: Planned[]): Promise<Submitted[]> {
  const results: Submitted[] = [];
  for (let start = 0; start < batch.length; start += 6) results.push(...(await Promise.all(batch.slice(start, start + 6).map(submit))));
  for (const task of results) {
    expect({ task: task.name, ok: task.status === 200, accepted: task.taskId !== '' }).toEqual({
      task: task.name,
      ok: task.outcome !== 'refused',
      accepted: task.outcome !== 'refused',
    });
  }
  return results;
}

describe('async tasks with two relays polling, the first killed part-way', () => {
  let startBalance: number;
  let startRemain: number;
  let killedAt = 0;
  let killedToken = '';
  let resumedAfterMs = 0;

  test('tasks submitted through the gateway and to the replica; the first relay dies holding the run lock; the replica polls on', async () => {
    startBalance = await balance();
    startRemain = await limitedRemain();
    await submitAll(beforeKill);
    // Every charge recorded (nothing left in the first relay's spool), some task under way, and
    // the first relay (not the replica) in the middle of a poll run.
    const logs = billing.getRepository(LogEntity);
    await waitFor(
      async () => (await logs.countBy({ request_id: In(submitted.map((task) => task.requestId)), type: 2 })) === submitted.length,
      20_000,
      'usage recorded',
    );
    await waitFor(async () => [...(await rows()).values()].some((row) => row.status === 'IN_PROGRESS'), 30_000, 'a task in progress');
    await waitFor(
      async () => {
        const token = await environment.infra.kv.get(jobLockKey(JobName.RelayTasksPoll));
        if (!token || pidOf(token) === replica.pid) return false;
        killedToken = token;
        return true;
      },
      30_000,
      'the first relay holding the run lock',
    );
    await cluster.kill('relay');
    killedAt = Date.now();
    const heldAtKill = (await environment.infra.kv.get(jobLockKey(JobName.RelayTasksPoll))) === killedToken;
    const unfinishedAtKill = [...(await rows()).values()].filter((row) => !['SUCCESS', 'FAILURE'].includes(row.status)).length;
    expect(unfinishedAtKill).toBeGreaterThan(0);

    await submitAll(afterKill);
    // The replica polls on: an upstream poll after the kill, and every task moving to its end.
    await waitFor(() => pollCalls('/mj/task/list-by-condition', killedAt).length > 0, 150_000, 'a poll after the kill');
    resumedAfterMs = pollCalls('/mj/task/list-by-condition', killedAt)[0]!.time - killedAt;
    // The dead run's lock expires by itself (TASK_POLL_LOCK_TTL_MS, 15 s, in the relay's plugin.ts), then the next run is the replica's.
    expect(resumedAfterMs).toBeLessThan(25_000);
    process.stdout.write(
      `cluster tasks: the first relay killed ${heldAtKill ? 'holding' : 'just after releasing'} the run lock (${killedToken}); the replica polled again ${resumedAfterMs} ms later\n`,
    );

    // The stuck ones, once in progress, are made an hour and a minute old.
    const stuck = accepted().filter((task) => task.outcome === 'stuck');
    await waitFor(
      async () => {
        const all = await rows();
        return stuck.every((task) => rowOf(all, task)?.status === 'IN_PROGRESS');
      },
      60_000,
      'stuck tasks in progress',
    );
    const all = await rows();
    await relayDb.getRepository(TaskEntity).update({ id: In(stuck.map((task) => rowOf(all, task)!.id)) }, { submit_time: Date.now() - 61 * 60_000 });

    await waitFor(
      async () => {
        const current = await rows();
        return accepted().every((task) => {
          const row = rowOf(current, task);
          return row?.status === finalStatus(task.outcome) && row.refunded === (row.status === 'FAILURE');
        });
      },
      120_000,
      'every task ended, every failed one refunded',
    );
    process.stdout.write(`cluster tasks: every task ended ${Date.now() - killedAt} ms after the kill\n`);
  });

  test('no missed update: each task in the store is as the upstream holds it (a stuck one failed by the timeout)', async () => {
    const all = await rows();
    const mjIds = accepted().filter((task) => task.platform === 'midjourney');
    const songs = accepted().filter((task) => task.platform === 'suno');
    // The mock's own view, without the channel's key (so without its latency); a finished task no longer moves.
    const upstreamSongs = (await (
      await fetch(`${mock.url}/suno/fetch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ids: songs.map((task) => task.taskId) }),
      })
    ).json()) as { data: Array<Record<string, unknown>> };
    const songById = new Map(upstreamSongs.data.map((song) => [song.task_id as string, song]));
    for (const task of mjIds) {
      const upstream = (await (await fetch(`${mock.url}/mj/task/${task.taskId}/fetch`)).json()) as Record<string, unknown>;
      const row = rowOf(all, task)!;
      const stuck = task.outcome === 'stuck';
      expect({
        task: task.name,
        status: row.status,
        progress: row.progress,
        failReason: row.fail_reason,
        imageUrl: row.image_url,
        finishTime: row.finish_time,
      }).toEqual({
        task: task.name,
        status: stuck ? 'FAILURE' : upstream.status,
        progress: upstream.progress,
        failReason: stuck ? 'the upstream task did not finish within 60 minutes' : (upstream.failReason ?? ''),
        imageUrl: upstream.imageUrl ?? '',
        finishTime: stuck ? expect.any(Number) : upstream.finishTime,
      });
      if (stuck) expect(upstream.status).toBe('IN_PROGRESS');
    }
    for (const task of songs) {
      const upstream = songById.get(task.taskId)!;
      const row = rowOf(all, task)!;
      const stuck = task.outcome === 'stuck';
      expect({ task: task.name, status: row.status, progress: row.progress, failReason: row.fail_reason, data: JSON.parse(row.data) as unknown }).toEqual({
        task: task.name,
        status: stuck ? 'FAILURE' : upstream.status,
        progress: upstream.progress,
        failReason: stuck ? 'the upstream task did not finish within 60 minutes' : upstream.fail_reason,
        data: upstream.data,
      });
      if (stuck) expect(upstream.status).toBe('IN_PROGRESS');
    }
  });

  test('one usage row per submit, each failed task refunded exactly once, balances exact, billing reconciled', async () => {
    const logs = await billing.getRepository(LogEntity).findBy({ request_id: In(submitted.map((task) => task.requestId)), type: 2 });
    for (const task of submitted) {
      const mine = logs.filter((log) => log.request_id === task.requestId);
      expect({ task: task.name, rows: mine.length, quota: mine[0]?.quota }).toEqual({ task: task.name, rows: 1, quota: task.taskId ? PRICE[task.model] : 0 });
    }
    const all = await rows();
    const failed = accepted().filter((task) => task.outcome !== 'success');
    const expected = Object.fromEntries(failed.map((task) => [`task-refund-${rowOf(all, task)!.id}`, PRICE[task.model]]));
    const ledger = billing.getRepository(LedgerEntryEntity);
    await waitFor(async () => (await ledger.countBy({ user_id: alice.userId!, kind: LedgerKind.Refund })) >= failed.length, 30_000, 'refunds applied');
    const refunds = await ledger.findBy({ user_id: alice.userId!, kind: LedgerKind.Refund });
    expect(refunds).toHaveLength(failed.length);
    expect(Object.fromEntries(refunds.map((refund) => [refund.request_id, refund.amount]))).toEqual(expected);

    const spent = (of: (task: Submitted) => boolean) =>
      accepted()
        .filter(of)
        .reduce((sum, task) => sum + PRICE[task.model]! - (task.outcome === 'success' ? 0 : PRICE[task.model]!), 0);
    await waitFor(async () => (await balance()) === startBalance - spent(() => true), 15_000, 'balance').catch(() => undefined);
    expect(await balance()).toBe(startBalance - spent(() => true));
    await waitFor(async () => (await limitedRemain()) === startRemain - spent((task) => task.key === 'limited'), 15_000, 'limited key').catch(() => undefined);
    expect(await limitedRemain()).toBe(startRemain - spent((task) => task.key === 'limited'));
    expect(await reconcile(billing)).toEqual([]);
  });

  test('the run lock: both relays ran the job, some runs found it held, and no two runs ever overlapped', async () => {
    const holders = [...lockHolders.entries()];
    const pids = new Set(holders.map(([token]) => pidOf(token)));
    // The first relay before the kill, the replica after it (and nobody else).
    expect(pids.has(pidOf(killedToken))).toBe(true);
    expect(holders.some(([token, seen]) => pidOf(token) === replica.pid && seen > killedAt)).toBe(true);
    expect(pids.size).toBe(2);
    // A run finding the lock held was skipped (runs outlast the interval here, so this happened).
    expect(await environment.infra.kv.get(jobSkipKey(JobName.RelayTasksPoll))).toContain('another run is in progress');
    const runs = (await readJobRuns(environment.infra.kv, [JobName.RelayTasksPoll])).get(JobName.RelayTasksPoll);
    expect(runs?.last_run?.outcome).toBe('ok');
    // Each run asks the Midjourney channel once and holds the lock until that answer (1.5 s) came:
    // two such calls less than 1.5 s apart would be two runs at once.
    const calls = pollCalls('/mj/task/list-by-condition').map((request) => request.time);
    expect(calls.length).toBeGreaterThan(5);
    const gaps = calls.slice(1).map((time, index) => time - calls[index]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(MJ_LATENCY_MS);
  });
});
