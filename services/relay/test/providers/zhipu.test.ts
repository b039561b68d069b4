import { createHmac } from 'node:crypto';
import { ChannelType } from '@aigw/contracts';
import { zhipuProvider } from '../../src/providers/zhipu/index.js';
import { ZHIPU_TOKEN_TTL_MS, zhipuToken } from '../../src/providers/zhipu/api.js';
import { ZhipuAnswerError } from '../../src/providers/zhipu/error.js';
import { InvalidChatRequestError } from '../../src/providers/shared/chat-request.js';
import { ChannelConfigurationError } from '../../src/providers/shared/url.js';
import type { AuthorizeTools, StreamOutput } from '../../src/providers/types.js';
import { channel, chunksOf, context, fixtureJson, fixtureText, lastUsage, PIXEL_PNG, sampleChatRequest, textOf, runStream } from './support.js';

const KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90.S3cr3tS3cr3tAbCd';
const zhipu = (overrides: Parameters<typeof context>[0] = {}) =>
  context({ key: KEY, upstreamModel: 'chatglm_turbo', requestedModel: 'glm', channel: channel({ type: ChannelType.Zhipu }), ...overrides });
const noTools: AuthorizeTools = { accessToken: () => Promise.reject(new Error('Zhipu exchanges no token')) };

/** Feeds a stream through the provider's own framer and the converter, as the relay does. */
const runZhipuStream = (text: string, chunkSize = 7): StreamOutput[] =>
  runStream(zhipuProvider.chat.stream(zhipu({ stream: true })), text, chunkSize, zhipuProvider.framing!());

const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

describe('zhipu v3 provider: requests', () => {
  it('sends chat to model-api/{model}/invoke as prompt turns, the system text opening the first user turn', () => {
    const request = zhipuProvider.chat.request(
      {
        model: 'glm',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
          { role: 'user', content: [{ type: 'text', text: 'there' }] },
          { role: 'assistant', content: 'Hello!' },
          { role: 'user', content: 'Bye' },
        ],
        temperature: 0.5,
        top_p: 0.8,
      },
      zhipu(),
    );
    expect(request).toEqual({
      method: 'POST',
      url: 'https://open.bigmodel.cn/api/paas/v3/model-api/chatglm_turbo/invoke',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({
        prompt: [
          { role: 'user', content: 'Be brief.\n\nHi\n\nthere' },
          { role: 'assistant', content: 'Hello!' },
          { role: 'user', content: 'Bye' },
        ],
        temperature: 0.5,
        top_p: 0.8,
      }),
    });
  });

  it('streams from sse-invoke, incrementally, and reports what v3 cannot take', () => {
    const request = zhipuProvider.chat.request(
      sampleChatRequest({ stream: true, stream_options: { include_usage: true }, temperature: 0, top_p: 1, seed: 3 }),
      zhipu(),
    );
    expect(request.url).toBe('https://open.bigmodel.cn/api/paas/v3/model-api/chatglm_turbo/sse-invoke');
    expect(request.headers.Accept).toBe('text/event-stream');
    expect(JSON.parse(request.body!)).toEqual({
      prompt: [{ role: 'user', content: 'You are a terse assistant.\n\nWhat is in this picture? Then get the weather in Paris.' }],
      temperature: 0.01,
      top_p: 0.99,
      incremental: true,
    });
    expect(request.warnings).toEqual([
      'parameter "tools" is not supported by Zhipu v3 and was dropped',
      'parameter "tool_choice" is not supported by Zhipu v3 and was dropped',
      'parameter "max_tokens" is not supported by Zhipu v3 and was dropped',
      'parameter "stop" is not supported by Zhipu v3 and was dropped',
      'parameter "seed" is not supported by Zhipu v3 and was dropped',
      'content part "image_url" is not supported by Zhipu v3 and was dropped',
      'content part "image_url" is not supported by Zhipu v3 and was dropped',
      'temperature 0 is outside what Zhipu v3 takes and was sent as 0.01',
      'top_p 1 is outside what Zhipu v3 takes and was sent as 0.99',
    ]);
  });

  it('takes base_url as the host override (a pasted API path dropped), encodes the model, and applies the overrides last', () => {
    for (const base_url of ['http://127.0.0.1:9100', 'http://127.0.0.1:9100/', 'http://127.0.0.1:9100/api/paas/v3']) {
      const request = zhipuProvider.chat.request(
        { messages: [{ role: 'user', content: 'Hi' }] },
        zhipu({ upstreamModel: 'glm/turbo', channel: channel({ type: ChannelType.Zhipu, base_url, param_override: { return_type: 'text' } }) }),
      );
      expect(request.url).toBe('http://127.0.0.1:9100/api/paas/v3/model-api/glm%2Fturbo/invoke');
      expect(JSON.parse(request.body!)).toMatchObject({ return_type: 'text' });
    }
  });

  it('signs each call with a JWT: HS256 over the key secret, header sign_type SIGN, claims api_key, exp and timestamp in ms', async () => {
    const now = 1_722_000_000_123;
    const token = zhipuToken(KEY, now);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    expect(decode(header)).toEqual({ alg: 'HS256', sign_type: 'SIGN' });
    expect(decode(payload)).toEqual({ api_key: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', exp: now + ZHIPU_TOKEN_TTL_MS, timestamp: now });
    expect(signature).toBe(createHmac('sha256', 'S3cr3tS3cr3tAbCd').update(`${header}.${payload}`).digest('base64url'));

    const built = zhipuProvider.chat.request({ messages: [{ role: 'user', content: 'Hi' }] }, zhipu());
    const before = Date.now();
    const signed = await zhipuProvider.authorize!(built, zhipu(), noTools);
    expect(signed).toEqual({ ...built, headers: { ...built.headers, Authorization: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) } });
    const claims = decode(signed.headers.Authorization!.split('.')[1]!);
    expect(claims.timestamp).toBeGreaterThanOrEqual(before);
    expect(claims.exp - claims.timestamp).toBe(ZHIPU_TOKEN_TTL_MS);
  });

  it('refuses to sign with a key that is not id.secret, naming the form and never the key', async () => {
    const built = zhipuProvider.chat.request({ messages: [{ role: 'user', content: 'Hi' }] }, zhipu());
    for (const key of ['no-dot-here', '.secret-only', 'id-only.']) {
      const refusal = zhipuProvider.authorize!(built, zhipu({ key }), noTools);
      await expect(refusal).rejects.toThrow(ChannelConfigurationError);
      await expect(refusal).rejects.toThrow('a Zhipu v3 key has the form "<id>.<secret>"');
    }
  });

  it('refuses a request without messages as the client error it is', () => {
    expect(() => zhipuProvider.chat.request({ model: 'glm' }, zhipu())).toThrow(InvalidChatRequestError);
  });
});

