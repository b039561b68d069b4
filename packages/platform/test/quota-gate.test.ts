import { randomUUID } from 'node:crypto';
import { MAX_QUOTA } from '@aigw/contracts';
import { replyTyped } from '../src/messaging.js';
import { counterKeys, createQuotaGate, HOLD_GRACE_MS, holdKey, type QuotaGate } from '../src/quota/quota-gate.js';
import { backends, createTestEnvironment, type TestEnvironment } from '../src/testing/infrastructure.js';
import { createSilentLogger } from '../src/logger.js';
import { BusRequestError, type Subscription } from '../src/bus/bus.js';

const holdTtlMs = 30_000;

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
      const user = await counters.seed(counterKeys.user(request.user_id), database.users.get(request.user_id) ?? 0);
      const tokenBalance = database.tokens.get(request.token_id);
      const token = request.token_id > 0 && tokenBalance !== undefined ? await counters.seed(counterKeys.token(request.token_id), tokenBalance) : null;
      return { user, token };
    });
    gate = createQuotaGate({ ...env.infra, logger: createSilentLogger(), holdTtlMs });
  });

  afterAll(async () => {
    await responder?.unsubscribe();
    await env?.cleanup();
  });

  const reserve = (userId: number, tokenId: number, amount: number, unlimitedToken = false, requestId: string = randomUUID()) =>
    gate.reserve({ requestId, userId, tokenId, unlimitedToken, amount });

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

  it('settles a refund and an extra charge (which may overdraw: the bounded overdraft)', async () => {
    const userId = freshId();
    const tokenId = freshId();
    database.users.set(userId, 1000);
    database.tokens.set(tokenId, 500);
    const refund = randomUUID();
    await reserve(userId, tokenId, 300, false, refund);
    expect(await gate.settle(refund, 120)).toMatchObject({ delta: 180 });
    expect(await env.infra.counters.get(counterKeys.user(userId))).toBe(880);
    expect(await env.infra.counters.get(counterKeys.token(tokenId))).toBe(380);

    const extra = randomUUID();
    await reserve(userId, tokenId, 380, false, extra);
    expect(await gate.settle(extra, 500)).toMatchObject({ delta: -120 });
    expect(await env.infra.counters.get(counterKeys.user(userId))).toBe(380);
    expect(await env.infra.counters.get(counterKeys.token(tokenId))).toBe(-120);
    // An overdrawn token refuses the next reservation.
    expect(await reserve(userId, tokenId, 1)).toEqual({ ok: false, reason: 'insufficient_token_quota' });
  });

  it('applies a settle once, however often it is called (also concurrently)', async () => {
    const userId = freshId();
    database.users.set(userId, 100);
    const requestId = randomUUID();
    await reserve(userId, 0, 60, false, requestId);
    const outcomes = await Promise.all([gate.settle(requestId, 10), gate.settle(requestId, 10), gate.release(requestId)]);
    expect(outcomes.filter((outcome) => outcome !== null)).toHaveLength(1);
    expect(await gate.settle(requestId, 10)).toBeNull();
    const balance = await env.infra.counters.get(counterKeys.user(userId));
    // Exactly one of the three applied: 100 - 60 + 50 (settle 10) or 100 (release).
    expect([90, 100]).toContain(balance);
    expect(await gate.getHold(requestId)).toBeNull();
  });

  it('release gives the whole hold back', async () => {
    const userId = freshId();
    database.users.set(userId, 100);
    const requestId = randomUUID();
    await reserve(userId, 0, 100, false, requestId);
    expect(await reserve(userId, 0, 1)).toEqual({ ok: false, reason: 'insufficient_user_quota' });
    expect(await gate.release(requestId)).toMatchObject({ delta: 100 });
    expect(await env.infra.counters.get(counterKeys.user(userId))).toBe(100);
  });

  it('sweeps holds past their expiry (their relay died) back to the counters, once', async () => {
    const userId = freshId();
    database.users.set(userId, 100);
    const stale = randomUUID();
    const fresh = randomUUID();
    await reserve(userId, 0, 30, false, stale);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await reserve(userId, 0, 20, false, fresh);
    const { expiresAt } = (await gate.getHold(stale))!;
    // At the stale hold's expiry only it is released; sweeping again finds nothing more of ours.
    const swept = (await gate.sweep(expiresAt)).filter((entry) => entry.hold.userId === userId);
    expect(swept.map((entry) => entry.requestId)).toEqual([stale]);
    expect(await env.infra.counters.get(counterKeys.user(userId))).toBe(80);
    expect((await gate.sweep(expiresAt)).filter((entry) => entry.hold.userId === userId)).toEqual([]);
    expect(await gate.settle(stale, 30)).toBeNull();
    expect(await gate.getHold(fresh)).not.toBeNull();
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
    expect(await gate.getHold(requestId)).toEqual(outcome.ok && outcome.hold);
    const ttl = await env.infra.kv.ttl(holdKey(requestId));
    expect(ttl).toBeGreaterThan(holdTtlMs);
    expect(ttl).toBeLessThanOrEqual(holdTtlMs + HOLD_GRACE_MS);
    await expect(reserve(userId, 0, 30, false, requestId)).rejects.toThrow(/already holds/);
    // The refused duplicate gave its amount back; only the first hold is taken.
    expect(await env.infra.counters.get(counterKeys.user(userId))).toBe(70);
  });

  it('a zero reservation takes nothing, and its settle charges the actual amount', async () => {
    const userId = freshId();
    database.users.set(userId, 50);
    await reserve(userId, 0, 1); // loads the counter
    const requestId = randomUUID();
    expect(await reserve(userId, 0, 0, false, requestId)).toMatchObject({ ok: true, remaining: { user: null } });
    expect(await gate.settle(requestId, 9)).toMatchObject({ delta: -9 });
    expect(await env.infra.counters.get(counterKeys.user(userId))).toBe(40);
  });

  it.each([-1, 1.5, Number.NaN, Infinity, 2 ** 63, MAX_QUOTA + 1])('rejects the amount %p with a TypeError', async (amount) => {
    await expect(reserve(freshId(), 0, amount)).rejects.toThrow(TypeError);
    await expect(gate.settle(randomUUID(), amount)).rejects.toThrow(TypeError);
  });

  it('rejects bad ids', async () => {
    await expect(reserve(0, 0, 1)).rejects.toThrow(TypeError);
    await expect(reserve(1, -1, 1)).rejects.toThrow(TypeError);
    await expect(reserve(1, 0, 1, false, '')).rejects.toThrow(TypeError);
  });
});
