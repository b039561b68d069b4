import type { FastifyReply, FastifyRequest } from 'fastify';
import { ChannelStatus, localizeMessage, type LogOther, type RoutingChannel, type UsageRecord } from '@aigw/contracts';
import { EgressBlockedError, type EgressResponse, type EgressWholeResponse } from '@aigw/platform';
import type { Caller } from './caller.js';
import { checkModelAllowed } from './caller.js';
import { holdLifetimeMs, type RelayContext } from './context.js';
import { chooseChannel, isRetryable, mappedStatus, upstreamModel } from './domain/channel-choice.js';
import { RelayError } from './errors.js';
import { charge, priceDetails, quotePrice, reservation, saneUsage, type PriceQuote } from './metering.js';
import type { ProviderDefinition, ProviderError, UpstreamRequest, Usage } from './providers/types.js';
import { providerFor, servesOperation } from './providers/registry.js';
import { AnswerPump, answerHeaders, drained, streamToClient, type StreamOutcome } from './streaming.js';
import { OUTRAN_BALANCE, StreamBudget } from './stream-budget.js';
import { promptTokensOf } from './prompt-tokens.js';
import { redactKey } from './redact.js';
import { channelEgress } from './channel-egress.js';
import { ChannelConfigurationError } from './providers/shared/url.js';
import { UpstreamAnswerError } from './providers/shared/upstream-error.js';
import { AccessTokenError } from './access-tokens.js';
import { socketAnswer } from './upstream-socket.js';
import { polledAnswer } from './polled-answer.js';
import { recorderOf } from './idempotency.js';
import { OVERHEAD_HEADER, overheadOf } from './overhead.js';
import { publishChannelFailed } from './events.js';
import { channelLines, requestLines } from './limits/limit-rules.js';
import { NO_LIMITS, type LimitRefusal, type LimitTicket } from './limits/limit-gate.js';
import type { PickedKey } from './channels.js';
import type { Attempt as OperationAttempt, OperationDefinition, OperationName, UpstreamAnswer } from './operations/types.js';
import { RelaySpan } from './relay-span.js';
import { errorOutcome, failedOutcome, observeChannelFailure, observeRecord, observeRefusal, observeUpstream, type RelayOutcome } from './metrics.js';

export interface Attempt extends OperationAttempt {
  channel: RoutingChannel;
  /** Which of a multi-key channel's keys the call uses (a failure is reported against it). */
  keyIndex?: number;
}

export interface Failure {
  status: number;
  error: ProviderError;
}

const NO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0 };

/**
 * One relayed request of any operation (docs/architecture.md section 5): check, price and reserve
 * before any upstream call; try channels whose provider serves the operation (never one already
 * tried) until one answers or retries are used up, retrying only before anything reached the
 * client; answer or stream; settle the hold to the actual charge and publish exactly one usage
 * record for every request that was forwarded. What differs between operations is in their
 * definitions (operations/): this function names none.
 */
export async function relay(
  context: RelayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  caller: Caller,
  operation: OperationDefinition,
  body: Record<string, unknown>,
): Promise<void> {
  /** The channels tried: none when the relay refused the request before any upstream call (a forwarded one is observed where it is recorded). */
  const tried: number[] = [];
  try {
    await relayTrying(context, request, reply, caller, operation, body, tried);
  } catch (error) {
    if (tried.length === 0) observeRefusal(context, caller, operation.name, body, error);
    throw error;
  }
}

