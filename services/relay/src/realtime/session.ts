import { randomBytes } from 'node:crypto';
import type { RoutingChannel } from '@aigw/contracts';
import type { QuotaHold, ReserveOutcome } from '@aigw/platform';
import WebSocket from 'ws';
import type { Caller } from '../caller.js';
import { holdLifetimeMs, type RelayContext } from '../context.js';
import { chooseChannel, isRetryable } from '../domain/channel-choice.js';
import { RelayError } from '../errors.js';
import { reservation } from '../metering.js';
import { admit, closeTicket, handshakeMs, insufficientQuota, prepare, reportFailure, type Failure } from '../relay-call.js';
import { requestLines } from '../limits/limit-rules.js';
import type { LimitTicket } from '../limits/limit-gate.js';
import { redactKey } from '../redact.js';
import { estimatedUsage, realtimeQuote, realtimeUsageOf, responseCharge, responseRecord, unbilledRecord, type RealtimeQuote } from './billing.js';
import { openUpstream } from './upstream.js';

/**
 * A realtime session (OpenAI's Realtime API over a WebSocket), from the client's upgrade to the
 * last socket closing. Everything the HTTP pipeline (relay-call.ts) checks is checked before the
 * upgrade is accepted, so a refusal is a plain HTTP answer: the key and the token's rules (the
 * route's onRequest), the token's model limits, the group, the price, a channel whose provider
 * serves 'realtime' (pinned, or routed), a first hold, and the upstream socket itself, opened
 * under the egress rules with the channel's model mapping (retried on another channel as a
 * request is).
 *
 * Billing, per response: the session holds one response's worth (PreConsumedQuota tokens at the
 * completion price, or the model's price) under the request id `<session id>-<n>`. When the
 * upstream reports `response.done`, the hold of response n is settled to its charge and its one
 * usage record (request id `<session id>-<n>`) is published; then the hold of response n + 1 is
 * taken. When that fails the client gets an `error` event (insufficient quota) and both sockets
 * close. When either socket closes, the open hold is released with no record: it billed nothing.
 * A response still running when the client leaves is billed if the upstream's `response.done`
 * arrives before the upstream has answered our close; otherwise it bills nothing. The session
 * ends after UPSTREAM_ANSWER_TIMEOUT_MS at the latest, so no hold outlives its lifetime. A
 * `response.done` without usage is charged what was held for it (billing.ts, estimatedUsage).
 * Responses the client runs at the same time share the one hold: each is charged in full when it
 * ends, so the overdraft is bounded by what those cost, and the next hold then fails.
 *
 * Holds are not announced to billing (`relay.request.started`): a hold is the price of a response
 * that may never come, and a released one leaves no record. Should this process die, each open
 * hold's sweeper publishes its record (nothing charged), as for a request.
 */

/** A client event's or an upstream's message, relayed as it came: more than this waiting to be sent pauses its source. */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;
const LOW_WATER_BYTES = 1024 * 1024;

/** What the client sees when the relay ends the session: an `error` event in OpenAI's shape. */
export function errorEvent(code: string, message: string, type = 'invalid_request_error'): string {
  return JSON.stringify({ type: 'error', event_id: `event_${randomBytes(10).toString('hex')}`, error: { type, code, message, param: null, event_id: null } });
}

export interface SessionRequest {
  /** The request id of the upgrade; response n bills as `<id>-<n>`. */
  id: string;
  caller: Caller;
  model: string;
  /** The client headers the upstream gets (`openai-beta`). */
  forwarded?: Record<string, string>;
}

/**
 * Checks, prices, holds and connects; resolves with the session, whose upstream socket is open
 * and paused until `attach`. Throws RelayError (answered as HTTP) when anything refuses.
 */
