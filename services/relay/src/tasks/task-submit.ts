import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DataSource } from 'typeorm';
import type { RoutingChannel } from '@aigw/contracts';
import { isUniqueViolation, type EgressResponse } from '@aigw/platform';
import type { Caller } from '../caller.js';
import { holdLifetimeMs, type RelayContext } from '../context.js';
import { chooseChannel, isRetryable, mappedStatus } from '../domain/channel-choice.js';
import { RelayError } from '../errors.js';
import { charge, quotePrice } from '../metering.js';
import { errorOutcome, failedOutcome } from '../metrics.js';
import { channelEgress } from '../channel-egress.js';
import {
  admit,
  closeTicket,
  insufficientQuota,
  keepBeforeSettle,
  readBounded,
  record,
  reportFailure,
  setLimitHeaders,
  usageRecord,
  type FailedOn,
  type Failure,
  type RecordInput,
} from '../relay-call.js';
import { requestLines } from '../limits/limit-rules.js';
import type { PickedKey } from '../channels.js';
import { linkKey } from './task-links.js';
import type { UpstreamRequest } from '../providers/types.js';
import type { SubmitOutcome, TaskPlatformDefinition } from './platform.js';
import { addCharge, byTaskId, insert, type TaskChanges } from './task-store.js';
import type { TaskEntity } from '../entities/index.js';
import { publishTaskUpdated } from '../events.js';

/** What a task route asks the pipeline to submit. */
export interface TaskSubmission {
  platform: TaskPlatformDefinition;
  /** The priced model: `mj_imagine`, `suno_music`, ... */
  model: string;
  /** The task's action as stored: IMAGINE, UPSCALE, MUSIC, ... */
  action: string;
  /** The upstream path under the platform's root: `/submit/imagine`. */
  path: string;
  /** The body for the upstream, as the route prepared it. */
  body: Record<string, unknown>;
  /** The prompt as the task list shows it. */
  prompt: string;
  /** A follow-up's original task (the caller's): the submit goes to its channel only. */
  original?: TaskEntity;
  /** The upstream confirms `original` rather than starting a task (a modal): the charge goes onto it. */
  confirmsOriginal?: boolean;
  /** The relay's notify address for a channel (signed with its link key, task-links.ts), when the platform should call back (Midjourney). */
  callback?: (channel: RoutingChannel, linkKey: string) => string | undefined;
}

const NO_USAGE = { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0 };
/** Submit answers are small; more is not an answer of the protocol. */
const MAX_SUBMIT_ANSWER_BYTES = 1024 * 1024;

/**
 * One task submit (docs/architecture.md section 5.6): admitted and priced like any relayed
 * request (a per-call price, `ModelPrice` of the action's model x group ratio), the price held
 * before the upstream call, channels tried like chat (never one twice; a follow-up only on its
 * original's channel). Only an accepted submit is charged: the task row is stored first, then the
 * hold is settled and exactly one usage record is published; a refusal or a failure of every
 * channel releases the hold and leaves a record of nothing charged.
 */
