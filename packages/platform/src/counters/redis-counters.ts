import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Counters, Kv, KvSetOptions, ReserveResult } from './counters.js';
import { requireInteger, requireReserveLines, requireTtl } from './memory-counters.js';

interface Script {
  lua: string;
  sha: string;
}

function script(lua: string): Script {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/** EVALSHA, loading the script with EVAL once when the server does not know it (restart, failover). */
async function run(redis: Redis, { lua, sha }: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
  try {
    return await redis.evalsha(sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(lua, keys.length, ...keys, ...args);
  }
}

// Checks every line before touching any, so a reservation is all or nothing.
const reserveScript = script(`
for i, key in ipairs(KEYS) do
  local value = redis.call('GET', key)
  if not value then return {'missing', i} end
  if tonumber(value) < tonumber(ARGV[i]) then return {'insufficient', i} end
end
local reply = {'ok'}
for i, key in ipairs(KEYS) do
  reply[i + 1] = redis.call('DECRBY', key, ARGV[i])
end
return reply
`);

const seedScript = script(`
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])
`);

const adjustScript = script(`
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end
return false
`);

// The expiry is set only by the call that creates the key: a fixed window, not a sliding one.
const incrementScript = script(`
local value = redis.call('INCR', KEYS[1])
if value == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return value
`);

function toNumber(value: string | null): number | null {
  return value === null ? null : Number(value);
}

export function createRedisCounters(redis: Redis, prefix: string): Counters {
  const keyOf = (key: string) => `${prefix}:counter:${key}`;

  return {
    async get(key) {
      return toNumber(await redis.get(keyOf(key)));
    },
    async seed(key, value) {
      requireInteger(value, 'value');
      return Number(await run(redis, seedScript, [keyOf(key)], [value]));
    },
    async set(key, value) {
      requireInteger(value, 'value');
      await redis.set(keyOf(key), value);
    },
    async adjust(key, delta) {
      requireInteger(delta, 'delta');
      const reply = await run(redis, adjustScript, [keyOf(key)], [delta]);
      return reply === null ? null : Number(reply);
    },
    async reserve(lines): Promise<ReserveResult> {
      requireReserveLines(lines);
      if (lines.length === 0) return { ok: true, balances: [] };
      const keys = lines.map((line) => keyOf(line.key));
      const [status, ...rest] = (await run(redis, reserveScript, keys, lines.map((line) => line.amount))) as [string, ...number[]];
      if (status === 'ok') return { ok: true, balances: rest };
      return { ok: false, key: lines[rest[0]! - 1]!.key, reason: status as 'missing' | 'insufficient' };
    },
    async delete(key) {
      await redis.del(keyOf(key));
    },
  };
}

export function createRedisKv(redis: Redis, prefix: string): Kv {
  const keyOf = (key: string) => `${prefix}:kv:${key}`;

  return {
    async get(key) {
      return redis.get(keyOf(key));
    },
    async set(key, value, options: KvSetOptions = {}) {
      requireTtl(options.ttlMs);
      if (options.ttlMs === undefined) await redis.set(keyOf(key), value);
      else await redis.set(keyOf(key), value, 'PX', options.ttlMs);
    },
    async setIfAbsent(key, value, options: KvSetOptions = {}) {
      requireTtl(options.ttlMs);
      const reply = options.ttlMs === undefined
        ? await redis.set(keyOf(key), value, 'NX')
        : await redis.set(keyOf(key), value, 'PX', options.ttlMs, 'NX');
      return reply === 'OK';
    },
    async take(key) {
      return redis.getdel(keyOf(key));
    },
    async delete(key) {
      await redis.del(keyOf(key));
    },
    async increment(key, options) {
      requireTtl(options.ttlMs);
      return Number(await run(redis, incrementScript, [keyOf(key)], [options.ttlMs]));
    },
    async ttl(key) {
      const remaining = await redis.pttl(keyOf(key));
      return remaining < 0 ? null : remaining;
    },
    async keys(prefix, limit) {
      const stored = keyOf('');
      // SCAN's MATCH is a glob: escape its special characters in the caller's prefix.
      const pattern = `${keyOf(prefix).replace(/[*?[\]\\]/g, '\\$&')}*`;
      const found = new Set<string>();
      let cursor = '0';
      do {
        const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        for (const key of batch) if (found.size < limit) found.add(key.slice(stored.length));
        cursor = next;
      } while (cursor !== '0' && found.size < limit);
      return [...found];
    },
  };
}
