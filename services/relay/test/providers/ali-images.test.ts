import { ChannelType } from '@aigw/contracts';
import { UserError } from '@aigw/platform';
import { aliProvider } from '../../src/providers/ali/index.js';
import { dashScopeSize, pollDelayMs } from '../../src/providers/ali/image.js';
import { servesOperation } from '../../src/providers/registry.js';
import { UpstreamAnswerError } from '../../src/providers/shared/upstream-error.js';
import type { PolledStep } from '../../src/providers/types.js';
import { channel, context, fixtureJson } from './support.js';

const ali = (overrides: Parameters<typeof context>[0] = {}) =>
  context({ upstreamModel: 'wanx2.1-t2i-turbo', requestedModel: 'wanx-turbo', channel: channel({ type: ChannelType.Ali }), ...overrides });
const SUBMIT_URL = 'https://dashscope.aliyuncs.com/api/v1/services/aigc/text2image/image-synthesis';
const TASK_URL = 'https://dashscope.aliyuncs.com/api/v1/tasks/0385dc79-5ff8-4d82-bcb6-xxxxxx';

const submit = (body: Record<string, unknown>, ctx = ali()) => aliProvider.passthrough!.request('/v1/images/generations', body, ctx);
const submitted = (body: Record<string, unknown>, ctx = ali()) => JSON.parse(submit(body, ctx).body!) as Record<string, unknown>;
const follow = (json: unknown, sent = 0, ctx = ali()): PolledStep => aliProvider.passthrough!.follow!('images', json, ctx, sent);
/** The UpstreamAnswerError a step throws, for its status and mapped error. */
const failureOf = (json: unknown) => {
  try {
    follow(json);
  } catch (error) {
    if (error instanceof UpstreamAnswerError) return { status: error.statusCode, error: error.error };
    throw error;
  }
  throw new Error('the step did not fail');
};
const task = (output: Record<string, unknown>) => ({ request_id: 'r1', output: { task_id: 't-1', ...output } });

