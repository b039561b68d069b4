import { randomBytes } from 'node:crypto';
import { MAX_QUOTA, usageRecordSchema, type UsageRecord } from '@aigw/contracts';
import type { Bus } from '../bus/bus.js';
import type { CounterDelta, Counters, DrainMove, Kv, ReserveLine, ReserveNote } from '../counters/counters.js';
import type { Logger } from '../logger.js';
import { requestTyped } from '../messaging.js';

/**
 * The quota hot path (docs/architecture.md section 5, steps 3 and 6): before a request goes
 * upstream its estimated charge is taken from the live counters in one atomic step (a Redis Lua
 * call, or one synchronous step in memory) and remembered as a hold; after it finished the hold is
 * settled to the actual charge. Billing's database stays the system of record: it seeds the
 * counters on first use (`billing.quota.seed`), moves them by the same delta after every top-up,
 * redemption and transfer, and re-bases them after an admin sets a balance; usage reaches the
 * database through `relay.usage.recorded`.
 *
 * What is held. Beside each user's spendable counter the gate keeps `quota:held:user:<id>`: the
 * sum of the user's open holds plus the charges settled but not yet committed by billing (billing
 * takes each charge off after its transaction). So at any moment, spendable = database balance -
 * held, and a counter (re)loaded from the database is exact: seeding and an admin's absolute
 * balance store `balance - held` (Counters.seed / rebase with `minus`).
 *
 * Holds and owners. A hold is two entries: its amount, a counter `quota:hold-amount:<requestId>`,
 * and its details in the Kv under `quota:hold:<requestId>`, among them the relay instance that
 * owns it (`name#incarnation`). The reservation creates both in the one atomic step that takes
 * the amount (the details are the reserve's ReserveNote: a request id already holding one is
 * refused before anything is taken); settle or a sweeper drains the amount, giving back what was
 * not charged, and deletes the details, again in one atomic step. So a relay killed at any
 * point leaves nothing taken that no hold accounts for: the amount moves with the counters. Each instance keeps a lease, `quota:lease:<name>`
 * = its incarnation, renewed while it runs. `sweep` releases holds whose owner is gone (lease
 * missing, or held by a newer incarnation of the same name: the process restarted) or whose
 * expiry passed (a request can never outlive it: the relay cuts answers before). `start` writes
 * the lease and sweeps at once, so a restarted instance releases its previous incarnation's
 * holds before serving.
 *
 * Records of dead relays. A hold carries the usage record (no usage) its sweeper publishes, so
 * a relay that dies mid-request still leaves exactly one record. Redis can lose holds, so a
 * request still running after a second is also announced to billing (`relay.request.started`),
 * which keeps it in its database until the real record comes (billing's pending sweep).
 *
 * Once. Whoever drains a hold's amount (the request's own settle, or a sweeper) applies it.
 * A settle that finds its hold gone (swept, or Redis lost its data) still charges the actual
 * amount to the counters: the sweeper gave the hold back, or the counter was re-seeded from a
 * database that does not know this request yet. The caller settles each request once.
 */

/** Live counter keys of the quota hot path; billing's ledger uses the same (one definition). */
export const counterKeys = {
  user: (userId: number) => `quota:user:${userId}`,
  token: (tokenId: number) => `quota:token:${tokenId}`,
  /** Open holds plus settled charges billing has not committed yet, of one user. */
  userHeld: (userId: number) => `quota:held:user:${userId}`,
};

/** Kv key of a request's hold (its details; the amount is the counter `holdAmountKey`). */
export const holdKey = (requestId: string) => `quota:hold:${requestId}`;

/** Counter key of what a request's hold has taken (created with the take, drained at settle). */
export const holdAmountKey = (requestId: string) => `quota:hold-amount:${requestId}`;

/**
 * Kv key of a stream's latest checkpoint: the usage record (with its charge) of what the stream
 * had delivered when it was written. Whoever finishes a dead relay's request publishes it instead
 * of the hold's record, so a crash mid-stream bills what reached the client, not zero.
 */
export const checkpointKey = (requestId: string) => `quota:checkpoint:${requestId}`;

/** Kv key of a relay instance's lease (its value: the running incarnation). */
export const leaseKey = (name: string) => `quota:lease:${name}`;

/** How long a hold's Kv entry outlives its expiry, so a sweeper can still settle it. */
export const HOLD_GRACE_MS = 60_000;

