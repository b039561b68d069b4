import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { createInfrastructure, createSilentLogger, natsPasswordVariable, openDatabase, renderNatsAuthorization, type Infrastructure } from '@aigw/platform';
import { waitFor } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream } from '../../mock-upstream/server.mjs';
import { entryOf, serviceNames, startCluster, type Cluster, type ProcessName } from '../../cluster/cluster.mjs';
import { billingEntities } from '../../../services/billing/src/entities/index';
import { billingMigrations } from '../../../services/billing/src/migrations/index';
import { Client, freePorts } from '../../../services/gateway/test/support/cluster-client';
import { natsUsers, operatorUser, serviceUsers } from '../../../services/gateway/test/support/nats-authorization';
import { startNats, startPostgres, startRedis, freePort, type PrivateServer } from './servers';

/**
 * What a fault scenario runs against: the deployment (the distributed cluster on private
 * PostgreSQL, NATS with one user per service, and Redis; or the all-in-one process on SQLite),
 * the mock upstream behind two channels, root, and users with API keys made per scenario.
 */

export const ROOT_PASSWORD = 'root-pass-1234';

/** The models a load asks for, mapped per channel to the mock's behaviours (two channels, A and B). */
export const faultModels = {
  /** A stream of a second: long enough to be cut in the middle. */
  chat: 'fault-chat',
  /** Channel A never answers (headers timeout), B answers. */
  hang: 'fault-hang',
  /** Both channels cut the stream after ten chunks, after the 200 (no usage, no end). */
  cut: 'fault-cut',
  /** Both channels answer 429. */
  storm: 'fault-429',
} as const;

const normal = 'mock-gpt@chunks=40,delay=25';
const channelMappings: Array<Record<string, string>> = [
  {
    [faultModels.chat]: normal,
    [faultModels.hang]: 'mock-gpt@hang',
    [faultModels.cut]: `${normal},cut=10,nousage`,
    [faultModels.storm]: 'mock-gpt@status=429',
  },
  { [faultModels.chat]: normal, [faultModels.hang]: normal, [faultModels.cut]: `${normal},cut=10,nousage`, [faultModels.storm]: 'mock-gpt@status=429' },
];

export interface FaultUser {
  id: number;
  client: Client;
  /** An unlimited key and a limited one. */
  keys: Array<{ id: number; key: string }>;
}

export interface World {
  topology: 'distributed' | 'all-in-one';
  gatewayUrl(): string;
  mock: MockUpstream;
  admin: Client;
  /** Billing's tables (logs, accounts, ledger) for the checks. */
  billing: DataSource;
  /** Redis counters and Kv of the deployment (distributed only: the all-in-one keeps them in its memory). */
  infra?: Infrastructure;
  servers: Partial<Record<'postgres' | 'redis' | 'nats', PrivateServer>>;
  /** Kills (SIGKILL) and starts again one process of the deployment: `all-in-one` is the whole process. */
  kill(name: ProcessName | 'all-in-one'): Promise<void>;
  /** Starts a killed process again; `extraEnv` is for this start only. */
  restart(name: ProcessName | 'all-in-one', extraEnv?: Record<string, string>): Promise<void>;
  /** A publisher on the deployment's NATS with a user that is not the relay's (distributed only). */
  natsCredentials?: { url: string; users: Record<string, string>; namespace: string };
  newUsers(count: number, quota: number): Promise<FaultUser[]>;
  /** The last lines the deployment printed (for a failure's message). */
  logs(): string[];
  stop(): Promise<void>;
}

/** Shortened timers, so a dead relay's holds are swept and a hung upstream is given up in seconds. */
const fastTimers = {
  HOLD_LEASE_TTL_MS: '1000',
  HOLD_SWEEP_INTERVAL_MS: '1000',
  PENDING_SWEEP_INTERVAL_MS: '1000',
  UPSTREAM_HEADERS_TIMEOUT_MS: '2000',
  STREAMING_TIMEOUT_MS: '5000',
};

