import { z } from 'zod';
import { UserError } from '@aigw/platform';
import type { PolledStep, ProviderContext, UpstreamRequest } from '../types.js';
import { parseUpstream } from '../shared/upstream-response.js';
import { dashScopeHeaders, dashScopeTaskUrl, dashScopeUrl } from './api.js';
import { dashScopeTaskError } from './error.js';

/*
 * OpenAI's `POST /v1/images/generations` on DashScope's text-to-image models (wanx-v1, wanx2.x,
 * wan2.x), which DashScope runs only as async tasks: the submit
 * (`POST /api/v1/services/aigc/text2image/image-synthesis` with `X-DashScope-Async: enable`)
 * answers a task id, and `GET /api/v1/tasks/{task_id}` answers its status, then its image URLs.
 * The relay polls within the client's request (`passthrough.follow`, polled-answer.ts): the client
 * gets OpenAI's `{created, data: [{url}]}`.
 *
 * Billing: the images operation prices `max(n, batch_size)` images before the call
 * (operations/images.ts), so DashScope is always asked for exactly that many (its own default n is
 * 4), and a task that delivers fewer (an image failed its content inspection) is failed whole:
 * the client is never charged for an image it did not get.
 *
 * `response_format: "b64_json"` is refused (400 naming it): DashScope answers URLs only, and
 * fetching the images here would be I/O in a provider (style rule 9).
 */

/** What the converter takes: OpenAI's fields and DashScope's own (which clients send as extra body fields); others are dropped with a warning. */
const mappedKeys = new Set(['model', 'prompt', 'negative_prompt', 'size', 'n', 'batch_size', 'response_format', 'seed', 'prompt_extend', 'watermark']);
/** DashScope's own `parameters` passed as the client sent them. */
const ownParameters = ['seed', 'prompt_extend', 'watermark'] as const;

/** Waits before each poll: quick at first (small images finish in seconds), then every 3 s (DashScope limits task queries per second). */
export function pollDelayMs(sent: number): number {
  return Math.min(250 * 2 ** sent, 3000);
}

/** OpenAI's `1024x1024` as DashScope's `1024*1024` (a size already written so passes); null for anything else (`auto`). */
export function dashScopeSize(size: unknown): string | null {
  const match = typeof size === 'string' ? /^(\d{2,5})[x*](\d{2,5})$/.exec(size.trim()) : null;
  return match ? `${match[1]}*${match[2]}` : null;
}

/** The images asked for: `n`, or SiliconFlow's `batch_size` when larger, as the operation counts what it prices (both checked there). */
function imageCount(body: Record<string, unknown>): number {
  const count = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 1);
  return Math.max(count(body.n), count(body.batch_size));
}

/** The submit of an image task: `{model, input: {prompt, negative_prompt?}, parameters: {size?, n, ...}}`, the channel's overrides last. */
export function dashScopeImageRequest(body: Record<string, unknown>, context: ProviderContext): UpstreamRequest {
  if (body.response_format === 'b64_json') {
    throw new UserError(
      'response_format "b64_json" is not available on this channel: DashScope answers image URLs only; ask for "url"',
      'invalid_request',
      400,
      'response_format',
    );
  }
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by DashScope's image synthesis and was dropped`);
  const input: Record<string, unknown> = { prompt: body.prompt };
  if (typeof body.negative_prompt === 'string') input.negative_prompt = body.negative_prompt;
  const parameters: Record<string, unknown> = { n: imageCount(body) };
  const size = dashScopeSize(body.size);
  if (size) parameters.size = size;
  else if (body.size != null)
    warnings.push(`size ${JSON.stringify(body.size)} is not a width x height DashScope takes and was dropped (its default is 1024*1024)`);
  for (const key of ownParameters) if (body[key] != null) parameters[key] = body[key];
  const submit = { model: context.upstreamModel, input, parameters, ...context.channel.param_override };
  return {
    method: 'POST',
    url: dashScopeUrl(context, '/api/v1/services/aigc/text2image/image-synthesis'),
    headers: { ...dashScopeHeaders(context.key), 'X-DashScope-Async': 'enable' },
    body: JSON.stringify(submit),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

const taskSchema = z.object({
  output: z.object({
    task_id: z.string(),
    task_status: z.string(),
    /** One per image: its URL, or why that image failed. */
    results: z
      .array(z.object({ url: z.string().nullish(), actual_prompt: z.string().nullish(), code: z.string().nullish(), message: z.string().nullish() }))
      .nullish(),
    /** Images asked for, made, failed. */
    task_metrics: z.object({ FAILED: z.number().nullish() }).nullish(),
    /** Why the task failed. */
    code: z.string().nullish(),
    message: z.string().nullish(),
  }),
});

type Task = z.infer<typeof taskSchema>['output'];

/**
 * One answer of an image task (the submit's or a poll's, both `{output: {task_id, task_status}}`):
 * PENDING or RUNNING asks for the next poll, SUCCEEDED is OpenAI's answer, anything else (FAILED,
 * CANCELED, UNKNOWN: an expired or unknown id) the channel's failure.
 */
export function dashScopeImageStep(json: unknown, context: ProviderContext, sent: number): PolledStep {
  const task = parseUpstream(taskSchema, json, 'ali').output;
  switch (task.task_status) {
    case 'PENDING':
    case 'RUNNING':
      return {
        done: false,
        next: { method: 'GET', url: dashScopeTaskUrl(context, task.task_id), headers: { Authorization: `Bearer ${context.key}` } },
        afterMs: pollDelayMs(sent),
      };
    case 'SUCCEEDED':
      return { done: true, answer: openAiImages(task) };
    case 'FAILED':
      throw dashScopeTaskError(task.code ?? 'TaskFailed', task.message ?? `image task ${task.task_id} failed`);
    default:
      throw dashScopeTaskError(`Task${task.task_status}`, `image task ${task.task_id} ended ${task.task_status}`, 502);
  }
}

/** A finished task as OpenAI's image answer; an image that failed (or none at all) fails it whole (see the top of this file). */
function openAiImages(task: Task): { created: number; data: Array<{ url: string; revised_prompt?: string }> } {
  const results = task.results ?? [];
  const data = results.flatMap(({ url, actual_prompt }) => (url ? [{ url, ...(actual_prompt ? { revised_prompt: actual_prompt } : {}) }] : []));
  const failed = results.find((result) => !result.url);
  if (failed || (task.task_metrics?.FAILED ?? 0) > 0) {
    throw dashScopeTaskError(failed?.code ?? 'ImageFailed', failed?.message ?? `an image of task ${task.task_id} failed`);
  }
  if (data.length === 0) throw dashScopeTaskError('NoImages', `image task ${task.task_id} succeeded without images`, 502);
  return { created: Math.floor(Date.now() / 1000), data };
}