export async function openSession(context: RelayContext, request: SessionRequest): Promise<RealtimeSession> {
  const { options } = context;
  const { caller, model } = request;
  if (!context.usage.accepting()) throw new RelayError(503, 'usage recording is backed up; try again shortly', 'usage_spool_full');
  if (!model) throw new RelayError(400, 'the model query parameter is required (/v1/realtime?model=...)', 'invalid_request', 'invalid_request_error', 'model');
  const { quote, candidates } = admit(context, caller, model, 'realtime', 'realtime sessions', realtimeQuote);

  // Usage limits: a session counts as one request and holds a concurrency slot while it lasts
  // (as long as the relay lets a session last); its tokens are billed per response and not counted
  // against token limits (docs/architecture.md section 5.9).
  const about = { userId: caller.userId, tokenId: caller.tokenId, group: caller.group, model };
  const limitRequest = { id: request.id, tokens: 0, slotTtlMs: context.limits.answerTimeoutMs + 60_000 };
  const ticket = await context.limitGate.admit(requestLines({ ...caller, ...about }, context.limitGate.settings(), limitRequest), request.id, about);
  const held = await reserveHold(context, request, quote, 1, holdAmount(context, quote)).catch(async (error: unknown) => {
    await closeTicket(ticket);
    throw error;
  });
  if (!held.ok) {
    await closeTicket(ticket);
    throw insufficientQuota(held.reason);
  }
  const { hold } = held;
  const tried: number[] = [];
  let failure: Failure | null = null;
  try {
    const attempts = caller.pinnedChannelId !== null ? 1 : options.get('RetryTimes') + 1;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const channel = chooseChannel(candidates, new Set(tried));
      if (!channel) break;
      tried.push(channel.id);
      const call = await prepare(context, channel, model, false, request.forwarded);
      if ('failure' in call) {
        failure = call.failure;
        continue;
      }
      const { provider, context: providerContext } = call.attempt;
      let target: { url: string; headers: Record<string, string> };
      try {
        if (!provider.realtime) throw new Error(`provider ${provider.id} lists realtime without realtime.connect`);
        target = provider.realtime.connect(providerContext);
      } catch (error) {
        failure = { status: 500, error: { message: 'the channel cannot open a realtime session', type: 'new_api_error', code: 'channel_misconfigured' } };
        reportFailure(context, call.attempt, request.id, failure, (error as Error).message);
        continue;
      }
      const opened = await openUpstream(channel, provider, target, providerContext.key, { handshakeMs: handshakeMs(context) });
      if ('failure' in opened) {
        failure = opened.failure;
        reportFailure(context, call.attempt, request.id, failure, opened.detail);
        if (!isRetryable(failure.status, channel.type)) break;
        continue;
      }
      return new RealtimeSession(context, request, quote, hold, channel, tried, providerContext.key, providerContext.upstreamModel, opened.socket, ticket);
    }
  } catch (error) {
    await context.quota.release(hold);
    await closeTicket(ticket);
    throw error;
  }
  await context.quota.release(hold);
  await closeTicket(ticket);
  const status = failure?.status && failure.status >= 400 ? failure.status : 502;
  const message =
    status === 429 ? 'the upstream load of this group is saturated, try again later' : (failure?.error.message ?? 'no channel could open the realtime session');
  throw new RelayError(status, message, failure?.error.code || 'upstream_error', 'upstream_error');
}

/** One response's worth: PreConsumedQuota tokens at the completion price, or the model's price. */
function holdAmount(context: RelayContext, quote: RealtimeQuote): number {
  return reservation(quote, 0, 0, context.options.get('PreConsumedQuota'));
}

/** The hold of response `sequence`; its record is what a sweeper publishes should this relay die (nothing charged). */
function reserveHold(
  context: RelayContext,
  request: SessionRequest,
  quote: RealtimeQuote,
  sequence: number,
  amount: number,
  tried: number[] = [],
): Promise<ReserveOutcome> {
  const requestId = `${request.id}-${sequence}`;
  return context.quota.reserve({
    requestId,
    userId: request.caller.userId,
    tokenId: request.caller.tokenId,
    unlimitedToken: request.caller.unlimitedToken,
    amount,
    ttlMs: holdLifetimeMs(context.limits, context.options.get('RetryTimes')),
    record: unbilledRecord({
      caller: request.caller,
      model: request.model,
      requestId,
      startedAt: Date.now(),
      quote,
      tried,
      note: 'relay stopped mid-session; nothing was charged',
    }),
  });
}

/** A close code the client may be sent as the upstream's (1005, 1006 and 1015 describe no close frame). */
function forwardableCode(code: number): number | null {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999) ? code : null;
}

/** A close reason fits 123 bytes. */
function closeReason(reason: string): string {
  let text = reason;
  while (Buffer.byteLength(text) > 123) text = text.slice(0, -1);
  return text;
}

/** Counts what is queued towards one socket, to pause the other side while it is slow. */
interface Flow {
  bytes: number;
}

/** A realtime session once its upstream is open: see the module comment. */
export class RealtimeSession {
  /** Resolves once both sockets are closed and the open hold released (or the last response billed). */
  readonly finished: Promise<void>;
  private resolveFinished!: () => void;
  private state: 'running' | 'ending' | 'ended' = 'running';
  private client: WebSocket | null = null;
  /** The hold of response `sequence` (null while the next one is being taken, or after a refusal). */
  private hold: QuotaHold | null;
  private sequence = 1;
  private holdTakenAt = Date.now();
  /** When the response being generated started (its `response.created`). */
  private responseStartedAt: number | null = null;
  /** Settles, records and holds, one after another, in the order the responses ended. */
  private billing: Promise<void> = Promise.resolve();
  private readonly deadline: NodeJS.Timeout;
  private readonly toClient: Flow = { bytes: 0 };
  private readonly toUpstream: Flow = { bytes: 0 };

