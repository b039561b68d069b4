import type { RoutingChannel } from '@aigw/contracts';
import type { ProviderError, UpstreamRequest } from '../providers/types.js';
import { baseUrlOf } from '../providers/shared/url.js';
import { epochMs, isRecord, parseJson, textOf, type SubmitOutcome, type TaskPlatformDefinition } from './platform.js';
import { TaskPlatform, TaskStatus, type TaskChanges } from './task-store.js';

/**
 * midjourney-proxy (and mj-plus), docs/compatibility.md section 3.9: submits answer `{code, description,
 * result, properties}` with HTTP 200 even when refused; `list-by-condition` answers task objects.
 * The channel key goes in `mj-api-secret`.
 */

/** Submit codes the upstream took a task with (billed): submitted, already exists, queued. */
const ACCEPTED_CODES = new Set([1, 21, 22]);
/** "No available account instance": the channel cannot draw at all (auto-disabled when auto-ban is on). */
export const NO_ACCOUNT_CODE = 3;

/** midjourney-proxy's task statuses, as the task store keeps them (MODAL waits for the modal submit; CANCEL is a failure). */
const STATUSES: Record<string, string> = {
  NOT_START: TaskStatus.NotStart,
  SUBMITTED: TaskStatus.Submitted,
  MODAL: TaskStatus.Submitted,
  IN_PROGRESS: TaskStatus.InProgress,
  FAILURE: TaskStatus.Failure,
  CANCEL: TaskStatus.Failure,
  SUCCESS: TaskStatus.Success,
};

function call(channel: RoutingChannel, key: string, path: string, body: unknown): UpstreamRequest {
  return {
    url: `${baseUrlOf(channel, undefined)}/mj${path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mj-api-secret': key },
    body: JSON.stringify(body),
  };
}

/** The GET of a task's own path upstream (`/task/{id}/image-seed`). */
export function midjourneyGet(channel: RoutingChannel, key: string, path: string): UpstreamRequest {
  return { url: `${baseUrlOf(channel, undefined)}/mj${path}`, method: 'GET', headers: { 'mj-api-secret': key } };
}

const json = (value: unknown) => (value === undefined || value === null ? '' : JSON.stringify(value));

/** A task object of the upstream as the changes of its row. */
function taskChanges(task: Record<string, unknown>): TaskChanges {
  const status = STATUSES[textOf(task.status)] ?? TaskStatus.Unknown;
  const changes: TaskChanges = {
    status,
    progress: textOf(task.progress),
    image_url: textOf(task.imageUrl),
    description: textOf(task.description),
    fail_reason: textOf(task.failReason) || (textOf(task.status) === 'CANCEL' ? 'the upstream cancelled the task' : ''),
    start_time: epochMs(task.startTime),
    finish_time: epochMs(task.finishTime),
    buttons: Array.isArray(task.buttons) && task.buttons.length > 0 ? json(task.buttons) : '',
    properties: isRecord(task.properties) ? json(task.properties) : '',
  };
  // A describe's or shorten's result is its prompt; other tasks keep the prompt they were submitted with.
  if (textOf(task.promptEn)) changes.prompt_en = textOf(task.promptEn);
  if (['DESCRIBE', 'SHORTEN'].includes(textOf(task.action)) && textOf(task.prompt)) changes.prompt = textOf(task.prompt);
  return changes;
}

function error(status: number, text: string): ProviderError {
  const parsed = parseJson(text);
  const description = isRecord(parsed) ? textOf(parsed.description) || textOf(parsed.message) : '';
  return { message: description || `the Midjourney upstream answered HTTP ${status}`, type: 'upstream_error', code: `mj_http_${status}` };
}

function submitted(status: number, text: string): SubmitOutcome {
  const parsed = parseJson(text);
  if (!isRecord(parsed) || typeof parsed.code !== 'number') return { kind: 'failed', status, failure: error(status, text) };
  const code = parsed.code;
  const description = textOf(parsed.description);
  if (status >= 200 && status < 300 && ACCEPTED_CODES.has(code)) {
    // An upload answers image addresses, not a task: billed, nothing to follow.
    const taskId = typeof parsed.result === 'string' ? parsed.result : '';
    const properties = isRecord(parsed.properties) ? parsed.properties : {};
    return {
      kind: 'accepted',
      taskId,
      code,
      answer: parsed,
      changes: { code, description, status: TaskStatus.Submitted, progress: '0%', properties: JSON.stringify(properties) },
    };
  }
  const failure: ProviderError = {
    message: description || `the Midjourney upstream refused the submit with code ${code}`,
    type: 'upstream_error',
    code: code === NO_ACCOUNT_CODE && status < 300 ? 'mj_no_available_account' : `mj_code_${code}`,
  };
  // The established product's answer to a refusal: the upstream's code and description, HTTP 400 (429 when it is busy).
  const answer = { code, description: failure.message, type: 'upstream_error', result: parsed.result ?? null, properties: parsed.properties ?? {} };
  return { kind: 'refused', status: code === 30 ? 429 : status === 404 ? 404 : 400, answer, failure, channelFault: code === NO_ACCOUNT_CODE && status < 300 };
}

function polled(text: string): Map<string, TaskChanges> {
  const parsed = parseJson(text);
  const tasks = new Map<string, TaskChanges>();
  if (!Array.isArray(parsed)) return tasks;
  for (const task of parsed) if (isRecord(task) && textOf(task.id)) tasks.set(textOf(task.id), taskChanges(task));
  return tasks;
}

export const midjourneyPlatform: TaskPlatformDefinition = {
  platform: TaskPlatform.Midjourney,
  submit: (channel, key, path, body) => call(channel, key, path, body),
  submitted,
  poll: (channel, key, taskIds) => call(channel, key, '/task/list-by-condition', { ids: taskIds }),
  polled,
  error,
};
