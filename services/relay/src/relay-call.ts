import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LogOther, RoutingChannel, UsageRecord } from '@aigw/contracts';
import { EgressBlockedError, type EgressResponse } from '@aigw/platform';
import type { Caller } from './caller.js';
import { checkModelAllowed } from './caller.js';
import { holdLifetimeMs, type RelayContext } from './context.js';
import { chooseChannel, isRetryable, mappedStatus, upstreamModel } from './domain/channel-choice.js';
import { RelayError } from './errors.js';
import { charge, priceDetails, quotePrice, reservation, saneUsage, type PriceQuote } from './metering.js';
import type { ProviderDefinition, ProviderError, UpstreamRequest, Usage } from './providers/types.js';
import { providerFor, servesOperation } from './providers/registry.js';
import { streamToClient, type StreamOutcome } from './streaming.js';
import { channelEgress } from './channel-egress.js';
import { publishChannelFailed } from './events.js';
import type { Attempt as OperationAttempt, OperationDefinition } from './operations/types.js';

interface Attempt extends OperationAttempt {
  channel: RoutingChannel;
}

interface Failure {
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
  const startedAt = Date.now();
  const { options, channels } = context;
  if (!context.usage.accepting()) throw new RelayError(503, 'usage recording is backed up; try again shortly', 'usage_spool_full');

  // The model, the stream flag and the hold's multipliers, checked before anything is held (rule R7).
  const { model, stream, bounds } = operation.inspect(body);
  checkModelAllowed(caller, model);

  if (!Object.hasOwn(options.get('GroupRatio'), caller.group)) {
    throw new RelayError(403, `group ${caller.group} is not available`, 'group_not_available', 'permission_error');
  }
  const quote = quotePrice(options, model, caller.group);
  if (!quote) throw new RelayError(400, `model ${model} has no price configured; ask the administrator`, 'model_price_error', 'invalid_request_error');

  const routed = caller.pinnedChannelId !== null ? pinned(channels.index.get(caller.pinnedChannelId)) : channels.index.candidates(caller.group, model);
  if (routed.length === 0) throw new RelayError(503, `no available channel for model ${model} in group ${caller.group}`, 'no_channel', 'new_api_error');
  const candidates = capable(routed, operation);
  if (candidates.length === 0) {
    throw new RelayError(503, `no channel can serve ${operation.label} for model ${model} in group ${caller.group}`, 'no_capable_channel', 'new_api_error');
  }

  const promptTokens = operation.estimatePrompt(body, model);
  // The id every answer carries (X-Oneapi-Request-Id): the usage record and the log row have it too.
  const requestId = request.id;
  const amount = reservation(quote, promptTokens, bounds.maxTokens, options.get('PreConsumedQuota'), bounds.answers);
  const unbilled = (tried: number[], note: string): RecordInput => ({
    caller,
    model,
    requestId,
    startedAt,
    quote,
    stream,
    tried,
    usage: NO_USAGE,
    quota: 0,
    note,
  });
  const orphanNote = 'relay stopped mid-request; nothing was charged';
  const reserved = await context.quota.reserve({
    requestId,
    userId: caller.userId,
    tokenId: caller.tokenId,
    unlimitedToken: caller.unlimitedToken,
    amount,
    ttlMs: holdLifetimeMs(context.limits, options.get('RetryTimes')),
    // Should this process die mid-request, the hold sweeper publishes this (nothing charged).
    record: usageRecord(unbilled([], orphanNote)),
  });
  if (!reserved.ok) {
    const message = reserved.reason === 'insufficient_token_quota' ? 'the API key has not enough quota left' : 'your balance is not enough for this request';
    throw new RelayError(403, message, reserved.reason, 'insufficient_quota');
  }
  const { hold } = reserved;
  let announced = false;
  /** At the first upstream call: billing keeps this record (beyond Redis) should the request outlive a second and this process die. */
  const announce = (channelId: number) => {
    if (announced) return;
    announced = true;
    context.usage.started({ record: usageRecord(unbilled([channelId], orphanNote)), owner: hold.owner, expires_at: hold.expiresAt });
  };

