// midjourney-proxy (and mj-plus) as an async task API (README.md, "Midjourney"): submit, then poll
// until the task ends. Every poll (fetch or list-by-condition) moves a task one step:
//   NOT_START, SUBMITTED, IN_PROGRESS x `tasksteps`, SUCCESS (or FAILURE at poll `taskfail`)
// Tasks live in the mock instance's `state`, never in this module. Options come from the server's
// chain (defaults, key, x-mock, body.mock) and last from the prompt: `a cat --mock tasksteps=1`.
import { parseMockOptions } from '../server.mjs';

// ---------------------------------------------------------------------------------------------
// The task lifecycle, shared with routes/suno.mjs: poll p (1-based) answers the p-th of
//   ...before (NOT_START, SUBMITTED[, QUEUED]) at 0%, IN_PROGRESS x tasksteps at
//   floor(100 i / (tasksteps + 1))%, then SUCCESS at 100%, which stays;
// `taskfail=K`: poll K (and every later one) answers FAILURE at the progress it had;
// `taskstuck`: after the in-progress steps it stays IN_PROGRESS at the last progress.

/** A new task's lifecycle under `options`. */
export function initialTask(options) {
  return { polls: 0, steps: options.tasksteps, fail: options.taskfail, stuck: options.taskstuck, status: 'NOT_START', progress: '0%', failReason: null };
}

/** One poll: the lifecycle moves one step and returns `{ status, progress, failReason }`. */
export function advanceTask(life, before = ['NOT_START', 'SUBMITTED']) {
  if (life.status === 'SUCCESS' || life.status === 'FAILURE') return life;
  const poll = ++life.polls;
  if (life.fail > 0 && poll >= life.fail) {
    life.status = 'FAILURE';
    life.failReason = `mock upstream: the task failed at poll ${life.fail} (taskfail)`;
    return life;
  }
  const inProgress = poll - before.length;
  if (inProgress <= 0) [life.status, life.progress] = [before[poll - 1], '0%'];
  else if (inProgress <= life.steps || life.stuck)
    [life.status, life.progress] = ['IN_PROGRESS', `${Math.floor((100 * Math.min(inProgress, life.steps)) / (life.steps + 1))}%`];
  else [life.status, life.progress] = ['SUCCESS', '100%'];
  return life;
}

/** The options with the prompt's `--mock key=value,...` applied last (a typo throws). */
export function promptOptions(prompt, options) {
  const spec = typeof prompt === 'string' ? /(?:^|\s)--mock\s+(\S+)/.exec(prompt)?.[1] : undefined;
  return spec ? parseMockOptions(spec, { ...options }) : options;
}

/** The smallest valid PNG: one transparent pixel. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

// midjourney-proxy's ReturnCode and descriptions (its own words).
const SUCCESS = 1;
const NOT_FOUND = 3;
const VALIDATION_ERROR = 4;
const DESCRIPTIONS = {
  1: '提交成功', // Submit success
  3: '无可用的账号实例', // No available account instance
  4: '参数错误', // Parameter error
  9: '提交失败，系统异常', // Submit failed, system error
  21: '任务已存在', // Task already exists
  22: '排队中，前面还有1个任务', // Queued, 1 task ahead
  23: '队列已满，请稍后尝试', // Queue full, try later
  24: '可能包含敏感词', // May contain banned words
};
const TARGET_NOT_FOUND = '关联任务不存在或已失效'; // The related task does not exist or has expired
const TARGET_NOT_DONE = '关联任务状态错误'; // The related task's status is wrong

const SUBMIT = /^\/mj\/(?:submit\/(imagine|change|simple-change|describe|blend|action|modal|shorten|upload-discord-images|video|edits)|insight-face\/(swap))$/;
const TASK = /^\/mj\/task\/([^/]+)\/(fetch|image-seed)$/;
const IMAGE = /^\/mj\/images\/([\w.-]+)\.png$/;

/** The instance's Midjourney state. */
function store(state) {
  state.midjourney ??= { tasks: new Map(), sequence: 0, uploads: 0 };
  return state.midjourney;
}

/** midjourney-proxy's ids: 16 digits, here from a per-instance counter. */
const nextId = (mj) => String(1_700_000_000_000_000 + ++mj.sequence);