export async function submitTask(
  context: RelayContext,
  db: DataSource,
  request: FastifyRequest,
  reply: FastifyReply,
  caller: Caller,
  submission: TaskSubmission,
): Promise<void> {
  const startedAt = Date.now();
  const { options } = context;
  const { platform, model, original } = submission;
  if (!context.usage.accepting()) throw new RelayError(503, 'usage recording is backed up; try again shortly', 'usage_spool_full');
  const label = `${platform.platform} ${submission.action.toLowerCase()}`;
  const { quote, candidates } = admit(context, caller, model, platform.platform, label, quotePrice, original ? { channelId: original.channel_id } : undefined);
  if (quote.pricing.kind !== 'price') {
    throw new RelayError(400, `model ${model} has no per-call price (ModelPrice); ask the administrator`, 'model_price_error', 'invalid_request_error');
  }
  const price = charge(quote, NO_USAGE);
  const requestId = request.id;
  const recordOf = (tried: number[], quota: number, note: string): RecordInput => ({
    caller,
    model,
    requestId,
    startedAt,
    quote,
    stream: false,
    tried,
    usage: NO_USAGE,
    quota,
    note,
    operation: platform.platform,
  });
  // Usage limits count a submit like any request, before anything is held (docs/architecture.md section 5.9).
  const about = { userId: caller.userId, tokenId: caller.tokenId, group: caller.group, model };
  const limitRequest = { id: requestId, tokens: 0, slotTtlMs: holdLifetimeMs(context.limits, options.get('RetryTimes')) };
  const ticket = await context.limitGate.admit(requestLines({ ...caller, ...about }, context.limitGate.settings(), limitRequest), requestId, about);
  setLimitHeaders(reply, ticket.headers);
  try {
    const reserved = await context.quota.reserve({
      requestId,
      userId: caller.userId,
      tokenId: caller.tokenId,
      unlimitedToken: caller.unlimitedToken,
      amount: price,
      ttlMs: holdLifetimeMs(context.limits, options.get('RetryTimes')),
      record: usageRecord(recordOf([], 0, 'relay stopped mid-submit; nothing was charged')),
    });
    if (!reserved.ok) throw insufficientQuota(reserved.reason);
    const { hold } = reserved;

    const tried: number[] = [];
    const attempts = original || caller.pinnedChannelId !== null ? 1 : options.get('RetryTimes') + 1;
    let failure: Failure | null = null;
    let refused: Extract<SubmitOutcome, { kind: 'refused' }> | null = null;
    /** A channel that cannot serve at all said so: the next channel is tried, and its words answer should none take the task. */
    let channelRefusal: Extract<SubmitOutcome, { kind: 'refused' }> | null = null;
    let accepted: { outcome: Extract<SubmitOutcome, { kind: 'accepted' }>; channel: RoutingChannel } | null = null;
    try {
      for (let attempt = 0; attempt < attempts && !accepted && !refused; attempt++) {
        const channel = chooseChannel(candidates, new Set(tried));
        if (!channel) break;
        tried.push(channel.id);
        const sent = await send(context, channel, submission, requestId);
        const on: FailedOn = { channel, ...(sent.keyIndex !== undefined ? { keyIndex: sent.keyIndex } : {}) };
        if ('failure' in sent) {
          failure = sent.failure;
          if (!sent.retry) break;
          continue;
        }
        const { outcome } = sent;
        if (outcome.kind === 'accepted') accepted = { outcome, channel };
        else if (outcome.kind === 'refused' && !outcome.channelFault) refused = outcome;
        // A failed call, or a channel without an account to draw with (reported for auto-disable): the next channel may serve.
        else {
          failure = { status: outcome.kind === 'failed' ? outcome.status : 503, error: outcome.failure };
          reportFailure(context, on, requestId, failure, failure.error.message);
          if (outcome.kind === 'failed' && !isRetryable(mappedStatus(channel, outcome.status), channel.type)) break;
          if (outcome.kind === 'refused') channelRefusal = outcome;
        }
      }
      if (accepted) {
        await keepTask(context, db, caller, submission, accepted.outcome, accepted.channel.id, price, startedAt, requestId);
      }
    } catch (error) {
      await context.quota.release(hold);
      if (tried.length > 0) record(context, { ...recordOf(tried, 0, 'relay error; nothing was charged'), outcome: errorOutcome(error) });
      throw error;
    }

    if (accepted) {
      const { taskId, code } = accepted.outcome;
      const submitted = recordOf(tried, price, `${submission.action}${taskId ? ` task ${taskId}` : ''}, submit code ${code}`);
      const kept = await keepBeforeSettle(context, submitted);
      await context.quota.settle(hold, price);
      record(context, { ...submitted, outcome: 'ok' }, kept);
      await ticket.finish({ tokens: 0, success: true });
      void reply.status(200).header('x-oneapi-request-id', requestId).send(accepted.outcome.answer);
      return;
    }
    await context.quota.release(hold);
    if (tried.length > 0) {
      const note = refused || channelRefusal ? 'refused by the upstream; nothing was charged' : 'upstream error; nothing was charged';
      // Refused by the upstream itself (the prompt, the parameters): the client's; a channel's own refusal or failure: the upstream's.
      record(context, { ...recordOf(tried, 0, note), outcome: refused ? 'client_error' : failedOutcome(failure?.status ?? 0) });
    }
    const refusal = refused ?? (failure && channelRefusal && failure.error === channelRefusal.failure ? channelRefusal : null);
    if (refusal) {
      void reply.status(refusal.status).header('x-oneapi-request-id', requestId).send(refusal.answer);
      return;
    }
    const status = failure?.status && failure.status >= 400 ? failure.status : 502;
    throw new RelayError(status, failure?.error.message ?? 'no channel could serve the request', failure?.error.code || 'upstream_error', 'upstream_error');
  } finally {
    await closeTicket(ticket);
  }
}