  const tried: number[] = [];
  const attempts = caller.pinnedChannelId !== null ? 1 : options.get('RetryTimes') + 1;
  let failure: Failure | null = null;
  let outcome: StreamOutcome | null = null;
  try {
    for (let attempt = 0; attempt < attempts && !outcome; attempt++) {
      const channel = chooseChannel(candidates, new Set(tried));
      if (!channel) break;
      tried.push(channel.id);
      const call = await prepare(context, channel, model, stream);
      if ('failure' in call) {
        failure = call.failure;
        continue;
      }
      announce(channel.id);
      const result = await send(context, call.attempt, operation, body, requestId);
      if ('failure' in result) {
        failure = result.failure;
        if (!isRetryable(failure.status, channel.type)) break;
        continue;
      }
      outcome = stream
        ? await streamToClient(context, request, reply, call.attempt, result.response, {
            injectedUsage: result.injectedUsage,
            requestId,
            output: operation.output,
            promptTokens,
          })
        : await answer(context, reply, call.attempt, operation, result.response, requestId);
    }
  } catch (error) {
    await context.quota.release(hold);
    if (tried.length > 0) record(context, unbilled(tried, 'relay error'));
    throw error;
  }

  if (!outcome) {
    await context.quota.release(hold);
    if (tried.length > 0) record(context, unbilled(tried, 'upstream error'));
    const status = failure?.status && failure.status >= 400 ? failure.status : 502;
    const message =
      status === 429 ? 'the upstream load of this group is saturated, try again later' : (failure?.error.message ?? 'no channel could serve the request');
    throw new RelayError(status, message, failure?.error.code || 'upstream_error', 'upstream_error');
  }

  const usage = outcome.usage ?? { prompt_tokens: promptTokens, completion_tokens: outcome.completionTokens, cached_tokens: 0 };
  // Nothing delivered and nothing reported: nothing to charge (a per-call price included).
  const delivered = outcome.usage !== null || outcome.completionTokens > 0 || !outcome.partial;
  const quota = delivered ? charge(quote, usage) : 0;
  await context.quota.settle(hold, quota);
  record(context, {
    caller,
    model,
    requestId,
    startedAt,
    quote,
    stream,
    tried,
    usage,
    quota,
    firstResponseMs: outcome.firstResponseMs,
    estimated: outcome.usage === null,
    upstreamModel: outcome.upstreamModel,
    note: outcome.partial ? outcome.partial : undefined,
  });
}

/** A request with `sk-<key>-<id>` uses that channel only, whatever its status (admins testing). */
function pinned(channel: RoutingChannel | undefined): RoutingChannel[] {
  return channel ? [channel] : [];
}

/** The channels whose provider serves the operation (the list itself when all do, as for chat). */
function capable(channels: readonly RoutingChannel[], operation: OperationDefinition): readonly RoutingChannel[] {
  const serves = (channel: RoutingChannel) => servesOperation(channel.type, operation.capability);
  return channels.every(serves) ? channels : channels.filter(serves);
}

async function prepare(context: RelayContext, channel: RoutingChannel, model: string, stream: boolean): Promise<{ attempt: Attempt } | { failure: Failure }> {
  let provider: ProviderDefinition;
  try {
    provider = providerFor(channel.type);
  } catch (error) {
    return { failure: { status: 500, error: { message: (error as Error).message, type: 'new_api_error', code: 'unsupported_channel_type' } } };
  }
  let key: string;
  try {
    key = await context.channels.key(channel);
  } catch {
    return { failure: { status: 503, error: { message: 'the channel key is not available', type: 'new_api_error', code: 'channel_key_unavailable' } } };
  }
  return { attempt: { channel, provider, context: { channel, key, upstreamModel: upstreamModel(channel, model), requestedModel: model, stream } } };
}

type Sent = { response: EgressResponse; injectedUsage: boolean } | { failure: Failure };

