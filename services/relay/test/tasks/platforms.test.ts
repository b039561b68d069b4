import { channel as supportChannel } from '../providers/support';
import { midjourneyPlatform } from '../../src/tasks/midjourney';
import { sunoPlatform } from '../../src/tasks/suno';
import { taskPlatformFor } from '../../src/providers/registry';
import { servesOperation } from '../../src/providers/registry';

const channel = (type: number, base_url = 'https://mj.example.com/') => supportChannel({ type, base_url });

const mj = (body: unknown) => JSON.stringify(body);

describe('task platforms in the registry', () => {
  it('maps Midjourney (2, 5) and Suno (36) to their platforms, which serve their operation only', () => {
    expect(taskPlatformFor(2)).toBe(midjourneyPlatform);
    expect(taskPlatformFor(5)).toBe(midjourneyPlatform);
    expect(taskPlatformFor(36)).toBe(sunoPlatform);
    expect(taskPlatformFor(1)).toBeNull();
    expect(servesOperation(2, 'midjourney')).toBe(true);
    expect(servesOperation(2, 'chat')).toBe(false);
    expect(servesOperation(36, 'suno')).toBe(true);
    expect(servesOperation(36, 'midjourney')).toBe(false);
    expect(servesOperation(1, 'midjourney')).toBe(false);
  });
});

describe('midjourney-proxy', () => {
  it('submits under /mj with the key in mj-api-secret', () => {
    const call = midjourneyPlatform.submit(channel(2), 'secret', '/submit/imagine', { prompt: 'a fox' });
    expect(call).toEqual({
      url: 'https://mj.example.com/mj/submit/imagine',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mj-api-secret': 'secret' },
      body: '{"prompt":"a fox"}',
    });
    const poll = midjourneyPlatform.poll(channel(5), 'secret', ['1', '2']);
    expect(poll).toMatchObject({ url: 'https://mj.example.com/mj/task/list-by-condition', body: '{"ids":["1","2"]}' });
  });

  it.each([1, 21, 22])('takes submit code %i as accepted (billed)', (code) => {
    const outcome = midjourneyPlatform.submitted(200, mj({ code, description: 'ok', result: '1700000000000001', properties: { a: 1 } }));
    expect(outcome).toMatchObject({ kind: 'accepted', taskId: '1700000000000001', code, changes: { code, status: 'SUBMITTED', properties: '{"a":1}' } });
  });

  it('takes an upload as accepted without a task', () => {
    expect(midjourneyPlatform.submitted(200, mj({ code: 1, result: ['https://cdn/1.png'] }))).toMatchObject({ kind: 'accepted', taskId: '' });
  });

  it('refuses other codes with the upstream description, not billed', () => {
    expect(midjourneyPlatform.submitted(200, mj({ code: 24, description: '可能包含敏感词', result: null, properties: { bannedWord: 'x' } }))).toEqual({
      kind: 'refused',
      status: 400,
      answer: { code: 24, description: '可能包含敏感词', type: 'upstream_error', result: null, properties: { bannedWord: 'x' } },
      failure: { message: '可能包含敏感词', type: 'upstream_error', code: 'mj_code_24' },
      channelFault: false,
    });
    expect(midjourneyPlatform.submitted(200, mj({ code: 30, description: 'busy' }))).toMatchObject({ kind: 'refused', status: 429 });
  });

  it('takes code 3 as the channel having no account (a channel fault), but a 404 code 3 as a missing task', () => {
    expect(midjourneyPlatform.submitted(200, mj({ code: 3, description: '无可用的账号实例' }))).toMatchObject({
      kind: 'refused',
      channelFault: true,
      failure: { code: 'mj_no_available_account' },
    });
    expect(midjourneyPlatform.submitted(404, mj({ code: 3, description: '关联任务不存在或已失效' }))).toMatchObject({
      kind: 'refused',
      status: 404,
      channelFault: false,
    });
  });

  it('fails (retryable like chat) on answers outside the protocol', () => {
    expect(midjourneyPlatform.submitted(502, '<html>bad gateway</html>')).toEqual({
      kind: 'failed',
      status: 502,
      failure: { message: 'the Midjourney upstream answered HTTP 502', type: 'upstream_error', code: 'mj_http_502' },
    });
  });

  it('reads polled tasks as row changes: MODAL waits, CANCEL fails, a describe brings its prompt', () => {
    const answered = midjourneyPlatform.polled(
      mj([
        {
          id: 'a',
          action: 'IMAGINE',
          status: 'IN_PROGRESS',
          progress: '50%',
          prompt: 'changed?',
          promptEn: 'a fox',
          startTime: 1_700_000_000_000,
          buttons: [],
        },
        { id: 'b', action: 'INPAINT', status: 'MODAL', progress: '0%' },
        { id: 'c', action: 'IMAGINE', status: 'CANCEL' },
        { id: 'd', action: 'DESCRIBE', status: 'SUCCESS', progress: '100%', prompt: '1️⃣ a fox', finishTime: 1_700_000_100 },
        { action: 'IMAGINE', status: 'SUCCESS' },
      ]),
    );
    expect([...answered.keys()]).toEqual(['a', 'b', 'c', 'd']);
    expect(answered.get('a')).toMatchObject({ status: 'IN_PROGRESS', progress: '50%', prompt_en: 'a fox', start_time: 1_700_000_000_000, buttons: '' });
    expect(answered.get('a')).not.toHaveProperty('prompt');
    expect(answered.get('b')).toMatchObject({ status: 'SUBMITTED' });
    expect(answered.get('c')).toMatchObject({ status: 'FAILURE', fail_reason: 'the upstream cancelled the task' });
    // Seconds or milliseconds, stored as ms.
    expect(answered.get('d')).toMatchObject({ status: 'SUCCESS', prompt: '1️⃣ a fox', finish_time: 1_700_000_100_000 });
    expect(midjourneyPlatform.polled('not json').size).toBe(0);
  });
});

