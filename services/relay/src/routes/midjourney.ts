import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { DataSource } from 'typeorm';
import { ChannelType, type RoutingChannel } from '@aigw/contracts';
import type { RelayContext } from '../context.js';
import { callerOf, requireApiKey, type Caller } from '../caller.js';
import { RelayError } from '../errors.js';
import { channelEgress } from '../channel-egress.js';
import { readBounded } from '../relay-call.js';
import type { TaskEntity } from '../entities/index.js';
import { midjourneyGet, midjourneyPlatform } from '../tasks/midjourney.js';
import { isRecord, parseJson, textOf } from '../tasks/platform.js';
import { submitTask, type TaskSubmission } from '../tasks/task-submit.js';
import { byTaskId, byTaskIds, TaskPlatform, TaskStatus } from '../tasks/task-store.js';
import { imageSignature, linkKey, notifySecret, proxiedImagePath, secretMatches } from '../tasks/task-links.js';
import { pollChannel, DEFAULT_TASK_POLL } from '../tasks/task-poller.js';
import { drawingModeRefusal, MJ_VALIDATION_CODE, requestedModes } from '../tasks/drawing-modes.js';
import { jsonBody } from './openai.js';

/**
 * The midjourney-proxy API (docs/compatibility.md section 3.9) under `/mj` and the mode prefixes clients use
 * (`/mj-fast/mj`, ...; the mode is the upstream's business, the prefix is dropped). Submits go
 * through the task pipeline; fetches are answered from the task store, the caller's tasks only;
 * images are proxied so clients never see the upstream's address (MjForwardUrlEnabled).
 */
export const MIDJOURNEY_PREFIXES = ['/mj', '/mj-fast/mj', '/mj-relax/mj', '/mj-turbo/mj'] as const;

/** Submit paths and their task action and priced model; the follow-ups' actions come from the body. */
const SUBMITS: Record<string, { action: string; model: string; require: readonly string[] } | 'follow-up'> = {
  '/submit/imagine': { action: 'IMAGINE', model: 'mj_imagine', require: ['prompt'] },
  '/submit/describe': { action: 'DESCRIBE', model: 'mj_describe', require: ['base64'] },
  '/submit/blend': { action: 'BLEND', model: 'mj_blend', require: ['base64Array'] },
  '/submit/shorten': { action: 'SHORTEN', model: 'mj_shorten', require: ['prompt'] },
  '/submit/upload-discord-images': { action: 'UPLOAD', model: 'mj_upload', require: ['base64Array'] },
  '/submit/video': { action: 'VIDEO', model: 'mj_video', require: ['prompt'] },
  '/submit/edits': { action: 'EDITS', model: 'mj_edits', require: ['prompt', 'image'] },
  '/insight-face/swap': { action: 'SWAP_FACE', model: 'swap_face', require: ['sourceBase64', 'targetBase64'] },
  '/submit/change': 'follow-up',
  '/submit/simple-change': 'follow-up',
  '/submit/action': 'follow-up',
  '/submit/modal': 'follow-up',
};

/** The action a button's customId runs, by its prefix (Discord's ids as midjourney-proxy passes them). */
const CUSTOM_ID_ACTIONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^MJ::JOB::upsample/, 'UPSCALE'],
  [/^MJ::JOB::low_variation::/, 'LOW_VARIATION'],
  [/^MJ::JOB::high_variation::/, 'HIGH_VARIATION'],
  [/^MJ::JOB::variation::/, 'VARIATION'],
  [/^MJ::JOB::reroll::/, 'REROLL'],
  [/^MJ::JOB::pan_/, 'PAN'],
  [/^MJ::Outpaint::/, 'ZOOM'],
  [/^MJ::CustomZoom::/, 'CUSTOM_ZOOM'],
  [/^MJ::Inpaint::/, 'INPAINT'],
  [/^MJ::Job::(?:PicReader|PromptAnalyzer)::/, 'IMAGINE'],
];

