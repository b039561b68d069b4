// The whole fault suite (`npm run test:faults`, docs/reliability.md): every scenario on the
// distributed topology (private PostgreSQL, Redis and NATS with one user per service), the
// forged usage record, and kill -9 of the all-in-one process on SQLite. Each must keep every
// money invariant; the scorecard of the run is written to docs/reliability.md and .json.
import { forgedUsage, runScenario, runScenarioWithRequests, scenarios, type Scenario } from './harness/scenarios';
import { kept, writeScorecard } from './harness/scorecard';
import type { ScenarioResult } from './harness/checks';
import { startAllInOneWorld, startDistributedWorld, type World } from './harness/world';

jest.setTimeout(30 * 60_000);

const distributed: Scenario[] = [
  scenarios.relayKill,
  scenarios.billingKill,
  scenarios.gatewayKill,
  scenarios.nats10,
  scenarios.nats60,
  scenarios.relayKillNatsAway,
  scenarios.redisRestart,
  scenarios.postgresRestart,
  scenarios.upstreamHang,
  scenarios.streamCut,
  scenarios.storm,
  scenarios.disconnects,
];

const results: Array<{ result: ScenarioResult; fault: string }> = [];
const startedAt = Date.now();

afterAll(() => {
  if (results.length > 0) writeScorecard(results, (Date.now() - startedAt) / 1000);
});

describe('distributed topology', () => {
  let world: World;
  beforeAll(async () => {
    world = await startDistributedWorld();
  });
  afterAll(async () => {
    await world?.stop();
  });

  it.each(distributed.map((scenario) => [scenario.name, scenario] as const))('%s: nothing lost, nothing doubled', async (_name, scenario) => {
    const result = await runScenario(world, scenario);
    results.push({ result, fault: scenario.fault });
    expect(result).toMatchObject({ lost: 0, doubled: 0, negative: 0, openHolds: 0, refusedCharged: 0, unreconciled: 0 });
    expect(result.recoverySeconds).not.toBeNull();
    expect(kept(result)).toBe(true);
  });

  it('NATS away past the outbox bound: new requests are refused (503) rather than served unbilled, and nothing is lost', async () => {
    const scenario = scenarios.outboxFull;
    try {
      const { result, sent } = await runScenarioWithRequests(world, scenario);
      results.push({ result, fault: scenario.fault });
      expect(sent.filter((request) => request.code === 'usage_spool_full').every((request) => request.status === 503)).toBe(true);
      expect(sent.some((request) => request.code === 'usage_spool_full')).toBe(true);
      expect(kept(result)).toBe(true);
    } finally {
      // The relay with its usual bound again.
      await world.kill('relay');
      await world.restart('relay');
    }
  });

  it('a usage record forged by a service that is not the relay, or by an outsider, is refused and charges nothing', async () => {
    const result = await forgedUsage(world);
    results.push({ result, fault: 'usage records published with the notifier, channels, identity and billing NATS users, and with no user' });
    expect(result.refused).toBe(5);
    expect(kept(result)).toBe(true);
  });
});

describe('all-in-one topology', () => {
  let world: World;
  beforeAll(async () => {
    world = await startAllInOneWorld();
  });
  afterAll(async () => {
    await world?.stop();
  });

  it('kill -9 of the all-in-one process: nothing lost, nothing doubled', async () => {
    const result = await runScenario(world, scenarios.allInOneKill);
    results.push({ result, fault: scenarios.allInOneKill.fault });
    expect(result).toMatchObject({ lost: 0, doubled: 0, negative: 0, refusedCharged: 0, unreconciled: 0 });
  });
});