async function relayTrying(
  context: RelayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  caller: Caller,
  operation: OperationDefinition,
  body: Record<string, unknown>,
  tried: number[],
): Promise<void> {
  const startedAt = Date.now();
  const { options } = context;
  if (!context.usage.accepting()) throw new RelayError(503, 'usage recording is backed up; try again shortly', 'usage_spool_full');

  // The model, the stream flag and the hold's multipliers, checked before anything is held (rule R7).
  const { model, stream, bounds } = operation.inspect(body);
  if (stream && !operation.stream) throw new Error(`operation ${operation.name} said stream but has no stream`);
  const { quote: modelQuote, candidates } = admit(context, caller, model, operation.capability, operation.label, quotePrice);
  const quote = operation.price ? operation.price(modelQuote, body, model) : modelQuote;

  // Held at its bound (no tokenizer pass); counted exactly only where the upstream's usage does not say it (docs/architecture.md section 5, step 3).
  const promptTokens = promptTokensOf(operation, body, model);
  // The id every answer carries (X-Oneapi-Request-Id): the usage record and the log row have it too.
  const requestId = request.id;
  const amount = reservation(quote, promptTokens.bound, bounds.maxTokens, options.get('PreConsumedQuota'), bounds.answers);
  // Usage limits before anything is held: a refused request reaches no upstream and costs nothing (docs/architecture.md section 5.9).
  const limitTokens = promptTokens.bound + (bounds.maxTokens ?? 0) * bounds.answers;
  const slotTtlMs = holdLifetimeMs(context.limits, options.get('RetryTimes'));
  const limitRequest = { id: requestId, tokens: limitTokens, slotTtlMs };
  const about = { userId: caller.userId, tokenId: caller.tokenId, group: caller.group, model };
  const ticket = await context.limitGate.admit(
    requestLines(Object.assign({}, caller, { model }), context.limitGate.settings(), limitRequest),
    requestId,
    about,
  );
  setLimitHeaders(reply, ticket.headers);
  /** The served (or last tried) channel's admission under its own limits. */
  let channelTicket: LimitTicket | null = null;
  // Traced (tracing on): the request's GenAI span, parent of its upstream calls (relay-span.ts).
  const span = RelaySpan.start(operation.name, model, requestId);
  try {
    // What every record of this request says, charged or not.
    const recordBase = { caller, model, requestId, startedAt, quote, stream, operation: operation.name, span };
    const unbilled = (tried: number[], note: string): RecordInput => Object.assign({}, recordBase, { tried, usage: NO_USAGE, quota: 0, note });
    const orphanNote = 'relay stopped mid-request; nothing was charged';
    const checkpointNote = 'relay stopped mid-stream; charged what was delivered';
    const reserve = (held: number) =>
      context.quota.reserve({
        requestId,
        userId: caller.userId,
        tokenId: caller.tokenId,
        unlimitedToken: caller.unlimitedToken,
        amount: held,
        ttlMs: holdLifetimeMs(context.limits, options.get('RetryTimes')),
        // Should this process die mid-request, the hold sweeper publishes this (nothing charged).
        record: usageRecord(unbilled([], orphanNote)),
      });
    let reserved = await reserve(amount);
    // Near the end of the money the bound's margin must not refuse what the exact count admits: count once, then.
    if (!reserved.ok) {
      const exactAmount = reservation(quote, promptTokens.exact(), bounds.maxTokens, options.get('PreConsumedQuota'), bounds.answers);
      if (exactAmount < amount) reserved = await reserve(exactAmount);
    }
    if (!reserved.ok) throw insufficientQuota(reserved.reason);
    const { hold } = reserved;
    let announced = false;
    /** At the first upstream call: billing keeps this record (beyond Redis) should the request outlive a second and this process die. */
    const announce = (channelId: number) => {
      if (announced) return;
      announced = true;
      const orphan = usageRecord(unbilled([channelId], orphanNote));
      // In the outbox at once (a local write): a relay killed within the first second still leaves a record when it restarts.
      context.usage.checkpoint(orphan);
      context.usage.started({ record: orphan, owner: hold.owner, expires_at: hold.expiresAt });
    };

    const forwarded = forwardedHeaders(request, operation);
    const attempts = caller.pinnedChannelId !== null ? 1 : options.get('RetryTimes') + 1;
    let failure: Failure | null = null;
    let outcome: StreamOutcome | null = null;
    /** When the last upstream attempt answered (its headers): a stream's first token comes after. */
    let answeredAt = 0;
    /** A cached access token was refreshed after the upstream refused it (once per request). */
    let refreshed = false;
    /** Channels routing skipped at their own limits (never tried), and why, for the 429 when none had room. */
    const full = { skipped: new Set<number>(), refusals: [] as LimitRefusal[] };
    /**
     * The upstream exchange is over: its concurrency slots are freed before the client's last byte,
     * so a client that saw its answer end finds its slot free (both releases are idempotent).
     */
    const upstreamDone = async () => {
      await Promise.all([ticket.release(), channelTicket?.release()]);
    };
    try {
      for (let attempt = 0; attempt < attempts && !outcome; attempt++) {
        // The previous attempt failed: its channel's hold on the channel limits goes back.
        await closeTicket(channelTicket);
        const picked = await pickChannel(context, candidates, tried, full, limitRequest);
        if (!picked) break;
        const { channel } = picked;
        channelTicket = picked.ticket;
        tried.push(channel.id);
        const call = await prepare(context, channel, model, stream, forwarded);
        if ('failure' in call) {
          failure = call.failure;
          continue;
        }
        announce(channel.id);
        // Waiting for the upstream is not the gateway's time (x-aigw-overhead-ms).
        const sentAt = Date.now();
        const sending = () => send(context, call.attempt, operation, body, requestId, !stream && !operation.bytes);
        const result = await overheadOf(reply).upstream(() => span?.around(sending) ?? sending());
        answeredAt = Date.now();
        observeUpstream(channel.id, answeredAt - sentAt, 'failure' in result);
        if ('failure' in result) {
          failure = result.failure;
          if (!isRetryable(failure.status, channel.type)) break;
          continue;
        }
        if (stream) {
          const client = operation.stream!(call.attempt, { injectedUsage: result.injectedUsage, promptTokens: promptTokens.exact, body });
          // Metered as it passes: checkpoints for a relay that dies, a stop where the money ends.
          const budget = new StreamBudget(context, hold, quote, promptTokens, (usage, quota) =>
            usageRecord(Object.assign({}, recordBase, { tried: [...tried], usage, quota, estimated: true, note: checkpointNote })),
          );
          outcome = await streamToClient(context, request, reply, call.attempt, streamed(result.response), client, requestId, upstreamDone, budget);
        } else if (operation.bytes) {
          outcome = await pipeBytes(context, reply, call.attempt, streamed(result.response), requestId, upstreamDone, (delivered) =>
            operation.bytes!(body, promptTokens.exact(), delivered),
          );
        } else {
          try {
            outcome = await answer(context, reply, call.attempt, operation, result.response, requestId, body, upstreamDone);
          } catch (error) {
            // An error inside a 2xx answer (Baidu, Tencent, Zhipu): that channel failed, as with a non-2xx one.
            if (!(error instanceof UpstreamAnswerError)) throw error;
            failure = { status: error.statusCode, error: error.error };
            if (error.staleCredentials && !refreshed) {
              // The upstream dropped a token the relay cached: not the channel's fault. Once, the same channel with a new token.
              context.accessTokens.forget(channel, call.attempt.context.key);
              refreshed = true;
              tried.pop();
              attempt -= 1;
              continue;
            }
            reportFailure(context, call.attempt, requestId, failure, failure.error.message);
            if (!isRetryable(failure.status, channel.type)) break;
          }
        }
      }
    } catch (error) {
      await context.quota.release(hold);
      if (tried.length > 0) record(context, Object.assign(unbilled(tried, 'relay error'), { outcome: errorOutcome(error) }));
      throw error;
    }

    if (!outcome) {
      await context.quota.release(hold);
      if (tried.length > 0) record(context, Object.assign(unbilled(tried, 'upstream error'), { outcome: failedOutcome(failure?.status ?? 0) }));
      // No channel was tried because every one was at its limit: the client's 429 (nothing was forwarded, nothing charged).
      if (tried.length === 0 && full.refusals.length > 0) throw context.limitGate.channelsFull(full.refusals, Object.assign({}, about, { requestId }));
      const status = failure?.status && failure.status >= 400 ? failure.status : 502;
      const message =
        status === 429 ? 'the upstream load of this group is saturated, try again later' : (failure?.error.message ?? 'no channel could serve the request');
      throw new RelayError(status, message, failure?.error.code || 'upstream_error', 'upstream_error');
    }

    const usage = outcome.usage ?? { prompt_tokens: promptTokens.exact(), completion_tokens: outcome.completionTokens, cached_tokens: 0 };
    // Nothing delivered and nothing reported: nothing to charge (a per-call price included).
    const delivered = outcome.usage !== null || outcome.completionTokens > 0 || !outcome.partial;
    const finished: RecordInput = Object.assign({}, recordBase, {
      tried,
      usage,
      quota: delivered ? charge(quote, usage) : 0,
      firstResponseMs: outcome.firstResponseMs,
      estimated: outcome.usage === null || outcome.counted === true,
      upstreamModel: outcome.upstreamModel,
      note: outcome.outranBalance ? OUTRAN_BALANCE : outcome.partial ? outcome.partial : undefined,
      answeredAt,
    });
    const kept = await keepBeforeSettle(context, finished);
    // Never more than the user and the key could pay: a charge above the hold takes what was left (settle).
    const { charged: quota } = await context.quota.settle(hold, finished.quota);
    record(context, Object.assign({}, finished, { quota, outcome: outcome.partial || outcome.outranBalance ? ('partial' as const) : ('ok' as const) }), kept);
    if (outcome.objectId) context.objects.remember(outcome.objectId, { channel_id: tried[tried.length - 1]!, user_id: caller.userId });
    // The token limits settled with what the request used (its hold was counted), a success counted.
    const used = { tokens: usage.prompt_tokens + usage.completion_tokens, success: !outcome.partial };
    await Promise.all([ticket.finish(used), channelTicket?.finish(used)]);
    span?.end();
  } catch (error) {
    span?.end(error);
    throw error;
  } finally {
    // Every exit path settles an unfinished request at nothing used and frees its concurrency slots (a crashed relay's expire by themselves).
    await Promise.all([closeTicket(ticket), closeTicket(channelTicket)]);
  }
}

