import type { FastifyPluginAsync } from 'fastify';
import type { DataSource } from 'typeorm';
import type { RelayContext } from '../context.js';
import { callerOf, requireApiKey } from '../caller.js';
import { RelayError } from '../errors.js';
import type { TaskEntity } from '../entities/index.js';
import { sunoPlatform } from '../tasks/suno.js';
import { parseJson, textOf } from '../tasks/platform.js';
import { submitTask } from '../tasks/task-submit.js';
import { byTaskId, byTaskIds, TaskPlatform } from '../tasks/task-store.js';
import { jsonBody } from './openai.js';

/**
 * The Suno API (docs/compatibility.md section 3.9): music and lyrics submits through the task pipeline (a
 * continuation goes to its original's channel), fetches answered from the task store, the
 * caller's tasks only, in Suno-API's `{code, message, data}`.
 */

const ACTIONS: Record<string, { action: string; model: string }> = {
  music: { action: 'MUSIC', model: 'suno_music' },
  lyrics: { action: 'LYRICS', model: 'suno_lyrics' },
};

const invalid = (field: string, message: string) => new RelayError(400, message, 'invalid_request', 'invalid_request_error', field);

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A task as Suno-API's fetch answers it (times in unix seconds, as Suno-API gives them). */
function taskView(task: TaskEntity): Record<string, unknown> {
  return {
    task_id: task.task_id,
    action: task.action,
    status: task.status,
    fail_reason: task.fail_reason,
    submit_time: seconds(task.submit_time),
    start_time: seconds(task.start_time),
    finish_time: seconds(task.finish_time),
    progress: task.progress,
    data: task.data ? (parseJson(task.data) ?? null) : null,
  };
}

export const sunoRoutes: FastifyPluginAsync<{ context: RelayContext; db: DataSource }> = async (app, { context, db }) => {
  const auth = { config: { access: 'public' as const }, onRequest: requireApiKey(context.tokens), bodyLimit: context.limits.requestBodyBytes };

  app.post<{ Params: { action: string } }>('/suno/submit/:action', auth, async (request, reply) => {
    const known = ACTIONS[request.params.action];
    if (!known) throw invalid('action', `unknown action ${JSON.stringify(request.params.action)}: submit takes music or lyrics`);
    const body = jsonBody(request.body);
    const caller = callerOf(request);
    const prompt = textOf(body.prompt) || textOf(body.gpt_description_prompt);
    if (known.action === 'LYRICS' && !textOf(body.prompt).trim()) throw invalid('prompt', 'prompt is required');
    if (known.action === 'MUSIC' && !prompt.trim()) throw invalid('prompt', 'prompt or gpt_description_prompt is required');
    // A continuation (task_id) runs where its original ran, and only the original's owner may ask.
    const continued = textOf(body.task_id);
    const original = continued ? await byTaskId(db, TaskPlatform.Suno, continued, caller.userId) : undefined;
    if (continued && !original) throw new RelayError(404, `task ${continued} not found`, 'task_not_found', 'invalid_request_error');
    await submitTask(context, db, request, reply, caller, {
      platform: sunoPlatform,
      model: known.model,
      action: known.action,
      path: `/submit/${request.params.action}`,
      body,
      prompt,
      ...(original ? { original } : {}),
    });
    return reply;
  });

  app.post('/suno/fetch', auth, async (request) => {
    const body = jsonBody(request.body);
    if (!Array.isArray(body.ids) || !body.ids.every((id) => typeof id === 'string')) throw invalid('ids', 'ids must be an array of task ids');
    if (body.ids.length > 1000) throw invalid('ids', 'ids must have at most 1000 entries');
    const tasks = await byTaskIds(db, TaskPlatform.Suno, body.ids, callerOf(request).userId);
    return { code: 'success', message: '', data: tasks.map(taskView) };
  });

  app.get<{ Params: { id: string } }>('/suno/fetch/:id', auth, async (request) => {
    const task = await byTaskId(db, TaskPlatform.Suno, request.params.id, callerOf(request).userId);
    if (!task) throw new RelayError(404, `task ${request.params.id} not found`, 'task_not_found', 'invalid_request_error');
    return { code: 'success', message: '', data: taskView(task) };
  });
};
