import { startMockUpstream, type MockUpstream } from '../server.mjs';

const SECRET = 'mj-secret';
let mock: MockUpstream;

beforeAll(async () => {
  mock = await startMockUpstream({ apiKey: SECRET, maxRecorded: 50 });
});
afterAll(() => mock.close());

const auth = { 'mj-api-secret': SECRET };

async function post(path: string, body: unknown, headers: Record<string, string> = {}, on: MockUpstream = mock): Promise<Response> {
  return fetch(`${on.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth, ...headers }, body: JSON.stringify(body) });
}

async function get(path: string, headers: Record<string, string> = {}, on: MockUpstream = mock): Promise<Response> {
  return fetch(`${on.url}${path}`, { headers: { ...auth, ...headers } });
}

/** The JSON of a response, loosely typed. */
async function json(response: Response): Promise<any> {
  return response.json();
}

async function imagine(prompt: string, headers: Record<string, string> = {}): Promise<string> {
  const answer = await json(await post('/mj/submit/imagine', { prompt }, headers));
  expect(answer.code).toBe(1);
  return answer.result;
}

/** Polls a Midjourney task `times` times; the statuses and the last task. */
async function pollMj(id: string, times: number): Promise<{ statuses: string[]; task: any }> {
  const statuses: string[] = [];
  let task: any;
  for (let i = 0; i < times; i++) {
    task = await json(await get(`/mj/task/${id}/fetch`));
    statuses.push(`${task.status} ${task.progress}`);
  }
  return { statuses, task };
}

describe('Midjourney (midjourney-proxy)', () => {
  it('runs an imagine to SUCCESS, one step per poll, with its image and buttons', async () => {
    const submitted = await json(await post('/mj/submit/imagine', { prompt: 'a red cat', state: 's1' }));
    expect(submitted).toEqual({ code: 1, description: '提交成功', result: expect.stringMatching(/^\d{16}$/), properties: { discordInstanceId: 'mock' } });
    const { statuses, task } = await pollMj(submitted.result, 7);
    expect(statuses).toEqual(['NOT_START 0%', 'SUBMITTED 0%', 'IN_PROGRESS 25%', 'IN_PROGRESS 50%', 'IN_PROGRESS 75%', 'SUCCESS 100%', 'SUCCESS 100%']);
    expect(task).toMatchObject({
      id: submitted.result,
      action: 'IMAGINE',
      prompt: 'a red cat',
      promptEn: 'a red cat',
      description: '/imagine a red cat',
      state: 's1',
      failReason: null,
      imageUrl: `${mock.url}/mj/images/${submitted.result}.png`,
    });
    expect(task.finishTime).toBeGreaterThanOrEqual(task.startTime);
    expect(task.startTime).toBeGreaterThanOrEqual(task.submitTime);
    expect(task.buttons.map((button: any) => button.label)).toEqual(['U1', 'U2', 'U3', 'U4', '', 'V1', 'V2', 'V3', 'V4']);
    expect(task.buttons[0]).toEqual({ customId: expect.stringMatching(/^MJ::JOB::upsample::1::/), emoji: '', label: 'U1', type: 2, style: 2 });

    const image = await get(new URL(task.imageUrl).pathname);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect([...new Uint8Array(await image.arrayBuffer()).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);

    const seed = await json(await get(`/mj/task/${submitted.result}/image-seed`));
    expect(seed).toMatchObject({ code: 1, result: expect.stringMatching(/^\d+$/) });
  });

  it('runs follow-ups on a finished task: change, simple-change and action', async () => {
    const id = await imagine('a dog --mock tasksteps=0');
    expect((await pollMj(id, 3)).task.status).toBe('SUCCESS');

    const change = await json(await post('/mj/submit/change', { taskId: id, action: 'UPSCALE', index: 2 }, { 'x-mock': 'tasksteps=1' }));
    expect(change.code).toBe(1);
    const upscaled = await pollMj(change.result, 4);
    expect(upscaled.statuses).toEqual(['NOT_START 0%', 'SUBMITTED 0%', 'IN_PROGRESS 50%', 'SUCCESS 100%']);
    expect(upscaled.task).toMatchObject({
      action: 'UPSCALE',
      description: `/up ${id} U2`,
      prompt: 'a dog --mock tasksteps=0',
      properties: { relatedTaskId: id },
    });
    expect(upscaled.task.buttons.map((button: any) => button.label)).toContain('Vary (Strong)');

    const simple = await json(await post('/mj/submit/simple-change', { content: `${id} V3` }));
    expect(simple.code).toBe(1);
    expect((await json(await get(`/mj/task/${simple.result}/fetch`))).action).toBe('VARIATION');

    const customId = upscaled.task.buttons.find((button: any) => button.label === 'Vary (Strong)').customId;
    const action = await json(await post('/mj/submit/action', { taskId: change.result, customId }));
    expect(action.code).toBe(1);
    expect((await json(await get(`/mj/task/${action.result}/fetch`))).action).toBe('VARIATION');

    // Vary (Region) waits for the modal, then runs.
    const region = upscaled.task.buttons.find((button: any) => button.label === 'Vary (Region)').customId;
    const inpaint = await json(await post('/mj/submit/action', { taskId: change.result, customId: region }));
    expect(inpaint).toMatchObject({ code: 21, description: '等待窗口确认' });
    expect((await json(await get(`/mj/task/${inpaint.result}/fetch`))).status).toBe('MODAL');
    expect((await json(await post('/mj/submit/modal', { taskId: inpaint.result, prompt: 'a hat', maskBase64: 'data:image/png;base64,AA' }))).code).toBe(1);
    expect((await json(await get(`/mj/task/${inpaint.result}/fetch`))).status).toBe('NOT_START');
  });

  it('refuses follow-ups on an unknown or unfinished task, as midjourney-proxy', async () => {
    const unknown = await post('/mj/submit/change', { taskId: '404', action: 'UPSCALE', index: 1 });
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ code: 3, description: '关联任务不存在或已失效' });
    const running = await imagine('a fox');
    expect(await json(await post('/mj/submit/change', { taskId: running, action: 'VARIATION', index: 1 }))).toMatchObject({
      code: 4,
      description: '关联任务状态错误',
    });
    expect((await json(await post('/mj/submit/simple-change', { content: `${running} X9` }))).code).toBe(4);
    expect((await json(await post('/mj/submit/imagine', { prompt: '' }))).code).toBe(4);
    // An unknown task: no body (the .NET midjourney-proxy's 204).
    expect((await get('/mj/task/999/fetch')).status).toBe(204);
  });

  it('answers each submit code the options ask for', async () => {
    const submit = async (code: number) => json(await post('/mj/submit/imagine', { prompt: 'a cow' }, { 'x-mock': `mjcode=${code}` }));
    const existed = await submit(21);
    expect(existed).toMatchObject({ code: 21, description: '任务已存在', result: expect.any(String), properties: { status: 'NOT_START' } });
    expect((await json(await get(`/mj/task/${existed.result}/fetch`))).status).toBe('NOT_START');
    const queued = await submit(22);
    expect(queued).toMatchObject({ code: 22, description: '排队中，前面还有1个任务', properties: { numberOfQueues: 1 } });
    expect((await json(await get(`/mj/task/${queued.result}/fetch`))).id).toBe(queued.result);
    const full = await submit(23);
    expect(full).toMatchObject({ code: 23, description: '队列已满，请稍后尝试' });
    expect((await get(`/mj/task/${full.result}/fetch`)).status).toBe(204);
    expect(await submit(24)).toMatchObject({ code: 24, description: '可能包含敏感词', result: null, properties: { promptEn: 'a cow', bannedWord: 'mock' } });
    expect(await submit(3)).toMatchObject({ code: 3, description: '无可用的账号实例', result: null });
    expect(await submit(4)).toMatchObject({ code: 4, description: '参数错误', result: null });
    expect(await submit(9)).toMatchObject({ code: 9, description: '提交失败，系统异常', result: null });
    // The prompt carries options through a relay that rebuilds the body and drops headers.
    expect((await json(await post('/mj/submit/imagine', { prompt: 'a cow --mock mjcode=23' }))).code).toBe(23);
    expect((await post('/mj/submit/imagine', { prompt: 'a cow --mock nosuch=1' })).status).toBe(400);
  });

  it('fails mid-way at poll K, and never finishes when stuck', async () => {
    const failing = await imagine('a bird --mock taskfail=4');
    const failed = await pollMj(failing, 6);
    expect(failed.statuses).toEqual(['NOT_START 0%', 'SUBMITTED 0%', 'IN_PROGRESS 25%', 'FAILURE 25%', 'FAILURE 25%', 'FAILURE 25%']);
    expect(failed.task.failReason).toMatch(/failed at poll 4/);
    expect(failed.task.finishTime).toBeGreaterThan(0);
    expect(failed.task.imageUrl).toBeNull();

    const stuck = await imagine('a bird', { 'x-mock': 'taskstuck,tasksteps=1' });
    const polled = await pollMj(stuck, 10);
    expect(polled.statuses.slice(2)).toEqual(Array(8).fill('IN_PROGRESS 50%'));
  });

  it('lists several tasks by condition, each advancing one step, unknown ids left out', async () => {
    const a = await imagine('one');
    const b = await imagine('two');
    await get(`/mj/task/${b}/fetch`);
    const listed = await json(await post('/mj/task/list-by-condition', { ids: [a, b, 'nope', a] }));
    expect(listed.map((task: any) => [task.id, task.status])).toEqual([
      [a, 'NOT_START'],
      [b, 'SUBMITTED'],
    ]);
  });

  it('serves describe, blend, shorten, face swap and uploads', async () => {
    const describe = await json(await post('/mj/submit/describe', { base64: 'data:image/png;base64,AA' }, { 'x-mock': 'tasksteps=0' }));
    const described = (await pollMj(describe.result, 3)).task;
    expect(described).toMatchObject({ action: 'DESCRIBE', status: 'SUCCESS', imageUrl: null });
    expect(described.prompt).toMatch(/^1️⃣/);
    expect((await json(await post('/mj/submit/blend', { base64Array: ['a'], dimensions: 'SQUARE' }))).code).toBe(4);
    const blend = await json(await post('/mj/submit/blend', { base64Array: ['a', 'b'], dimensions: 'SQUARE' }));
    expect((await json(await get(`/mj/task/${blend.result}/fetch`))).action).toBe('BLEND');
    const shorten = await json(await post('/mj/submit/shorten', { prompt: 'a very long prompt' }));
    expect((await json(await get(`/mj/task/${shorten.result}/fetch`))).action).toBe('SHORTEN');
    const swap = await json(await post('/mj/insight-face/swap', { sourceBase64: 'a', targetBase64: 'b' }));
    expect((await json(await get(`/mj/task/${swap.result}/fetch`))).action).toBe('SWAP_FACE');
    const upload = await json(await post('/mj/submit/upload-discord-images', { base64Array: ['a', 'b'] }));
    expect(upload).toMatchObject({ code: 1, result: [expect.stringMatching(/\/mj\/images\/upload-\d+\.png$/), expect.any(String)] });
    expect((await get(new URL(upload.result[0]).pathname)).status).toBe(200);
  });

  it('posts the finished task to its notifyHook', async () => {
    const hook = await startMockUpstream({ maxRecorded: 10 });
    try {
      const answer = await json(
        await post('/mj/submit/imagine', { prompt: 'a hook', notifyHook: `${hook.url}/v1/chat/completions` }, { 'x-mock': 'tasksteps=0' }),
      );
      await pollMj(answer.result, 3);
      for (let i = 0; i < 50 && hook.requests.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(hook.requests[0]?.body).toMatchObject({ id: answer.result, status: 'SUCCESS' });
    } finally {
      await hook.close();
    }
  });

  it('checks mj-api-secret, and the generic failure modes still apply while polling', async () => {
    expect((await post('/mj/submit/imagine', { prompt: 'x' }, { 'mj-api-secret': 'wrong' })).status).toBe(401);
    expect((await fetch(`${mock.url}/mj/task/1/fetch`)).status).toBe(401);
    const id = await imagine('a pig');
    expect((await get(`/mj/task/${id}/fetch`, { 'x-mock': 'status=500' })).status).toBe(500);
    // The failed poll did not move the task.
    expect((await json(await get(`/mj/task/${id}/fetch`))).status).toBe('NOT_START');
  });
});

describe('Suno (Suno-API)', () => {
  const bearer = { authorization: `Bearer ${SECRET}` };

  async function pollSuno(id: string, times: number): Promise<{ statuses: string[]; task: any }> {
    const statuses: string[] = [];
    let task: any;
    for (let i = 0; i < times; i++) {
      const answer = await json(await get(`/suno/fetch/${id}`, bearer));
      expect(answer.code).toBe('success');
      task = answer.data;
      statuses.push(`${task.status} ${task.progress}`);
    }
    return { statuses, task };
  }

  it('runs a song to SUCCESS with two complete clips', async () => {
    const submitted = await json(
      await post('/suno/submit/music', { prompt: '[Verse] hi', mv: 'chirp-v4', title: 'Hi', tags: 'pop', make_instrumental: false }, bearer),
    );
    expect(submitted).toEqual({ code: 'success', message: '', data: expect.any(String) });
    const { statuses, task } = await pollSuno(submitted.data, 8);
    expect(statuses).toEqual([
      'NOT_START 0%',
      'SUBMITTED 0%',
      'QUEUED 0%',
      'IN_PROGRESS 25%',
      'IN_PROGRESS 50%',
      'IN_PROGRESS 75%',
      'SUCCESS 100%',
      'SUCCESS 100%',
    ]);
    expect(task).toMatchObject({ task_id: submitted.data, action: 'MUSIC', fail_reason: '' });
    expect(task.finish_time).toBeGreaterThanOrEqual(task.submit_time);
    expect(task.data).toHaveLength(2);
    expect(task.data[0]).toMatchObject({ title: 'Hi', status: 'complete', major_model_version: 'chirp-v4', metadata: { tags: 'pop', prompt: '[Verse] hi' } });
    const audio = await get(new URL(task.data[0].audio_url).pathname, bearer);
    expect(audio.headers.get('content-type')).toBe('audio/mpeg');

    const listed = await json(await post('/suno/fetch', { ids: [submitted.data, 'nope'] }, bearer));
    expect(listed).toMatchObject({ code: 'success', data: [{ task_id: submitted.data, status: 'SUCCESS' }] });
  });

  it('runs lyrics to SUCCESS and to FAILURE', async () => {
    const lyrics = await json(await post('/suno/submit/lyrics', { prompt: 'a summer song --mock tasksteps=0' }, bearer));
    const done = await pollSuno(lyrics.data, 4);
    expect(done.statuses).toEqual(['NOT_START 0%', 'SUBMITTED 0%', 'QUEUED 0%', 'SUCCESS 100%']);
    expect(done.task).toMatchObject({ action: 'LYRICS', data: { status: 'complete', title: 'a summer song', text: expect.stringContaining('[Verse]') } });

    const failing = await json(await post('/suno/submit/lyrics', { prompt: 'x' }, { ...bearer, 'x-mock': 'taskfail=2' }));
    const failed = await pollSuno(failing.data, 3);
    expect(failed.statuses).toEqual(['NOT_START 0%', 'FAILURE 0%', 'FAILURE 0%']);
    expect(failed.task).toMatchObject({ fail_reason: expect.stringMatching(/failed at poll 2/), data: { status: 'error', text: '' } });
  });

  it('fails a song mid-way, or never finishes', async () => {
    const song = await json(await post('/suno/submit/music', { gpt_description_prompt: 'jazz --mock taskfail=5' }, bearer));
    const failed = await pollSuno(song.data, 5);
    expect(failed.statuses.at(-1)).toBe('FAILURE 25%');
    expect(failed.task.data[1]).toMatchObject({ status: 'error', metadata: { error_message: failed.task.fail_reason } });

    const stuck = await json(await post('/suno/submit/music', { prompt: 'x' }, { ...bearer, 'x-mock': 'taskstuck' }));
    expect((await pollSuno(stuck.data, 12)).statuses.at(-1)).toBe('IN_PROGRESS 75%');
  });

  it('refuses submits as Suno-API does', async () => {
    const refused = await post('/suno/submit/music', { prompt: 'x' }, { ...bearer, 'x-mock': 'sunorefuse=429' });
    expect(refused.status).toBe(429);
    expect(await json(refused)).toEqual({ code: 'invalid_request', message: '429 Too Many Requests', data: null });
    const broken = await post('/suno/submit/music', { prompt: 'x --mock sunorefuse=500' }, bearer);
    expect(broken.status).toBe(500);
    expect(await json(broken)).toEqual({ code: 'internal_error', message: 'task failed', data: null });
    const empty = await post('/suno/submit/lyrics', { prompt: '' }, bearer);
    expect([empty.status, (await json(empty)).message]).toEqual([400, 'prompt is empty']);
    const continued = await post('/suno/submit/music', { prompt: 'x', continue_clip_id: 'c', continue_at: 30 }, bearer);
    expect([continued.status, (await json(continued)).message]).toEqual([400, 'task_id is empty']);
    const unknown = await get('/suno/fetch/nope', bearer);
    expect([unknown.status, (await json(unknown)).code]).toEqual([400, 'invalid_request']);
    expect((await fetch(`${mock.url}/suno/fetch/nope`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
  });
});

it('keeps tasks per mock instance', async () => {
  const other = await startMockUpstream({ apiKey: SECRET });
  try {
    const mj = await imagine('mine');
    expect((await get(`/mj/task/${mj}/fetch`, {}, other)).status).toBe(204);
    const song = await json(await post('/suno/submit/lyrics', { prompt: 'mine' }));
    expect((await get(`/suno/fetch/${song.data}`, {}, other)).status).toBe(400);
    // The other instance's own tasks start from its own counters, apart from this one's.
    const theirs = await json(await post('/mj/submit/imagine', { prompt: 'theirs' }, {}, other));
    expect((await json(await post('/mj/task/list-by-condition', { ids: [theirs.result] }, {}, other)))[0].prompt).toBe('theirs');
  } finally {
    await other.close();
  }
});
