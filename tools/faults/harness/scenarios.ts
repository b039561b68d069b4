import { In } from 'typeorm';
import { createBus, createSilentLogger, type Bus } from '@aigw/platform';
import { LogEntity } from '../../../services/billing/src/entities/index';
import { waitFor } from '@aigw/platform/testing';
import { settleAndCheck, type ScenarioResult } from './checks';
import { startLoad, type Load, type LeavePhase, type LoadOptions, type SentRequest } from './load';
import { faultModels, type World } from './world';

/**
 * The fault scenarios (docs/reliability.md lists each with what it does): each runs a load
 * of the scenario's own users, injects its fault while requests are in flight, heals it, and
 * hands the requests to the checks. `run` answers when the fault was healed.
 */
export interface Scenario {
  name: string;
  /** What it does, for the scorecard. */
  fault: string;
  topology: World['topology'];
  load?: (mode: Mode) => Partial<LoadOptions>;
  run(world: World, load: Load, mode: Mode): Promise<number>;
}

/** What a scenario switches while its load runs (the model the workers ask for). */
export interface Mode {
  model: string;
}

const seconds = (count: number) => new Promise((resolve) => setTimeout(resolve, count * 1000));

/** Until requests are in flight (streams mid-answer): the moment a fault is worth injecting. */
async function busy(load: Load, atLeast = 3): Promise<void> {
  await waitFor(async () => load.inFlight() >= atLeast && load.sent.length >= 4, 30_000, 'requests in flight');
  // Into their answers: a stream of the normal model lasts a second.
  await seconds(0.4);
}

function killAndRestart(name: 'relay' | 'billing' | 'gateway', fault: string): Scenario {
  return {
    name: `kill -9 ${name}`,
    fault,
    topology: 'distributed',
    async run(world, load) {
      await busy(load);
      await world.kill(name);
      await seconds(1);
      await world.restart(name);
      return Date.now();
    },
  };
}

function serverDown(server: 'nats' | 'redis' | 'postgres', downSeconds: number, fault: string, how: 'stop' | 'kill' = 'stop'): Scenario {
  return {
    name: `${server} ${how === 'kill' ? 'restarted (data lost)' : `down ${downSeconds} s`}`,
    fault,
    topology: 'distributed',
    async run(world, load) {
      const target = world.servers[server]!;
      await busy(load);
      await (how === 'kill' ? target.kill() : target.stop());
      await seconds(downSeconds);
      await target.start();
      return Date.now();
    },
  };
}

/** The load asks for `model` for `forSeconds`, then the normal chat again (the heal). */
function upstreamFault(name: string, model: string, forSeconds: number, fault: string): Scenario {
  return {
    name,
    fault,
    topology: 'distributed',
    load: (mode) => ({ model: () => mode.model }),
    async run(_world, load, mode) {
      await busy(load);
      mode.model = model;
      await seconds(forSeconds);
      mode.model = faultModels.chat;
      return Date.now();
    },
  };
}

const phases: LeavePhase[] = ['before-headers', 'after-headers', 'mid-stream', 'before-end'];

export const scenarios = {
  relayKill: killAndRestart('relay', 'the relay killed with -9 while streams are in flight, then restarted'),
  billingKill: killAndRestart('billing', 'billing killed with -9 in the middle of its batches, then restarted'),
  gatewayKill: killAndRestart('gateway', 'the gateway (the proxy in front of every service) killed with -9, then restarted'),
  nats10: serverDown('nats', 10, 'NATS stopped for 10 s under load, then started again'),
  nats60: serverDown('nats', 60, 'NATS stopped for 60 s under load, then started again'),
  redisRestart: serverDown('redis', 1, 'Redis killed and restarted without persistence: holds, leases and counters gone', 'kill'),
  postgresRestart: serverDown('postgres', 3, 'PostgreSQL shut down (fast) for 3 s under load, then started again'),
  upstreamHang: upstreamFault('upstream hangs', faultModels.hang, 6, 'channel A accepts requests and never answers (headers timeout 2 s, retried on B)'),
  streamCut: upstreamFault('streams cut after the 200', faultModels.cut, 4, 'both channels close streams after ten chunks, without usage or an end'),
  storm: upstreamFault('429 storm', faultModels.storm, 4, 'both channels answer every request with 429'),
  disconnects: {
    name: 'clients leave at every phase',
    fault: 'clients disconnect before the headers, after them, mid-stream and just before the end',
    topology: 'distributed',
    load: () => {
      let turn = 0;
      return { leave: () => phases[turn++ % phases.length] };
    },
    async run(_world, load) {
      await busy(load);
      await seconds(4);
      return Date.now();
    },
  } satisfies Scenario,
  relayKillNatsAway: {
    name: 'relay killed while NATS is away',
    fault: 'NATS stopped, requests served for 3 s with their usage in the outbox, the relay killed with -9, NATS started, the relay restarted',
    topology: 'distributed',
    async run(world, load) {
      const nats = world.servers.nats!;
      await busy(load);
      await nats.stop();
      await seconds(3);
      await world.kill('relay');
      await nats.start();
      await world.restart('relay');
      return Date.now();
    },
  } satisfies Scenario,
  outboxFull: {
    name: 'NATS away past the outbox bound',
    fault:
      "the relay's usage outbox bounded to 20 records (USAGE_OUTBOX_MAX_RECORDS), NATS stopped until new requests are refused with 503 usage_spool_full, then started",
    topology: 'distributed',
    async run(world, load) {
      await world.kill('relay');
      await world.restart('relay', { USAGE_OUTBOX_MAX_RECORDS: '20' });
      await busy(load);
      const nats = world.servers.nats!;
      await nats.stop();
      await waitFor(async () => load.sent.some((request) => request.code === 'usage_spool_full'), 60_000, 'refused at the outbox bound');
      await nats.start();
      return Date.now();
    },
  } satisfies Scenario,
  allInOneKill: {
    name: 'kill -9 all-in-one (SQLite)',
    fault: 'the all-in-one process (SQLite, in-process bus and stores) killed with -9 while streams are in flight, then restarted',
    topology: 'all-in-one',
    async run(world, load) {
      await busy(load);
      await world.kill('all-in-one');
      await world.restart('all-in-one');
      return Date.now();
    },
  } satisfies Scenario,
} satisfies Record<string, Scenario>;