const CHANGE_ACTIONS = new Set(['UPSCALE', 'VARIATION', 'REROLL']);

const invalid = (field: string, message: string) => new RelayError(400, message, 'invalid_request', 'invalid_request_error', field);

/** The follow-up a change, simple-change, action or modal asks for: its original task id and action. */
function followUp(path: string, body: Record<string, unknown>): { taskId: string; action: string } {
  if (path === '/submit/simple-change') {
    const content = textOf(body.content).trim();
    const match = /^(\S+)\s+(?:([UV])([1-4])|R)$/i.exec(content);
    if (!match) throw invalid('content', 'content must be "<task id> U1".."U4", "V1".."V4" or "R"');
    const action = !match[2] ? 'REROLL' : match[2].toUpperCase() === 'U' ? 'UPSCALE' : 'VARIATION';
    return { taskId: match[1]!, action };
  }
  const taskId = textOf(body.taskId).trim();
  if (!taskId) throw invalid('taskId', 'taskId is required');
  if (path === '/submit/modal') return { taskId, action: 'MODAL' };
  if (path === '/submit/change') {
    const action = textOf(body.action).toUpperCase();
    if (!CHANGE_ACTIONS.has(action))
      throw invalid('action', `unknown action ${JSON.stringify(body.action ?? null)}: change takes UPSCALE, VARIATION or REROLL`);
    return { taskId, action };
  }
  const customId = textOf(body.customId);
  if (!customId) throw invalid('customId', 'customId is required');
  const action = CUSTOM_ID_ACTIONS.find(([pattern]) => pattern.test(customId))?.[1];
  if (!action) throw invalid('customId', `unknown action ${JSON.stringify(customId)}`);
  return { taskId, action };
}

/** The body for the upstream, with the operator's MJ options applied (docs/compatibility.md section 3.9, "prompt handling"). */
function upstreamBody(context: RelayContext, body: Record<string, unknown>): Record<string, unknown> {
  const { options } = context;
  const outgoing = { ...body };
  if (options.get('MjModeClearEnabled') && typeof outgoing.prompt === 'string') {
    outgoing.prompt = outgoing.prompt.replace(/\s*--(?:fast|relax|turbo)\b/g, '').trim();
  }
  if (!options.get('MjAccountFilterEnabled')) delete outgoing.accountFilter;
  if (!options.get('MjNotifyEnabled')) delete outgoing.notifyHook;
  return outgoing;
}

function sameOrigin(url: string, base: string): boolean {
  try {
    return new URL(url).origin === new URL(base).origin;
  } catch {
    return false;
  }
}

/** A task as midjourney-proxy's fetch answers it, from the store; the image through this server when MjForwardUrlEnabled. */
async function taskView(context: RelayContext, task: TaskEntity): Promise<Record<string, unknown>> {
  const parsed = (text: string, fallback: unknown) => (text ? (parseJson(text) ?? fallback) : fallback);
  const proxied = context.options.get('MjForwardUrlEnabled') ? await proxiedImagePath(context, task) : '';
  const server = context.options.get('ServerAddress').replace(/\/+$/, '');
  return {
    id: task.task_id,
    action: task.action,
    prompt: task.prompt,
    promptEn: task.prompt_en,
    description: task.description,
    submitTime: task.submit_time,
    startTime: task.start_time,
    finishTime: task.finish_time,
    imageUrl: proxied ? `${server}${proxied}` : task.image_url,
    status: task.status,
    progress: task.progress,
    failReason: task.fail_reason,
    buttons: parsed(task.buttons, []),
    properties: parsed(task.properties, {}),
  };
}