describe('Suno-API', () => {
  it('submits under /suno with a Bearer key, polls /suno/fetch', () => {
    const call = sunoPlatform.submit(channel(36, 'https://suno.example.com'), 'k', '/submit/music', { prompt: 'la' });
    expect(call).toMatchObject({ url: 'https://suno.example.com/suno/submit/music', headers: { authorization: 'Bearer k' } });
    expect(sunoPlatform.poll(channel(36, 'https://suno.example.com'), 'k', ['t'])).toMatchObject({
      url: 'https://suno.example.com/suno/fetch',
      body: '{"ids":["t"]}',
    });
  });

  it('accepts a success with a task id; refuses a 2xx without one; fails on HTTP errors', () => {
    expect(sunoPlatform.submitted(200, JSON.stringify({ code: 'success', message: '', data: 'task-1' }))).toMatchObject({ kind: 'accepted', taskId: 'task-1' });
    expect(sunoPlatform.submitted(200, JSON.stringify({ code: 'error', message: 'prompt rejected', data: null }))).toMatchObject({
      kind: 'refused',
      status: 400,
      answer: { code: 'error', message: 'prompt rejected', data: null },
    });
    expect(sunoPlatform.submitted(429, JSON.stringify({ code: 'invalid_request', message: '429 Too Many Requests', data: null }))).toEqual({
      kind: 'failed',
      status: 429,
      failure: { message: '429 Too Many Requests', type: 'upstream_error', code: 'invalid_request' },
    });
  });

  it('reads polled tasks, unknown statuses as UNKNOWN, the result as JSON text', () => {
    const answered = sunoPlatform.polled(
      JSON.stringify({
        code: 'success',
        data: [
          { task_id: 'x', status: 'SUCCESS', progress: '100%', start_time: 1_700_000_000, finish_time: 1_700_000_060, data: [{ id: 'clip', audio_url: 'u' }] },
          { task_id: 'y', status: 'WEIRD', fail_reason: '' },
        ],
      }),
    );
    expect(answered.get('x')).toEqual({
      status: 'SUCCESS',
      progress: '100%',
      fail_reason: '',
      start_time: 1_700_000_000_000,
      finish_time: 1_700_000_060_000,
      data: '[{"id":"clip","audio_url":"u"}]',
    });
    expect(answered.get('y')).toMatchObject({ status: 'UNKNOWN', data: '' });
  });
});
