import { Redis } from 'ioredis';
import { createMemoryKv, createMemoryStores } from '../src/counters/memory-counters.js';
import { createRedisCounters, createRedisKv } from '../src/counters/redis-counters.js';
import { deleteRedisKeys } from '../src/testing/infrastructure.js';
import { testServices, uniqueName } from '../src/testing/services.js';
import { defineCountersContract } from './contracts/counters.contract.js';
import { defineKvContract } from './contracts/kv.contract.js';

const prefix = uniqueName('stores');
let harnesses = 0;

/** A fresh Redis key space per test; every open() is its own connection, so concurrent calls really race. */
function redisHarness<T>(make: (redis: Redis, prefix: string) => T) {
  return async () => {
    const { redisUrl } = await testServices();
    const testPrefix = `${prefix}:${++harnesses}`;
    const connections: Redis[] = [];
    const connect = () => {
      const redis = new Redis(redisUrl);
      connections.push(redis);
      return redis;
    };
    return {
      open: () => make(connect(), testPrefix),
      /** The Kv of the same prefix: what the Counters' notes write to. */
      kv: () => createRedisKv(connect(), testPrefix),
      async close() {
        await Promise.all(connections.map((redis) => redis.quit()));
      },
    };
  };
}

/** In memory one instance is the whole backend: every open() returns it. */
function memoryHarness<T>(store: () => T) {
  return async () => {
    const instance = store();
    return { open: () => instance, close: async () => {} };
  };
}

/** Counters in memory with the Kv they are paired with (createStores without Redis). */
async function memoryCountersHarness() {
  const { counters, kv } = createMemoryStores();
  return { open: () => counters, kv: () => kv, close: async () => {} };
}

defineCountersContract('memory', memoryCountersHarness);
defineCountersContract('redis', redisHarness(createRedisCounters));
defineKvContract('memory', memoryHarness(createMemoryKv));
defineKvContract('redis', redisHarness(createRedisKv));

// The quota gate's hold notes (a usage record's JSON per request) are read only by a sweeper: in one process, never made unless read.
it('the in-process store makes a reservation note only when it is read', async () => {
  const { counters, kv } = createMemoryStores();
  await counters.set('user', 10);
  let made = 0;
  const value = () => String(++made);
  await counters.reserve([{ key: 'user', amount: 1 }], [{ key: 'amount:a', delta: 1 }], { key: 'hold:a', value, ttlMs: 60_000 });
  await counters.reserve([{ key: 'user', amount: 1 }], [{ key: 'amount:b', delta: 1 }], { key: 'hold:b', value, ttlMs: 60_000 });
  await counters.drain('amount:a', 0, [{ key: 'user', sign: 1 }], 'hold:a');
  expect(made).toBe(0);
  expect(await kv.keys('hold:', 10)).toEqual(['hold:b']);
  expect(made).toBe(0);
  expect([await kv.get('hold:b'), await kv.take('hold:b'), made]).toEqual(['1', '1', 1]);
});

afterAll(async () => {
  await deleteRedisKeys((await testServices()).redisUrl, `${prefix}:*`);
});