/** A deterministic Discord-like message hash of a task, for the buttons' custom ids. */
function hashOf(id) {
  const hex = Buffer.from(id).toString('hex').padEnd(32, '0').slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

const button = (customId, label, emoji = '') => ({ customId, emoji, label, type: 2, style: 2 });

/** The buttons a finished task shows, by action, as midjourney-proxy reports Discord's. */
function buttonsOf(task) {
  const hash = hashOf(task.id);
  if (['IMAGINE', 'VARIATION', 'REROLL', 'BLEND', 'ZOOM', 'PAN', 'INPAINT', 'EDITS'].includes(task.action)) {
    return [
      ...[1, 2, 3, 4].map((i) => button(`MJ::JOB::upsample::${i}::${hash}`, `U${i}`)),
      button(`MJ::JOB::reroll::0::${hash}::SOLO`, '', '🔄'),
      ...[1, 2, 3, 4].map((i) => button(`MJ::JOB::variation::${i}::${hash}`, `V${i}`)),
    ];
  }
  if (task.action === 'UPSCALE') {
    return [
      button(`MJ::JOB::upsample_v6_2x_subtle::1::${hash}::SOLO`, 'Upscale (Subtle)'),
      button(`MJ::JOB::low_variation::1::${hash}::SOLO`, 'Vary (Subtle)', '🪄'),
      button(`MJ::JOB::high_variation::1::${hash}::SOLO`, 'Vary (Strong)', '🪄'),
      button(`MJ::Inpaint::1::${hash}::SOLO`, 'Vary (Region)', '🖌️'),
      button(`MJ::Outpaint::50::1::${hash}::SOLO`, 'Zoom Out 2x', '🔍'),
      button(`MJ::JOB::pan_left::1::${hash}::SOLO`, '', '⬅️'),
    ];
  }
  if (task.action === 'DESCRIBE') return [1, 2, 3, 4].map((i) => button(`MJ::Job::PicReader::${i}`, String(i)));
  if (task.action === 'SHORTEN') return [1, 2, 3, 4, 5].map((i) => button(`MJ::Job::PromptAnalyzer::${i}`, String(i)));
  return [];
}

/** The action a button's custom id runs (null: not one the mock knows). */
function actionOfCustomId(customId) {
  if (/^MJ::JOB::upsample/.test(customId)) return 'UPSCALE';
  if (/^MJ::JOB::(?:variation|low_variation|high_variation)::/.test(customId)) return 'VARIATION';
  if (/^MJ::JOB::reroll::/.test(customId)) return 'REROLL';
  if (/^MJ::(?:Outpaint|CustomZoom)::/.test(customId)) return 'ZOOM';
  if (/^MJ::JOB::pan_/.test(customId)) return 'PAN';
  if (/^MJ::Inpaint::/.test(customId)) return 'INPAINT';
  if (/^MJ::Job::(?:PicReader|PromptAnalyzer)::/.test(customId)) return 'IMAGINE';
  return null;
}

/** A task object as midjourney-proxy's fetch answers it. */
function view(task) {
  const { id, action, prompt, promptEn, description, state, submitTime, startTime, finishTime, imageUrl, status, progress, failReason, buttons, properties } =
    task;
  return { id, action, prompt, promptEn, description, state, submitTime, startTime, finishTime, imageUrl, status, progress, failReason, buttons, properties };
}

/** One poll: the task moves one step (README.md); a task finishing notifies its notifyHook. */
function poll(task, base) {
  if (task.status === 'MODAL') return; // waits for /mj/submit/modal
  const before = task.status;
  const step = advanceTask(task.life);
  task.status = step.status;
  task.progress = step.progress;
  if (step.status !== 'NOT_START' && !task.startTime) task.startTime = Date.now();
  if (step.status === 'FAILURE' && before !== 'FAILURE') {
    task.finishTime = Date.now();
    task.failReason = step.failReason;
  }
  if (step.status === 'SUCCESS' && before !== 'SUCCESS') {
    task.finishTime = Date.now();
    if (!['DESCRIBE', 'SHORTEN'].includes(task.action)) task.imageUrl = `${base}/mj/images/${task.id}.png`;
    task.buttons = buttonsOf(task);
    if (task.action === 'DESCRIBE' || task.action === 'SHORTEN') {
      const text = [1, 2, 3, 4].map((i) => `${i}️⃣ hello hello hello, mock description ${i}`).join('\n\n');
      task.prompt = text;
      task.promptEn = text;
    }
  }
  if (before !== task.status && (task.status === 'SUCCESS' || task.status === 'FAILURE') && task.notifyHook) notify(task);
}

/** POSTs the finished task to its notifyHook, as midjourney-proxy does; failures are ignored. */
function notify(task) {
  fetch(task.notifyHook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(view(task)) })
    .then((response) => response.body?.cancel())
    .catch(() => {});
}