describe('zhipu v3 provider: answers and streams', () => {
  it('converts an invoke answer, decoding its json_string content, with its usage', () => {
    const result = zhipuProvider.chat.response(fixtureJson('zhipu/chat-response.json'), zhipu());
    expect(result.usage).toEqual({ prompt_tokens: 12, completion_tokens: 11, cached_tokens: 0 });
    expect(result.body).toEqual({
      id: '8305986882425703351',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'chatglm_turbo',
      choices: [{ index: 0, message: { role: 'assistant', content: ' 你好！我是 ChatGLM。\n有什么可以帮你？' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 11, total_tokens: 23, prompt_tokens_details: { cached_tokens: 0 } },
    });
    const plain = { code: 200, success: true, data: { task_status: 'SUCCESS', choices: [{ role: 'assistant', content: 'as text' }] } };
    expect(zhipuProvider.chat.response(plain, zhipu())).toMatchObject({ usage: null, body: { choices: [{ message: { content: 'as text' } }] } });
  });

  it('throws an error in a 200 answer as the error it is, with the status it stands for', () => {
    const refusal = () => zhipuProvider.chat.response(fixtureJson('zhipu/prompt-too-long.json'), zhipu());
    expect(refusal).toThrow(ZhipuAnswerError);
    expect(refusal).toThrow(expect.objectContaining({ statusCode: 400, code: '1261', type: 'invalid_request_error', message: 'Prompt 超长' }));
    const failed = { code: 200, success: true, data: { task_status: 'FAIL' } };
    expect(() => zhipuProvider.chat.response(failed, zhipu())).toThrow(expect.objectContaining({ statusCode: 502, code: 'task_failed' }));
    expect(() => zhipuProvider.chat.response({ unrelated: true }, zhipu())).toThrow(ZhipuAnswerError);
    expect(() => zhipuProvider.chat.response('not an object', zhipu())).toThrow('zhipu upstream answered with an unexpected body');
  });

  it.each([1, 7, 64])('converts the sse-invoke stream (chunks of %i bytes): text, the finish chunk, then the usage of meta', (chunkSize) => {
    const outputs = runZhipuStream(fixtureText('zhipu/chat-stream.sse'), chunkSize);
    const chunks = chunksOf(outputs);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '你好' },
      { content: '！我是\nChatGLM' },
      { content: ' 这里' },
      {},
      null,
    ]);
    expect(chunks.map((chunk) => (chunk.choices.length > 0 ? chunk.choices[0].finish_reason : 'none'))).toEqual([null, null, null, 'stop', 'none']);
    expect(chunks.every((chunk) => chunk.model === 'chatglm_turbo')).toBe(true);
    expect(outputs.at(-1)!.usageOnly).toBe(true);
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 12, completion_tokens: 6, cached_tokens: 0 });
    expect(textOf(outputs)).toBe('你好！我是\nChatGLM 这里');
  });

  it('reports a stream error event, an interruption, broken metadata and a JSON error in place of a stream', () => {
    const outputs = runZhipuStream(fixtureText('zhipu/stream-error.sse'), 5);
    expect(textOf(outputs)).toBe('部分');
    expect(outputs.at(-1)).toEqual({ error: { message: '模型服务异常，请稍后重试', type: 'upstream_error', code: 'stream_error' } });

    const interrupted = runZhipuStream('event: add\ndata: a\n\nevent: interrupted\ndata: \n\n');
    expect(chunksOf(interrupted).at(-1)!.choices[0].finish_reason).toBe('content_filter');

    expect(runZhipuStream('event: finish\ndata: \nmeta: {"usage": broken\n\n').at(-1)).toEqual({
      error: { message: 'Zhipu sent stream metadata that is not valid JSON', type: 'upstream_error', code: 'bad_stream_event' },
    });
    expect(runZhipuStream(`\n  ${fixtureText('zhipu/error-401.json')}`, 3)).toEqual([
      { error: { message: 'Authorization Token非法，请确认Authorization Token正确传递。', type: 'authentication_error', code: '1002' } },
    ]);
  });
});

