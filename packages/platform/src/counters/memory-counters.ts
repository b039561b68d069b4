import type { CounterDelta, Counters, Kv, KvSetOptions, ReserveLine, ReserveResult } from './counters.js';

/**
 * Input checks shared by both adapters, so the in-memory one rejects exactly what Redis would
 * (and more: quota is money, so a fractional or unsafe amount is a bug, never something to round).
 */
export function requireInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new TypeError(`${what} must be a safe integer, got ${value}`);
}

export function requireTtl(ttlMs: number | undefined): void {
  if (ttlMs === undefined) return;
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new TypeError(`ttlMs must be a positive integer, got ${ttlMs}`);
}

export function requireReserveLines(lines: ReserveLine[]): void {
  const seen = new Set<string>();
  for (const line of lines) {
    requireInteger(line.amount, `amount for ${line.key}`);
    if (line.amount <= 0) throw new RangeError(`amount for ${line.key} must be positive, got ${line.amount}`);
    // Two lines on one key would each pass the check against the same balance and overdraw it.
    if (seen.has(line.key)) throw new RangeError(`key ${line.key} appears twice in one reservation`);
    seen.add(line.key);
  }
}

export function requireDeltas(deltas: CounterDelta[]): void {
  for (const { key, delta } of deltas) requireInteger(delta, `delta for ${key}`);
}

export function createMemoryCounters(): Counters {
  const values = new Map<string, number>();

  /** One step, so nothing interleaves (each method below runs synchronously to the end). */
  function apply({ key, delta, create }: CounterDelta): number | null {
    const current = values.get(key) ?? (create ? 0 : undefined);
    if (current === undefined) return null;
    values.set(key, current + delta);
    return current + delta;
  }

  return {
    async get(key) {
      return values.get(key) ?? null;
    },
    async seed(key, value, minus) {
      requireInteger(value, 'value');
      if (!values.has(key)) values.set(key, value - (minus === undefined ? 0 : (values.get(minus) ?? 0)));
      return values.get(key)!;
    },
    async set(key, value) {
      requireInteger(value, 'value');
      values.set(key, value);
    },
    async rebase(key, value, minus) {
      requireInteger(value, 'value');
      if (!values.has(key)) return null;
      values.set(key, value - (values.get(minus) ?? 0));
      return values.get(key)!;
    },
    async adjust(key, delta) {
      requireInteger(delta, 'delta');
      return apply({ key, delta });
    },
    async adjustMany(deltas) {
      requireDeltas(deltas);
      return deltas.map(apply);
    },
    async reserve(lines, credits = []): Promise<ReserveResult> {
      requireReserveLines(lines);
      requireDeltas(credits);
      // Check and apply run in one synchronous step, so no other call can interleave.
      for (const { key, amount } of lines) {
        const current = values.get(key);
        if (current === undefined) return { ok: false, key, reason: 'missing' };
        if (current < amount) return { ok: false, key, reason: 'insufficient' };
      }
      const balances = lines.map(({ key, amount }) => {
        const next = values.get(key)! - amount;
        values.set(key, next);
        return next;
      });
      for (const credit of credits) apply({ ...credit, create: true });
      return { ok: true, balances };
    },
    async delete(key) {
      values.delete(key);
    },
  };
}

interface Entry {
  value: string;
  /** Epoch ms; null for no expiry. */
  expiresAt: number | null;
}

/** How often expired keys nobody reads again are dropped. */
const sweepIntervalMs = 10_000;

export function createMemoryKv(): Kv {
  const entries = new Map<string, Entry>();
  let sweeper: NodeJS.Timeout | undefined;

  function sweep(): void {
    const now = Date.now();
    let expiring = 0;
    for (const [key, entry] of entries) {
      if (entry.expiresAt === null) continue;
      if (entry.expiresAt <= now) entries.delete(key);
      else expiring += 1;
    }
    // The timer only lives while something can expire; it never keeps the process up.
    if (expiring === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  }

  function live(key: string): Entry | undefined {
    const entry = entries.get(key);
    if (entry?.expiresAt != null && entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }

  function store(key: string, value: string, ttlMs: number | undefined): void {
    entries.set(key, { value, expiresAt: ttlMs === undefined ? null : Date.now() + ttlMs });
    if (ttlMs !== undefined && !sweeper) {
      sweeper = setInterval(sweep, sweepIntervalMs);
      sweeper.unref();
    }
  }

  return {
    async get(key) {
      return live(key)?.value ?? null;
    },
    async set(key, value, options: KvSetOptions = {}) {
      requireTtl(options.ttlMs);
      store(key, value, options.ttlMs);
    },
    async setIfAbsent(key, value, options: KvSetOptions = {}) {
      requireTtl(options.ttlMs);
      if (live(key)) return false;
      store(key, value, options.ttlMs);
      return true;
    },
    async take(key) {
      const entry = live(key);
      entries.delete(key);
      return entry?.value ?? null;
    },
    async delete(key) {
      entries.delete(key);
    },
    async increment(key, options) {
      requireTtl(options.ttlMs);
      const entry = live(key);
      if (!entry) {
        store(key, '1', options.ttlMs);
        return 1;
      }
      const current = Number(entry.value);
      // Same refusal as Redis INCR on a value that is not an integer.
      if (!/^-?\d+$/.test(entry.value) || !Number.isSafeInteger(current + 1)) {
        throw new Error(`value at ${key} is not an integer or out of range`);
      }
      entry.value = String(current + 1);
      return current + 1;
    },
    async ttl(key) {
      const expiresAt = live(key)?.expiresAt;
      return expiresAt == null ? null : expiresAt - Date.now();
    },
    async keys(prefix, limit) {
      const found: string[] = [];
      for (const key of entries.keys()) {
        if (found.length >= limit) break;
        if (key.startsWith(prefix) && live(key)) found.push(key);
      }
      return found;
    },
  };
}