const isText = (value) => typeof value === 'string' && value.trim() !== '';

export const midjourneyRoutes = {
  flavor: 'midjourney',

  match(method, path) {
    if (method === 'POST') {
      const submit = SUBMIT.exec(path);
      if (submit) return `mj.${submit[1] ?? submit[2]}`;
      if (path === '/mj/task/list-by-condition') return 'mj.list';
      return undefined;
    }
    if (method === 'GET') {
      const task = TASK.exec(path);
      if (task) return task[2] === 'fetch' ? 'mj.fetch' : 'mj.seed';
      if (IMAGE.test(path)) return 'mj.image';
    }
    return undefined;
  },

  respond(req, res, { kind, path, body, options, state, send }) {
    const mj = store(state);
    const base = `http://${req.headers.host}`;
    const answer = (code, result, properties = {}, description = DESCRIPTIONS[code] ?? `mock upstream: submit code ${code}`) =>
      send.json(200, JSON.stringify({ code, description, result, properties }));

    if (kind === 'mj.image') return send.bytes('image/png', PNG);
    if (kind === 'mj.fetch' || kind === 'mj.seed') {
      const task = mj.tasks.get(decodeURIComponent(TASK.exec(path)[1]));
      if (kind === 'mj.seed') {
        if (!task) return send.json(404, JSON.stringify({ code: NOT_FOUND, description: TARGET_NOT_FOUND, result: null, properties: {} }));
        if (task.status !== 'SUCCESS') return answer(VALIDATION_ERROR, null, {}, TARGET_NOT_DONE);
        return answer(SUCCESS, String(Number(task.id) % 4_294_967_296), {}, '成功');
      }
      // midjourney-proxy answers an unknown id with no body (its .NET port: 204).
      if (!task) {
        res.writeHead(204);
        return res.end();
      }
      poll(task, base);
      return send.json(200, JSON.stringify(view(task)));
    }
    if (kind === 'mj.list') {
      const ids = Array.isArray(body?.ids) ? [...new Set(body.ids.map(String))] : [];
      const tasks = ids.map((id) => mj.tasks.get(id)).filter(Boolean);
      for (const task of tasks) poll(task, base);
      return send.json(200, JSON.stringify(tasks.map(view)));
    }

    // Submits. The prompt's `--mock ...` options apply last.
    let opts;
    try {
      opts = promptOptions(body?.prompt, options);
    } catch (error) {
      return send.error(400, error.message);
    }
    if (kind === 'mj.upload-discord-images') {
      const images = Array.isArray(body?.base64Array) ? body.base64Array : [];
      if (images.length === 0) return answer(VALIDATION_ERROR, null, {}, 'base64List参数错误');
      return answer(
        SUCCESS,
        images.map(() => `${base}/mj/images/upload-${++mj.uploads}.png`),
        {},
        '上传成功',
      );
    }

    // Validation, in midjourney-proxy's words.
    let action;
    let prompt = '';
    let description;
    let target;
    const id = nextId(mj);
    if (kind === 'mj.imagine') {
      if (!isText(body?.prompt)) return answer(VALIDATION_ERROR, null, {}, 'prompt不能为空');
      [action, prompt, description] = ['IMAGINE', body.prompt, `/imagine ${body.prompt}`];
    } else if (kind === 'mj.video' || kind === 'mj.edits') {
      if (!isText(body?.prompt)) return answer(VALIDATION_ERROR, null, {}, 'prompt不能为空');
      if (kind === 'mj.edits' && !isText(body?.image)) return answer(VALIDATION_ERROR, null, {}, 'image不能为空');
      [action, prompt, description] = [kind === 'mj.video' ? 'VIDEO' : 'EDITS', body.prompt, `/${kind.slice(3)} ${body.prompt}`];
    } else if (kind === 'mj.shorten') {
      if (!isText(body?.prompt)) return answer(VALIDATION_ERROR, null, {}, 'prompt不能为空');
      [action, prompt, description] = ['SHORTEN', body.prompt, `/shorten ${body.prompt}`];
    } else if (kind === 'mj.describe') {
      if (!isText(body?.base64)) return answer(VALIDATION_ERROR, null, {}, 'base64不能为空');
      [action, description] = ['DESCRIBE', `/describe ${id}.png`];
    } else if (kind === 'mj.blend') {
      const images = Array.isArray(body?.base64Array) ? body.base64Array : [];
      if (images.length < 2 || images.length > 5) return answer(VALIDATION_ERROR, null, {}, 'base64List参数错误');
      [action, description] = ['BLEND', `/blend ${id} ${images.length}`];
    } else if (kind === 'mj.swap') {
      if (!isText(body?.sourceBase64) || !isText(body?.targetBase64)) return answer(VALIDATION_ERROR, null, {}, '参数错误');
      [action, description] = ['SWAP_FACE', `/swap ${id}`];
    } else {
      // Follow-ups: change, simple-change, action, modal name an existing, finished task.
      let taskId = body?.taskId;
      let change = body?.action;
      let index = body?.index;
      if (kind === 'mj.simple-change') {
        const parsed = /^(\S+)\s+([UV])([1-4])$|^(\S+)\s+R$/.exec(String(body?.content ?? '').trim());
        if (!parsed) return answer(VALIDATION_ERROR, null, {}, 'content参数错误');
        [taskId, change, index] = parsed[4] ? [parsed[4], 'REROLL', 0] : [parsed[1], parsed[2] === 'U' ? 'UPSCALE' : 'VARIATION', Number(parsed[3])];
      }
      if (!isText(taskId)) return answer(VALIDATION_ERROR, null, {}, 'taskId不能为空');
      target = mj.tasks.get(taskId);
      if (!target) return send.json(404, JSON.stringify({ code: NOT_FOUND, description: TARGET_NOT_FOUND, result: null, properties: {} }));
      if (kind === 'mj.modal') {
        if (target.status !== 'MODAL') return answer(VALIDATION_ERROR, null, {}, TARGET_NOT_DONE);
        // The modal confirms the waiting task: it starts its lifecycle now.
        target.status = 'NOT_START';
        if (isText(body?.prompt)) [target.prompt, target.promptEn] = [body.prompt, body.prompt];
        return answer(SUCCESS, target.id);
      }
      if (target.status !== 'SUCCESS') return answer(VALIDATION_ERROR, null, {}, TARGET_NOT_DONE);
      if (kind === 'mj.action') {
        if (!isText(body?.customId)) return answer(VALIDATION_ERROR, null, {}, '参数错误');
        action = actionOfCustomId(body.customId);
        if (!action) return answer(VALIDATION_ERROR, null, {}, '参数错误');
        description = `/action ${taskId} ${body.customId}`;
      } else {
        if (!['UPSCALE', 'VARIATION', 'REROLL'].includes(change)) return answer(VALIDATION_ERROR, null, {}, 'action参数错误');
        if (change !== 'REROLL' && !(Number.isInteger(index) && index >= 1 && index <= 4)) return answer(VALIDATION_ERROR, null, {}, 'index参数错误');
        action = change;
        description = `/up ${taskId} ${change === 'REROLL' ? 'R' : `${change[0]}${index}`}`;
      }
      prompt = target.prompt;
    }

    // The submit code the options ask for; 1, 21 and 22 create a task that polls go on with.
    const code = opts.mjcode;
    if (code === 24) return answer(24, null, { promptEn: prompt, bannedWord: 'mock' });
    if (code !== SUCCESS && code !== 21 && code !== 22) return answer(code, code === 23 ? id : null, { discordInstanceId: 'mock' });
    const waitsForModal = kind === 'mj.action' && action === 'INPAINT';
    const task = {
      id,
      action,
      prompt,
      promptEn: prompt,
      description,
      state: typeof body?.state === 'string' ? body.state : '',
      submitTime: Date.now(),
      startTime: 0,
      finishTime: 0,
      imageUrl: null,
      status: waitsForModal ? 'MODAL' : 'NOT_START',
      progress: '0%',
      failReason: null,
      buttons: [],
      properties: {
        discordInstanceId: 'mock',
        finalPrompt: prompt,
        ...(target ? { relatedTaskId: target.id } : {}),
        ...(isText(body?.notifyHook) ? { notifyHook: body.notifyHook } : {}),
      },
      notifyHook: isText(body?.notifyHook) ? body.notifyHook : undefined,
      life: initialTask(opts),
    };
    mj.tasks.set(id, task);
    // An inpaint (Vary (Region)) waits for /mj/submit/modal, as midjourney-proxy answers it.
    if (waitsForModal) return answer(21, id, { discordInstanceId: 'mock' }, '等待窗口确认');
    if (code === 21) return answer(21, id, { status: task.status, imageUrl: task.imageUrl });
    if (code === 22) return answer(22, id, { numberOfQueues: 1, discordInstanceId: 'mock' });
    return answer(SUCCESS, id, { discordInstanceId: 'mock' });
  },
};
