import { MAX_QUOTA, type UsageRecord } from '@aigw/contracts';
import type { Bus } from '../bus/bus.js';
import type { Counters, Kv, ReserveLine } from '../counters/counters.js';
import type { Logger } from '../logger.js';
import { requestTyped } from '../messaging.js';

/**
 * The quota hot path (DESIGN section 5, steps 3 and 6): before a request goes upstream its
 * estimated charge is taken from the live counters in one atomic step (a Redis Lua call, or one
 * synchronous step in memory) and remembered as a hold; after it finished the hold is settled to
 * the actual charge. Billing's database stays the system of record: it seeds the counters on
 * first use (`billing.quota.seed`, SET NX) and moves them by the same delta after every top-up,
 * redemption, admin edit and transfer; usage reaches the database through `relay.usage.recorded`.
 *
 * Holds and expiry. A hold lives in the Kv under `quota:hold:<requestId>` with a ttl of
 * holdTtlMs + HOLD_GRACE_MS. Whoever settles first (the request itself, or `sweep` for holds past
 * `expiresAt`, run by the relay's sweeper job) takes it with `kv.take`, so it is applied once.
 * A swept hold is released (nothing is known of its usage: the relay died mid-request). The grace
 * period is the sweeper's window to find expired holds before the Kv entry vanishes.
 */

/** Live counter keys of the quota hot path; billing's ledger uses the same (one definition). */
export const counterKeys = {
  user: (userId: number) => `quota:user:${userId}`,
  token: (tokenId: number) => `quota:token:${tokenId}`,
};

/** Kv key of a request's hold. */
export const holdKey = (requestId: string) => `quota:hold:${requestId}`;

/** How long a hold's Kv entry outlives its expiry, so a sweeper can still settle it. */
export const HOLD_GRACE_MS = 60_000;

export interface QuotaHold {
  userId: number;
  /** 0 when no token counter was touched (unlimited token, or a playground request). */
  tokenId: number;
  amount: number;
  /** Epoch ms after which a sweeper may settle (release) the hold. */
  expiresAt: number;
  /** The usage record to publish (with no usage) should the hold be swept: one record per request, even then. */
  record?: UsageRecord;
}

export interface ReserveRequest {
  /** Unique per logical request (retries included). */
  requestId: string;
  userId: number;
  /** 0 for playground requests (user counter only). */
  tokenId: number;
  unlimitedToken: boolean;
  amount: number;
  /** Kept with the hold for the sweeper (see QuotaHold.record). */
  record?: UsageRecord;
}

export type ReserveOutcome =
  | { ok: true; hold: QuotaHold; /** Counter values right after the reservation (token null when not touched). */ remaining: { user: number | null; token: number | null } }
  | { ok: false; reason: 'insufficient_user_quota' | 'insufficient_token_quota' };

export interface SettleOutcome {
  hold: QuotaHold;
  /** reserved − actual: positive refunds the counters, negative charges the rest. */
  delta: number;
}

export interface QuotaGate {
  /**
   * Takes `amount` from the user's counter and the limited token's, all or nothing. Rejects
   * (BusRequestError) when a counter must be seeded and billing does not answer: the caller
   * refuses the request then (503), it never forwards unreserved.
   */
  reserve(request: ReserveRequest): Promise<ReserveOutcome>;
  /** Applies the actual charge to the hold's counters; null when there is no hold (settled already, or expired). */
  settle(requestId: string, actualQuota: number): Promise<SettleOutcome | null>;
  /** Gives the whole hold back (the request was never forwarded, or delivered nothing billable). */
  release(requestId: string): Promise<SettleOutcome | null>;
  /** Reads a hold without taking it (for a sweeper, or diagnostics). */
  getHold(requestId: string): Promise<QuotaHold | null>;
  /**
   * Releases holds past their expiry (their relay died mid-request, so nobody will settle them)
   * and returns them. Each is taken once, so several sweepers (replicas) never release twice.
   */
  sweep(now?: number, limit?: number): Promise<Array<{ requestId: string; hold: QuotaHold }>>;
}

export interface QuotaGateOptions {
  counters: Counters;
  kv: Kv;
  bus: Bus;
  logger: Logger;
  /** How long a reservation may stay open before a sweeper may release it. */
  holdTtlMs: number;
}

function requireAmount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_QUOTA) {
    throw new TypeError(`${what} must be an integer from 0 to ${MAX_QUOTA}, got ${value}`);
  }
}

function requireId(value: number, what: string, allowZero: boolean): void {
  if (!Number.isSafeInteger(value) || value < (allowZero ? 0 : 1)) throw new TypeError(`${what} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${value}`);
}

