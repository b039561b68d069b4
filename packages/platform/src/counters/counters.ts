/**
 * The Counters and Kv ports: live integer counters with an atomic multi-key reserve (the quota
 * hot path), the relay's usage limits (windows and concurrent slots, checked together) and a
 * small key-value store with expiry (verification codes, sessions' marks, simple rate limits).
 * Two adapters: Redis (`REDIS_URL` set; the reserve and the limit check are one Lua script each)
 * and in-memory. Both pass test/contracts/counters.contract.ts and kv.contract.ts.
 */

export interface ReserveLine {
  key: string;
  /** Positive integer to take from the counter. */
  amount: number;
}

/** A signed change of one counter, applied with others in one atomic step. */
export interface CounterDelta {
  key: string;
  /** Safe integer, may be negative or zero. */
  delta: number;
  /** Start a missing key at 0 and apply the delta; otherwise a missing key stays missing. */
  create?: boolean;
}

/** Where `drain` moves what a counter held above its kept part. */
export interface DrainMove {
  key: string;
  /** 1: add it (a balance given back); -1: take it off (a sum of what is held). */
  sign: 1 | -1;
  create?: boolean;
}

/**
 * A Kv entry that a reservation writes in its own atomic step, only when the key is absent (a
 * quota hold's details: both or neither exist). The Kv is the one of the same store: `createStores`
 * pairs them (one prefix on Redis, one process's maps in memory).
 */
export interface ReserveNote {
  key: string;
  /**
   * Makes the entry's text, when it is needed: Redis with the step, the in-process store when the
   * entry is first read. A quota hold's note is read only by a sweeper, so in one process most are
   * never serialized (a JSON.stringify of a usage record per request on the all-in-one relay's path).
   * What it reads must not change after the reservation.
   */
  value: () => string;
  /** Positive integer: the entry expires after this. */
  ttlMs: number;
}

export type ReserveResult =
  | { ok: true; /** Values after the reservation, in the order of the lines. */ balances: number[] }
  | {
      ok: false;
      /** First line that failed, or the note's key when it exists already (checked first). */
      key: string;
      reason: 'insufficient' | 'missing' | 'exists';
    };

/** One limit of a request, checked with the others atomically. */
export type LimitLine =
  | {
      /** Fixed windows with a sliding approximation: the previous window's count, weighted by how much of it still overlaps the last `windowMs`, plus the current one's. */
      kind: 'window';
      /** The limit's key without the window: the adapter appends the window's index, and `get(`${key}:${index}`)` reads that window's count. */
      key: string;
      /** Positive integer: 60_000 for a minute, 86_400_000 for a day, or any length (the established product's ModelRequestRateLimitDurationMinutes). */
      windowMs: number;
      /** Positive integer (0, unlimited, never reaches the port). */
      limit: number;
      /** What must still fit: admitted when the estimate rounded up plus `need` is at most `limit` (requests: 1; tokens: the request's hold). */
      need: number;
      /** Added to the current window when admitted (requests: 1; tokens: the hold; a check of successes so far: 0). */
      add: number;
    }
  | {
      /** Concurrent requests: the members holding a slot, each with its own expiry. */
      kind: 'slots';
      key: string;
      /** Positive integer: how many members may hold a slot at once. */
      limit: number;
      /** The request id; taking a slot the member already holds counts once (and renews its expiry). */
      member: string;
      /** Positive integer: the slot frees itself after this, so a crashed relay's slots come back. */
      ttlMs: number;
    };

export interface LimitState {
  /** What the limit counts as used after the call (windows: the sliding estimate, rounded up; slots: members holding one). */
  used: number;
  limit: number;
  /** Milliseconds until the current window ends (slots: until the earliest slot expires, 0 when none is held). */
  resetMs: number;
}

export type LimitResult =
  | {
      ok: true;
      /** One per line, in order. */
      states: LimitState[];
      /** The window index each window line was counted in (null for slots): what `settleWindow` names later. */
      windows: Array<number | null>;
    }
  | {
      ok: false;
      /** First line (0-based) that refused; nothing was added and no slot taken. */
      index: number;
      /** One per line, in order, as they stand (nothing applied). */
      states: LimitState[];
      /** Milliseconds until that line could admit its `need` if nothing else were added: at least 1, at most 2 × its windowMs. */
      retryAfterMs: number;
    };

