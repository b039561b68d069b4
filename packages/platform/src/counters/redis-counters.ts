import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Counters, Kv, KvSetOptions, ReserveResult } from './counters.js';
import { requireDeltas, requireInteger, requireReserveLines, requireTtl } from './memory-counters.js';

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

// Checks every line before touching any, so a reservation is all or nothing. ARGV[1] is the
// number of lines; the keys after them are credits (INCRBY, created when missing).
const reserveScript = script(`
local lines = tonumber(ARGV[1])
for i = 1, lines do
  local value = redis.call('GET', KEYS[i])
  if not value then return {'missing', i} end
  if tonumber(value) < tonumber(ARGV[i + 1]) then return {'insufficient', i} end
end
local reply = {'ok'}
for i = 1, lines do
  reply[i + 1] = redis.call('DECRBY', KEYS[i], ARGV[i + 1])
end
for i = lines + 1, #KEYS do
  redis.call('INCRBY', KEYS[i], ARGV[i + 1])
end
return reply
`);

// KEYS[2] (optional): a counter whose value is subtracted from ARGV[1] before storing.
const seedScript = script(`
local less = 0
if KEYS[2] then less = tonumber(redis.call('GET', KEYS[2]) or '0') end
redis.call('SET', KEYS[1], tonumber(ARGV[1]) - less, 'NX')
return redis.call('GET', KEYS[1])
`);

const rebaseScript = script(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local value = tonumber(ARGV[1]) - tonumber(redis.call('GET', KEYS[2]) or '0')
redis.call('SET', KEYS[1], value)
return value
`);

// ARGV holds (delta, create) pairs in key order; a missing key without create stays missing.
const adjustManyScript = script(`
local reply = {}
for i, key in ipairs(KEYS) do
  if ARGV[2 * i] == '1' or redis.call('EXISTS', key) == 1 then
    reply[i] = redis.call('INCRBY', key, ARGV[2 * i - 1])
  else
    reply[i] = false
  end
end
return reply
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
    async seed(key, value, minus) {
      requireInteger(value, 'value');
      return Number(await run(redis, seedScript, minus === undefined ? [keyOf(key)] : [keyOf(key), keyOf(minus)], [value]));
    },
    async set(key, value) {
      requireInteger(value, 'value');
      await redis.set(keyOf(key), value);
    },
    async rebase(key, value, minus) {
      requireInteger(value, 'value');
      const reply = await run(redis, rebaseScript, [keyOf(key), keyOf(minus)], [value]);
      return reply === null ? null : Number(reply);
    },
    async adjust(key, delta) {
      requireInteger(delta, 'delta');
      const reply = await run(redis, adjustScript, [keyOf(key)], [delta]);
      return reply === null ? null : Number(reply);
    },
    async adjustMany(deltas) {
      requireDeltas(deltas);
      if (deltas.length === 0) return [];
      const replies = (await run(
        redis,
        adjustManyScript,
        deltas.map((entry) => keyOf(entry.key)),
        deltas.flatMap((entry) => [entry.delta, entry.create ? 1 : 0]),
      )) as Array<number | null>;
      return replies.map((reply) => (reply === null ? null : Number(reply)));
    },
    async reserve(lines, credits = []): Promise<ReserveResult> {
      requireReserveLines(lines);
      requireDeltas(credits);
      if (lines.length === 0) return { ok: true, balances: [] };
      const keys = [...lines, ...credits].map((line) => keyOf(line.key));
      const args = [lines.length, ...lines.map((line) => line.amount), ...credits.map((credit) => credit.delta)];
      const [status, ...rest] = (await run(redis, reserveScript, keys, args)) as [string, ...number[]];
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
      const reply = options.ttlMs === undefined ? await redis.set(keyOf(key), value, 'NX') : await redis.set(keyOf(key), value, 'PX', options.ttlMs, 'NX');
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
