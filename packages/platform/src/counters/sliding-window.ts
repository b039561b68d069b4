import type { LimitLine } from './counters.js';

/**
 * The arithmetic of `Counters.limit`'s window lines, for the in-memory adapter and as the
 * reference the Redis script (redis-counters.ts) mirrors; the contract suite holds them equal.
 * Everything is integer: products go through BigInt because a token count times a day in
 * milliseconds passes 2^53, and the estimate is rounded up so a limit is never exceeded.
 */

/** The window `now` falls in and how far into it, in ms. */
export function windowAt(now: number, windowMs: number): { index: number; elapsed: number } {
  const elapsed = now % windowMs;
  return { index: (now - elapsed) / windowMs, elapsed };
}

/** a × b / c rounded down. */
function mulDivFloor(a: number, b: number, c: number): number {
  return Number((BigInt(a) * BigInt(b)) / BigInt(c));
}

/** a × b / c rounded up. */
function mulDivCeil(a: number, b: number, c: number): number {
  return Number((BigInt(a) * BigInt(b) + BigInt(c) - 1n) / BigInt(c));
}

/** The sliding estimate, rounded up: the previous window weighted by the share of it still inside the last `windowMs`, plus the current one. */
export function windowEstimate(previous: number, current: number, elapsed: number, windowMs: number): number {
  return current + mulDivCeil(previous, windowMs - elapsed, windowMs);
}

/** The longest overlap (ms left of the window) at which `count`'s weighted share is at most `room`. */
function longestOverlap(count: number, room: number, windowMs: number): number {
  return count <= room ? windowMs : mulDivFloor(room, windowMs, count);
}

/**
 * Milliseconds until a refused line could admit `need`, if nothing else were added: first the
 * previous window's weight falls; when even an empty share of it leaves no room, the next window
 * starts with this one as its previous, whose weight must fall in turn. A `need` above the limit
 * never fits: the answer is then when everything counted now has expired.
 */
export function windowRetryAfterMs(previous: number, current: number, elapsed: number, windowMs: number, limit: number, need: number): number {
  const overlap = windowMs - elapsed;
  if (current + need <= limit) return overlap - longestOverlap(previous, limit - need - current, windowMs);
  if (need > limit) return 2 * windowMs - elapsed;
  return overlap + windowMs - longestOverlap(current, limit - need, windowMs);
}

function requirePositive(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`${what} must be a positive integer, got ${value}`);
}

function requireCount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${what} must be a non-negative integer, got ${value}`);
}

/** Shared by both adapters, so the in-memory one refuses exactly what the Redis one does. */
export function requireLimitLines(lines: LimitLine[], now: number): void {
  requireCount(now, 'now');
  const seen = new Set<string>();
  for (const line of lines) {
    requirePositive(line.limit, `limit for ${line.key}`);
    if (line.kind === 'window') {
      requirePositive(line.windowMs, `windowMs for ${line.key}`);
      requireCount(line.need, `need for ${line.key}`);
      requireCount(line.add, `add for ${line.key}`);
    } else {
      requirePositive(line.ttlMs, `ttlMs for ${line.key}`);
      if (line.member === '') throw new TypeError(`member for ${line.key} must not be empty`);
    }
    // Two lines on one key would each be checked against the same count and together overrun it.
    if (seen.has(line.key)) throw new RangeError(`key ${line.key} appears twice in one limit check`);
    seen.add(line.key);
  }
}