export interface Counters {
  get(key: string): Promise<number | null>;
  /**
   * Stores `value` only if the key does not exist yet; returns what is stored now. With `minus`,
   * the value stored is `value` less the current value of that counter (0 when it is missing), in
   * the same atomic step: a balance loaded from the database less what is held against it.
   */
  seed(key: string, value: number, minus?: string): Promise<number>;
  set(key: string, value: number): Promise<void>;
  /**
   * Sets an existing key to `value` less the current value of the counter `minus` (0 when
   * missing), atomically, and returns it; a missing key stays missing (null): whoever uses it
   * next seeds it.
   */
  rebase(key: string, value: number, minus: string): Promise<number | null>;
  /** Adds `delta` (may be negative) if the key exists and returns the new value; a missing key stays missing (null). */
  adjust(key: string, delta: number): Promise<number | null>;
  /** Applies every delta in one atomic step; returns the new values in order (null: missing and not created). */
  adjustMany(deltas: CounterDelta[]): Promise<Array<number | null>>;
  /**
   * All-or-nothing: the `note`'s Kv key must be absent and every key must exist and hold at
   * least its amount; then every key is decremented, every `credits` delta applied (created when
   * missing) and the note written. No other operation can interleave (one Lua call in Redis).
   */
  reserve(lines: ReserveLine[], credits?: CounterDelta[], note?: ReserveNote): Promise<ReserveResult>;
  /**
   * Empties a counter into others in one atomic step (a hold given back): deletes `key` and
   * moves what it held above `keep` (never below 0) to each of `moves`, added times its sign (a
   * missing move key stays missing unless `create`). Returns the value `key` held, or null when
   * it was missing (nothing changes): of two callers draining one key, exactly one gets it.
   * `forget` names a Kv key of the same store (see ReserveNote) deleted in that step, whether
   * `key` held anything or not (a hold's details go with its amount).
   */
  drain(key: string, keep: number, moves: DrainMove[], forget?: string): Promise<number | null>;
  delete(key: string): Promise<void>;
  /**
   * All-or-nothing usage limits: every line is checked against `now` (epoch ms; a parameter so
   * tests drive the clock), and only when all fit are the adds applied and the slots taken. An
   * admitted window line creates its window even when it adds 0, so a later `settleWindow` (a
   * success counted) lands in it. One Lua script on Redis.
   */
  limit(lines: LimitLine[], now: number): Promise<LimitResult>;
  /**
   * Changes a window's count after the fact (a token limit settled with the actual usage, a
   * success counted): `window` is what `limit` answered for the line. A window that has expired
   * stays missing (the change is dropped: it no longer counts anyway).
   */
  settleWindow(key: string, window: number, delta: number): Promise<void>;
  /** Frees `member`'s slot in each key. Every exit path of a request calls it, so it is idempotent. */
  releaseSlots(keys: string[], member: string): Promise<void>;
  /** How many slots of a key are held at `now` (expired ones not counted): what the console shows as in flight. */
  countSlots(key: string, now: number): Promise<number>;
}

export interface KvSetOptions {
  /** Expire the key after this many ms. No expiry when absent. */
  ttlMs?: number;
}

export interface Kv {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, options?: KvSetOptions): Promise<void>;
  /** Sets only when the key is absent; true when it was set. */
  setIfAbsent(key: string, value: string, options?: KvSetOptions): Promise<boolean>;
  /** Reads and deletes in one step: a one-time value is handed out at most once. */
  take(key: string): Promise<string | null>;
  delete(key: string): Promise<void>;
  /** Increments an integer (starting at 0); the expiry is set when the key is created and not extended. */
  increment(key: string, options: { ttlMs: number }): Promise<number>;
  /** Remaining time to live in ms; null when the key is absent or has no expiry. */
  ttl(key: string): Promise<number | null>;
  /**
   * Live keys starting with `prefix`, at most `limit` of them (sweepers walk their own keys;
   * Redis SCAN, so it never blocks the server). Order is unspecified.
   */
  keys(prefix: string, limit: number): Promise<string[]>;
}
