import type { Counters, Kv, LimitLine, LimitState, Logger, OptionsMirror } from '@aigw/platform';
import type { Bus } from '@aigw/platform';
import { publishLimitExceeded } from '../events.js';
import { RelayError } from '../errors.js';
import { DAY_MS, MINUTE_MS, type LimitRule, type LimitSettings, type PlannedLines } from './limit-rules.js';
import type { LimitUse } from '@aigw/contracts';
import { limitHeaders, retryAfterSeconds, describeWait } from './limit-headers.js';

/** What kinds of limits admit requests while the counters are unreachable (LIMITS_FAIL_OPEN). */
export type FailOpen = ReadonlySet<'rate' | 'concurrency'>;

/** A request's admission under its limits: the answer's headers, and what to do when it ends. */
export interface LimitTicket {
  /** x-ratelimit-* figures for the answer, as OpenAI sends them. */
  readonly headers: Record<string, string>;
  /** The request ended: token lines settled to the tokens it used, a success counted. Once. */
  finish(outcome: { tokens: number; success: boolean }): Promise<void>;
  /** Frees its concurrency slots; every exit path calls it (idempotent). */
  release(): Promise<void>;
  /** Done with: settled at nothing used unless it finished, its slots freed (idempotent). */
  close(): Promise<void>;
}

/** A refusal: which rule, and when a retry can pass. */
export interface LimitRefusal {
  rule: LimitRule;
  state: LimitState;
  retryAfterMs: number;
}

const settled = Promise.resolve();
/** The ticket of a request nothing limits (the common case): one settled promise shared, nothing allocated per call. */
export const NO_LIMITS: LimitTicket = { headers: {}, finish: () => settled, release: () => settled, close: () => settled };

/** The wait a concurrency refusal suggests. */
const CONCURRENCY_RETRY_MS = 1_000;

/** How long events about one limit are held back after one was published. */
const EVENT_QUIET_MS = 10_000;

/** A 429 in the client's protocol with Retry-After and the x-ratelimit-* headers. */
export class RateLimitedError extends RelayError {
  constructor(
    message: string,
    override readonly retryAfterSeconds: number,
    override readonly headers: Record<string, string>,
  ) {
    super(429, message, 'rate_limit_exceeded', 'rate_limit_error');
    this.name = 'RateLimitedError';
  }
}

const scopeNames: Record<LimitRule['scope'], string> = {
  key: 'this API key',
  user: 'your account',
  model: 'this model',
  group_model: 'this model in your group',
  user_requests: 'your account',
  channel: 'the channel',
};
const fieldNames: Record<LimitRule['field'], string> = {
  rpm: 'requests per minute (RPM)',
  rpd: 'requests per day (RPD)',
  tpm: 'tokens per minute (TPM)',
  tpd: 'tokens per day (TPD)',
  concurrency: 'requests at once',
  success: 'successful requests per window',
};

/**
 * The usage-limit gate (docs/architecture.md section 5.9): one Counters `limit` call checks every
 * applicable line of a request atomically before anything is held (none when nothing is limited,
 * the common case: no call at all); a refusal is the caller's 429, counted on the bus.
 */
export class LimitGate {
  private readonly lastErrorLog = { at: 0 };

  constructor(
    private readonly deps: { counters: Counters; kv: Kv; bus: Bus; logger: Logger; options: OptionsMirror; failOpen: FailOpen; clock?: () => number },
  ) {}

  /** The limit settings as the options say now (a mirror read: no I/O). */
  settings(): LimitSettings {
    const { options } = this.deps;
    return {
      defaultUser: options.get('DefaultUserRateLimits'),
      groups: options.get('GroupRateLimits'),
      models: options.get('ModelRateLimits'),
      userRequests: {
        enabled: options.get('ModelRequestRateLimitEnabled'),
        minutes: options.get('ModelRequestRateLimitDurationMinutes'),
        count: options.get('ModelRequestRateLimitCount'),
        success: options.get('ModelRequestRateLimitSuccessCount'),
        groups: options.get('ModelRequestRateLimitGroup'),
      },
    };
  }