/** A limit ticket done with (none yet: nothing to do): what it held but did not use goes back, its slots are freed. */
export function closeTicket(ticket: LimitTicket | null): Promise<void> {
  return (ticket ?? NO_LIMITS).close();
}

/**
 * The next channel for an attempt that has room under its own limits (docs/architecture.md
 * section 5.9): one at its limit is skipped, not tried (the next of its tier or a lower tier
 * serves), and its refusal kept for the 429 when none has room. A channel without limits costs
 * no counter call.
 */
async function pickChannel(
  context: RelayContext,
  candidates: readonly RoutingChannel[],
  tried: readonly number[],
  full: { skipped: Set<number>; refusals: LimitRefusal[] },
  request: { id: string; tokens: number; slotTtlMs: number },
): Promise<{ channel: RoutingChannel; ticket: LimitTicket } | null> {
  for (;;) {
    const channel = chooseChannel(candidates, full.skipped.size === 0 ? new Set(tried) : new Set([...tried, ...full.skipped]));
    if (!channel) return null;
    const admitted = await context.limitGate.tryAdmit(channelLines(channel.id, channel.rate_limits, request), request.id);
    if ('ticket' in admitted) return { channel, ticket: admitted.ticket };
    full.skipped.add(channel.id);
    full.refusals.push(admitted.refused);
  }
}

