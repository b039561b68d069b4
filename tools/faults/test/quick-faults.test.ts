// The fault suite's quick subset, in `npm test` (the whole suite: `npm run test:faults`,
// docs/reliability.md): on the distributed topology with its own PostgreSQL, Redis and NATS,
// the relay killed with -9 mid-stream, the relay killed while NATS is away (what it served then
// waits in its usage outbox and is published once both are back), and clients leaving at every
// phase of a stream. Each must keep every money invariant.
import { runScenario, scenarios } from '../harness/scenarios';
import { kept } from '../harness/scorecard';
import { startDistributedWorld, type World } from '../harness/world';

jest.setTimeout(10 * 60_000);

let world: World;
beforeAll(async () => {
  world = await startDistributedWorld();
});
afterAll(async () => {
  await world?.stop();
});

it.each([scenarios.relayKill, scenarios.relayKillNatsAway, scenarios.disconnects].map((scenario) => [scenario.name, scenario] as const))(
  '%s: nothing lost, nothing doubled, served again',
  async (_name, scenario) => {
    const result = await runScenario(world, scenario);
    expect(result).toMatchObject({ lost: 0, doubled: 0, negative: 0, openHolds: 0, refusedCharged: 0, unreconciled: 0 });
    expect(result.reachedUpstream).toBeGreaterThan(0);
    expect(result.recoverySeconds).not.toBeNull();
    expect(kept(result)).toBe(true);
  },
);
