// A Suno-API compatible server (github.com/Suno-API/Suno-API, README.md "Suno") as an async task
// API: submit music or lyrics, then poll `/suno/fetch` until the task ends. Every poll moves a task
// one step: NOT_START, SUBMITTED, QUEUED, IN_PROGRESS x `tasksteps`, SUCCESS (or FAILURE at poll
// `taskfail`). Tasks live in the mock instance's `state`. Options as in routes/midjourney.mjs, the
// prompt's (or gpt_description_prompt's) `--mock ...` last; `sunorefuse=N` refuses the submit.
import http from 'node:http';
import { advanceTask, initialTask, promptOptions } from './midjourney.mjs';

const SUBMIT = /^\/suno\/submit\/(music|lyrics)$/;
const FETCH_ONE = /^\/suno\/fetch\/([^/]+)$/;
const FILE = /^\/suno\/files\/([\w-]+)\.(mp3|png|mp4)$/;
const PHASES = ['NOT_START', 'SUBMITTED', 'QUEUED'];

/** The smallest valid PNG: one transparent pixel (a clip's cover). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const FILE_TYPES = { mp3: 'audio/mpeg', png: 'image/png', mp4: 'video/mp4' };

/** The instance's Suno state. */
function store(state) {
  state.suno ??= { tasks: new Map(), sequence: 0 };
  return state.suno;
}

/** A UUID-shaped id from a per-instance counter (`kind` 1 = task, 2 = clip). */
const uuid = (kind, n) => `00000000-0000-4000-800${kind}-${String(n).padStart(12, '0')}`;

/** Suno-API's answers: `{code, message, data}`; errors carry `invalid_request` or `internal_error`. */
const ok = (data) => JSON.stringify({ code: 'success', message: '', data });
const failure = (status, message) => JSON.stringify({ code: status >= 500 ? 'internal_error' : 'invalid_request', message, data: null });

/** A clip's status in Suno's words, by the task's. */
const CLIP_STATUS = { NOT_START: 'submitted', SUBMITTED: 'submitted', QUEUED: 'queued', IN_PROGRESS: 'streaming', SUCCESS: 'complete', FAILURE: 'error' };

/** The task as Suno-API's fetch answers it. */
function view(task) {
  const { task_id, action, status, fail_reason, submit_time, start_time, finish_time, progress, data } = task;
  return { task_id, action, status, fail_reason, submit_time, start_time, finish_time, progress, data };
}

/** One poll: the task moves one step, its clips (or lyrics) follow. */
function poll(task, base) {
  const before = task.status;
  const step = advanceTask(task.life, PHASES);
  [task.status, task.progress] = [step.status, step.progress];
  const now = Math.floor(Date.now() / 1000);
  if (step.status === 'IN_PROGRESS' && !task.start_time) task.start_time = now;
  if ((step.status === 'SUCCESS' || step.status === 'FAILURE') && before !== step.status) {
    task.finish_time = now;
    if (step.status === 'FAILURE') task.fail_reason = step.failReason;
  }
  if (task.action === 'LYRICS') {
    task.data.status = step.status === 'SUCCESS' ? 'complete' : step.status === 'FAILURE' ? 'error' : 'running';
    if (step.status === 'SUCCESS') task.data.text = task.lyrics;
    return;
  }
  for (const clip of task.data) {
    clip.status = CLIP_STATUS[step.status];
    if (step.status === 'IN_PROGRESS' || step.status === 'SUCCESS') clip.audio_url = `${base}/suno/files/${clip.id}.mp3`;
    if (step.status === 'SUCCESS') {
      clip.video_url = `${base}/suno/files/${clip.id}.mp4`;
      clip.metadata.duration = 120;
    }
    if (step.status === 'FAILURE') [clip.metadata.error_type, clip.metadata.error_message] = ['mock', step.failReason];
  }
}

const text = (value) => (typeof value === 'string' ? value : '');