/** Default lease: renewed every quarter of it, so a live instance survives three missed renewals. */
export const DEFAULT_LEASE_TTL_MS = 20_000;

export interface QuotaHold {
  requestId: string;
  userId: number;
  /** 0 when no token counter was touched (unlimited token, or a playground request). */
  tokenId: number;
  amount: number;
  /** Epoch ms after which a sweeper may release the hold. */
  expiresAt: number;
  /** The relay instance serving the request: `name#incarnation`. */
  owner: string;
  /** The usage record (no usage) a sweeper publishes should it release the hold: one record per request, even then. */
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
  /** How long the request may take at most; its hold expires then. */
  ttlMs: number;
  /** Kept with the hold for a sweeper (see QuotaHold.record). */
  record?: UsageRecord;
}

export type ReserveOutcome =
  | {
      ok: true;
      hold: QuotaHold;
      /** Counter values right after the reservation (token null when not touched). */ remaining: { user: number | null; token: number | null };
    }
  | { ok: false; reason: 'insufficient_user_quota' | 'insufficient_token_quota' };

export interface SettleOutcome {
  /** reserved − charged when the hold was found; −charged when it was gone (swept or lost). */
  delta: number;
  /** False when the hold was gone: the counters were charged all the same. */
  found: boolean;
  /**
   * What was taken: the actual charge, or less when it was above the hold and the user or the
   * key could not pay the rest (a counter never goes below zero). The usage record says this.
   */
  charged: number;
}

/** Whether the instance owning a hold still runs. */
export type LeaseState = 'alive' | 'superseded' | 'missing';

export interface QuotaGate {
  /** `name#incarnation` of this process: the owner written into its holds. */
  readonly owner: string;
  /** Writes this instance's lease (renewed until close) and releases what a previous incarnation left (returned, as by `sweep`). */
  start(): Promise<QuotaHold[]>;
  /** Stops renewing and gives the lease up, so whatever is left is swept at once. */
  close(): Promise<void>;
  /**
   * Takes `amount` from the user's counter and the limited token's, all or nothing. Rejects
   * (BusRequestError) when a counter must be seeded and billing does not answer: the caller
   * refuses the request then (503), it never forwards unreserved.
   */
  reserve(request: ReserveRequest): Promise<ReserveOutcome>;
  /**
   * Applies the actual charge to the counters, once per request (see "Once" above). A charge
   * above the hold takes what the user and the key can still pay, never more: no counter goes
   * below zero (SettleOutcome.charged says what was taken).
   */
  settle(hold: QuotaHold, actualQuota: number): Promise<SettleOutcome>;
  /**
   * Takes up to `amount` more for a running request (a stream that outran its hold): all of it
   * when the user and the key can pay it, else what they have left. Adds the granted amount to
   * `hold.amount` (and, in the same atomic step, to its stored amount, so a sweeper gives it back too) and returns it; 0 when
   * nothing is left or the hold is gone.
   */
  extend(hold: QuotaHold, amount: number): Promise<number>;
  /**
   * Keeps the record of what a running stream delivered so far (its charge at most the hold), so
   * a sweeper of this relay's holds, or billing's pending sweep, records that instead of nothing.
   */
  checkpoint(hold: QuotaHold, record: UsageRecord): Promise<void>;
  /** Gives the whole hold back (the request was never forwarded, or delivered nothing billable). */
  release(hold: QuotaHold): Promise<SettleOutcome>;
  /** Reads a hold without taking it (diagnostics, tests). */
  getHold(requestId: string): Promise<QuotaHold | null>;
  /**
   * Releases holds past their expiry or whose owner is gone, and returns them. Each is taken
   * once, so several sweepers (replicas) never release twice.
   */
  sweep(now?: number, limit?: number): Promise<QuotaHold[]>;
}

export interface QuotaGateOptions {
  counters: Counters;
  kv: Kv;
  bus: Bus;
  logger: Logger;
  /** Stable per process slot (a pod's name): a restart under the same name releases the old holds at once. */
  instanceName: string;
  leaseTtlMs?: number;
}

/** `name#incarnation`: the incarnation is new at every start. */
export function ownerOf(name: string, incarnation: string): string {
  return `${name}#${incarnation}`;
}

