import type { RoutingChannel } from '@aigw/contracts';
import type { ProviderError, UpstreamRequest } from '../providers/types.js';
import type { TaskChanges, TaskPlatformName } from './task-store.js';

/**
 * An async task platform (docs/architecture.md section 5.6): the upstream protocol of one kind of
 * task channel, pure mapping like a provider (no I/O). The submit pipeline (task-submit.ts) and
 * the poller (task-poller.ts) run every platform the same way and name none.
 */
export interface TaskPlatformDefinition {
  /** The tasks' `platform` column, and the operation its channels serve (routing). */
  platform: TaskPlatformName;
  /** The upstream call of a submit: the client's path under the platform's root, the body as the route prepared it. */
  submit(channel: RoutingChannel, key: string, path: string, body: Record<string, unknown>): UpstreamRequest;
  /** What an upstream answer to a submit means (any status: platforms answer refusals with 200 and a code). */
  submitted(status: number, text: string): SubmitOutcome;
  /** The upstream call asking about several tasks of one channel at once. */
  poll(channel: RoutingChannel, key: string, taskIds: readonly string[]): UpstreamRequest;
  /** The tasks a poll answered, by upstream id, as changes of their rows (tasks it did not name: not in the map). */
  polled(text: string): Map<string, TaskChanges>;
  /** Maps an upstream error body to our error (a non-2xx answer that is no submit outcome). */
  error(status: number, text: string): ProviderError;
}

export type SubmitOutcome =
  /** The upstream took the task (billed): its id and what the client gets. */
  | { kind: 'accepted'; taskId: string; code: number; answer: unknown; changes: TaskChanges }
  /**
   * The upstream refused it in its protocol (not billed): the client gets `answer` with `status`.
   * `channelFault` says the channel itself cannot serve (reported for auto-disable, and the next
   * channel is tried).
   */
  | { kind: 'refused'; status: number; answer: unknown; failure: ProviderError; channelFault: boolean }
  /** Not an answer of the protocol (an HTTP error): retried on another channel like a chat failure. */
  | { kind: 'failed'; status: number; failure: ProviderError };

/** A JSON upstream answer, or undefined when it is not JSON (the providers' own). */
export { parseJson } from '../providers/shared/upstream-response.js';

export { isRecord } from '../providers/shared/content.js';

export const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Epoch ms from an upstream time in ms or seconds (0 when absent). */
export function epochMs(value: unknown): number {
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(number) || number <= 0) return 0;
  return Math.trunc(number < 100_000_000_000 ? number * 1000 : number);
}
