import type { Logger } from '../logger.js';
import { Redis } from 'ioredis';
import type { Counters, Kv } from './counters.js';
import { createMemoryStores } from './memory-counters.js';
import { createRedisCounters, createRedisKv } from './redis-counters.js';

export * from './counters.js';

export interface Stores {
  counters: Counters;
  kv: Kv;
  /** Closes the Redis connection, if any. */
  close(): Promise<void>;
}

/** Redis when `redisUrl` is set (one connection shared by counters and kv), in-memory otherwise. */
export function createStores(options: { redisUrl?: string; prefix: string; logger?: Logger }): Stores {
  if (!options.redisUrl) {
    return Object.assign(createMemoryStores(), { close: async () => {} });
  }
  // Auto-pipelining sends the commands of one turn of the event loop in one write: each write is a
  // system call, and at full load one per command was the relay's largest single cost (12% of its CPU).
  const redis = new Redis(options.redisUrl, { enableAutoPipelining: true });
  // ioredis reconnects by itself; without a listener it would print every failure unformatted.
  redis.on('error', (error) => options.logger?.warn({ err: error }, 'redis connection error'));
  return {
    counters: createRedisCounters(redis, options.prefix),
    kv: createRedisKv(redis, options.prefix),
    async close() {
      await redis.quit();
    },
  };
}
