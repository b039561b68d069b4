import { randomUUID } from 'node:crypto';
import { eventExamples, MAX_QUOTA, type UsageRecord } from '@aigw/contracts';
import { replyTyped } from '../src/messaging.js';
import {
  counterKeys,
  createQuotaGate,
  HOLD_GRACE_MS,
  holdAmountKey,
  holdKey,
  leaseKey,
  leaseState,
  readCheckpoint,
  releaseCommitted,
  type QuotaGate,
  type QuotaHold,
} from '../src/quota/quota-gate.js';
import { backends, createTestEnvironment, deleteRedisKeys, waitFor, type TestEnvironment } from '../src/testing/infrastructure.js';
import { createSilentLogger } from '../src/logger.js';
import { BusRequestError, type Subscription } from '../src/bus/bus.js';

const holdTtlMs = 30_000;

/** A usage record of `quota` for a hold (what a stream's checkpoint carries), from the catalogue's example. */
function usageRecordFor(hold: QuotaHold, quota: number): UsageRecord {
  return { ...eventExamples['relay.usage.recorded'], request_id: hold.requestId, user_id: hold.userId, token_id: hold.tokenId, quota, content: 'checkpoint' };
}

/** The same suite on the in-memory counters/kv/bus and on Redis + NATS. */
describe.each(backends)('quota gate (%s)', (backend) => {
  let env: TestEnvironment;
  let gate: QuotaGate;
  let responder: Subscription;
  /** What the fake billing seeds from: the "database" balances. */
  const database = { users: new Map<number, number>(), tokens: new Map<number, number>() };
  const seedRequests: Array<{ user_id: number; token_id: number }> = [];
  /** Users whose seeding fails (billing's database away). */
  const failing = new Set<number>();
  let nextId = 1000;
  const freshId = () => ++nextId;

  beforeAll(async () => {
    env = await createTestEnvironment(backend);
    const { counters } = env.infra;
    // A tiny stand-in for billing's responder: SET NX from the map, like the real one.
    responder = await replyTyped(env.infra.bus, 'billing.quota.seed', async (request) => {
      seedRequests.push(request);
      if (failing.has(request.user_id)) throw new Error('database unavailable');
      const user = await counters.seed(counterKeys.user(request.user_id), database.users.get(request.user_id) ?? 0, counterKeys.userHeld(request.user_id));
      const tokenBalance = database.tokens.get(request.token_id);
      const token = request.token_id > 0 && tokenBalance !== undefined ? await counters.seed(counterKeys.token(request.token_id), tokenBalance) : null;
      return { user, token };
    });
    gate = createQuotaGate({ ...env.infra, logger: createSilentLogger(), instanceName: `relay-${env.namespace}` });
    await gate.start();
  });

  afterAll(async () => {
    await gate?.close();
    await responder?.unsubscribe();
    await env?.cleanup();
  });

  const reserve = (userId: number, tokenId: number, amount: number, unlimitedToken = false, requestId: string = randomUUID(), on: QuotaGate = gate) =>
    on.reserve({ requestId, userId, tokenId, unlimitedToken, amount, ttlMs: holdTtlMs });
  const held = (outcome: Awaited<ReturnType<typeof reserve>>): QuotaHold => {
    if (!outcome.ok) throw new Error(`not reserved: ${outcome.reason}`);
    return outcome.hold;
  };
  const counter = (key: string) => env.infra.counters.get(key);

  it('200 parallel reserves against a balance covering 50 succeed exactly 50 times; the counter never goes below zero', async () => {
    const userId = freshId();
    database.users.set(userId, 50 * 7);
    // The counter starts missing: the burst also exercises seeding under concurrency.
    const results = await Promise.all(Array.from({ length: 200 }, () => reserve(userId, 0, 7)));
    const granted = results.filter((result) => result.ok);
    expect(granted).toHaveLength(50);
    for (const result of granted) expect(result.ok && result.remaining.user).toBeGreaterThanOrEqual(0);
    expect(results.filter((result) => !result.ok).every((result) => !result.ok && result.reason === 'insufficient_user_quota')).toBe(true);
    expect(await env.infra.counters.get(counterKeys.user(userId))).toBe(0);
    // Billing was asked a few times at most (one in flight per user in this process), never 200.
    expect(seedRequests.filter((request) => request.user_id === userId).length).toBeLessThanOrEqual(2);
  });

  it('limits by the token counter independently, all or nothing', async () => {
    const userId = freshId();
    const tokenId = freshId();
    database.users.set(userId, 1000);
    database.tokens.set(tokenId, 100);
    expect((await reserve(userId, tokenId, 60)).ok).toBe(true);
    expect(await reserve(userId, tokenId, 60)).toEqual({ ok: false, reason: 'insufficient_token_quota' });
    // The refused reservation took nothing from the user either.
    expect(await env.infra.counters.get(counterKeys.user(userId))).toBe(940);
    expect(await env.infra.counters.get(counterKeys.token(tokenId))).toBe(40);
    // A second token of the same user has its own limit.
    const other = freshId();
    database.tokens.set(other, 500);
    expect((await reserve(userId, other, 400)).ok).toBe(true);
    expect(await reserve(userId, other, 600)).toEqual({ ok: false, reason: 'insufficient_user_quota' });
  });

  it('unlimited tokens and playground requests only touch the user counter', async () => {
    const userId = freshId();
    const tokenId = freshId();
    database.users.set(userId, 100);
    database.tokens.set(tokenId, 1);
    const unlimited = await reserve(userId, tokenId, 80, true);
    expect(unlimited).toMatchObject({ ok: true, hold: { userId, tokenId: 0, amount: 80 }, remaining: { user: 20, token: null } });
    expect(await env.infra.counters.get(counterKeys.token(tokenId))).toBeNull();
    expect(seedRequests).toContainEqual({ user_id: userId, token_id: 0 });
    expect(await reserve(userId, 0, 20)).toMatchObject({ ok: true, remaining: { user: 0, token: null } });
  });

  it('settles a refund, and a charge above the hold only up to what the user and the key have left: never below zero', async () => {
    const userId = freshId();
    const tokenId = freshId();
    database.users.set(userId, 1000);
    database.tokens.set(tokenId, 500);
    const refund = held(await reserve(userId, tokenId, 300));
    expect(await gate.settle(refund, 120)).toEqual({ delta: 180, found: true, charged: 120 });
    expect(await counter(counterKeys.user(userId))).toBe(880);
    expect(await counter(counterKeys.token(tokenId))).toBe(380);

    // 50 above a hold of 100, and both counters can pay it.
    const above = held(await reserve(userId, tokenId, 100));
    expect(await gate.settle(above, 150)).toEqual({ delta: -50, found: true, charged: 150 });
    expect([await counter(counterKeys.user(userId)), await counter(counterKeys.token(tokenId))]).toEqual([730, 230]);

    // The key has 230 left, all of it held: 100 more is charged nothing more.
    const extra = held(await reserve(userId, tokenId, 230));
    expect(await gate.settle(extra, 330)).toEqual({ delta: 0, found: true, charged: 230 });
    expect([await counter(counterKeys.user(userId)), await counter(counterKeys.token(tokenId))]).toEqual([500, 0]);
    expect(await counter(counterKeys.userHeld(userId))).toBe(120 + 150 + 230);
    expect(await reserve(userId, tokenId, 1)).toEqual({ ok: false, reason: 'insufficient_token_quota' });
  });

  it('extends a running hold by what is asked, or what is left, atomically against concurrent requests', async () => {
    const userId = freshId();
    const tokenId = freshId();
    database.users.set(userId, 1000);
    database.tokens.set(tokenId, 400);
    const hold = held(await reserve(userId, tokenId, 100));
    expect(await gate.extend(hold, 100)).toBe(100);
    expect(hold.amount).toBe(200);
    expect((await gate.getHold(hold.requestId))!.amount).toBe(200);
    // Ten running requests of the key extend by 70 at once, for the 200 it has left: exactly 200 is granted.
    const others = await Promise.all(Array.from({ length: 10 }, async () => held(await reserve(userId, tokenId, 0))));
    const granted = await Promise.all(others.map((other) => gate.extend(other, 70)));
    expect(granted.reduce((sum, value) => sum + value, 0)).toBe(200);
    expect(others.reduce((sum, other) => sum + other.amount, 0)).toBe(200);
    expect(await gate.extend(hold, 10)).toBe(0);
    expect([await counter(counterKeys.token(tokenId)), await counter(counterKeys.user(userId))]).toEqual([0, 600]);
    // What is left is taken when less than asked: the user's 30, the key unlimited.
    const userOnly = freshId();
    database.users.set(userOnly, 100);
    const small = held(await reserve(userOnly, 0, 70));
    expect(await gate.extend(small, 50)).toBe(30);
    expect(await counter(counterKeys.user(userOnly))).toBe(0);
    // Settled at 60 of the 100 held: 40 comes back.
    expect(await gate.settle(small, 60)).toEqual({ delta: 40, found: true, charged: 60 });
    expect([await counter(counterKeys.user(userOnly)), await counter(counterKeys.userHeld(userOnly))]).toEqual([40, 60]);
  });

  it('an extension of a hold swept meanwhile is given back', async () => {
    const userId = freshId();
    database.users.set(userId, 100);
    const hold = held(await reserve(userId, 0, 40));
    await gate.sweep(hold.expiresAt);
    expect(await gate.extend(hold, 30)).toBe(0);
    expect([await counter(counterKeys.user(userId)), await counter(counterKeys.userHeld(userId))]).toEqual([100, 0]);
  });

  it("a swept stream's checkpoint is charged (at most the hold) and its record published instead of nothing", async () => {
    const userId = freshId();
    database.users.set(userId, 1000);
    const hold = held(await reserve(userId, 0, 300));
    const record = { ...usageRecordFor(hold, 250), note: 'checkpoint' };
    await gate.checkpoint(hold, record);
    expect(await readCheckpoint(env.infra.kv, hold.requestId)).toEqual(record);
    const swept = (await gate.sweep(hold.expiresAt)).find((entry) => entry.requestId === hold.requestId);
    expect(swept?.record).toEqual(record);
    // 250 charged (held until billing commits it), 50 back.
    expect([await counter(counterKeys.user(userId)), await counter(counterKeys.userHeld(userId))]).toEqual([750, 250]);
    // A checkpoint above the hold (it cannot be: the stream stops there) is charged the hold.
    const second = held(await reserve(userId, 0, 100));
    await gate.checkpoint(second, usageRecordFor(second, 400));
    const capped = (await gate.sweep(second.expiresAt)).find((entry) => entry.requestId === second.requestId);
    expect(capped?.record?.quota).toBe(100);
    expect(await counter(counterKeys.user(userId))).toBe(650);
  });

  it("keeps spendable = database balance - held through reserve, settle and billing's commit", async () => {
    const userId = freshId();
    database.users.set(userId, 1000);
    const first = held(await reserve(userId, 0, 300));
    const second = held(await reserve(userId, 0, 100));
    expect([await counter(counterKeys.user(userId)), await counter(counterKeys.userHeld(userId))]).toEqual([600, 400]);
    await gate.settle(first, 120);
    // 120 settled (billing has not committed it yet) + 100 still held.
    expect([await counter(counterKeys.user(userId)), await counter(counterKeys.userHeld(userId))]).toEqual([780, 220]);
    // Billing commits the 120: the database balance drops, and so does what is held.
    database.users.set(userId, 880);
    await releaseCommitted(env.infra.counters, [{ userId, quota: 120 }]);
    expect(await counter(counterKeys.userHeld(userId))).toBe(100);
    expect(await counter(counterKeys.user(userId))).toBe(database.users.get(userId)! - 100);
    await gate.release(second);
    expect([await counter(counterKeys.user(userId)), await counter(counterKeys.userHeld(userId))]).toEqual([880, 0]);
  });

  it('a settle whose hold is gone (swept, or lost with Redis) still charges the actual amount, once', async () => {
    const userId = freshId();
    database.users.set(userId, 100);
    const hold = held(await reserve(userId, 0, 60));
    // The sweeper and the request's own settle race: whoever takes the hold applies it, and the
    // other side's effect completes it, so the counters end at the actual charge either way.
    const [swept, settled] = await Promise.all([gate.sweep(hold.expiresAt), gate.settle(hold, 10)]);
    expect(swept.some((entry) => entry.requestId === hold.requestId) === !settled.found).toBe(true);
    expect(await counter(counterKeys.user(userId))).toBe(90);
    expect(await counter(counterKeys.userHeld(userId))).toBe(10);
    expect(await gate.getHold(hold.requestId)).toBeNull();
  });

  it('release gives the whole hold back', async () => {
    const userId = freshId();
    database.users.set(userId, 100);
    const hold = held(await reserve(userId, 0, 100));
    expect(await reserve(userId, 0, 1)).toEqual({ ok: false, reason: 'insufficient_user_quota' });
    expect(await gate.release(hold)).toEqual({ delta: 100, found: true, charged: 0 });
    expect(await counter(counterKeys.user(userId))).toBe(100);
    expect(await counter(counterKeys.userHeld(userId))).toBe(0);
  });

  it('sweeps holds past their expiry back to the counters, once', async () => {
    const userId = freshId();
    database.users.set(userId, 100);
    const stale = held(await reserve(userId, 0, 30));
    await new Promise((resolve) => setTimeout(resolve, 5)); // the clock moves on, so the next hold expires later: the scenario, not a wait
    const fresh = held(await reserve(userId, 0, 20));
    // At the stale hold's expiry only it is released; sweeping again finds nothing more of ours.
    const swept = (await gate.sweep(stale.expiresAt)).filter((hold) => hold.userId === userId);
    expect(swept.map((hold) => hold.requestId)).toEqual([stale.requestId]);
    expect(await counter(counterKeys.user(userId))).toBe(80);
    expect((await gate.sweep(stale.expiresAt)).filter((hold) => hold.userId === userId)).toEqual([]);
    expect(await gate.getHold(fresh.requestId)).not.toBeNull();
  });

  it("releases the holds of a relay whose lease ended within a sweep, and leaves a live relay's alone", async () => {
    const userId = freshId();
    database.users.set(userId, 1000);
    const dead = createQuotaGate({ ...env.infra, logger: createSilentLogger(), instanceName: `dying-${env.namespace}`, leaseTtlMs: 300 });
    await dead.start();
    const orphan = held(await reserve(userId, 0, 200, false, randomUUID(), dead));
    const alive = held(await reserve(userId, 0, 50));
    expect(await leaseState(env.infra.kv, dead.owner)).toBe('alive');
    expect((await gate.sweep()).map((hold) => hold.requestId)).not.toContain(orphan.requestId);
    // The process stops: after a crash its lease expires (here: given up, the same state).
    await dead.close();
    expect(await env.infra.kv.get(leaseKey(`dying-${env.namespace}`))).toBeNull();
    await waitFor(async () => (await leaseState(env.infra.kv, dead.owner)) === 'missing', 2_000, 'lease ended');
    const swept = await gate.sweep();
    expect(swept.map((hold) => hold.requestId)).toContain(orphan.requestId);
    expect(swept.map((hold) => hold.requestId)).not.toContain(alive.requestId);
    expect(await counter(counterKeys.user(userId))).toBe(950);
    expect(await counter(counterKeys.userHeld(userId))).toBe(50);
  });

  it("a restarted instance (same name, new incarnation) releases its previous incarnation's holds at start", async () => {
    const userId = freshId();
    database.users.set(userId, 1000);
    const name = `restarting-${env.namespace}`;
    const before = createQuotaGate({ ...env.infra, logger: createSilentLogger(), instanceName: name });
    await before.start();
    const orphan = held(await reserve(userId, 0, 300, false, randomUUID(), before));
    // The process dies without closing; its successor starts under the same name.
    const after = createQuotaGate({ ...env.infra, logger: createSilentLogger(), instanceName: name });
    await after.start();
    try {
      expect(await gate.getHold(orphan.requestId)).toBeNull();
      expect(await leaseState(env.infra.kv, before.owner)).toBe('superseded');
      expect(await leaseState(env.infra.kv, after.owner)).toBe('alive');
      expect(await counter(counterKeys.user(userId))).toBe(1000);
      expect(await counter(counterKeys.userHeld(userId))).toBe(0);
    } finally {
      await after.close();
    }
    expect(await leaseState(env.infra.kv, after.owner)).toBe('missing');
  });

  it('a relay killed between any two of its steps leaves nothing taken that no hold accounts for', async () => {
    const userId = freshId();
    database.users.set(userId, 1000);
    const name = `killed-${env.namespace}`;
    /** A gate whose process dies right after its `step`-th store call of `method` went through (the reply never read). */
    const dyingAt = (method: 'reserve' | 'drain', step = 1) => {
      let calls = 0;
      const die = <T>(result: T): T => {
        if (++calls === step) throw new Error('killed');
        return result;
      };
      const counters = new Proxy(env.infra.counters, {
        get: (target, key) =>
          key === method
            ? async (...args: unknown[]) => die(await (target as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!(...args))
            : Reflect.get(target, key),
      });
      return createQuotaGate({ ...env.infra, counters, logger: createSilentLogger(), instanceName: name });
    };
    const successorSweeps = async () => {
      const successor = createQuotaGate({ ...env.infra, logger: createSilentLogger(), instanceName: name });
      try {
        return await successor.start();
      } finally {
        await successor.close();
      }
    };

    await gate.release(held(await reserve(userId, 0, 1)));
    // Killed right after the take (the hold's details came in the same step): the successor gives the whole amount back.
    const afterTake = dyingAt('reserve');
    await afterTake.start();
    await expect(reserve(userId, 0, 300, false, randomUUID(), afterTake)).rejects.toThrow('killed');
    expect(await counter(counterKeys.user(userId))).toBe(700);
    expect((await successorSweeps()).map((hold) => hold.amount)).toEqual([300]);
    expect(await counter(counterKeys.user(userId))).toBe(1000);
    expect(await counter(counterKeys.userHeld(userId))).toBe(0);

    // Killed inside settle, after the drain: the charge stays held for billing, nothing is given back twice.
    const inSettle = dyingAt('drain');
    await inSettle.start();
    const settling = held(await reserve(userId, 0, 300, false, randomUUID(), inSettle));
    await expect(inSettle.settle(settling, 120)).rejects.toThrow('killed');
    expect(await successorSweeps()).toEqual([]);
    expect(await counter(counterKeys.user(userId))).toBe(880);
    expect(await counter(counterKeys.userHeld(userId))).toBe(120);
    await releaseCommitted(env.infra.counters, [{ userId, quota: 120 }]);

    // Killed inside an extension, after the take: the extension is given back with the hold.
    const inExtend = dyingAt('reserve', 2);
    await inExtend.start();
    const extending = held(await reserve(userId, 0, 100, false, randomUUID(), inExtend));
    await expect(inExtend.extend(extending, 50)).rejects.toThrow('killed');
    expect((await successorSweeps()).map((hold) => hold.amount)).toEqual([150]);
    expect(await counter(counterKeys.user(userId))).toBe(880);
    expect(await counter(counterKeys.userHeld(userId))).toBe(0);
  });

  it('after the store lost everything, counters re-seed from the database and in-flight settles still charge', async () => {
    const userId = freshId();
    database.users.set(userId, 1000);
    const inFlight = held(await reserve(userId, 0, 400));
    // Redis comes back empty (restart without persistence): this file's keys vanish.
    if (backend === 'real') await deleteRedisKeys(env.processEnv().REDIS_URL!, `aigw:${env.namespace}:*`);
    else for (const key of [counterKeys.user(userId), counterKeys.userHeld(userId), holdAmountKey(inFlight.requestId)]) await env.infra.counters.delete(key);
    if (backend === 'in-process') await env.infra.kv.delete(holdKey(inFlight.requestId));
    // The next request re-seeds from the database (which does not know the in-flight request yet).
    const next = held(await reserve(userId, 0, 100));
    expect(await counter(counterKeys.user(userId))).toBe(900);
    // The in-flight request settles with its hold gone: its charge still reaches the counter.
    expect(await gate.settle(inFlight, 250)).toEqual({ delta: -250, found: false, charged: 250 });
    expect(await counter(counterKeys.user(userId))).toBe(650);
    await gate.release(next);
    // Billing commits the 250: spendable = database - held again.
    database.users.set(userId, 750);
    await releaseCommitted(env.infra.counters, [{ userId, quota: 250 }]);
    expect(await counter(counterKeys.user(userId))).toBe(750);
    expect(await counter(counterKeys.userHeld(userId))).toBe(0);
  });

  it('seeds a missing counter from billing once, and never overwrites a live counter', async () => {
    const userId = freshId();
    const tokenId = freshId();
    database.users.set(userId, 10);
    database.tokens.set(tokenId, 10);
    expect(await env.infra.counters.get(counterKeys.user(userId))).toBeNull();
    expect(await reserve(userId, tokenId, 4)).toMatchObject({ ok: true, remaining: { user: 6, token: 6 } });
    expect(seedRequests).toContainEqual({ user_id: userId, token_id: tokenId });
    // The database changes, but the live counter is already loaded: no reseed, no overwrite.
    database.users.set(userId, 1_000_000);
    const asked = seedRequests.length;
    expect(await reserve(userId, tokenId, 7)).toEqual({ ok: false, reason: 'insufficient_user_quota' });
    expect(seedRequests.length).toBe(asked);
    // A token billing does not know (deleted) stays refused after the one seeding attempt.
    expect(await reserve(userId, freshId(), 1)).toEqual({ ok: false, reason: 'insufficient_token_quota' });
  });

  it('refuses to reserve (rejects) when a counter must be seeded and billing cannot answer', async () => {
    const userId = freshId();
    failing.add(userId);
    await expect(reserve(userId, 0, 5)).rejects.toThrow(BusRequestError);
    expect(await env.infra.counters.get(counterKeys.user(userId))).toBeNull();
    failing.delete(userId);
    database.users.set(userId, 5);
    expect(await reserve(userId, 0, 5)).toMatchObject({ ok: true, remaining: { user: 0 } });
  });

  it('stores the hold with its expiry, a ttl a bit longer, and refuses a second hold for one request id', async () => {
    const userId = freshId();
    database.users.set(userId, 100);
    const requestId = randomUUID();
    const before = Date.now();
    const outcome = await reserve(userId, 0, 30, false, requestId);
    expect(outcome.ok && outcome.hold.expiresAt).toBeGreaterThanOrEqual(before + holdTtlMs);
    expect(outcome.ok && outcome.hold.owner).toBe(gate.owner);
    expect(await gate.getHold(requestId)).toEqual(outcome.ok && outcome.hold);
    const ttl = await env.infra.kv.ttl(holdKey(requestId));
    expect(ttl).toBeGreaterThan(holdTtlMs);
    expect(ttl).toBeLessThanOrEqual(holdTtlMs + HOLD_GRACE_MS);
    await expect(reserve(userId, 0, 30, false, requestId)).rejects.toThrow(/already holds/);
    // The refused duplicate took nothing; only the first hold is taken.
    expect(await env.infra.counters.get(counterKeys.user(userId))).toBe(70);
  });

  it('a zero reservation takes nothing, and its settle charges the actual amount', async () => {
    const userId = freshId();
    database.users.set(userId, 50);
    await reserve(userId, 0, 1); // loads the counter
    const zero = await reserve(userId, 0, 0);
    expect(zero).toMatchObject({ ok: true, remaining: { user: null } });
    expect(await gate.settle(held(zero), 9)).toEqual({ delta: -9, found: true, charged: 9 });
    expect(await env.infra.counters.get(counterKeys.user(userId))).toBe(40);
  });

  it.each([-1, 1.5, Number.NaN, Infinity, 2 ** 63, MAX_QUOTA + 1])('rejects the amount %p with a TypeError', async (amount) => {
    await expect(reserve(freshId(), 0, amount)).rejects.toThrow(TypeError);
    const hold: QuotaHold = { requestId: randomUUID(), userId: 1, tokenId: 0, amount: 1, expiresAt: Date.now(), owner: gate.owner };
    await expect(gate.settle(hold, amount)).rejects.toThrow(TypeError);
  });

  it('rejects bad ids', async () => {
    await expect(reserve(0, 0, 1)).rejects.toThrow(TypeError);
    await expect(reserve(1, -1, 1)).rejects.toThrow(TypeError);
    await expect(reserve(1, 0, 1, false, '')).rejects.toThrow(TypeError);
  });
});