/** The x-ratelimit-* figures go on the raw response, so a streamed (hijacked) answer and an error carry them too. */
export function setLimitHeaders(reply: FastifyReply, headers: Record<string, string>): void {
  for (const name in headers) reply.raw.setHeader(name, headers[name]!);
}

/**
 * What every relayed request, a realtime session and a task submit pass before anything is held:
 * the token may use the model, the group is open, the model has a price (`price`: the pipeline's,
 * or one with more in it), and a channel whose provider serves `capability` carries the model,
 * pinned by an admin's `sk-<key>-<id>` or routed. A task's follow-up names its `original` channel
 * instead: that one only, while it is enabled. Throws the RelayError to answer otherwise.
 */
export function admit<Quote>(
  context: RelayContext,
  caller: Caller,
  model: string,
  capability: OperationName,
  label: string,
  price: (options: RelayContext['options'], model: string, group: string) => Quote | null,
  original?: { channelId: number },
): { quote: Quote; candidates: readonly RoutingChannel[] } {
  const { options, channels } = context;
  checkModelAllowed(caller, model);
  if (!Object.hasOwn(options.get('GroupRatio'), caller.group)) {
    throw new RelayError(403, `group ${caller.group} is not available`, 'group_not_available', 'permission_error');
  }
  const quote = price(options, model, caller.group);
  if (!quote) throw new RelayError(400, `model ${model} has no price configured; ask the administrator`, 'model_price_error', 'invalid_request_error');

  if (original) {
    const channel = channels.index.get(original.channelId);
    if (!channel || channel.status !== ChannelStatus.Enabled || !servesOperation(channel.type, capability)) {
      throw new RelayError(503, "the original task's channel is no longer available", 'original_channel_unavailable', 'new_api_error');
    }
    return { quote, candidates: [channel] };
  }
  const routed = caller.pinnedChannelId !== null ? pinned(channels.index.get(caller.pinnedChannelId)) : channels.index.candidates(caller.group, model);
  if (routed.length === 0) throw new RelayError(503, `no available channel for model ${model} in group ${caller.group}`, 'no_channel', 'new_api_error');
  const candidates = capable(routed, capability);
  if (candidates.length === 0) {
    throw new RelayError(503, `no channel can serve ${label} for model ${model} in group ${caller.group}`, 'no_capable_channel', 'new_api_error');
  }
  return { quote, candidates };
}

/** The 403 of a hold the balance (or the key's quota) cannot cover. */
export function insufficientQuota(reason: 'insufficient_user_quota' | 'insufficient_token_quota'): RelayError {
  const message = reason === 'insufficient_token_quota' ? 'the API key has not enough quota left' : 'your balance is not enough for this request';
  return new RelayError(403, message, reason, 'insufficient_quota');
}

/** A request with `sk-<key>-<id>` uses that channel only, whatever its status (admins testing). */
function pinned(channel: RoutingChannel | undefined): RoutingChannel[] {
  return channel ? [channel] : [];
}

/** The channels whose provider serves the operation (the list itself when all do, as for chat). */
function capable(channels: readonly RoutingChannel[], capability: OperationName): readonly RoutingChannel[] {
  const serves = (channel: RoutingChannel) => servesOperation(channel.type, capability);
  return channels.every(serves) ? channels : channels.filter(serves);
}