describe('ali (DashScope) provider: image generations as async tasks', () => {
  it('serves image generations, not edits or variations', () => {
    expect(servesOperation(ChannelType.Ali, 'images')).toBe(true);
    expect(servesOperation(ChannelType.Ali, 'image-edits')).toBe(false);
    expect(servesOperation(ChannelType.Ali, 'image-variations')).toBe(false);
  });

  it('submits a task: the async header, the prompt as input, the size converted, n always sent, other parameters dropped with warnings', () => {
    const request = submit({
      model: 'wanx-turbo',
      prompt: 'a flower shop with fine windows',
      negative_prompt: 'people',
      size: '1024x1024',
      n: 2,
      seed: 42,
      prompt_extend: false,
      watermark: false,
      response_format: 'url',
      quality: 'hd',
      style: 'vivid',
      user: 'u1',
    });
    expect(request).toMatchObject({
      method: 'POST',
      url: SUBMIT_URL,
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sk-upstream-key', 'X-DashScope-Async': 'enable' },
    });
    expect(JSON.parse(request.body!)).toEqual({
      model: 'wanx2.1-t2i-turbo',
      input: { prompt: 'a flower shop with fine windows', negative_prompt: 'people' },
      parameters: { n: 2, size: '1024*1024', seed: 42, prompt_extend: false, watermark: false },
    });
    expect(request.warnings).toEqual([
      'parameter "quality" is not supported by DashScope\'s image synthesis and was dropped',
      'parameter "style" is not supported by DashScope\'s image synthesis and was dropped',
      'parameter "user" is not supported by DashScope\'s image synthesis and was dropped',
    ]);
  });

  it('asks for exactly the images the operation prices: n, else 1 (DashScope would make 4), or batch_size when larger', () => {
    expect(submitted({ prompt: 'a cat' }).parameters).toEqual({ n: 1 });
    expect(submitted({ prompt: 'a cat', n: 1, batch_size: 3 }).parameters).toEqual({ n: 3 });
    expect(submitted({ prompt: 'a cat', n: 4, batch_size: 2 }).parameters).toEqual({ n: 4 });
  });

  it("converts OpenAI's sizes to DashScope's, passes its own, and drops any other with a warning (DashScope's default applies)", () => {
    expect(dashScopeSize('1024x1024')).toBe('1024*1024');
    expect(dashScopeSize('1792x1024')).toBe('1792*1024');
    expect(dashScopeSize('720*1280')).toBe('720*1280');
    for (const size of ['auto', '1024', 'x1024', 'big', 1024, null]) expect(dashScopeSize(size)).toBeNull();
    const request = submit({ prompt: 'a cat', size: 'auto' });
    expect(JSON.parse(request.body!).parameters).toEqual({ n: 1 });
    expect(request.warnings).toEqual(['size "auto" is not a width x height DashScope takes and was dropped (its default is 1024*1024)']);
  });

  it("applies the channel's overrides last, and its base_url to the submit and the polls", () => {
    const ctx = ali({
      channel: channel({
        type: ChannelType.Ali,
        base_url: 'https://dashscope-intl.aliyuncs.com/api/v1',
        param_override: { parameters: { n: 1, watermark: true } },
      }),
    });
    const request = submit({ prompt: 'a cat', n: 1 }, ctx);
    expect(request.url).toBe('https://dashscope-intl.aliyuncs.com/api/v1/services/aigc/text2image/image-synthesis');
    expect(JSON.parse(request.body!).parameters).toEqual({ n: 1, watermark: true });
    expect(follow(fixtureJson('ali/image-submit.json'), 0, ctx)).toMatchObject({
      next: { url: 'https://dashscope-intl.aliyuncs.com/api/v1/tasks/0385dc79-5ff8-4d82-bcb6-xxxxxx' },
    });
  });

  it('refuses b64_json with a 400 naming response_format: DashScope answers URLs only', () => {
    expect.assertions(3);
    try {
      submit({ prompt: 'a cat', response_format: 'b64_json' });
    } catch (error) {
      expect(error).toBeInstanceOf(UserError);
      expect(error).toMatchObject({ statusCode: 400, param: 'response_format' });
      expect((error as Error).message).toContain('b64_json');
    }
  });

  it('polls a pending or running task at its status URL with the key, sooner at first, then every 3 s', () => {
    const poll = { method: 'GET', url: TASK_URL, headers: { Authorization: 'Bearer sk-upstream-key' } };
    expect(follow(fixtureJson('ali/image-submit.json'))).toEqual({ done: false, next: poll, afterMs: 250 });
    expect(follow(fixtureJson('ali/image-task-running.json'), 1)).toEqual({ done: false, next: poll, afterMs: 500 });
    expect([0, 1, 2, 3, 4, 10, 60].map(pollDelayMs)).toEqual([250, 500, 1000, 2000, 3000, 3000, 3000]);
    // The id comes from the upstream: encoded into the path.
    expect(follow(task({ task_id: '../a b', task_status: 'PENDING' }))).toMatchObject({
      next: { url: 'https://dashscope.aliyuncs.com/api/v1/tasks/..%2Fa%20b' },
    });
  });

  it("answers a finished task in OpenAI's shape, its images' URLs, the rewritten prompt as revised_prompt", () => {
    const step = follow(fixtureJson('ali/image-task-succeeded.json'), 3);
    expect(step.done).toBe(true);
    const answer = (step as { answer: { created: number; data: unknown[] } }).answer;
    expect(answer.created).toBeCloseTo(Date.now() / 1000, -1);
    expect(answer.data).toEqual([
      {
        url: 'https://dashscope-result-wlcb.oss-cn-wulanchabu.aliyuncs.com/1.png?Expires=1736409850&OSSAccessKeyId=LTAI-example&Signature=abc%3D',
        revised_prompt: '一间有着精致雕花窗户的花店，漂亮的深色木质门上挂着铜制把手。店内摆放着各式各样的鲜花。',
      },
      { url: 'https://dashscope-result-wlcb.oss-cn-wulanchabu.aliyuncs.com/2.png?Expires=1736409850&OSSAccessKeyId=LTAI-example&Signature=def%3D' },
    ]);
  });

  it("answers every other operation's answer as final, whatever it holds", () => {
    expect(aliProvider.passthrough!.follow!('rerank', fixtureJson('ali/image-submit.json'), ali(), 0)).toEqual({ done: true });
    expect(aliProvider.passthrough!.follow!('chat', fixtureJson('ali/chat-response.json'), ali(), 0)).toEqual({ done: true });
  });

  it("throws a failed task as the channel's failure, with the status its code stands for", () => {
    expect(failureOf(fixtureJson('ali/image-task-failed.json'))).toEqual({
      status: 400,
      error: {
        message: "The size is not match the allowed size ['1024*1024', '720*1280', '1280*720']",
        type: 'invalid_request_error',
        code: 'InvalidParameter',
      },
    });
    expect(failureOf(task({ task_status: 'FAILED', code: 'DataInspectionFailed', message: 'Input data may contain inappropriate content.' }))).toMatchObject({
      status: 400,
      error: { code: 'DataInspectionFailed' },
    });
    expect(failureOf(task({ task_status: 'FAILED', code: 'Throttling.RateQuota', message: 'slow down' }))).toMatchObject({
      status: 429,
      error: { type: 'rate_limit_error' },
    });
    expect(failureOf(task({ task_status: 'FAILED', code: 'InvalidApiKey', message: 'Invalid API-key provided.' }))).toMatchObject({
      status: 401,
      error: { type: 'authentication_error' },
    });
    expect(failureOf(task({ task_status: 'FAILED', code: 'InternalError.Algo', message: 'algorithm error' }))).toMatchObject({
      status: 500,
      error: { type: 'server_error', code: 'InternalError.Algo' },
    });
    expect(failureOf(task({ task_status: 'FAILED' }))).toMatchObject({ status: 500, error: { code: 'TaskFailed', message: 'image task t-1 failed' } });
  });

  it('fails a canceled task, an unknown (expired) one and one that succeeded without images as 502', () => {
    expect(failureOf(task({ task_status: 'CANCELED' }))).toEqual({
      status: 502,
      error: { message: 'image task t-1 ended CANCELED', type: 'server_error', code: 'TaskCANCELED' },
    });
    expect(failureOf(task({ task_status: 'UNKNOWN' }))).toMatchObject({ status: 502, error: { code: 'TaskUNKNOWN' } });
    expect(failureOf(task({ task_status: 'SUCCEEDED', results: [] }))).toMatchObject({ status: 502, error: { code: 'NoImages' } });
  });

  it('fails a task whole when one of its images failed: the operation priced every image asked for', () => {
    expect(failureOf(fixtureJson('ali/image-task-partial.json'))).toEqual({
      status: 400,
      error: { message: 'Output data may contain inappropriate content.', type: 'invalid_request_error', code: 'DataInspectionFailed' },
    });
    // The metrics alone say so too.
    expect(
      failureOf(task({ task_status: 'SUCCEEDED', results: [{ url: 'https://a/1.png' }], task_metrics: { TOTAL: 2, SUCCEEDED: 1, FAILED: 1 } })),
    ).toMatchObject({
      status: 500,
      error: { code: 'ImageFailed' },
    });
  });

  it('throws the typed 502 error on an answer that is no task', () => {
    expect(() => follow({ output: { results: [] } })).toThrow('ali upstream answered with an unexpected body: output.task_id');
    expect(() => follow('not json')).toThrow('ali upstream answered with an unexpected body');
  });
});