  constructor(
    private readonly context: RelayContext,
    private readonly request: SessionRequest,
    private readonly quote: RealtimeQuote,
    hold: QuotaHold,
    readonly channel: RoutingChannel,
    private readonly tried: number[],
    private readonly key: string,
    private readonly upstreamModel: string,
    private readonly upstream: WebSocket,
    /** The session's admission under the usage limits: its concurrency slot is freed when it ends. */
    private readonly ticket: LimitTicket,
  ) {
    this.hold = hold;
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
    upstream.on('message', (data, isBinary) => this.fromUpstream(data as Buffer, isBinary));
    upstream.on('close', (code, reason) => this.upstreamClosed(code, reason.toString()));
    upstream.on('error', (error) => context.logger.debug({ err: error, requestId: request.id }, 'realtime: upstream socket error'));
    this.deadline = setTimeout(() => {
      const event = errorEvent('session_expired', 'the session lasted the longest the relay allows (UPSTREAM_ANSWER_TIMEOUT_MS)', 'invalid_request_error');
      void this.end(1008, 'session time limit', event);
    }, context.limits.answerTimeoutMs);
    this.deadline.unref();
  }

  get id(): string {
    return this.request.id;
  }

  /** Starts relaying with the client's socket (the upgrade was accepted). */
  attach(client: WebSocket): void {
    this.client = client;
    client.on('message', (data, isBinary) => this.fromClient(data as Buffer, isBinary));
    client.on('close', () => this.clientClosed());
    if (this.state !== 'running' || this.upstream.readyState !== WebSocket.OPEN) {
      // The upstream went away between the handshakes.
      client.send(errorEvent('upstream_closed', 'the upstream closed the session', 'server_error'));
      client.close(1014, 'upstream connection lost');
      return;
    }
    this.upstream.resume();
  }

  /** The client's socket never came (its handshake failed): the upstream is dropped, the hold released. */
  abandon(): void {
    if (this.state === 'ended') return;
    this.state = 'ending';
    this.upstream.terminate();
  }

  /** Ends the session from the relay's side (shutdown, a refused hold, the time limit); resolves when it is finished. */
  end(code: number, reason: string, event?: string): Promise<void> {
    if (this.state === 'running') {
      this.state = 'ending';
      const client = this.client;
      if (client && client.readyState === WebSocket.OPEN) {
        if (event) client.send(event);
        client.close(code, reason);
      }
      if (this.upstream.readyState === WebSocket.OPEN || this.upstream.readyState === WebSocket.CONNECTING) this.upstream.close(1000, 'session ended');
      // Read on (a paused upstream would not read its close): a response.done still coming bills.
      this.upstream.resume();
    }
    return this.finished;
  }

  private fromClient(data: Buffer, isBinary: boolean): void {
    if (this.state !== 'running' || this.upstream.readyState !== WebSocket.OPEN) return;
    relayFrame(this.client!, this.upstream, data, isBinary, this.toUpstream);
  }

  private fromUpstream(data: Buffer, isBinary: boolean): void {
    if (!isBinary) this.inspect(data);
    const client = this.client;
    if (!client || client.readyState !== WebSocket.OPEN) return;
    // The channel key never reaches the client, should the upstream echo it (test U3).
    let payload = data;
    if (this.key.length >= 8 && data.includes(this.key)) {
      payload = isBinary
        ? Buffer.from(data.toString('latin1').replaceAll(this.key, '[redacted]'), 'latin1')
        : Buffer.from(redactKey(data.toString('utf8'), this.key));
    }
    relayFrame(this.upstream, client, payload, isBinary, this.toClient);
  }

  /** Reads only what bills: `response.created` (when a response started) and `response.done` (its usage). */
  private inspect(data: Buffer): void {
    const created = data.includes('"response.created"');
    const done = !created && data.includes('"response.done"');
    if (!created && !done) return;
    let event: unknown;
    try {
      event = JSON.parse(data.toString('utf8'));
    } catch {
      return;
    }
    const type = (event as { type?: unknown } | null)?.type;
    if (type === 'response.created') this.responseStartedAt ??= Date.now();
    else if (type === 'response.done') this.bill(event);
  }

