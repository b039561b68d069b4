/**
 * The Counters and Kv ports: live integer counters with an atomic multi-key reserve (the quota
 * hot path) and a small key-value store with expiry (verification codes, sessions' marks, rate
 * limits). Two adapters: Redis (`REDIS_URL` set; the reserve is one Lua script) and in-memory.
 * Both pass test/contracts/counters.contract.ts and kv.contract.ts.
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

export type ReserveResult =
  | { ok: true; /** Values after the reservation, in the order of the lines. */ balances: number[] }
  | { ok: false; /** First line that failed. */ key: string; reason: 'insufficient' | 'missing' };

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
   * All-or-nothing: every key must exist and hold at least its amount; then every key is
   * decremented and every `credits` delta applied (created when missing). No other operation
   * can interleave (one Lua call in Redis).
   */
  reserve(lines: ReserveLine[], credits?: CounterDelta[]): Promise<ReserveResult>;
  delete(key: string): Promise<void>;
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