/** Whether the owner of a hold (or of a pending request) still runs, from its lease. */
export async function leaseState(kv: Kv, owner: string): Promise<LeaseState> {
  const split = owner.lastIndexOf('#');
  if (split <= 0) return 'missing';
  const current = await kv.get(leaseKey(owner.slice(0, split)));
  if (current === null) return 'missing';
  return current === owner.slice(split + 1) ? 'alive' : 'superseded';
}

function requireAmount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_QUOTA) {
    throw new TypeError(`${what} must be an integer from 0 to ${MAX_QUOTA}, got ${value}`);
  }
}

function requireId(value: number, what: string, allowZero: boolean): void {
  if (!Number.isSafeInteger(value) || value < (allowZero ? 0 : 1))
    throw new TypeError(`${what} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${value}`);
}

type StoredHold = Omit<QuotaHold, 'requestId'>;

/** Where a drained hold's unused amount goes: back to the user's and the key's counters, off the held sum. */
function refundMoves(hold: StoredHold): DrainMove[] {
  const moves: DrainMove[] = [{ key: counterKeys.user(hold.userId), sign: 1 }];
  if (hold.tokenId > 0) moves.push({ key: counterKeys.token(hold.tokenId), sign: 1 });
  moves.push({ key: counterKeys.userHeld(hold.userId), sign: -1 });
  return moves;
}

/** The counter changes that move `delta` back to a hold's counters (negative: a further charge). */
function refund(hold: StoredHold, delta: number, createHeld: boolean): CounterDelta[] {
  if (delta === 0) return [];
  const changes: CounterDelta[] = [{ key: counterKeys.user(hold.userId), delta }];
  if (hold.tokenId > 0) changes.push({ key: counterKeys.token(hold.tokenId), delta });
  changes.push({ key: counterKeys.userHeld(hold.userId), delta: 0 - delta, create: createHeld });
  return changes;
}

