import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RoutingChannel } from '@aigw/contracts';
import type { RelayContext } from '../context.js';
import type { TaskEntity } from '../entities/index.js';

/**
 * Addresses the relay hands out for a channel's tasks, each carrying a secret derived from the
 * channel's key (HMAC, never the key itself): only whoever was given the address can use it, and
 * nothing has to be stored. A new key makes new addresses.
 */
function channelSecret(key: string, purpose: string, subject: string): string {
  return createHmac('sha256', key).update(`${purpose}:${subject}`).digest('base64url').slice(0, 32);
}

/** Whether `given` is the secret; constant time. */
export function secretMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The key the links of a channel's tasks are derived from: its first key, so a multi-key channel
 * signs the same whichever key a call used (a changed first key ends the old links, as a changed key does).
 */
export async function linkKey(context: Pick<RelayContext, 'channels'>, channel: RoutingChannel): Promise<string> {
  return (await context.channels.keys(channel))[0]!;
}

/** The secret of a channel's notify address (`/mj/notify/{channel}/{secret}`): given to that channel's upstream only. */
export function notifySecret(channelId: number, key: string): string {
  return channelSecret(key, 'mj-notify', String(channelId));
}

/** The signature of a task's image address: task ids are guessable, so the proxy serves only addresses it handed out. */
export function imageSignature(taskId: string, key: string): string {
  return channelSecret(key, 'mj-image', taskId);
}

/**
 * A task's image through this server's proxy (`/mj/image/{id}?sig=`), relative to its origin;
 * '' when the task has no image or its channel is gone (the proxy could not fetch it either).
 */
export async function proxiedImagePath(
  context: Pick<RelayContext, 'channels'>,
  task: Pick<TaskEntity, 'task_id' | 'channel_id' | 'image_url'>,
): Promise<string> {
  if (!task.image_url) return '';
  const channel = context.channels.index.get(task.channel_id);
  if (!channel) return '';
  const key = await linkKey(context, channel).catch(() => null);
  if (key === null) return '';
  return `/mj/image/${encodeURIComponent(task.task_id)}?sig=${imageSignature(task.task_id, key)}`;
}