/** The client headers the operation forwards, when the client sent them. */
function forwardedHeaders(request: FastifyRequest, operation: OperationDefinition): Record<string, string> | undefined {
  if (!operation.forwardHeaders) return undefined;
  const forwarded: Record<string, string> = {};
  for (const name of operation.forwardHeaders) {
    const value = request.headers[name];
    if (typeof value === 'string' && value !== '') forwarded[name] = value;
  }
  return forwarded;
}

export async function prepare(
  context: RelayContext,
  channel: RoutingChannel,
  model: string,
  stream: boolean,
  forwarded: Record<string, string> | undefined,
): Promise<{ attempt: Attempt } | { failure: Failure }> {
  let provider: ProviderDefinition;
  try {
    provider = providerFor(channel.type);
  } catch (error) {
    return { failure: { status: 500, error: { message: (error as Error).message, type: 'new_api_error', code: 'unsupported_channel_type' } } };
  }
  let picked: PickedKey;
  try {
    picked = await context.channels.pick(channel);
  } catch {
    return { failure: { status: 503, error: { message: 'the channel key is not available', type: 'new_api_error', code: 'channel_key_unavailable' } } };
  }
  const { key, keyIndex } = picked;
  const providerContext = { channel, key, upstreamModel: upstreamModel(channel, model), requestedModel: model, stream, ...(forwarded ? { forwarded } : {}) };
  return { attempt: { channel, provider, context: providerContext, ...(keyIndex !== undefined ? { keyIndex } : {}) } };
}

/** An upstream's answer: streamed (SSE, bytes, a WebSocket's events), or read whole (a non-streaming request over HTTP). */
type Answered = EgressResponse | EgressWholeResponse;

type Sent = { response: Answered; injectedUsage: boolean } | { failure: Failure };

const isWhole = (response: Answered): response is EgressWholeResponse => 'text' in response;

/** The streamed answer a stream or byte answer reads (send made it so: only a whole answer is read whole). */
function streamed(response: Answered): EgressResponse {
  if (isWhole(response)) throw new Error('a streamed answer was read whole');
  return response;
}

/** An answer's text, at most `maxBytes` of it, whichever way it came (a whole answer's was cut at the egress bound as it came; a shorter excerpt is cut by characters). */
function answerText(response: Answered, maxBytes: number): Promise<string> {
  return isWhole(response) ? response.text.then((text) => (text.length > maxBytes ? text.slice(0, maxBytes) : text)) : readBounded(response, maxBytes);
}

/** Stops reading an answer (its deadline passed). */
function stopReading(response: Answered): void {
  if (isWhole(response)) response.abort();
  else response.body.destroy();
}

/**
 * Builds the upstream call, sends it, and turns an error answer into a Failure (reported to
 * channels). `whole`: the answer is wanted whole (neither a stream nor bytes), so it is read
 * without a stream.
 */