export function createQuotaGate(options: QuotaGateOptions): QuotaGate {
  const { counters, kv, bus, logger, instanceName } = options;
  const leaseTtlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  // At most 180: `name#incarnation` (13 more) is a usage event's owner, of at most 200 characters.
  if (!instanceName || instanceName.includes('#') || instanceName.length > 180)
    throw new TypeError(`instanceName must be 1 to 180 characters without '#', got '${instanceName}'`);
  if (!Number.isSafeInteger(leaseTtlMs) || leaseTtlMs < 100) throw new TypeError(`leaseTtlMs must be an integer of at least 100, got ${leaseTtlMs}`);
  const incarnation = randomBytes(6).toString('hex');
  const owner = ownerOf(instanceName, incarnation);
  let renewal: NodeJS.Timeout | undefined;
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

  async function take(lines: ReserveLine[], credits: CounterDelta[], userId: number, tokenId: number, details: ReserveNote) {
    const first = await counters.reserve(lines, credits, details);
    if (first.ok || first.reason !== 'missing') return first;
    // Not loaded yet (first use since Redis or the process started): billing seeds from the database.
    logger.debug({ userId, tokenId, key: first.key }, 'quota: seeding live counters');
    await seed(userId, tokenId);
    return counters.reserve(lines, credits, details);
  }

  async function renew(): Promise<void> {
    const current = await kv.get(leaseKey(instanceName));
    if (current !== null && current !== incarnation) {
      logger.error(
        { instanceName, incarnation, other: current },
        'quota: another process renews the lease of this instance name; give each relay its own INSTANCE_NAME',
      );
    }
    await kv.set(leaseKey(instanceName), incarnation, { ttlMs: leaseTtlMs });
  }

  /** The counter lines and the held credit of `amount` more for a hold's owner (and its amount, when the hold is open). */
  function holdLines(hold: StoredHold, amount: number, requestId?: string): { lines: ReserveLine[]; credits: CounterDelta[] } {
    const lines: ReserveLine[] = [{ key: counterKeys.user(hold.userId), amount }];
    if (hold.tokenId > 0) lines.push({ key: counterKeys.token(hold.tokenId), amount });
    const credits: CounterDelta[] = [{ key: counterKeys.userHeld(hold.userId), delta: amount }];
    if (requestId) credits.push({ key: holdAmountKey(requestId), delta: amount });
    return { lines, credits };
  }

  /**
   * Takes `amount` from the hold's counters, or what they have left when that is less (the
   * smaller of the user's and the key's), atomically each time: a concurrent request may take
   * what was read, so it reads and tries again. Null when a counter is not loaded (Redis lost
   * it): nothing can be taken, the database learns the charge from the record.
   */
  async function takeUpTo(hold: StoredHold, amount: number, requestId?: string): Promise<number | null> {
    let wanted = amount;
    for (let tries = 0; tries < 5 && wanted > 0; tries++) {
      const { lines, credits } = holdLines(hold, wanted, requestId);
      const result = await counters.reserve(lines, credits);
      if (result.ok) return wanted;
      if (result.reason === 'missing') return null;
      const left = await Promise.all(lines.map((line) => counters.get(line.key)));
      wanted = Math.min(wanted, ...left.map((value) => Math.max(value ?? 0, 0)));
    }
    return 0;
  }

  async function settle(hold: QuotaHold, actualQuota: number): Promise<SettleOutcome> {
    requireAmount(actualQuota, 'actualQuota');
    // One atomic step: the hold's amount drained, what was not charged given back, its details deleted.
    const drained = await counters.drain(holdAmountKey(hold.requestId), actualQuota, refundMoves(hold), holdKey(hold.requestId));
    const found = drained !== null;
    const held = drained ?? 0;
    let charged = Math.min(actualQuota, held);
    const above = actualQuota - charged;
    if (above > 0) {
      if (!found) logger.warn({ requestId: hold.requestId, userId: hold.userId }, 'quota: hold gone at settle (swept or lost); charging the counters');
      // Above the hold: what the user and the key can still pay, never below zero.
      const taken = await takeUpTo(hold, above);
      if (taken === null) {
        // A counter is not loaded (Redis lost it): the database learns the whole charge from the record.
        await counters.adjustMany(refund(hold, 0 - above, true));
        charged = actualQuota;
      } else {
        charged += taken;
        if (taken < above)
          logger.warn({ requestId: hold.requestId, userId: hold.userId, actualQuota, charged }, 'quota: charge above what was left; took the rest');
      }
    }
    return { delta: held - charged, found, charged };
  }

  async function extend(hold: QuotaHold, amount: number): Promise<number> {
    requireAmount(amount, 'amount');
    if (amount === 0) return 0;
    // Taken with the hold's amount in one step, so a relay killed right after leaves it accounted for.
    const granted = (await takeUpTo(hold, amount, hold.requestId)) ?? 0;
    if (granted === 0) return 0;
    if ((await kv.get(holdKey(hold.requestId))) === null) {
      // Swept meanwhile (this relay's lease was lost): the request is over for billing, give it back.
      await counters.drain(holdAmountKey(hold.requestId), 0, refundMoves(hold));
      return 0;
    }
    hold.amount += granted;
    return granted;
  }

  async function sweep(now = Date.now(), limit = 1000): Promise<QuotaHold[]> {
    const prefix = holdKey('');
    const swept: QuotaHold[] = [];
    const owners = new Map<string, Promise<LeaseState>>();
    for (const key of await kv.keys(prefix, limit)) {
      const raw = await kv.get(key);
      if (raw === null) continue;
      const hold = JSON.parse(raw) as StoredHold;
      if (hold.expiresAt > now) {
        if (!owners.has(hold.owner)) owners.set(hold.owner, leaseState(kv, hold.owner));
        if ((await owners.get(hold.owner)) === 'alive') continue;
      }
      const requestId = key.slice(prefix.length);
      // A stream's checkpoint: what it delivered is charged (at most the hold), the rest goes back.
      const checkpoint = await readCheckpoint(kv, requestId);
      // Drained once, atomically, with its details: a settle or another sweeper that got there
      // first (since the details were read) wins, and this finds the amount missing.
      const amount = await counters.drain(holdAmountKey(requestId), checkpoint?.quota ?? 0, refundMoves(hold), key);
      if (amount === null) continue;
      const charged = checkpoint ? Math.min(checkpoint.quota, amount) : 0;
      const record = checkpoint ? Object.assign({}, checkpoint, { quota: charged }) : hold.record;
      swept.push(Object.assign({}, hold, { requestId, amount, record: record && readBack(record, requestId) }));
    }
    if (swept.length)
      logger.warn(
        { count: swept.length, requestIds: swept.map((hold) => hold.requestId).slice(0, 20) },
        'quota: holds of stopped relays (or past expiry) released',
      );
    return swept;
  }

  /**
   * A record read back from Redis (perhaps written by another version), checked here against its
   * schema, since its publisher sends records as they are: one that fails is left out with an
   * error (billing records the request from its announcement, if it was announced).
   */
  function readBack(record: UsageRecord, requestId: string): UsageRecord | undefined {
    const checked = usageRecordSchema.safeParse(record);
    if (checked.success) return record;
    logger.error({ requestId, issues: checked.error.issues }, 'quota: a released hold whose record fails its schema');
    return undefined;
  }

  return {
    owner,

    async start() {
      await renew();
      renewal = setInterval(() => void renew().catch((error: unknown) => logger.warn({ err: error }, 'quota: lease not renewed')), Math.floor(leaseTtlMs / 4));
      renewal.unref();
      return sweep();
    },

    async close() {
      clearInterval(renewal);
      renewal = undefined;
      if ((await kv.get(leaseKey(instanceName))) === incarnation) await kv.delete(leaseKey(instanceName));
    },

    async reserve(request) {
      const { requestId, userId, tokenId, unlimitedToken, amount, ttlMs, record } = request;
      if (typeof requestId !== 'string' || requestId.length === 0 || requestId.length > 64) throw new TypeError('requestId must be 1 to 64 characters');
      requireId(userId, 'userId', false);
      requireId(tokenId, 'tokenId', true);
      requireAmount(amount, 'amount');
      if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new TypeError(`ttlMs must be a positive integer, got ${ttlMs}`);
      const limitedToken = tokenId > 0 && !unlimitedToken ? tokenId : 0;
      const stored: StoredHold = { userId, tokenId: limitedToken, amount, expiresAt: Date.now() + ttlMs, owner, ...(record ? { record } : {}) };
      // One atomic step: the amount off the user's and the key's counters, onto the held sum and
      // the hold's own amount, with the hold's details (so neither exists without the other).
      // A zero reservation (free model, trust bypass: the relay's policy) takes nothing, but its
      // amount exists (0), so settle finds it. Should the step throw, whether it was applied is
      // unknown: if it was, a sweeper settles the hold at its expiry.
      const { lines, credits } = amount > 0 ? holdLines(stored, amount, requestId) : { lines: [], credits: [{ key: holdAmountKey(requestId), delta: 0 }] };
      const details = { key: holdKey(requestId), value: () => JSON.stringify(stored), ttlMs: ttlMs + HOLD_GRACE_MS };
      const result = await take(lines, credits, userId, limitedToken, details);
      if (!result.ok) {
        if (result.reason === 'exists') throw new Error(`quota: request ${requestId} already holds a reservation`);
        return { ok: false, reason: result.key === counterKeys.user(userId) ? 'insufficient_user_quota' : 'insufficient_token_quota' };
      }
      const remaining = amount > 0 ? { user: result.balances[0]!, token: limitedToken ? result.balances[1]! : null } : { user: null, token: null };
      return { ok: true, hold: { requestId, ...stored }, remaining };
    },

    settle,
    release: (hold) => settle(hold, 0),
    extend,

    async checkpoint(hold, record) {
      const ttlMs = Math.max(hold.expiresAt - Date.now(), 1) + HOLD_GRACE_MS;
      await kv.set(checkpointKey(hold.requestId), JSON.stringify(record), { ttlMs });
    },

    async getHold(requestId) {
      const [raw, amount] = await Promise.all([kv.get(holdKey(requestId)), counters.get(holdAmountKey(requestId))]);
      return raw === null || amount === null ? null : { requestId, ...(JSON.parse(raw) as StoredHold), amount };
    },

    sweep,
  };
}

/** The latest checkpoint of a request (a stream's record so far), or null. */
export async function readCheckpoint(kv: Kv, requestId: string): Promise<UsageRecord | null> {
  const raw = await kv.get(checkpointKey(requestId));
  return raw === null ? null : (JSON.parse(raw) as UsageRecord);
}

/**
 * Billing, after it committed charges: takes them off the users' held counters (see "What is
 * held"). A missing counter stays missing (Redis lost it; nothing is held then).
 */
export async function releaseCommitted(counters: Counters, charges: Array<{ userId: number; quota: number }>): Promise<void> {
  const byUser = new Map<number, number>();
  for (const { userId, quota } of charges) if (quota !== 0) byUser.set(userId, (byUser.get(userId) ?? 0) + quota);
  if (byUser.size === 0) return;
  await counters.adjustMany([...byUser].map(([userId, quota]) => ({ key: counterKeys.userHeld(userId), delta: 0 - quota })));
}
