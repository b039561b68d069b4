import { Redis } from 'ioredis';
import { createMemoryCounters } from '../src/counters/memory-counters.js';
import { createRedisCounters } from '../src/counters/redis-counters.js';
import { testServices, uniqueName } from '../src/testing/services.js';
import { defineCountersContract } from './contracts/counters.contract.js';

defineCountersContract('memory', async () => {
  const counters = createMemoryCounters();
  return { open: () => counters, close: async () => {} };
});

const prefix = uniqueName('counters');
let harnesses = 0;

defineCountersContract('redis', async () => {
  const { redisUrl } = await testServices();
  // A fresh key space per test; every open() is its own connection so reserves really race.
  const testPrefix = `${prefix}:${++harnesses}`;
  const connections: Redis[] = [];
  return {
    open() {
      const redis = new Redis(redisUrl);
      connections.push(redis);
      return createRedisCounters(redis, testPrefix);
    },
    async close() {
      await Promise.all(connections.map((redis) => redis.quit()));
    },
  };
});

afterAll(async () => {
  const redis = new Redis((await testServices()).redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
});