/** A try's outcome, and the key of a multi-key channel it used (failures are reported against it). */
type Sent = ({ outcome: SubmitOutcome } | { failure: Failure; retry: boolean }) & { keyIndex?: number };

/** One channel's try: the key, the call, the answer read and understood. */
async function send(context: RelayContext, channel: RoutingChannel, submission: TaskSubmission, requestId: string): Promise<Sent> {
  let picked: PickedKey;
  let link: string;
  try {
    picked = await context.channels.pick(channel);
    link = await linkKey(context, channel);
  } catch {
    return {
      failure: { status: 503, error: { message: 'the channel key is not available', type: 'new_api_error', code: 'channel_key_unavailable' } },
      retry: true,
    };
  }
  const { key, keyIndex } = picked;
  const onKey = keyIndex !== undefined ? { keyIndex } : {};
  const fail = (status: number, message: string, code: string, detail = message): Sent => {
    const failure: Failure = { status, error: { message, type: 'upstream_error', code } };
    reportFailure(context, { channel, ...onKey }, requestId, failure, detail);
    return { failure, retry: true, ...onKey };
  };
  let upstream: UpstreamRequest;
  try {
    const callback = submission.callback?.(channel, link);
    upstream = submission.platform.submit(channel, key, submission.path, callback ? { ...submission.body, notifyHook: callback } : submission.body);
  } catch (error) {
    return fail(500, (error as Error).message, 'channel_misconfigured');
  }
  let response: EgressResponse;
  try {
    response = await context.egress.request(upstream.url, {
      method: upstream.method,
      headers: upstream.headers,
      body: upstream.body,
      ...channelEgress(channel),
    });
  } catch {
    return fail(0, 'failed to reach the upstream', 'upstream_unreachable');
  }
  const text = await readBounded(response, MAX_SUBMIT_ANSWER_BYTES).catch(() => '');
  return { outcome: submission.platform.submitted(response.statusCode, text), ...onKey };
}

/**
 * Stores the accepted task before anything is charged: a task the poller cannot find would never
 * be refunded. A modal (or an upstream answering "already exists" with a task we have) adds the
 * charge to the existing row instead.
 */
async function keepTask(
  context: RelayContext,
  db: DataSource,
  caller: Caller,
  submission: TaskSubmission,
  outcome: Extract<SubmitOutcome, { kind: 'accepted' }>,
  channelId: number,
  price: number,
  startedAt: number,
  requestId: string,
): Promise<void> {
  const { platform, original } = submission;
  if (!outcome.taskId) return; // an upload: billed, nothing to follow
  if (submission.confirmsOriginal && original && original.task_id === outcome.taskId) {
    if (price > 0) await addCharge(db, original.id, price, requestId);
    return;
  }
  const changes: TaskChanges = outcome.changes;
  try {
    const task = await insert(db, {
      platform: platform.platform,
      user_id: caller.userId,
      token_id: caller.tokenId,
      channel_id: channelId,
      action: submission.action,
      task_id: outcome.taskId,
      prompt: submission.prompt,
      quota: price,
      charge_requests: requestId,
      submit_time: startedAt,
      ...changes,
    });
    void publishTaskUpdated(context, task);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // The upstream answered with a task it already had (code 21): the charge joins that task's.
    const existing = await byTaskId(db, platform.platform, outcome.taskId);
    if (!existing) throw error;
    if (price > 0) await addCharge(db, existing.id, price, requestId);
  }
}
