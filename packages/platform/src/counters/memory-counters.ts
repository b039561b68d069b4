import type {
  CounterDelta,
  Counters,
  DrainMove,
  Kv,
  KvSetOptions,
  LimitLine,
  LimitResult,
  LimitState,
  ReserveLine,
  ReserveNote,
  ReserveResult,
} from './counters.js';
import { requireLimitLines, windowAt, windowEstimate, windowRetryAfterMs } from './sliding-window.js';

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

export function requireDrain(keep: number, moves: DrainMove[]): void {
  if (!Number.isSafeInteger(keep) || keep < 0) throw new TypeError(`keep must be a non-negative integer, got ${keep}`);
  for (const move of moves) if (move.sign !== 1 && move.sign !== -1) throw new TypeError(`a move's sign must be 1 or -1, got ${String(move.sign)}`);
}

export function requireDeltas(deltas: CounterDelta[]): void {
  for (const { key, delta } of deltas) requireInteger(delta, `delta for ${key}`);
}

/** One line of a limit check, checked and not yet applied. */
interface LimitCheck {
  fits: boolean;
  state: LimitState;
  /** Only meaningful when the line does not fit. */
  retryAfterMs: number;
  window: number | null;
  /** Adds to the window or takes the slot; returns the state after. */
  apply(): LimitState;
}

/** How far (in the `now` the limit calls pass) the windows and slots nobody checks again are swept. */
const limitSweepIntervalMs = 60_000;

/**
 * The synchronous steps of an in-memory Kv that its paired Counters run inside their own (so a
 * reservation's note and a drain's forget are one step with the counters: ReserveNote).
 */
export interface MemoryKvSteps {
  /** Whether the key holds a live (unexpired) entry. */
  has(key: string): boolean;
  put(note: ReserveNote): void;
  remove(key: string): void;
}

/** Counters and the Kv they write notes to, sharing one process's maps (`createStores` without Redis). */
export function createMemoryStores(): { counters: Counters; kv: Kv } {
  const { kv, steps } = memoryKv();
  return { counters: createMemoryCounters(steps), kv };
}

