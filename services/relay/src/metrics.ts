import { AppError, cappedLabel, collectedGauge, CounterFamily, HistogramFamily, OTHER, statusClass, type QuotaGate, type QuotaHold } from '@aigw/platform';
import type { Caller } from './caller.js';
import type { RelayContext } from './context.js';
import { RelayError } from './errors.js';
import type { OperationName } from './operations/types.js';
import type { RecordInput } from './relay-call.js';
import type { UsageOutbox } from './usage-outbox.js';

/**
 * The relay's metrics (docs/architecture.md section 11), observed once per request where its
 * usage is recorded (relay-call.ts `record`), and once per upstream attempt.
 *
 * How a request ended, its `outcome`:
 * - `ok`: forwarded, and the answer reached the client in full;
 * - `partial`: forwarded, and the answer began but did not end in full (the client left, the
 *   upstream broke off or went silent, the money ran out mid-stream);
 * - `upstream_error`: forwarded, and no answer came: every attempt failed on the upstream's side
 *   (network, timeout, 429, 5xx, a refused channel key, an unreadable answer), or the relay failed
 *   mid-request;
 * - `client_error`: forwarded, and the upstream refused the request itself (a 4xx other than 401,
 *   403, 404, 408 and 429: the request was invalid, too long, ...);
 * - `refused`: never forwarded: the relay refused it first (no price, no channel, not enough
 *   quota, a usage limit, the usage spool full, a bad body). Keys are checked before: a bad key is
 *   only in the HTTP metrics.
 */
export type RelayOutcome = 'ok' | 'partial' | 'upstream_error' | 'client_error' | 'refused';

const requests = new CounterFamily({
  name: 'aigw_relay_requests_total',
  help: 'Relay requests by model (known ones; else other), group, channel (id; none when refused), operation and outcome.',
  labelNames: ['model', 'group', 'channel', 'operation', 'outcome'],
});

const durations = new HistogramFamily({
  name: 'aigw_relay_request_duration_seconds',
  help: 'Relay requests forwarded, from the relay taking them to their usage recorded (a stream: its end), by model, operation and outcome.',
  labelNames: ['model', 'operation', 'outcome'],
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 320],
});

const firstTokens = new HistogramFamily({
  name: 'aigw_relay_time_to_first_token_seconds',
  help: 'Streamed requests, from the relay taking them to the first piece of the answer written to the client, by model and operation.',
  labelNames: ['model', 'operation'],
  buckets: [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20, 40],
});

const upstreamDurations = new HistogramFamily({
  name: 'aigw_relay_upstream_duration_seconds',
  help: "Upstream attempts, from the call to the upstream's answer headers (or its failure), by channel and result (ok or error).",
  labelNames: ['channel', 'result'],
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80],
});

const retries = new CounterFamily({
  name: 'aigw_relay_retries_total',
  help: 'Upstream attempts after the first of a request (on another channel), by operation.',
  labelNames: ['operation'],
});

const tokens = new CounterFamily({
  name: 'aigw_relay_tokens_total',
  help: 'Tokens of the usage recorded, by model, group and kind: prompt, completion, or cached (part of prompt).',
  labelNames: ['model', 'group', 'kind'],
});

const quota = new CounterFamily({
  name: 'aigw_relay_quota_total',
  help: 'Quota charged (500,000 = $1), as the usage records say, by model and group.',
  labelNames: ['model', 'group'],
});

const channelFailures = new CounterFamily({
  name: 'aigw_relay_channel_failures_total',
  help: 'Upstream attempts that failed, as reported to channels (its auto-disable rules), by channel and status class (none: no HTTP answer).',
  labelNames: ['channel', 'status'],
});

const refusals = new CounterFamily({
  name: 'aigw_relay_refusals_total',
  help: 'Requests refused before any upstream call, by operation and error code.',
  labelNames: ['operation', 'code'],
});

/**
 * The holds counted open carry this mark until settled or released (so a second release counts
 * nothing). A Set of them did the same, but a Set that empties and fills again reallocates its
 * table each time, and a long-lived Set's table outlives young-generation collections.
 */
const OPEN = Symbol('counted open');
type CountedHold = QuotaHold & { [OPEN]?: boolean };
let openHolds = 0;
collectedGauge({
  name: 'aigw_relay_holds_in_flight',
  help: 'Quota holds this process took and has not settled or released yet: its requests running upstream.',
  read: () => openHolds,
});

function closeHold(hold: CountedHold): void {
  if (!hold[OPEN]) return;
  hold[OPEN] = false;
  openHolds -= 1;
}

const outboxes = new Set<UsageOutbox>();
collectedGauge({
  name: 'aigw_relay_usage_outbox_events',
  help: 'Usage events (records, announcements) in the outbox not yet acknowledged by the bus; at USAGE_OUTBOX_MAX_RECORDS requests are refused.',
  read: () => sum(outboxes, (outbox) => outbox.pending.events),
});
collectedGauge({
  name: 'aigw_relay_usage_outbox_bytes',
  help: 'Bytes of those events; at USAGE_OUTBOX_MAX_BYTES requests are refused.',
  read: () => sum(outboxes, (outbox) => outbox.pending.bytes),
});