  /** Response `sequence` ended: its hold is settled to its charge and its record published, then the next hold is taken. */
  private bill(event: unknown): void {
    const sequence = this.sequence++;
    const startedAt = this.responseStartedAt ?? this.holdTakenAt;
    this.responseStartedAt = null;
    const usage = realtimeUsageOf(event);
    this.chain(async () => {
      const { context, request, quote } = this;
      let hold = this.hold;
      this.hold = null;
      if (!hold) {
        // The hold could not be taken (the session is being closed for it): the response is charged all the same.
        const zero = await reserveHold(context, request, quote, sequence, 0, this.tried);
        if (!zero.ok) throw new Error('a zero hold was refused');
        hold = zero.hold;
      }
      const billed = usage ?? estimatedUsage(context.options.get('PreConsumedQuota'));
      const recordOf = (quota: number) =>
        responseRecord(
          {
            caller: request.caller,
            model: request.model,
            requestId: hold.requestId,
            startedAt,
            quote,
            tried: this.tried,
            quota,
            estimated: usage === null,
            upstreamModel: this.upstreamModel,
            ...(usage === null ? { note: 'the upstream reported no usage; charged the amount held for a response' } : {}),
          },
          billed,
        );
      let quota = responseCharge(quote, billed);
      // In the outbox before the counters settle (relay-call.ts keepBeforeSettle: a relay killed between the two leaves this record).
      if (quota > 0) await context.usage.keep(recordOf(quota));
      try {
        // Never more than the user and the key could pay (settle takes what was left).
        quota = (await context.quota.settle(hold, quota)).charged;
      } catch (error) {
        context.logger.error({ err: error, requestId: hold.requestId }, 'realtime: hold not settled; the usage record still charges billing');
      }
      context.usage.publish(recordOf(quota));
      if (this.state !== 'running') return;
      let next: ReserveOutcome;
      try {
        next = await reserveHold(context, request, quote, sequence + 1, holdAmount(context, quote), this.tried);
      } catch (error) {
        context.logger.warn({ err: error, requestId: request.id }, 'realtime: the next hold could not be taken');
        void this.end(1011, 'quota unavailable', errorEvent('quota_unavailable', 'the relay could not hold quota for the next response', 'server_error'));
        return;
      }
      if (!next.ok) {
        void this.end(
          1008,
          'insufficient quota',
          errorEvent(next.reason, `insufficient quota: ${insufficientQuota(next.reason).message}`, 'insufficient_quota'),
        );
        return;
      }
      if (this.state !== 'running') {
        await context.quota.release(next.hold);
        return;
      }
      this.hold = next.hold;
      this.holdTakenAt = Date.now();
    });
  }

  private clientClosed(): void {
    if (this.state === 'ended') return;
    this.state = 'ending';
    // Graceful: a response.done the upstream sends before it answers our close is still billed.
    if (this.upstream.readyState === WebSocket.OPEN || this.upstream.readyState === WebSocket.CONNECTING) this.upstream.close(1000, 'client closed');
    // A paused upstream would read nothing, its close included.
    this.upstream.resume();
  }

  private upstreamClosed(code: number, reason: string): void {
    const client = this.client;
    if (this.state === 'running' && client && client.readyState === WebSocket.OPEN) {
      const forwarded = forwardableCode(code);
      if (forwarded === null) {
        client.send(errorEvent('upstream_closed', 'the upstream closed the session', 'server_error'));
        client.close(1014, 'upstream connection lost');
      } else {
        client.close(forwarded, closeReason(redactKey(reason, this.key)));
      }
    } else if (client && client.readyState === WebSocket.OPEN) {
      client.close(1000, 'session ended');
    }
    this.finish();
  }

  /** Both sides are done: the open hold goes back (it billed nothing), after every response was billed. */
  private finish(): void {
    if (this.state === 'ended') return;
    this.state = 'ended';
    clearTimeout(this.deadline);
    this.chain(async () => {
      const hold = this.hold;
      this.hold = null;
      if (hold) await this.context.quota.release(hold);
      await closeTicket(this.ticket);
    });
    void this.billing.then(() => this.resolveFinished());
  }

  private chain(step: () => Promise<void>): void {
    this.billing = this.billing.then(step).catch((error: unknown) => {
      this.context.logger.error({ err: error, requestId: this.request.id }, 'realtime: billing step failed');
    });
  }
}

/** Sends one message on as it came (text as text, binary as binary), pausing the source while the destination is slow. */
function relayFrame(from: WebSocket, to: WebSocket, data: Buffer, binary: boolean, flow: Flow): void {
  const size = data.length;
  flow.bytes += size;
  to.send(data, { binary }, () => {
    flow.bytes -= size;
    if (flow.bytes <= LOW_WATER_BYTES && from.isPaused && from.readyState === WebSocket.OPEN) from.resume();
  });
  if (flow.bytes > HIGH_WATER_BYTES && !from.isPaused) from.pause();
}
