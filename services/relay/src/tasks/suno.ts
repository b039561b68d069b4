import type { RoutingChannel } from '@aigw/contracts';
import type { ProviderError, UpstreamRequest } from '../providers/types.js';
import { baseUrlOf } from '../providers/shared/url.js';
import { epochMs, isRecord, parseJson, textOf, type SubmitOutcome, type TaskPlatformDefinition } from './platform.js';
import { TaskPlatform, TaskStatus, type TaskChanges } from './task-store.js';

/**
 * A Suno-API compatible server, docs/compatibility.md section 3.9: answers `{code, message, data}` with
 * `code: 'success'`; a submit's data is the task id, a fetch's the task objects. Bearer key.
 */

const KNOWN_STATUSES = new Set<string>(Object.values(TaskStatus));

function call(channel: RoutingChannel, key: string, path: string, body: unknown): UpstreamRequest {
  return {
    url: `${baseUrlOf(channel, undefined)}/suno${path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  };
}

function error(status: number, text: string): ProviderError {
  const parsed = parseJson(text);
  const message = isRecord(parsed) ? textOf(parsed.message) : '';
  const code = isRecord(parsed) ? textOf(parsed.code) : '';
  return { message: message || `the Suno upstream answered HTTP ${status}`, type: 'upstream_error', code: code || `suno_http_${status}` };
}

function submitted(status: number, text: string): SubmitOutcome {
  if (status < 200 || status >= 300) return { kind: 'failed', status, failure: error(status, text) };
  const parsed = parseJson(text);
  if (isRecord(parsed) && parsed.code === 'success' && typeof parsed.data === 'string' && parsed.data !== '') {
    return { kind: 'accepted', taskId: parsed.data, code: 0, answer: parsed, changes: { status: TaskStatus.Submitted, progress: '0%' } };
  }
  const failure = error(status, text);
  return { kind: 'refused', status: 400, answer: { code: failure.code, message: failure.message, data: null }, failure, channelFault: false };
}

/** A task object of the upstream as the changes of its row. */
function taskChanges(task: Record<string, unknown>): TaskChanges {
  const status = textOf(task.status);
  return {
    status: KNOWN_STATUSES.has(status) ? status : TaskStatus.Unknown,
    progress: textOf(task.progress),
    fail_reason: textOf(task.fail_reason),
    start_time: epochMs(task.start_time),
    finish_time: epochMs(task.finish_time),
    data: task.data === undefined || task.data === null ? '' : JSON.stringify(task.data),
  };
}

function polled(text: string): Map<string, TaskChanges> {
  const parsed = parseJson(text);
  const tasks = new Map<string, TaskChanges>();
  if (!isRecord(parsed) || !Array.isArray(parsed.data)) return tasks;
  for (const task of parsed.data) if (isRecord(task) && textOf(task.task_id)) tasks.set(textOf(task.task_id), taskChanges(task));
  return tasks;
}

export const sunoPlatform: TaskPlatformDefinition = {
  platform: TaskPlatform.Suno,
  submit: (channel, key, path, body) => call(channel, key, path, body),
  submitted,
  poll: (channel, key, taskIds) => call(channel, key, '/fetch', { ids: taskIds }),
  polled,
  error,
};