/** Above this many distinct models the rest are `other`: a guard, routing tables hold far fewer. */
const MAX_MODELS = 500;
const knownModels = new Set<string>();

/**
 * The model's label: its name when a channel of the routing table serves it (to the caller's
 * group), else `other`. A client names any model it likes; only the admin makes one routable.
 */
function modelLabel(context: RelayContext, model: string, group: string): string {
  if (knownModels.has(model)) return model;
  if (knownModels.size >= MAX_MODELS || context.channels.index.candidates(group, model).length === 0) return OTHER;
  knownModels.add(model);
  return model;
}

/** The group's label: a priced group (GroupRatio, admin-made), else `other`. */
function groupLabel(context: RelayContext, group: string): string {
  return Object.hasOwn(context.options.get('GroupRatio'), group) ? group : OTHER;
}

/** A request whose usage is being recorded (relay-call.ts `record`). */
export function observeRecord(context: RelayContext, input: RecordInput & { outcome: RelayOutcome }): void {
  const operation = input.operation ?? OTHER;
  const group = groupLabel(context, input.caller.group);
  const model = modelLabel(context, input.model, input.caller.group);
  const channelId = input.tried[input.tried.length - 1];
  requests.child(model, group, channelId === undefined ? 'none' : String(channelId), operation, input.outcome).inc();
  const now = Date.now();
  durations.child(model, operation, input.outcome).observe((now - input.startedAt) / 1000);
  const firstResponseMs = input.firstResponseMs ?? -1;
  if (input.stream && input.answeredAt !== undefined && firstResponseMs >= 0) {
    firstTokens.child(model, operation).observe((input.answeredAt - input.startedAt + firstResponseMs) / 1000);
  }
  if (input.tried.length > 1) retries.child(operation).inc(input.tried.length - 1);
  const { usage } = input;
  if (usage.prompt_tokens > 0) tokens.child(model, group, 'prompt').inc(usage.prompt_tokens);
  if (usage.completion_tokens > 0) tokens.child(model, group, 'completion').inc(usage.completion_tokens);
  if (usage.cached_tokens > 0) tokens.child(model, group, 'cached').inc(usage.cached_tokens);
  if (input.quota > 0) quota.child(model, group).inc(input.quota);
}

const codeLabel = cappedLabel(100);

/** A request refused before any upstream call (relay-call.ts `relay`). */
export function observeRefusal(context: RelayContext, caller: Caller, operation: OperationName, body: Record<string, unknown>, error: unknown): void {
  const model = typeof body.model === 'string' ? modelLabel(context, body.model, caller.group) : OTHER;
  requests.child(model, groupLabel(context, caller.group), 'none', operation, 'refused').inc();
  const code = error instanceof RelayError || error instanceof AppError ? error.code : 'internal_error';
  refusals.child(operation, /^[a-z0-9_]{1,64}$/.test(code) ? codeLabel(code) : OTHER).inc();
}

/** One upstream attempt, `elapsedMs` from its call to its answer headers or failure. */
export function observeUpstream(channelId: number, elapsedMs: number, failed: boolean): void {
  upstreamDurations.child(String(channelId), failed ? 'error' : 'ok').observe(elapsedMs / 1000);
}

/** A failed attempt reported to channels (status 0: no HTTP answer). */
export function observeChannelFailure(channelId: number, status: number): void {
  channelFailures.child(String(channelId), status === 0 ? 'none' : statusClass(status)).inc();
}

/** 4xx answers that say the channel (its key, its model list) or the upstream's load failed, not the request. */
const upstreamFaults = new Set([401, 403, 404, 408, 429]);

/** The outcome of a forwarded request that got no answer, from the upstream's status (0: none). */
export function failedOutcome(status: number): RelayOutcome {
  return status >= 400 && status < 500 && !upstreamFaults.has(status) ? 'client_error' : 'upstream_error';
}

/** The outcome of a forwarded request ended by `error`. */
export function errorOutcome(error: unknown): RelayOutcome {
  return failedOutcome(error instanceof RelayError || error instanceof AppError ? error.statusCode : 500);
}

/** The quota gate, its holds counted for the holds-in-flight gauge (taken by reserve, given back by settle or release). */
export function countingHolds(gate: QuotaGate): QuotaGate {
  return {
    ...gate,
    async reserve(request) {
      const reserved = await gate.reserve(request);
      if (reserved.ok) {
        (reserved.hold as CountedHold)[OPEN] = true;
        openHolds += 1;
      }
      return reserved;
    },
    settle(hold, actualQuota) {
      closeHold(hold);
      return gate.settle(hold, actualQuota);
    },
    release(hold) {
      closeHold(hold);
      return gate.release(hold);
    },
  };
}

/** Counts the outbox's pending events in the gauges until the returned function is called. */
export function watchOutbox(outbox: UsageOutbox): () => void {
  outboxes.add(outbox);
  return () => outboxes.delete(outbox);
}

function sum<T>(items: Iterable<T>, value: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += value(item);
  return total;
}