export const sunoRoutes = {
  flavor: 'suno',

  match(method, path) {
    if (method === 'POST') {
      const submit = SUBMIT.exec(path);
      if (submit) return `suno.${submit[1]}`;
      return path === '/suno/fetch' ? 'suno.fetch' : undefined;
    }
    if (method === 'GET') {
      if (FETCH_ONE.test(path)) return 'suno.fetchOne';
      if (FILE.test(path)) return 'suno.file';
    }
    return undefined;
  },

  respond(req, res, { kind, path, body, options, state, send }) {
    const suno = store(state);
    const base = `http://${req.headers.host}`;

    if (kind === 'suno.file') {
      const [, name, extension] = FILE.exec(path);
      return send.bytes(FILE_TYPES[extension], extension === 'png' ? PNG : Buffer.from(`MOCK${extension.toUpperCase()}/${name}\n`));
    }
    if (kind === 'suno.fetch') {
      const ids = Array.isArray(body?.ids) ? [...new Set(body.ids.map(String))] : [];
      const tasks = ids.map((id) => suno.tasks.get(id)).filter(Boolean);
      for (const task of tasks) poll(task, base);
      return send.json(200, ok(tasks.map(view)));
    }
    if (kind === 'suno.fetchOne') {
      const task = suno.tasks.get(decodeURIComponent(FETCH_ONE.exec(path)[1]));
      if (!task) return send.json(400, failure(400, 'task not exist'));
      poll(task, base);
      return send.json(200, ok(view(task)));
    }

    // Submits. The prompt's `--mock ...` options apply last.
    let opts;
    try {
      opts = promptOptions(text(body?.prompt) || text(body?.gpt_description_prompt), options);
    } catch (error) {
      return send.error(400, error.message);
    }
    if (opts.sunorefuse) {
      const status = opts.sunorefuse;
      // Suno-API answers an upstream refusal with its status line, its own failures with 500 "task failed".
      return send.json(status, failure(status, status >= 500 ? 'task failed' : `${status} ${http.STATUS_CODES[status] ?? 'Error'}`));
    }
    const now = Math.floor(Date.now() / 1000);
    const taskId = uuid(1, ++suno.sequence);
    const task = {
      task_id: taskId,
      action: kind === 'suno.lyrics' ? 'LYRICS' : 'MUSIC',
      status: 'NOT_START',
      fail_reason: '',
      submit_time: now,
      start_time: 0,
      finish_time: 0,
      progress: '0%',
      data: null,
      life: initialTask(opts),
    };
    if (kind === 'suno.lyrics') {
      if (text(body?.prompt).trim() === '') return send.json(400, failure(400, 'prompt is empty'));
      const title = body.prompt.replace(/\s*--mock\s+\S+/, '').slice(0, 40) || 'Mock song';
      task.lyrics = `[Verse]\nhello hello hello\n${title}\n\n[Chorus]\nhello hello hello`;
      task.data = { id: taskId, status: 'running', title, text: '' };
    } else {
      if (text(body?.continue_clip_id) !== '' && text(body?.task_id) === '') return send.json(400, failure(400, 'task_id is empty'));
      const description = text(body?.gpt_description_prompt);
      // Suno makes two clips per song.
      task.data = [1, 2].map((n) => {
        const id = uuid(2, suno.sequence * 10 + n);
        return {
          id,
          title: text(body?.title),
          status: 'submitted',
          audio_url: '',
          video_url: '',
          image_url: `${base}/suno/files/${id}.png`,
          image_large_url: `${base}/suno/files/${id}.png`,
          model_name: 'chirp-v3',
          major_model_version: text(body?.mv) || 'chirp-v3-0',
          created_at: new Date(now * 1000).toISOString(),
          metadata: {
            tags: text(body?.tags),
            prompt: description ? '' : text(body?.prompt),
            gpt_description_prompt: description || null,
            type: text(body?.continue_clip_id) ? 'concat' : 'gen',
            duration: null,
            make_instrumental: body?.make_instrumental === true,
            continue_clip_id: text(body?.continue_clip_id) || null,
            continue_at: Number.isFinite(body?.continue_at) ? body.continue_at : null,
            error_type: null,
            error_message: null,
          },
        };
      });
    }
    suno.tasks.set(taskId, task);
    return send.json(200, ok(taskId));
  },
};