async function send(
  context: RelayContext,
  attempt: Attempt,
  operation: OperationDefinition,
  body: Record<string, unknown>,
  requestId: string,
  whole: boolean,
): Promise<Sent> {
  const { channel, provider } = attempt;
  let built: { request: UpstreamRequest; injectedUsage: boolean };
  try {
    built = operation.upstream(attempt, body);
  } catch (error) {
    if (!(error instanceof ChannelConfigurationError)) throw error;
    // This channel cannot be called as configured; another one may serve (the admin sees why).
    const failure: Failure = { status: 0, error: { message: 'the channel is not configured completely', type: 'new_api_error', code: error.code } };
    reportFailure(context, attempt, requestId, failure, error.message);
    return { failure };
  }
  const { injectedUsage } = built;
  let upstream: UpstreamRequest;
  try {
    // Most providers put the key in a header when building the call: no await for them.
    upstream = provider.authorize ? await authorized(context, provider, channel, attempt.context.key, built.request) : built.request;
  } catch (error) {
    // The credential could not be exchanged for a token: like an unreachable upstream, another channel may serve.
    const failure: Failure = { status: 0, error: { message: 'the channel credential was not accepted', type: 'upstream_error', code: 'upstream_auth_failed' } };
    // A token endpoint refusing the credential (4xx) is an authentication failure for auto-ban; its trouble (5xx, none) is not.
    const refused = error instanceof AccessTokenError && error.status >= 400 && error.status < 500;
    const reported: Failure = refused ? { status: error.status, error: Object.assign({}, failure.error, { type: 'authentication_error' }) } : failure;
    reportFailure(context, attempt, requestId, reported, (error as Error).message);
    return { failure };
  }
  const { headers, body: payload } = await encoded(upstream);

  if (upstream.warnings?.length)
    context.logger.debug({ channelId: channel.id, warnings: upstream.warnings }, 'parameters the upstream cannot take were dropped');
  if (upstream.websocket) {
    const opened = await socketAnswer(channel, provider, upstream, attempt.context.key, { handshakeMs: handshakeMs(context) });
    if ('failure' in opened) reportFailure(context, attempt, requestId, opened.failure, opened.detail);
    return 'failure' in opened ? { failure: opened.failure } : { response: opened.response, injectedUsage };
  }
  let response: Answered;
  try {
    const init = Object.assign({ method: upstream.method, headers, body: payload }, channelEgress(channel));
    response = whole
      ? await context.egress.requestWhole(upstream.url, init, context.limits.maxUpstreamBodyBytes)
      : await context.egress.request(upstream.url, init);
  } catch (error) {
    const blocked = error instanceof EgressBlockedError;
    const failure: Failure = {
      status: blocked ? 502 : 0,
      error: {
        message: blocked ? 'the channel address is not allowed' : 'failed to reach the upstream',
        type: 'upstream_error',
        code: blocked ? 'upstream_address_blocked' : 'upstream_unreachable',
      },
    };
    reportFailure(context, attempt, requestId, failure, blocked ? (error as Error).message : failure.error.message);
    return { failure };
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return { response, injectedUsage };

  const text = await answerText(response, 64 * 1024).catch(() => '');
  const failure: Failure = { status: mappedStatus(channel, response.statusCode), error: provider.error(response.statusCode, text) };
  reportFailure(context, attempt, requestId, failure, failure.error.message);
  return { failure };
}

/** How long an upstream WebSocket may take to open: what an HTTP call may take to its headers. */
export function handshakeMs(context: RelayContext): number {
  return context.limits.connectTimeoutMs + context.limits.headersTimeoutMs;
}

/**
 * The request as its provider authorizes it: signed (AWS SigV4, Tencent TC3) or with an access
 * token from an exchange (Vertex AI, Baidu). Most providers put the key in a header when they
 * build the request and have nothing to add.
 */
export async function authorized(
  context: RelayContext,
  provider: ProviderDefinition,
  channel: RoutingChannel,
  key: string,
  request: UpstreamRequest,
): Promise<UpstreamRequest> {
  return provider.authorize ? provider.authorize(request, { channel, key }, context.accessTokens.for(channel, key)) : request;
}

/** The request's headers and bytes; a multipart form is encoded here (its boundary goes into the content-type). */
async function encoded(upstream: UpstreamRequest): Promise<{ headers: Record<string, string>; body: string | Buffer | undefined }> {
  if (!upstream.form) return { headers: upstream.headers, body: upstream.body };
  const form = new Response(upstream.form);
  return { headers: Object.assign({}, upstream.headers, { 'content-type': form.headers.get('content-type')! }), body: Buffer.from(await form.arrayBuffer()) };
}

/** The channel (and the key of a multi-key channel) a failure is reported against. */
export type FailedOn = Pick<Attempt, 'channel' | 'keyIndex'>;

export function reportFailure(context: RelayContext, on: FailedOn, requestId: string, failure: Failure, message: string): void {
  observeChannelFailure(on.channel.id, failure.status);
  void publishChannelFailed(context.bus, {
    channel_id: on.channel.id,
    ...(on.keyIndex !== undefined ? { key_index: on.keyIndex } : {}),
    request_id: requestId,
    status_code: failure.status,
    error_code: failure.error.code.slice(0, 256),
    error_type: failure.error.type.slice(0, 256),
    // In English: webhook receivers and the channel's failure record read it (an egress refusal is a catalogue message).
    message: localizeMessage(message, 'en-US').slice(0, 2048),
    test: false,
  }).catch((error: unknown) => context.logger.warn({ err: error }, 'channel failure not reported'));
}

/** The upstream's text, at most `maxBytes` (the rest is discarded). */
export async function readBounded(response: EgressResponse, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    const buffer = chunk as Buffer;
    if (size + buffer.length > maxBytes) {
      chunks.push(buffer.subarray(0, maxBytes - size));
      response.body.destroy();
      break;
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A whole (non-streaming) answer: parsed for usage, converted when the provider is not OpenAI. */
async function answer(
  context: RelayContext,
  reply: FastifyReply,
  attempt: Attempt,
  operation: OperationDefinition,
  response: Answered,
  requestId: string,
  requestBody: Record<string, unknown>,
  upstreamDone: () => Promise<void>,
): Promise<StreamOutcome> {
  const started = Date.now();
  // The whole answer has a deadline, so no request outlives its quota hold.
  let late = false;
  const deadline = setTimeout(() => {
    late = true;
    stopReading(response);
  }, context.limits.answerTimeoutMs);
  const clock = overheadOf(reply);
  const text = await clock
    .upstream(() => answerText(response, context.limits.maxUpstreamBodyBytes))
    .catch((error: unknown) => {
      if (late) throw new RelayError(504, 'the upstream answer took longer than the relay allows', 'upstream_timeout', 'upstream_error');
      throw error;
    })
    .finally(() => clearTimeout(deadline));
  // An upstream that answered with a pending job is polled until the job's result (polled-answer.ts), within the same deadline.
  const first = upstreamAnswer(text, response);
  // Most providers answer at once: no await for them.
  const upstream = attempt.provider.passthrough?.follow
    ? await clock.upstream(() => polledAnswer(context, attempt, operation.capability, first, started + context.limits.answerTimeoutMs))
    : first;
  if (!operation.answer) throw new Error(`operation ${operation.name} has neither answer nor bytes`);
  const { body, contentType, usage, estimatedCompletion, objectId, counted } = operation.answer(attempt, upstream, requestBody);
  // Answers that go out as received are not re-serialised on the hot path.
  const outgoing = typeof body === 'string' ? body : body === upstream.parsed ? upstream.text : JSON.stringify(body);
  const payload = redactKey(outgoing, attempt.context.key);
  const contentTypeOut = typeof body === 'string' ? (contentType ?? 'text/plain; charset=utf-8') : 'application/json';
  recorderOf(reply.request)?.whole(200, contentTypeOut, payload);
  await upstreamDone();
  void reply.status(200).header('content-type', contentTypeOut).header('x-oneapi-request-id', requestId).header(OVERHEAD_HEADER, clock.value()).send(payload);
  return {
    usage: usage ? saneUsage(usage) : null,
    completionTokens: estimatedCompletion,
    firstResponseMs: Date.now() - started,
    partial: null,
    upstreamModel: attempt.context.upstreamModel,
    ...(objectId ? { objectId } : {}),
    ...(counted ? { counted } : {}),
  };
}

/** A whole upstream answer for the operation; its JSON is parsed once, when asked for. */
function upstreamAnswer(text: string, response: Pick<Answered, 'headers'>): UpstreamAnswer & { parsed: unknown } {
  const answer = {
    text,
    contentType: String(response.headers['content-type'] ?? ''),
    parsed: undefined as unknown,
    json() {
      if (answer.parsed !== undefined) return answer.parsed;
      try {
        answer.parsed = JSON.parse(text);
      } catch {
        throw new RelayError(502, 'the upstream answered with something that is not JSON', 'bad_upstream_response', 'upstream_error');
      }
      return answer.parsed;
    },
  };
  return answer;
}

/**
 * A byte answer (speech audio) passed through as it comes, with the upstream's content type; the
 * operation prices what was delivered. The same deadlines as a stream apply.
 */
async function pipeBytes(
  context: RelayContext,
  reply: FastifyReply,
  attempt: Attempt,
  response: EgressResponse,
  requestId: string,
  upstreamDone: () => Promise<void>,
  usageOf: (delivered: { bytes: number; total: number | null; complete: boolean }) => Usage | null,
): Promise<StreamOutcome> {
  const started = Date.now();
  const raw = reply.raw;
  reply.hijack();
  const contentType = String(response.headers['content-type'] ?? 'application/octet-stream');
  const length = Number(response.headers['content-length']);
  const total = Number.isSafeInteger(length) && length >= 0 ? length : null;
  raw.writeHead(
    200,
    Object.assign(answerHeaders(contentType, requestId, overheadOf(reply).value()), total !== null ? { 'content-length': String(total) } : {}),
  );
  let bytes = 0;
  let firstResponseMs = -1;
  // Sent with an Idempotency-Key: kept for a retry, and read to its end even if the client leaves.
  const recorder = recorderOf(reply.request);
  recorder?.begin(contentType, true);
  const pump = new AnswerPump(context, raw, response, 'answer idle timeout', recorder !== undefined);
  await pump.run(requestId, 'upstream answer broken', async (buffer) => {
    recorder?.add(buffer);
    if (pump.clientGone) {
      // Kept for the retry: what the upstream sends on is the answer, and charged.
      if (pump.keepsRunning) bytes += buffer.length;
      return;
    }
    if (firstResponseMs < 0) firstResponseMs = Date.now() - started;
    bytes += buffer.length;
    if (!raw.write(buffer)) await drained(raw);
  });
  const partial = pump.clientGone && !pump.keepsRunning ? 'client disconnected' : pump.partial;
  await upstreamDone();
  if (partial) raw.destroy();
  else if (!pump.clientGone) raw.end();
  const complete = !partial;
  const usage = bytes > 0 ? usageOf({ bytes, total, complete }) : null;
  return { usage: usage ? saneUsage(usage) : null, completionTokens: 0, firstResponseMs, partial, upstreamModel: attempt.context.upstreamModel };
}

export interface RecordInput {
  caller: Caller;
  model: string;
  requestId: string;
  startedAt: number;
  quote: PriceQuote;
  stream: boolean;
  tried: number[];
  usage: Usage;
  quota: number;
  firstResponseMs?: number;
  estimated?: boolean;
  upstreamModel?: string;
  note?: string;
  /** The operation served (the metrics' label). */
  operation?: OperationName;
  /** The request's span (tracing on): the record's outcome is set on it, and its context goes to billing with the record. */
  span?: RelaySpan | null;
  /** Epoch ms the served attempt's upstream answered (its headers): with firstResponseMs, a stream's time to first token. */
  answeredAt?: number;
}

/**
 * A charged request's record, kept in the outbox (as its checkpoint) before its hold is settled:
 * settle moves the charge to the held sum in one atomic step, and a relay killed between that
 * step and `record` would leave a charge no record explains. Its restart publishes this instead
 * (docs/architecture.md section 5.2). A local write, at the end of this turn of the event loop
 * with every other request's (usage-outbox.ts); nothing when the request costs nothing.
 * Resolves to the record kept, for `record` to publish as it is, once it is written.
 */
export async function keepBeforeSettle(context: RelayContext, input: RecordInput): Promise<UsageRecord | null> {
  if (input.quota <= 0) return null;
  const kept = usageRecord(input);
  await context.usage.keep(kept);
  return kept;
}

/**
 * Exactly one usage record per forwarded request (docs/architecture.md section 5, step 6), and its
 * metrics. `kept`: the record keepBeforeSettle wrote, published as it is when settle charged what
 * it says (nearly always), so a charged request's record is built once.
 */
export function record(context: RelayContext, input: RecordInput & { outcome: RelayOutcome }, kept?: UsageRecord | null): void {
  const record = kept && kept.quota === input.quota ? kept : usageRecord(input);
  context.usage.publish(record, input.span?.traceparent());
  observeRecord(context, input);
  input.span?.recorded({
    system: systemOf(context, record.channel_id),
    channelId: record.channel_id,
    upstreamModel: input.upstreamModel,
    usage: input.usage,
    quota: input.quota,
  });
}

/** The provider of the channel that served (its `gen_ai.system`); looked up only when tracing. */
function systemOf(context: RelayContext, channelId: number): string | undefined {
  const channel = channelId ? context.channels.index.get(channelId) : undefined;
  return channel ? providerFor(channel.type).id : undefined;
}

/**
 * A request's usage record. Published without a parse (events.ts), so it meets usageRecordSchema
 * by construction (usage-record.test.ts holds it there): ids and the model were checked where they
 * came in (app.ts's request id, model-field.ts), usage by saneUsage, the charge by the quota gate;
 * free text is cut to its length here, and nothing the caller keeps changing is shared (the
 * in-process bus freezes what it delivers).
 */
export function usageRecord(input: RecordInput): UsageRecord {
  const details = priceDetails(input.quote);
  const content = input.note ? `${details.content} (${input.note})` : details.content;
  return {
    request_id: input.requestId,
    user_id: input.caller.userId,
    token_id: input.caller.tokenId,
    token_name: input.caller.tokenName.slice(0, 64),
    model_name: input.model,
    group: input.caller.group.slice(0, 64),
    channel_id: input.tried[input.tried.length - 1] ?? 0,
    prompt_tokens: input.usage.prompt_tokens,
    completion_tokens: input.usage.completion_tokens,
    quota: input.quota,
    // The clock may step back (NTP) while a request runs.
    use_time_ms: Math.min(Math.max(Date.now() - input.startedAt, 0), 86_400_000),
    is_stream: input.stream,
    created_at: Math.floor(input.startedAt / 1000),
    content: content.length > 1024 ? content.slice(0, 1024) : content,
    other: Object.assign({}, details.other, {
      frt: input.firstResponseMs ?? -1,
      cache_tokens: input.usage.cached_tokens,
      ...(input.usage.cache_creation_tokens
        ? { cache_creation_tokens: input.usage.cache_creation_tokens, cache_creation_ratio: input.quote.createCacheRatio }
        : {}),
      usage_source: input.estimated ? ('estimated' as const) : ('upstream' as const),
      ...(input.upstreamModel && input.upstreamModel !== input.model ? { is_model_mapped: true, upstream_model_name: input.upstreamModel } : {}),
      admin_info: { use_channel: input.tried.slice() },
    }) satisfies LogOther,
  };
}