  /**
   * What a scope's limits count now (`prefix`: its lines' key without the measure): the windows
   * read with a line that needs and adds nothing, the requests in flight from its slots.
   */
  async use(prefix: string): Promise<LimitUse[]> {
    const fields = ['rpm', 'rpd', 'tpm', 'tpd'] as const;
    const lines: LimitLine[] = fields.map((field) => ({
      kind: 'window',
      key: `${prefix}:${field}`,
      windowMs: field === 'rpm' || field === 'tpm' ? MINUTE_MS : DAY_MS,
      limit: Number.MAX_SAFE_INTEGER,
      need: 0,
      add: 0,
    }));
    const now = (this.deps.clock ?? Date.now)();
    const [result, inFlight] = await Promise.all([this.deps.counters.limit(lines, now), this.deps.counters.countSlots(`${prefix}:concurrency`, now)]);
    return [
      ...fields.map((field, index) => ({ field, used: result.states[index]!.used, reset_seconds: Math.ceil(result.states[index]!.resetMs / 1000) })),
      { field: 'concurrency' as const, used: inFlight, reset_seconds: 0 },
    ];
  }

  /** Admits the lines or says which refused. With the counters away, the LIMITS_FAIL_OPEN policy decides. */
  async tryAdmit(planned: PlannedLines, member: string): Promise<{ ticket: LimitTicket } | { refused: LimitRefusal }> {
    if (planned.lines.length === 0) return { ticket: NO_LIMITS };
    const now = (this.deps.clock ?? Date.now)();
    let result;
    try {
      result = await this.deps.counters.limit(planned.lines, now);
    } catch (error) {
      return { ticket: this.unavailable(planned, error) };
    }
    if (!result.ok) {
      const rule = planned.rules[result.index]!;
      // A slot frees when a request ends, which nothing predicts: a second, not the slot's expiry.
      const retryAfterMs = rule.field === 'concurrency' ? Math.min(result.retryAfterMs, CONCURRENCY_RETRY_MS) : result.retryAfterMs;
      return { refused: { rule, state: result.states[result.index]!, retryAfterMs } };
    }
    return { ticket: this.ticket(planned, result.windows, result.states, member) };
  }

  /** Admits the request's own lines, or throws its 429 (and tells the bus, quietly). */
  async admit(planned: PlannedLines, member: string, about: { userId: number; tokenId: number; group: string; model: string }): Promise<LimitTicket> {
    const admitted = await this.tryAdmit(planned, member);
    if ('ticket' in admitted) return admitted.ticket;
    const { rule, state, retryAfterMs } = admitted.refused;
    void this.announce(
      Object.assign({}, about, { scope: rule.scope === 'channel' ? ('channels' as const) : rule.scope, rule, retryAfterMs, requestId: member }),
    );
    throw refusalError(rule, state, retryAfterMs, rule.scope === 'key' ? planned.keyMessage : undefined);
  }

  /** Every channel that could serve was at its limit: the client's 429, waiting for the soonest. */
  channelsFull(refusals: LimitRefusal[], about: { userId: number; tokenId: number; group: string; model: string; requestId: string }): RateLimitedError {
    const soonest = refusals.reduce((best, refusal) => (refusal.retryAfterMs < best.retryAfterMs ? refusal : best));
    void this.announce(Object.assign({}, about, { scope: 'channels' as const, rule: soonest.rule, retryAfterMs: soonest.retryAfterMs }));
    const seconds = retryAfterSeconds(soonest.retryAfterMs);
    return new RateLimitedError(
      `every channel serving ${about.model} is at its usage limit; please try again in ${describeWait(soonest.retryAfterMs)}`,
      seconds,
      { 'retry-after': String(seconds) },
    );
  }