/** `kv`: the paired Kv's steps; without it a note or a forget is refused (TypeError). */
export function createMemoryCounters(kv?: MemoryKvSteps): Counters {
  const values = new Map<string, number>();
  /**
   * Window counts live in `values` as `${key}:${index}` (so `get` reads them, as on Redis); this
   * remembers which windows each limit key has, to drop those before the previous one.
   */
  const windowsOf = new Map<string, { windowMs: number; indexes: number[] }>();
  /** Per slots key, each member's expiry (in the callers' `now`). */
  const slots = new Map<string, Map<string, number>>();
  let lastSweep = 0;

  function paired(): MemoryKvSteps {
    if (!kv) throw new TypeError('these counters have no Kv paired (createMemoryStores pairs them): a note or a forget cannot be kept');
    return kv;
  }

  /** One step, so nothing interleaves (each method below runs synchronously to the end). */
  function apply({ key, delta, create }: CounterDelta): number | null {
    const current = values.get(key) ?? (create ? 0 : undefined);
    if (current === undefined) return null;
    values.set(key, current + delta);
    return current + delta;
  }

  /** Only the current and the previous window are ever read: older ones go, so a key keeps at most two (or a few future ones). */
  function dropStaleWindows(key: string, index: number): void {
    const windows = windowsOf.get(key);
    if (!windows) return;
    windows.indexes = windows.indexes.filter((kept) => {
      if (kept >= index - 1) return true;
      values.delete(`${key}:${kept}`);
      return false;
    });
    if (windows.indexes.length === 0) windowsOf.delete(key);
  }

  /** A key's slots with the expired ones removed (an empty set is dropped, and stored again when a slot is taken). */
  function liveSlots(key: string, now: number): Map<string, number> {
    const held = slots.get(key) ?? new Map<string, number>();
    for (const [member, expiresAt] of held) if (expiresAt <= now) held.delete(member);
    if (held.size === 0) slots.delete(key);
    return held;
  }

  /** Keys nobody checks again are dropped here; driven by the calls' own clock, so no timer runs. */
  function sweepIfDue(now: number): void {
    if (now - lastSweep < limitSweepIntervalMs) return;
    lastSweep = now;
    for (const [key, { windowMs }] of windowsOf) dropStaleWindows(key, windowAt(now, windowMs).index);
    for (const key of slots.keys()) liveSlots(key, now);
  }

  function checkWindow(line: Extract<LimitLine, { kind: 'window' }>, now: number): LimitCheck {
    const { index, elapsed } = windowAt(now, line.windowMs);
    dropStaleWindows(line.key, index);
    const currentKey = `${line.key}:${index}`;
    // A count settled below zero (a caller's mistake) must not make room for others.
    const current = Math.max(0, values.get(currentKey) ?? 0);
    const previous = Math.max(0, values.get(`${line.key}:${index - 1}`) ?? 0);
    const used = windowEstimate(previous, current, elapsed, line.windowMs);
    const resetMs = line.windowMs - elapsed;
    const fits = used + line.need <= line.limit;
    return {
      fits,
      state: { used, limit: line.limit, resetMs },
      retryAfterMs: fits ? 0 : windowRetryAfterMs(previous, current, elapsed, line.windowMs, line.limit, line.need),
      window: index,
      apply() {
        // Created even when adding 0, so a later settleWindow (a success counted) lands.
        values.set(currentKey, (values.get(currentKey) ?? 0) + line.add);
        const windows = windowsOf.get(line.key) ?? { windowMs: line.windowMs, indexes: [] };
        windows.windowMs = line.windowMs;
        if (!windows.indexes.includes(index)) windows.indexes.push(index);
        windowsOf.set(line.key, windows);
        return { used: used + line.add, limit: line.limit, resetMs };
      },
    };
  }

  function slotState(held: Map<string, number>, limit: number, now: number): LimitState {
    let earliest = Infinity;
    for (const expiresAt of held.values()) earliest = Math.min(earliest, expiresAt);
    return { used: held.size, limit, resetMs: held.size === 0 ? 0 : earliest - now };
  }

  function checkSlots(line: Extract<LimitLine, { kind: 'slots' }>, now: number): LimitCheck {
    const held = liveSlots(line.key, now);
    const state = slotState(held, line.limit, now);
    return {
      fits: held.has(line.member) || held.size < line.limit,
      state,
      retryAfterMs: state.resetMs,
      window: null,
      apply() {
        held.set(line.member, now + line.ttlMs);
        slots.set(line.key, held);
        return slotState(held, line.limit, now);
      },
    };
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
    async reserve(lines, credits = [], note): Promise<ReserveResult> {
      requireReserveLines(lines);
      requireDeltas(credits);
      if (note) requireTtl(note.ttlMs);
      // Check and apply run in one synchronous step, so no other call can interleave.
      if (note && paired().has(note.key)) return { ok: false, key: note.key, reason: 'exists' };
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
      for (const { key, delta } of credits) apply({ key, delta, create: true });
      if (note) paired().put(note);
      return { ok: true, balances };
    },
    async drain(key, keep, moves, forget) {
      requireDrain(keep, moves);
      if (forget !== undefined) paired().remove(forget);
      const value = values.get(key);
      if (value === undefined) return null;
      values.delete(key);
      const back = value - keep;
      if (back > 0) for (const move of moves) apply({ key: move.key, delta: move.sign * back, create: move.create });
      return value;
    },
    async delete(key) {
      values.delete(key);
    },
    async limit(lines, now): Promise<LimitResult> {
      requireLimitLines(lines, now);
      sweepIfDue(now);
      // Every line is checked before any is applied, in one synchronous step: nothing interleaves.
      const checks = lines.map((line) => (line.kind === 'window' ? checkWindow(line, now) : checkSlots(line, now)));
      const refused = checks.findIndex((check) => !check.fits);
      if (refused >= 0) {
        return { ok: false, index: refused, states: checks.map((check) => check.state), retryAfterMs: checks[refused]!.retryAfterMs };
      }
      return { ok: true, states: checks.map((check) => check.apply()), windows: checks.map((check) => check.window) };
    },
    async settleWindow(key, window, delta) {
      requireInteger(window, 'window');
      requireInteger(delta, 'delta');
      apply({ key: `${key}:${window}`, delta });
    },
    async releaseSlots(keys, member) {
      for (const key of keys) {
        const held = slots.get(key);
        held?.delete(member);
        if (held?.size === 0) slots.delete(key);
      }
    },
    async countSlots(key, now) {
      let count = 0;
      for (const expiresAt of slots.get(key)?.values() ?? []) if (expiresAt > now) count += 1;
      return count;
    },
  };
}

interface Entry {
  /** The text, or a reservation's note not made yet (ReserveNote.value: made at the first read). */
  value: string | (() => string);
  /** Epoch ms; null for no expiry. */
  expiresAt: number | null;
}

/** An entry's text, a note's made once (the entry keeps it). */
function textOf(entry: Entry): string {
  if (typeof entry.value === 'function') entry.value = entry.value();
  return entry.value;
}

/** How often expired keys nobody reads again are dropped. */
const sweepIntervalMs = 10_000;

export function createMemoryKv(): Kv {
  return memoryKv().kv;
}

/** A Kv in memory and the steps its paired Counters run (MemoryKvSteps). */
function memoryKv(): { kv: Kv; steps: MemoryKvSteps } {
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

  function store(key: string, value: Entry['value'], ttlMs: number | undefined): void {
    entries.set(key, { value, expiresAt: ttlMs === undefined ? null : Date.now() + ttlMs });
    if (ttlMs !== undefined && !sweeper) {
      sweeper = setInterval(sweep, sweepIntervalMs);
      sweeper.unref();
    }
  }

  const steps: MemoryKvSteps = {
    has: (key) => live(key) !== undefined,
    put: (note) => store(note.key, note.value, note.ttlMs),
    remove: (key) => entries.delete(key),
  };

  const kv: Kv = {
    async get(key) {
      const entry = live(key);
      return entry ? textOf(entry) : null;
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
      return entry ? textOf(entry) : null;
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
      const text = textOf(entry);
      const current = Number(text);
      // Same refusal as Redis INCR on a value that is not an integer.
      if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(current + 1)) {
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
  return { kv, steps };
}