describe('zhipu v3 provider: embeddings and errors', () => {
  it('embeds one text through the embedding model invoke, answered in OpenAI shape, floats or base64', () => {
    const ctx = zhipu({ upstreamModel: 'text_embedding' });
    const request = zhipuProvider.passthrough!.request('/v1/embeddings', { model: 'embed', input: ['hello'], dimensions: 4, encoding_format: 'base64' }, ctx);
    expect(request).toEqual({
      method: 'POST',
      url: 'https://open.bigmodel.cn/api/paas/v3/model-api/text_embedding/invoke',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ prompt: 'hello' }),
      warnings: ['parameter "dimensions" is not supported by Zhipu v3 and was dropped'],
    });
    expect(() => zhipuProvider.passthrough!.request('/v1/embeddings', { model: 'embed', input: ['a', 'b'] }, ctx)).toThrow(
      'Zhipu v3 embeds one text per request: input must be a string or an array of one string',
    );

    const json = fixtureJson('zhipu/embed-response.json');
    expect(zhipuProvider.passthrough!.usage(json)).toEqual({ prompt_tokens: 5, completion_tokens: 0, cached_tokens: 0 });
    expect(zhipuProvider.passthrough!.answer!('/v1/embeddings', json, { input: 'hello' }, ctx)).toEqual({
      body: {
        object: 'list',
        data: [{ object: 'embedding', index: 0, embedding: [0.0123, -0.0456, 0.0789, -0.25] }],
        model: 'text_embedding',
        usage: { prompt_tokens: 5, total_tokens: 5 },
      },
      usage: { prompt_tokens: 5, completion_tokens: 0, cached_tokens: 0 },
    });
    const { body } = zhipuProvider.passthrough!.answer!('/v1/embeddings', json, { input: 'hello', encoding_format: 'base64' }, ctx);
    const bytes = Buffer.from((body as { data: Array<{ embedding: string }> }).data[0]!.embedding, 'base64');
    expect(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, 4))).toEqual([0.0123, -0.0456, 0.0789, -0.25].map(Math.fround));
    expect(() => zhipuProvider.passthrough!.answer!('/v1/embeddings', fixtureJson('zhipu/error-401.json'), {}, ctx)).toThrow(
      expect.objectContaining({ statusCode: 401, type: 'authentication_error' }),
    );
  });

  it("maps Zhipu's codes to kinds channels act on: a bad token is an authentication error", () => {
    expect(zhipuProvider.error(401, fixtureText('zhipu/error-401.json'))).toEqual({
      message: 'Authorization Token非法，请确认Authorization Token正确传递。',
      type: 'authentication_error',
      code: '1002',
    });
    expect(zhipuProvider.error(401, '{"code":1003,"msg":"Authorization Token已过期","success":false}').type).toBe('authentication_error');
    expect(zhipuProvider.error(200, '{"code":1113,"msg":"您的账户已欠费","success":false}').type).toBe('insufficient_quota');
    expect(zhipuProvider.error(429, '{"code":1302,"msg":"您当前使用该API的并发数过高","success":false}').type).toBe('rate_limit_error');
    expect(zhipuProvider.error(500, '{"code":1234,"msg":"网络错误","success":false}').type).toBe('server_error');
    expect(zhipuProvider.error(502, '<html>bad gateway</html>')).toEqual({ message: '<html>bad gateway</html>', type: 'upstream_error', code: '502' });
  });

  it('lists chat and embeddings, and needs no exchange: the image parts of a vision request are only reported', () => {
    expect(zhipuProvider.operations).toEqual(['chat', 'embeddings']);
    expect(zhipuProvider.streamUsage).toBe(true);
    const image = { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL_PNG}` } }] };
    expect(zhipuProvider.chat.request({ messages: [image] }, zhipu()).warnings).toEqual([
      'content part "image_url" is not supported by Zhipu v3 and was dropped',
    ]);
  });
});