  private ticket(planned: PlannedLines, windows: Array<number | null>, states: LimitState[], member: string): LimitTicket {
    const { counters, logger } = this.deps;
    let finished = false;
    let released = false;
    const slotKeys = planned.lines.filter((line) => line.kind === 'slots').map((line) => line.key);
    const ticket: LimitTicket = {
      headers: limitHeaders(planned.rules, states),
      async finish({ tokens, success }) {
        if (finished) return;
        finished = true;
        const settles: Array<Promise<void>> = [];
        planned.lines.forEach((line, index) => {
          const window = windows[index];
          if (line.kind !== 'window' || window == null) return;
          const rule = planned.rules[index]!;
          if (rule.field === 'tpm' || rule.field === 'tpd') {
            if (tokens !== line.add) settles.push(counters.settleWindow(line.key, window, tokens - line.add));
          } else if (rule.field === 'success' && success) settles.push(counters.settleWindow(line.key, window, 1));
        });
        await Promise.all(settles).catch((error: unknown) => logger.warn({ err: error }, 'usage limits not settled'));
      },
      async release() {
        if (released || slotKeys.length === 0) return;
        released = true;
        // A slot not freed here expires by itself (its ttl is the request's longest life).
        await counters.releaseSlots(slotKeys, member).catch((error: unknown) => logger.warn({ err: error }, 'concurrency slots not released'));
      },
      async close() {
        await ticket.finish({ tokens: 0, success: false });
        await ticket.release();
      },
    };
    return ticket;
  }

  /** The counters did not answer: admit or refuse by LIMITS_FAIL_OPEN, and say so loudly (at most once a minute). */
  private unavailable(planned: PlannedLines, error: unknown): LimitTicket {
    const slots = planned.lines.some((line: LimitLine) => line.kind === 'slots');
    const rates = planned.lines.some((line: LimitLine) => line.kind === 'window');
    const closed = (slots && !this.deps.failOpen.has('concurrency')) || (rates && !this.deps.failOpen.has('rate'));
    const now = Date.now();
    if (now - this.lastErrorLog.at > 60_000) {
      this.lastErrorLog.at = now;
      this.deps.logger.error(
        { err: error, failOpen: [...this.deps.failOpen] },
        `usage limits cannot be checked: requests are ${closed ? 'refused' : 'admitted unchecked'} (LIMITS_FAIL_OPEN)`,
      );
    }
    if (closed) throw new RelayError(503, 'usage limits cannot be checked right now; try again shortly', 'limits_unavailable', 'new_api_error');
    return NO_LIMITS;
  }

  /** `relay.limit.exceeded`, at most once per limit every EVENT_QUIET_MS (`refused` counts the rest). */
  private async announce(event: {
    scope: 'key' | 'user' | 'model' | 'group_model' | 'user_requests' | 'channels';
    rule: LimitRule;
    retryAfterMs: number;
    userId: number;
    tokenId: number;
    group: string;
    model: string;
    requestId: string;
  }): Promise<void> {
    const { kv, bus, logger } = this.deps;
    const subject = event.scope === 'key' ? event.tokenId : event.scope === 'user' || event.scope === 'user_requests' ? event.userId : event.model;
    const key = `limit-refused:${event.scope}:${event.rule.field}:${subject}`;
    try {
      const refused = await kv.increment(key, { ttlMs: 3_600_000 });
      if (!(await kv.setIfAbsent(`${key}:quiet`, '1', { ttlMs: EVENT_QUIET_MS }))) return;
      await kv.delete(key);
      logger.info({ scope: event.scope, field: event.rule.field, userId: event.userId, tokenId: event.tokenId, model: event.model }, 'usage limit reached');
      await publishLimitExceeded(bus, {
        scope: event.scope,
        field: event.rule.field,
        limit: event.rule.limit,
        user_id: event.userId,
        token_id: event.tokenId,
        group: event.group,
        model: event.model,
        request_id: event.requestId,
        retry_after_ms: event.retryAfterMs,
        refused,
        time: Math.floor(Date.now() / 1000),
      });
    } catch (error) {
      logger.warn({ err: error }, 'usage limit refusal not announced');
    }
  }
}

/**
 * The 429 of a refused line, worded as OpenAI words its own, or with the key owner's own text
 * (`customMessage`, a key's `rate_limit_message`); the headers are the same either way.
 */
export function refusalError(rule: LimitRule, state: LimitState, retryAfterMs: number, customMessage?: string): RateLimitedError {
  const seconds = retryAfterSeconds(retryAfterMs);
  const message =
    customMessage ||
    `Rate limit reached for ${scopeNames[rule.scope]} on ${fieldNames[rule.field]}: Limit ${rule.limit}, Used ${state.used}. Please try again in ${describeWait(retryAfterMs)}.`;
  return new RateLimitedError(message, seconds, Object.assign(limitHeaders([rule], [state]), { 'retry-after': String(seconds) }));
}