export function createQuotaGate(options: QuotaGateOptions): QuotaGate {
  const { counters, kv, bus, logger, holdTtlMs } = options;
  if (!Number.isSafeInteger(holdTtlMs) || holdTtlMs <= 0) throw new TypeError(`holdTtlMs must be a positive integer, got ${holdTtlMs}`);
  /** One seed request at a time per (user, token) in this process: a burst of misses asks billing once. */
  const seeding = new Map<string, Promise<unknown>>();

  function seed(userId: number, tokenId: number): Promise<unknown> {
    const key = `${userId}:${tokenId}`;
    let pending = seeding.get(key);
    if (!pending) {
      pending = requestTyped(bus, 'billing.quota.seed', { user_id: userId, token_id: tokenId }).finally(() => seeding.delete(key));
      seeding.set(key, pending);
    }
    return pending;
  }

  async function take(lines: ReserveLine[], userId: number, tokenId: number) {
    const first = await counters.reserve(lines);
    if (first.ok || first.reason !== 'missing') return first;
    // Not loaded yet (first use since Redis or the process started): billing seeds from the database.
    logger.debug({ userId, tokenId, key: first.key }, 'quota: seeding live counters');
    await seed(userId, tokenId);
    return counters.reserve(lines);
  }

  async function settle(requestId: string, actualQuota: number): Promise<SettleOutcome | null> {
    requireAmount(actualQuota, 'actualQuota');
    const raw = await kv.take(holdKey(requestId));
    if (raw === null) return null;
    const hold = JSON.parse(raw) as QuotaHold;
    const delta = hold.amount - actualQuota;
    if (delta !== 0) {
      // Deltas only, never a written balance: a concurrent top-up's adjust is never overwritten.
      // A charge above the hold may take a counter below zero: the bounded overdraft.
      await counters.adjust(counterKeys.user(hold.userId), delta);
      if (hold.tokenId > 0) await counters.adjust(counterKeys.token(hold.tokenId), delta);
    }
    return { hold, delta };
  }

  return {
    async reserve(request) {
      const { requestId, userId, tokenId, unlimitedToken, amount, record } = request;
      if (typeof requestId !== 'string' || requestId.length === 0 || requestId.length > 64) throw new TypeError('requestId must be 1 to 64 characters');
      requireId(userId, 'userId', false);
      requireId(tokenId, 'tokenId', true);
      requireAmount(amount, 'amount');
      const limitedToken = tokenId > 0 && !unlimitedToken ? tokenId : 0;
      const lines: ReserveLine[] = [{ key: counterKeys.user(userId), amount }];
      if (limitedToken) lines.push({ key: counterKeys.token(limitedToken), amount });

      let remaining: { user: number | null; token: number | null } = { user: null, token: null };
      // A zero reservation (free model, trust bypass: the relay's policy) takes nothing; the
      // counters cannot take 0, and settle charges the actual amount either way.
      if (amount > 0) {
        const result = await take(lines, userId, limitedToken);
        if (!result.ok) {
          return { ok: false, reason: result.key === counterKeys.user(userId) ? 'insufficient_user_quota' : 'insufficient_token_quota' };
        }
        remaining = { user: result.balances[0]!, token: limitedToken ? result.balances[1]! : null };
      }

      const hold: QuotaHold = { userId, tokenId: limitedToken, amount, expiresAt: Date.now() + holdTtlMs, ...(record ? { record } : {}) };
      let stored = false;
      try {
        stored = await kv.setIfAbsent(holdKey(requestId), JSON.stringify(hold), { ttlMs: holdTtlMs + HOLD_GRACE_MS });
      } finally {
        // Without a stored hold nobody could settle it: give the amount back at once.
        if (!stored && amount > 0) for (const line of lines) await counters.adjust(line.key, amount);
      }
      if (!stored) throw new Error(`quota: request ${requestId} already holds a reservation`);
      return { ok: true, hold, remaining };
    },

    settle,
    release: (requestId) => settle(requestId, 0),

    async getHold(requestId) {
      const raw = await kv.get(holdKey(requestId));
      return raw === null ? null : (JSON.parse(raw) as QuotaHold);
    },

    async sweep(now = Date.now(), limit = 1000) {
      const prefix = holdKey('');
      const swept: Array<{ requestId: string; hold: QuotaHold }> = [];
      for (const key of await kv.keys(prefix, limit)) {
        const raw = await kv.get(key);
        if (raw === null || (JSON.parse(raw) as QuotaHold).expiresAt > now) continue;
        const requestId = key.slice(prefix.length);
        const released = await settle(requestId, 0);
        if (released) swept.push({ requestId, hold: released.hold });
      }
      if (swept.length) logger.warn({ count: swept.length, requestIds: swept.map((entry) => entry.requestId).slice(0, 20) }, 'quota: expired holds released');
      return swept;
    },
  };
}