export const midjourneyRoutes: FastifyPluginAsync<{ context: RelayContext; db: DataSource }> = async (app, { context, db }) => {
  const auth = { config: { access: 'public' as const }, onRequest: requireApiKey(context.tokens), bodyLimit: context.limits.requestBodyBytes };
  const owned = async (caller: Caller, taskId: string) => {
    const task = await byTaskId(db, TaskPlatform.Midjourney, taskId, caller.userId);
    if (!task) throw new RelayError(404, `task ${taskId} not found`, 'task_not_found', 'invalid_request_error');
    return task;
  };

  const submit = (prefix: string, path: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    const body = jsonBody(request.body);
    const caller = callerOf(request);
    // The key's drawing modes, before anything is read, held or sent; refused in midjourney-proxy's own shape.
    const modeRefusal = drawingModeRefusal(caller.drawingModes, requestedModes(prefix, body));
    if (modeRefusal) {
      return reply
        .status(403)
        .header('x-oneapi-request-id', request.id)
        .send({ code: MJ_VALIDATION_CODE, description: modeRefusal, type: 'drawing_mode_not_allowed', result: null, properties: {} });
    }
    const known = SUBMITS[path]!;
    let submission: TaskSubmission;
    if (known === 'follow-up') {
      const { taskId, action } = followUp(path, body);
      const original = await owned(caller, taskId);
      const modal = action === 'MODAL';
      if (!modal && context.options.get('MjActionCheckSuccessEnabled') && original.status !== TaskStatus.Success) {
        throw new RelayError(400, `task ${taskId} has not succeeded (it is ${original.status}); only a finished task has actions`, 'task_not_succeeded');
      }
      submission = {
        platform: midjourneyPlatform,
        model: `mj_${action.toLowerCase()}`,
        action,
        path,
        body: upstreamBody(context, body),
        prompt: textOf(body.prompt) || original.prompt,
        original,
        confirmsOriginal: modal,
      };
    } else {
      for (const field of known.require) {
        const value = body[field];
        if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) throw invalid(field, `${field} is required`);
      }
      submission = {
        platform: midjourneyPlatform,
        model: known.model,
        action: known.action,
        path,
        body: upstreamBody(context, body),
        prompt: textOf(body.prompt),
      };
    }
    // The upstream tells this server when a task ends (unless the client's own hook goes instead).
    submission.callback = (channel, linkKey) => {
      if (typeof submission.body.notifyHook === 'string' && submission.body.notifyHook !== '') return undefined;
      const server = context.options.get('ServerAddress').replace(/\/+$/, '');
      return server ? `${server}/mj/notify/${channel.id}/${notifySecret(channel.id, linkKey)}` : undefined;
    };
    await submitTask(context, db, request, reply, caller, submission);
    return reply;
  };

  for (const prefix of MIDJOURNEY_PREFIXES) {
    for (const path of Object.keys(SUBMITS)) app.post(`${prefix}${path}`, auth, submit(prefix, path));

    app.get<{ Params: { id: string } }>(
      `${prefix}/task/:id/fetch`,
      auth,
      async (request) => await taskView(context, await owned(callerOf(request), request.params.id)),
    );

    app.post(`${prefix}/task/list-by-condition`, auth, async (request) => {
      const body = jsonBody(request.body);
      if (!Array.isArray(body.ids) || !body.ids.every((id) => typeof id === 'string')) throw invalid('ids', 'ids must be an array of task ids');
      if (body.ids.length > 1000) throw invalid('ids', 'ids must have at most 1000 entries');
      const tasks = await byTaskIds(db, TaskPlatform.Midjourney, body.ids, callerOf(request).userId);
      return Promise.all(tasks.map((task) => taskView(context, task)));
    });

    // Not billed: the upstream reads the seed of a finished image, on the task's channel.
    app.get<{ Params: { id: string } }>(`${prefix}/task/:id/image-seed`, auth, async (request, reply) => {
      const task = await owned(callerOf(request), request.params.id);
      const channel = context.channels.index.get(task.channel_id);
      if (!channel) throw new RelayError(503, "the task's channel is no longer available", 'original_channel_unavailable');
      const call = midjourneyGet(channel, await context.channels.key(channel), `/task/${encodeURIComponent(task.task_id)}/image-seed`);
      const response = await context.egress.request(call.url, { method: 'GET', headers: call.headers, ...channelEgress(channel) }).catch(() => {
        throw new RelayError(502, 'failed to reach the upstream', 'upstream_unreachable', 'upstream_error');
      });
      const text = await readBounded(response, 64 * 1024);
      const parsed = parseJson(text);
      if (!isRecord(parsed)) throw new RelayError(502, 'the upstream answered with something that is not JSON', 'bad_upstream_response', 'upstream_error');
      return reply.status(response.statusCode >= 200 && response.statusCode < 300 ? 200 : response.statusCode >= 500 ? 502 : 400).send(parsed);
    });
  }

  /**
   * The image of a task, fetched from its upstream. No key (it goes in <img> tags), but unlike the
   * established product's only at an address this server handed out (`sig`): task ids are
   * sequential enough to guess, and images are the users' own.
   */
  app.get<{ Params: { id: string }; Querystring: { sig?: string } }>('/mj/image/:id', { config: { access: 'public' } }, async (request, reply) => {
    const notFound = () => new RelayError(404, 'no image for this task', 'image_not_found', 'invalid_request_error');
    const task = await byTaskId(db, TaskPlatform.Midjourney, request.params.id);
    const channel = task ? context.channels.index.get(task.channel_id) : undefined;
    if (!task || !task.image_url || !channel) throw notFound();
    const key = await context.channels.key(channel);
    if (!secretMatches(String(request.query.sig ?? ''), imageSignature(task.task_id, key))) throw notFound();
    // A proxy that serves its images itself wants its key; a CDN never gets it.
    const headers: Record<string, string> = sameOrigin(task.image_url, channel.base_url) ? { 'mj-api-secret': key } : {};
    const response = await context.egress.request(task.image_url, { method: 'GET', headers, ...channelEgress(channel) }).catch(() => {
      throw new RelayError(502, 'failed to fetch the image', 'upstream_unreachable', 'upstream_error');
    });
    const type = String(response.headers['content-type'] ?? '');
    if (response.statusCode !== 200 || !type.startsWith('image/')) {
      response.body.destroy();
      throw new RelayError(502, 'the upstream has no image for this task', 'bad_upstream_response', 'upstream_error');
    }
    const length = response.headers['content-length'];
    void reply.header('content-type', type).header('cache-control', 'private, max-age=86400');
    if (typeof length === 'string') void reply.header('content-length', length);
    return reply.send(response.body);
  });

  /**
   * The upstream's callback when a task ends. Accepted only with the secret of the channel it
   * names (given to that channel's upstream only), and trusted for nothing: it makes the relay
   * ask the upstream about the task at once, as the poller would.
   */
  app.post<{ Params: { channel: string; secret: string } }>('/mj/notify/:channel/:secret', { config: { access: 'public' } }, async (request, reply) => {
    const channel: RoutingChannel | undefined = context.channels.index.get(Number(request.params.channel));
    const isMidjourney = channel && (channel.type === ChannelType.Midjourney || channel.type === ChannelType.MidjourneyPlus);
    const expected = isMidjourney ? notifySecret(channel.id, await linkKey(context, channel)) : '';
    if (!channel || !isMidjourney || !secretMatches(request.params.secret, expected)) {
      throw new RelayError(403, 'unknown notify address', 'notify_forbidden', 'permission_error');
    }
    const taskId = isRecord(request.body) ? textOf(request.body.id) : '';
    const task = taskId ? await byTaskId(db, TaskPlatform.Midjourney, taskId) : null;
    if (task && task.channel_id === channel.id) await pollChannel(context, db, midjourneyPlatform, channel, [task], DEFAULT_TASK_POLL);
    return reply.status(200).send({ code: 1, description: 'ok' });
  });
};
