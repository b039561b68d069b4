import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Counters, Kv, KvSetOptions, LimitResult, ReserveResult } from './counters.js';
import { requireDeltas, requireDrain, requireInteger, requireReserveLines, requireTtl } from './memory-counters.js';
import { requireLimitLines, windowAt } from './sliding-window.js';

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
// number of lines, ARGV[2] of credits (INCRBY, created when missing), then their amounts; a key
// after them is the note (a Kv key set only when absent), its value and expiry the last ARGV.
const reserveScript = script(`
local lines, credits = tonumber(ARGV[1]), tonumber(ARGV[2])
local note = KEYS[lines + credits + 1]
if note and redis.call('EXISTS', note) == 1 then return {'exists', 0} end
for i = 1, lines do
  local value = redis.call('GET', KEYS[i])
  if not value then return {'missing', i} end
  if tonumber(value) < tonumber(ARGV[i + 2]) then return {'insufficient', i} end
end
local reply = {'ok'}
for i = 1, lines do
  reply[i + 1] = redis.call('DECRBY', KEYS[i], ARGV[i + 2])
end
for i = lines + 1, lines + credits do
  redis.call('INCRBY', KEYS[i], ARGV[i + 2])
end
if note then redis.call('SET', note, ARGV[lines + credits + 3], 'PX', ARGV[lines + credits + 4]) end
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

// KEYS[1] is drained; ARGV[1] is the kept part, ARGV[2] '1' when the last key is a Kv key to
// delete (forget), then (sign, create) pairs for the keys in between.
const drainScript = script(`
local moves = #KEYS
if ARGV[2] == '1' then
  redis.call('DEL', KEYS[moves])
  moves = moves - 1
end
local value = redis.call('GET', KEYS[1])
if not value then return false end
redis.call('DEL', KEYS[1])
local back = tonumber(value) - tonumber(ARGV[1])
if back <= 0 then return value end
for i = 2, moves do
  if ARGV[2 * i] == '1' or redis.call('EXISTS', KEYS[i]) == 1 then
    if ARGV[2 * i - 1] == '-1' then redis.call('DECRBY', KEYS[i], back) else redis.call('INCRBY', KEYS[i], back) end
  end
end
return value
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

// Counters.limit: the arithmetic of sliding-window.ts, in Lua. ARGV[1] is now, then each line's
// kind and fields; a window line names two keys (its current and previous window), a slots line
// one (a sorted set of members scored by expiry). Every line is checked before any is applied.
// Replies {refused line (1-based, 0 when admitted), retry after ms, then used and reset ms per line}.
const limitScript = script(`
local now = tonumber(ARGV[1])
local argument, key = 1, 0
local function nextArgument() argument = argument + 1 return ARGV[argument] end
local function nextKey() key = key + 1 return KEYS[key] end

-- floor(a * b / c) and the remainder, for 0 <= a < c <= 2^52. Lua numbers are doubles, exact
-- only to 2^53, and a token count times a day in ms passes that: long multiplication over b's bits.
local function mulDiv(a, b, c)
  local bit = 1
  while bit * 2 <= b do bit = bit * 2 end
  local quotient, remainder = 0, 0
  while bit >= 1 do
    quotient, remainder = quotient * 2, remainder * 2
    if remainder >= c then quotient, remainder = quotient + 1, remainder - c end
    if b >= bit then
      b = b - bit
      remainder = remainder + a
      if remainder >= c then quotient, remainder = quotient + 1, remainder - c end
    end
    bit = bit / 2
  end
  return quotient, remainder
end

local function estimate(previous, current, elapsed, windowMs)
  if elapsed == 0 then return current + previous end
  local share, rest = mulDiv(windowMs - elapsed, previous, windowMs)
  if rest > 0 then share = share + 1 end
  return current + share
end

local function longestOverlap(count, room, windowMs)
  if count <= room then return windowMs end
  return (mulDiv(room, windowMs, count))
end

local function retryAfter(previous, current, elapsed, windowMs, limit, need)
  local overlap = windowMs - elapsed
  if current + need <= limit then return overlap - longestOverlap(previous, limit - need - current, windowMs) end
  if need > limit then return 2 * windowMs - elapsed end
  return overlap + windowMs - longestOverlap(current, limit - need, windowMs)
end

-- A count settled below zero (a caller's mistake) must not make room for others.
local function count(name)
  return math.max(0, tonumber(redis.call('GET', name) or '0'))
end

local function slotState(name)
  local held = redis.call('ZCARD', name)
  if held == 0 then return 0, 0 end
  return held, tonumber(redis.call('ZRANGE', name, 0, 0, 'WITHSCORES')[2]) - now
end

local lines, refused, retryAfterMs = {}, 0, 0
while argument < #ARGV do
  local line = { kind = nextArgument() }
  if line.kind == 'window' then
    line.key = nextKey()
    local previousKey = nextKey()
    line.windowMs = tonumber(nextArgument())
    local elapsed = tonumber(nextArgument())
    local limit = tonumber(nextArgument())
    local need = tonumber(nextArgument())
    line.add = tonumber(nextArgument())
    local current, previous = count(line.key), count(previousKey)
    line.used = estimate(previous, current, elapsed, line.windowMs)
    line.resetMs = line.windowMs - elapsed
    if refused == 0 and line.used + need > limit then
      refused = #lines + 1
      retryAfterMs = retryAfter(previous, current, elapsed, line.windowMs, limit, need)
    end
  else
    line.key = nextKey()
    local limit = tonumber(nextArgument())
    line.member = nextArgument()
    line.ttlMs = tonumber(nextArgument())
    redis.call('ZREMRANGEBYSCORE', line.key, '-inf', now)
    line.used, line.resetMs = slotState(line.key)
    if refused == 0 and line.used >= limit and not redis.call('ZSCORE', line.key, line.member) then
      refused = #lines + 1
      retryAfterMs = line.resetMs
    end
  end
  lines[#lines + 1] = line
end

if refused == 0 then
  for _, line in ipairs(lines) do
    if line.kind == 'window' then
      -- Created even when adding 0, so a later settle (a success counted) lands; it must outlive
      -- the next window, which reads it as its previous one.
      redis.call('INCRBY', line.key, line.add)
      redis.call('PEXPIRE', line.key, 2 * line.windowMs)
      line.used = line.used + line.add
    else
      redis.call('ZADD', line.key, now + line.ttlMs, line.member)
      local longest = tonumber(redis.call('ZRANGE', line.key, -1, -1, 'WITHSCORES')[2])
      redis.call('PEXPIRE', line.key, longest - now)
      line.used, line.resetMs = slotState(line.key)
    end
  end
end

local reply = { refused, retryAfterMs }
for _, line in ipairs(lines) do
  reply[#reply + 1] = line.used
  reply[#reply + 1] = line.resetMs
end
return reply
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
    async reserve(lines, credits = [], note): Promise<ReserveResult> {
      requireReserveLines(lines);
      requireDeltas(credits);
      if (note) requireTtl(note.ttlMs);
      if (lines.length === 0 && credits.length === 0 && !note) return { ok: true, balances: [] };
      const keys = [...lines, ...credits].map((line) => keyOf(line.key));
      const args: Array<string | number> = [lines.length, credits.length, ...lines.map((line) => line.amount), ...credits.map((credit) => credit.delta)];
      if (note) {
        keys.push(kvKey(prefix, note.key));
        args.push(note.value(), note.ttlMs);
      }
      const [status, ...rest] = (await run(redis, reserveScript, keys, args)) as [string, ...number[]];
      if (status === 'ok') return { ok: true, balances: rest };
      if (status === 'exists') return { ok: false, key: note!.key, reason: 'exists' };
      return { ok: false, key: lines[rest[0]! - 1]!.key, reason: status as 'missing' | 'insufficient' };
    },
    async drain(key, keep, moves, forget) {
      requireDrain(keep, moves);
      const keys = [keyOf(key), ...moves.map((move) => keyOf(move.key))];
      if (forget !== undefined) keys.push(kvKey(prefix, forget));
      const args = [keep, forget === undefined ? 0 : 1, ...moves.flatMap((move) => [move.sign, move.create ? 1 : 0])];
      const reply = await run(redis, drainScript, keys, args);
      return reply === null ? null : Number(reply);
    },
    async delete(key) {
      await redis.del(keyOf(key));
    },
    async limit(lines, now): Promise<LimitResult> {
      requireLimitLines(lines, now);
      if (lines.length === 0) return { ok: true, states: [], windows: [] };
      const keys: string[] = [];
      const args: Array<string | number> = [now];
      const windows = lines.map((line) => {
        if (line.kind === 'slots') {
          keys.push(keyOf(line.key));
          args.push('slots', line.limit, line.member, line.ttlMs);
          return null;
        }
        // The window is named here, not in the script, so the script declares every key it touches.
        const { index, elapsed } = windowAt(now, line.windowMs);
        keys.push(keyOf(`${line.key}:${index}`), keyOf(`${line.key}:${index - 1}`));
        args.push('window', line.windowMs, elapsed, line.limit, line.need, line.add);
        return index;
      });
      const [refused, retryAfterMs, ...figures] = (await run(redis, limitScript, keys, args)) as number[];
      const states = lines.map((line, position) => ({ used: figures[2 * position]!, limit: line.limit, resetMs: figures[2 * position + 1]! }));
      if (refused === 0) return { ok: true, states, windows };
      return { ok: false, index: refused! - 1, states, retryAfterMs: retryAfterMs! };
    },
    async settleWindow(key, window, delta) {
      requireInteger(window, 'window');
      requireInteger(delta, 'delta');
      await run(redis, adjustScript, [keyOf(`${key}:${window}`)], [delta]);
    },
    async releaseSlots(keys, member) {
      await Promise.all(keys.map((key) => redis.zrem(keyOf(key), member)));
    },
    async countSlots(key, now) {
      requireInteger(now, 'now');
      // Members are scored by their expiry: those past `now` are free (the next `limit` removes them).
      return redis.zcount(keyOf(key), `(${now}`, '+inf');
    },
  };
}

/** Where the Kv of `prefix` stores `key`: the Counters of the same prefix write notes there (ReserveNote). */
function kvKey(prefix: string, key: string): string {
  return `${prefix}:kv:${key}`;
}

export function createRedisKv(redis: Redis, prefix: string): Kv {
  const keyOf = (key: string) => kvKey(prefix, key);

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
