import type { DataSource } from 'typeorm';
import type { RoutingChannel } from '@aigw/contracts';
import type { RelayContext } from '../context.js';
import type { TaskEntity } from '../entities/index.js';
import { channelEgress } from '../channel-egress.js';
import { readBounded } from '../relay-call.js';
import { taskPlatformFor } from '../providers/registry.js';
import type { TaskPlatformDefinition } from './platform.js';
import { chargeRequestsOf, claimRefund, TaskPlatform, TaskStatus, unfinished, unrefunded, update, type TaskChanges } from './task-store.js';
import { publishTaskRefunded, publishTaskUpdated } from '../events.js';

export interface TaskPollSettings {
  /** A task unfinished this long after its submit fails (and is refunded). */
  timeoutMs: number;
  /** The longest one upstream call may take. */
  callTimeoutMs: number;
  /** Tasks asked about in one upstream call. */
  batchSize: number;
  /** Unfinished tasks looked at per platform and run (oldest first). */
  perRun: number;
}

export const DEFAULT_TASK_POLL: TaskPollSettings = { timeoutMs: 60 * 60_000, callTimeoutMs: 15_000, batchSize: 100, perRun: 2_000 };

/** The changed fields a task row takes from an upstream answer (none: nothing new). */
const FIELDS = [
  'status',
  'progress',
  'image_url',
  'prompt',
  'prompt_en',
  'description',
  'data',
  'buttons',
  'properties',
  'fail_reason',
  'start_time',
  'finish_time',
] as const;

/** Upstream answers to a poll are bounded like any answer read whole. */
const MAX_POLL_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * One run of the task poller (docs/architecture.md section 5.6): every unfinished task is asked
 * about on its channel, a batch per call; what changed is stored and published. Only the
 * upstream's word or the timeout ends a task: a channel gone or an upstream down leaves it as it
 * is until the next run. Then every failed task not yet refunded is refunded (see `refund`).
 * Returns the run's summary.
 */
export async function pollTasks(context: RelayContext, db: DataSource, settings: TaskPollSettings, now = Date.now()): Promise<string> {
  let asked = 0;
  let changed = 0;
  let unreachable = 0;
  let timedOut = 0;
  for (const platform of Object.values(TaskPlatform)) {
    const tasks = await unfinished(db, platform, settings.perRun);
    const byChannel = new Map<number, TaskEntity[]>();
    for (const task of tasks) byChannel.set(task.channel_id, [...(byChannel.get(task.channel_id) ?? []), task]);
    for (const [channelId, channelTasks] of byChannel) {
      const channel = context.channels.index.get(channelId);
      const definition = channel ? taskPlatformFor(channel.type) : null;
      if (!channel || !definition || definition.platform !== platform) continue;
      for (let start = 0; start < channelTasks.length; start += settings.batchSize) {
        const batch = channelTasks.slice(start, start + settings.batchSize);
        asked += batch.length;
        const result = await pollChannel(context, db, definition, channel, batch, settings);
        if (result === null) unreachable += batch.length;
        else changed += result;
      }
    }
    // Whatever did not finish in time fails, whether or not its upstream answered.
    for (const task of tasks) {
      if (now - task.submit_time < settings.timeoutMs) continue;
      const minutes = Math.round(settings.timeoutMs / 60_000);
      if (
        await applyChanges(
          context,
          db,
          task,
          { status: TaskStatus.Failure, fail_reason: `the upstream task did not finish within ${minutes} minutes`, finish_time: now },
          true,
        )
      )
        timedOut += 1;
    }
  }
  const refunds = await refundFailed(context, db);
  return `asked about ${asked} task(s): ${changed} changed, ${unreachable} not answered, ${timedOut} timed out; ${refunds} refund(s)`;
}

/**
 * Asks one channel about some of its tasks and stores what changed. Null when the upstream did
 * not answer well (the tasks stay as they are). Also what the Midjourney notify runs, so a
 * callback is never trusted beyond what a poll shows.
 */
export async function pollChannel(
  context: RelayContext,
  db: DataSource,
  platform: TaskPlatformDefinition,
  channel: RoutingChannel,
  tasks: readonly TaskEntity[],
  settings: Pick<TaskPollSettings, 'callTimeoutMs'>,
): Promise<number | null> {
  let answered: Map<string, TaskChanges>;
  try {
    const key = await context.channels.key(channel);
    const call = platform.poll(
      channel,
      key,
      tasks.map((task) => task.task_id),
    );
    const response = await context.egress.request(call.url, {
      method: call.method,
      headers: call.headers,
      body: call.body,
      signal: AbortSignal.timeout(settings.callTimeoutMs),
      ...channelEgress(channel),
    });
    const text = await readBounded(response, MAX_POLL_ANSWER_BYTES);
    if (response.statusCode < 200 || response.statusCode >= 300) {
      context.logger.warn({ channelId: channel.id, status: response.statusCode }, 'task poll answered an error; the tasks stay as they are');
      return null;
    }
    answered = platform.polled(text);
  } catch (error) {
    context.logger.warn({ err: error, channelId: channel.id }, 'task poll failed; the tasks stay as they are');
    return null;
  }
  let changed = 0;
  for (const task of tasks) {
    const changes = answered.get(task.task_id);
    if (changes && (await applyChanges(context, db, task, changes, false))) changed += 1;
  }
  return changed;
}

/** Stores what changed of a task and publishes it; false when nothing did. A success is 100%. */
async function applyChanges(context: RelayContext, db: DataSource, task: TaskEntity, changes: TaskChanges, timeout: boolean): Promise<boolean> {
  const next: TaskChanges = { ...changes };
  if (next.status === TaskStatus.Success) next.progress = '100%';
  if ((next.status === TaskStatus.Success || next.status === TaskStatus.Failure) && !next.finish_time && !task.finish_time) next.finish_time = Date.now();
  const diff: TaskChanges = {};
  for (const field of FIELDS) {
    const value = next[field];
    // Upstreams leave out what they do not know yet: an empty value never erases a known one.
    if (value === undefined || value === '' || value === 0 || value === task[field]) continue;
    Object.assign(diff, { [field]: value });
  }
  if (Object.keys(diff).length === 0) return false;
  // The row changes only if it is still unfinished, so a late answer never reopens a finished task.
  if (!(await update(db, task.id, diff, Date.now(), { unfinished: true }))) return false;
  Object.assign(task, diff);
  if (timeout) context.logger.info({ taskId: task.id }, 'task timed out');
  await publishTaskUpdated(context, task);
  return true;
}

/**
 * Refunds every failed task that has not been yet: the refund event first (billing applies it
 * once, keyed by the task), then the task is marked. A bus that refuses leaves the task unmarked
 * for the next run; two replicas, or a restart between the two steps, publish it twice at most,
 * which billing ignores.
 */
export async function refundFailed(context: RelayContext, db: DataSource): Promise<number> {
  let refunded = 0;
  for (const task of await unrefunded(db, 500)) {
    if (chargeRequestsOf(task).length === 0) {
      // No charge on record to give back (a row not written by a submit): nothing to refund.
      context.logger.warn({ taskId: task.id }, 'failed task has a quota but no charge on record; not refunded');
      await claimRefund(db, task.id);
      continue;
    }
    try {
      await publishTaskRefunded(context, task);
    } catch (error) {
      context.logger.warn({ err: error, taskId: task.id }, 'task refund not published; the next poll tries again');
      continue;
    }
    if (await claimRefund(db, task.id)) refunded += 1;
  }
  return refunded;
}
