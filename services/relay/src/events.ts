import { USAGE_LEDGER_CONSUMER, type EventPayload, type TaskRefund, type TaskUpdate, type UsageRecord } from '@aigw/contracts';
import { publishEvent, type Bus, type ServiceMessaging } from '@aigw/platform';
import type { RelayContext } from './context.js';
import type { TaskEntity } from './entities/index.js';
import { chargeRequestsOf } from './tasks/task-store.js';

/**
 * What the relay says on the bus. It publishes through the functions below: the money events
 * through usage-publisher.ts's spool, channel failures as they happen (relay-call.ts), dead letters
 * through platform's keepDeadLetters. It consumes
 * channels' routing rows (channels.ts) and billing's token and account changes (token-cache.ts),
 * answers channels' test and balance calls (channel-operations.ts), and asks for channel keys,
 * the routing snapshot and token lookups; quota seeds go through platform's quota gate, the
 * options through its options mirror.
 */
export const relayMessaging = {
  publishes: [
    'relay.usage.recorded',
    'relay.request.started',
    'relay.channel.failed',
    'relay.task.updated',
    'relay.task.refunded',
    'relay.limit.exceeded',
    'relay.dead_letter.recorded',
  ],
  consumes: [
    'channels.channel.updated',
    'channels.channel.deleted',
    'billing.token.updated',
    'billing.token.deleted',
    'billing.account.updated',
    'identity.option.updated',
  ],
  answers: ['relay.channel.operate'],
  asks: [
    'channels.channel.key',
    'channels.routing.snapshot',
    'billing.token.resolve',
    'billing.token.figures',
    'billing.quota.seed',
    'identity.option.snapshot',
  ],
} as const satisfies ServiceMessaging;

/**
 * A request's one usage record (event id: the request id, so a republish is deduplicated). Built
 * by relay-call.ts's `usageRecord` (a test holds its output to the schema) or parsed where it came
 * back from Redis or the outbox: not parsed again.
 */
export async function publishUsageRecorded(bus: Bus, record: UsageRecord, trace?: string): Promise<void> {
  // Resolves once stored (JetStream), or in-process once billing committed it: only then may the outbox let it go.
  await publishEvent(bus, 'relay.usage.recorded', record, record.request_id, { confirmedBy: USAGE_LEDGER_CONSUMER, built: true, ...(trace ? { trace } : {}) });
}

/** A request still running (event id `started-<request id>`): its record built as above, its owner and expiry the hold's. */
export async function publishRequestStarted(bus: Bus, started: EventPayload<'relay.request.started'>): Promise<void> {
  await publishEvent(bus, 'relay.request.started', started, `started-${started.record.request_id}`, { confirmedBy: USAGE_LEDGER_CONSUMER, built: true });
}

/** A usage limit refused requests (limits/limit-gate.ts holds these back per limit). */
export async function publishLimitExceeded(bus: Bus, refusal: EventPayload<'relay.limit.exceeded'>): Promise<void> {
  await publishEvent(bus, 'relay.limit.exceeded', refusal);
}

export async function publishChannelFailed(bus: Bus, failure: EventPayload<'relay.channel.failed'>): Promise<void> {
  await publishEvent(bus, 'relay.channel.failed', failure);
}

/** A task as `relay.task.updated` carries it: where it stands, never its prompt or result. */
export function taskUpdate(task: TaskEntity): TaskUpdate {
  return {
    id: task.id,
    platform: task.platform,
    task_id: task.task_id,
    user_id: task.user_id,
    channel_id: task.channel_id,
    action: task.action,
    status: task.status,
    progress: task.progress.slice(0, 20),
    fail_reason: task.fail_reason.slice(0, 1024),
    quota: task.quota,
    submit_time: task.submit_time,
    start_time: task.start_time,
    finish_time: task.finish_time,
  };
}

/**
 * A task changed (event id `task-<id>-<status>-<progress>`: the same change seen by two replicas,
 * or by a poll and a notify, is one event). A lost event is logged: the task store has the state.
 */
export async function publishTaskUpdated(context: Pick<RelayContext, 'bus' | 'logger'>, task: TaskEntity): Promise<void> {
  const update = taskUpdate(task);
  await publishEvent(context.bus, 'relay.task.updated', update, `task-${task.id}-${update.status}-${update.progress}`).catch((error: unknown) =>
    context.logger.warn({ err: error, taskId: task.id }, 'task update not published'),
  );
}

/** The refund id of a task: billing applies it once whoever publishes it, however often. */
export const refundIdOf = (task: Pick<TaskEntity, 'id'>) => `task-refund-${task.id}`;

/** A failed task's charge goes back (event id = refund id). Throws when the bus did not take it: the poller tries again. */
export async function publishTaskRefunded(context: Pick<RelayContext, 'bus'>, task: TaskEntity): Promise<TaskRefund> {
  const refund: TaskRefund = {
    refund_id: refundIdOf(task),
    user_id: task.user_id,
    token_id: task.token_id,
    quota: task.quota,
    charges: chargeRequestsOf(task).slice(-32),
    task: { id: task.id, platform: task.platform, task_id: task.task_id, action: task.action },
    reason: (task.fail_reason || 'the task failed').slice(0, 1024),
    created_at: Math.floor(Date.now() / 1000),
  };
  await publishEvent(context.bus, 'relay.task.refunded', refund, refund.refund_id);
  return refund;
}