/** Builds the upstream call, sends it, and turns an error answer into a Failure (reported to channels). */
async function send(context: RelayContext, attempt: Attempt, operation: OperationDefinition, body: Record<string, unknown>, requestId: string): Promise<Sent> {
  const { channel, provider } = attempt;
  const { request: upstream, injectedUsage }: { request: UpstreamRequest; injectedUsage: boolean } = operation.upstream(attempt, body);

  if (upstream.warnings?.length)
    context.logger.debug({ channelId: channel.id, warnings: upstream.warnings }, 'parameters the upstream cannot take were dropped');
  let response: EgressResponse;
  try {
    response = await context.egress.request(upstream.url, {
      method: upstream.method,
      headers: upstream.headers,
      body: upstream.body,
      ...channelEgress(channel),
    });
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
    reportFailure(context, channel, requestId, failure, blocked ? (error as Error).message : failure.error.message);
    return { failure };
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return { response, injectedUsage };

  const text = await readBounded(response, 64 * 1024).catch(() => '');
  const failure: Failure = { status: mappedStatus(channel, response.statusCode), error: provider.error(response.statusCode, text) };
  reportFailure(context, channel, requestId, failure, failure.error.message);
  return { failure };
}

function reportFailure(context: RelayContext, channel: RoutingChannel, requestId: string, failure: Failure, message: string): void {
  void publishChannelFailed(context.bus, {
    channel_id: channel.id,
    request_id: requestId,
    status_code: failure.status,
    error_code: failure.error.code.slice(0, 256),
    error_type: failure.error.type.slice(0, 256),
    message: message.slice(0, 2048),
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
  response: EgressResponse,
  requestId: string,
): Promise<StreamOutcome> {
  const started = Date.now();
  // The whole answer has a deadline, so no request outlives its quota hold.
  let late = false;
  const deadline = setTimeout(() => {
    late = true;
    response.body.destroy();
  }, context.limits.answerTimeoutMs);
  const text = await readBounded(response, context.limits.maxUpstreamBodyBytes)
    .catch((error: unknown) => {
      if (late) throw new RelayError(504, 'the upstream answer took longer than the relay allows', 'upstream_timeout', 'upstream_error');
      throw error;
    })
    .finally(() => clearTimeout(deadline));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RelayError(502, 'the upstream answered with something that is not JSON', 'bad_upstream_response', 'upstream_error');
  }
  const { body, usage, estimatedCompletion } = operation.answer(attempt, json);
  // Answers that go out as received are not re-serialised on the hot path.
  const outgoing = body === json ? text : JSON.stringify(body);
  const payload = redactKey(outgoing, attempt.context.key);
  void reply.status(200).header('content-type', 'application/json').header('x-oneapi-request-id', requestId).send(payload);
  return {
    usage: usage ? saneUsage(usage) : null,
    completionTokens: estimatedCompletion,
    firstResponseMs: Date.now() - started,
    partial: null,
    upstreamModel: attempt.context.upstreamModel,
  };
}

/** An upstream that echoes our request must not hand the channel key to the client (test U3). */
export function redactKey(text: string, key: string): string {
  return key.length >= 8 && text.includes(key) ? text.replaceAll(key, '[redacted]') : text;
}

interface RecordInput {
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
}

/** Exactly one usage record per forwarded request (docs/architecture.md section 5, step 6). */
function record(context: RelayContext, input: RecordInput): void {
  context.usage.publish(usageRecord(input));
}

function usageRecord(input: RecordInput): UsageRecord {
  const details = priceDetails(input.quote);
  return {
    request_id: input.requestId,
    user_id: input.caller.userId,
    token_id: input.caller.tokenId,
    token_name: input.caller.tokenName.slice(0, 64),
    model_name: input.model,
    group: input.caller.group,
    channel_id: input.tried[input.tried.length - 1] ?? 0,
    prompt_tokens: input.usage.prompt_tokens,
    completion_tokens: input.usage.completion_tokens,
    quota: input.quota,
    use_time_ms: Math.min(Date.now() - input.startedAt, 86_400_000),
    is_stream: input.stream,
    created_at: Math.floor(input.startedAt / 1000),
    content: input.note ? `${details.content} (${input.note})` : details.content,
    other: {
      ...details.other,
      frt: input.firstResponseMs ?? -1,
      cache_tokens: input.usage.cached_tokens,
      usage_source: input.estimated ? 'estimated' : 'upstream',
      ...(input.upstreamModel && input.upstreamModel !== input.model ? { is_model_mapped: true, upstream_model_name: input.upstreamModel } : {}),
      admin_info: { use_channel: input.tried },
    } satisfies LogOther,
  };
}