async function configure(world: Pick<World, 'admin' | 'mock'>): Promise<void> {
  for (const [key, value] of [
    ['AllowPrivateNetworkUpstreams', 'true'],
    ['ModelRatio', JSON.stringify({ 'fault-*': 1, 'mock-*': 1 })],
    ['CompletionRatio', JSON.stringify({ 'fault-*': 2 })],
    ['QuotaRemindThreshold', '0'],
    ['RetryTimes', '2'],
  ]) {
    const answer = await world.admin.call('PUT', '/api/option/', { key, value });
    if (!answer.body.success) throw new Error(`option ${key}: ${answer.body.message}`);
  }
  for (const [index, mapping] of channelMappings.entries()) {
    const answer = await world.admin.call('POST', '/api/channel/', {
      type: 1,
      name: `fault-${'AB'[index]}`,
      key: `mock-key-${index}`,
      base_url: world.mock.url,
      models: Object.values(faultModels).join(','),
      group: 'default',
      model_mapping: JSON.stringify(mapping),
      allow_private_network: true,
    });
    if (!answer.body.success) throw new Error(`channel: ${answer.body.message}`);
  }
}

/** Registers `count` users with `quota` each, and two keys each; waits until the relay serves them. */
async function makeUsers(world: Pick<World, 'admin' | 'gatewayUrl'>, count: number, quota: number): Promise<FaultUser[]> {
  const users: FaultUser[] = [];
  for (let index = 0; index < count; index++) {
    const username = `f${crypto.randomBytes(5).toString('hex')}`;
    const client = new Client(world.gatewayUrl());
    const registered = await client.call('POST', '/api/user/register', { username, password: `${username}-pass`, password2: `${username}-pass` });
    if (!registered.body.success) throw new Error(`register: ${registered.body.message}`);
    const login = await client.login(username, `${username}-pass`);
    if (!login.success) throw new Error(`login: ${login.message}`);
    await waitFor(async () => (await client.call('GET', '/api/user/self')).body.success === true, 20_000, 'account');
    const funded = await world.admin.call('PUT', '/api/user/', { id: client.userId, quota });
    if (!funded.body.success) throw new Error(`quota: ${funded.body.message}`);
    const keys: FaultUser['keys'] = [];
    for (const body of [
      { name: 'unlimited', unlimited_quota: true },
      { name: 'limited', unlimited_quota: false, remain_quota: Math.floor(quota / 2) },
    ]) {
      const created = await client.call<Array<{ id: number; key: string }>>('POST', '/api/token/', body);
      if (!created.body.success) throw new Error(`token: ${created.body.message}`);
      const [token] = created.body.data!;
      keys.push({ id: token!.id, key: token!.key });
    }
    users.push({ id: client.userId!, client, keys });
  }
  return users;
}

function admin(url: () => string): Client {
  // The gateway's URL may change (the all-in-one restarts on the same port: it does not), so ask each time.
  return new Client(url());
}