/** Runs one scenario on `world` with four new users, and checks it. */
export async function runScenario(world: World, scenario: Scenario, options: { workers?: number; tailSeconds?: number } = {}): Promise<ScenarioResult> {
  return (await runScenarioWithRequests(world, scenario, options)).result;
}

/** As runScenario, with the requests the load sent (for a scenario's own assertions). */
export async function runScenarioWithRequests(
  world: World,
  scenario: Scenario,
  options: { workers?: number; tailSeconds?: number } = {},
): Promise<{ result: ScenarioResult; sent: SentRequest[] }> {
  const users = await world.newUsers(4, 20_000_000);
  const mode: Mode = { model: faultModels.chat };
  const load = startLoad(world, users, { workers: options.workers ?? 6, ...scenario.load?.(mode) });
  let healedAt: number;
  try {
    healedAt = await scenario.run(world, load, mode);
    // Served again: the load runs on until a request started after the heal succeeded (or a bound).
    await waitFor(async () => load.sent.some((request) => request.startedAt >= healedAt && request.complete), 60_000, `${scenario.name}: served again`).catch(
      () => undefined,
    );
    await seconds(options.tailSeconds ?? 1);
  } finally {
    await load.stop();
  }
  return { result: await settleAndCheck(world, scenario.name, users, load.sent, healedAt), sent: load.sent };
}

/**
 * A usage record forged by someone who is not the relay (K-forge): published with another
 * service's NATS user, and with none. Both must be refused, and nothing charged.
 */
export async function forgedUsage(world: World): Promise<ScenarioResult> {
  const credentials = world.natsCredentials!;
  const [victim] = await world.newUsers(1, 1_000_000);
  const forgedIds: string[] = [];
  const forged = (id: string) => ({
    request_id: id,
    user_id: victim!.id,
    token_id: victim!.keys[0]!.id,
    token_name: 'forged',
    model_name: faultModels.chat,
    group: 'default',
    channel_id: 1,
    prompt_tokens: 1,
    completion_tokens: 1,
    quota: 500_000,
    use_time_ms: 1,
    is_stream: false,
    created_at: Math.floor(Date.now() / 1000),
    content: 'forged',
    other: {},
  });
  let refused = 0;
  const attempts = ['notifier', 'channels', 'identity', 'billing'];
  for (const user of attempts) {
    const id = `forged-${user}-${Date.now()}`;
    forgedIds.push(id);
    let bus: Bus | undefined;
    try {
      bus = await createBus({
        natsUrl: credentials.url,
        namespace: credentials.namespace,
        logger: createSilentLogger(),
        natsUser: user,
        natsPassword: credentials.users[user],
      });
      await bus.publish('relay.usage.recorded', forged(id), { id });
    } catch {
      refused += 1;
    } finally {
      await bus?.close().catch(() => undefined);
    }
  }
  // No user at all: the server refuses the connection.
  try {
    const bus = await createBus({ natsUrl: credentials.url, namespace: credentials.namespace, logger: createSilentLogger() });
    await bus.close();
  } catch {
    refused += 1;
  }
  // A genuine request after them: once its record is in, anything forged before it would be too (one stream, in order).
  const load = startLoad(world, [victim!], { workers: 1 });
  await waitFor(async () => load.sent.some((request) => request.complete), 30_000, 'a genuine request');
  const sent = await load.stop();
  const result = await settleAndCheck(world, 'forged usage record', [victim!], sent, Date.now());
  const logs = world.billing.getRepository(LogEntity);
  const landed = await logs.countBy({ request_id: In(forgedIds) });
  return { ...result, sent: result.sent + attempts.length + 1, refused: result.refused + refused, doubled: result.doubled + landed };
}