export async function startDistributedWorld(): Promise<World> {
  for (const name of [...serviceNames, 'gateway'] as const) entryOf(name);
  const namespace = `faults${crypto.randomBytes(3).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-faults-'));
  const passwords = Object.fromEntries([...serviceUsers, operatorUser].map((user) => [user, `n${crypto.randomBytes(16).toString('hex')}`]));
  const passwordEnv = Object.fromEntries(Object.entries(passwords).map(([user, password]) => [natsPasswordVariable(user), password]));
  const configFile = path.join(dataDir, 'nats-authorization.conf');
  fs.writeFileSync(configFile, renderNatsAuthorization(natsUsers(namespace)));

  const servers: World['servers'] = {};
  const lines: string[] = [];
  let cluster: Cluster | undefined;
  let mock: MockUpstream | undefined;
  try {
    servers.postgres = await startPostgres();
    servers.redis = await startRedis();
    servers.nats = await startNats({ config: configFile, env: passwordEnv });
    mock = await startMockUpstream({ models: ['mock-gpt'], maxRecorded: 1_000_000 });
    const [gateway, ...servicePorts] = await freePorts(1 + serviceNames.length);
    const ports: Partial<Record<ProcessName, number>> = { gateway };
    serviceNames.forEach((name, index) => (ports[name] = servicePorts[index]));
    cluster = await startCluster({
      env: {
        PATH: process.env.PATH,
        NAMESPACE: namespace,
        DATA_DIR: dataDir,
        DATABASE_URL: servers.postgres.url,
        NATS_URL: servers.nats.url,
        REDIS_URL: servers.redis.url,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        GLOBAL_API_RATE_LIMIT: '0',
        CRITICAL_RATE_LIMIT: '100000',
        SHUTDOWN_GRACE_MS: '5000',
        INITIAL_ROOT_PASSWORD: ROOT_PASSWORD,
        INTERNAL_SECRET: crypto.randomBytes(32).toString('base64url'),
        ...passwordEnv,
        ...fastTimers,
      },
      ports,
      log: (name, line) => {
        lines.push(`[${name}] ${line}`);
        if (lines.length > 2000) lines.splice(0, 1000);
      },
    });
  } catch (error) {
    await cluster?.stop();
    await mock?.close();
    for (const server of Object.values(servers)) await server.remove();
    throw new Error(`${(error as Error).message}\n${lines.slice(-40).join('\n')}`, { cause: error });
  }
  const running = cluster;
  const gatewayUrl = () => running.gatewayUrl;
  const infra = await createInfrastructure({ NAMESPACE: namespace, REDIS_URL: servers.redis.url }, createSilentLogger());
  const billing = await openDatabase({
    url: servers.postgres.url,
    dataDir,
    schema: `${namespace}_billing`,
    entities: billingEntities,
    migrations: billingMigrations,
    logger: createSilentLogger(),
  });
  const world: World = {
    topology: 'distributed',
    gatewayUrl,
    mock,
    admin: admin(gatewayUrl),
    billing,
    infra,
    servers,
    natsCredentials: { url: servers.nats.url, users: passwords, namespace },
    kill: (name) => running.kill(name as ProcessName),
    async restart(name, extraEnv) {
      try {
        await running.restart(name as ProcessName, extraEnv);
      } catch (error) {
        // What the process said before it gave up is the diagnosis.
        throw new Error(
          `${(error as Error).message}\n${lines
            .filter((line) => line.startsWith(`[${name}]`))
            .slice(-20)
            .join('\n')}`,
          { cause: error },
        );
      }
    },
    newUsers: (count, quota) => makeUsers(world, count, quota),
    logs: () => lines.slice(-60),
    async stop() {
      await running.stop();
      await billing.destroy();
      await infra.close();
      await mock.close();
      for (const server of Object.values(servers)) await server.remove();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const login = await world.admin.login('root', ROOT_PASSWORD);
  if (!login.success) throw new Error(`root login: ${login.message}`);
  await configure(world);
  return world;
}

/**
 * The all-in-one process (`node services/gateway/dist/main.js`) on SQLite with the in-process bus
 * and stores, as `npm start` runs it: what it keeps in memory is gone after a kill -9.
 */
export async function startAllInOneWorld(): Promise<World> {
  entryOf('gateway');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-faults-aio-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const lines: string[] = [];
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(process.execPath, [entryOf('gateway')], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        GLOBAL_API_RATE_LIMIT: '0',
        CRITICAL_RATE_LIMIT: '100000',
        INITIAL_ROOT_PASSWORD: ROOT_PASSWORD,
        WEB_DIST_DIR: path.join(dataDir, 'no-web'),
        ...fastTimers,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    const started = child;
    await waitFor(
      async () => {
        if (started.exitCode !== null) throw new Error(`the all-in-one process exited (${started.exitCode}):\n${lines.slice(-30).join('\n')}`);
        return (await fetch(`${url}/healthz`).catch(() => undefined))?.ok === true;
      },
      60_000,
      'all-in-one healthy',
    );
  };
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  const mock = await startMockUpstream({ models: ['mock-gpt'], maxRecorded: 1_000_000 });
  const billing = await openDatabase({ dataDir, schema: 'billing', entities: billingEntities, migrations: billingMigrations, logger: createSilentLogger() });
  const world: World = {
    topology: 'all-in-one',
    gatewayUrl: () => url,
    mock,
    admin: admin(() => url),
    billing,
    servers: {},
    kill: () => kill(),
    restart: () => start(),
    newUsers: (count, quota) => makeUsers(world, count, quota),
    logs: () => lines.slice(-60),
    async stop() {
      if (child && child.exitCode === null) {
        const exited = new Promise((resolve) => child!.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await billing.destroy();
      await mock.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const login = await world.admin.login('root', ROOT_PASSWORD);
  if (!login.success) throw new Error(`root login: ${login.message}`);
  await configure(world);
  return world;
}
