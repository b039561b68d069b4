import { createHmac } from 'node:crypto';
import { ChannelType } from '@aigw/contracts';
import { xunfeiProvider } from '../../src/providers/xunfei/index.js';
import { sparkUrl, sparkVersion } from '../../src/providers/xunfei/api.js';
import { signSparkUrl } from '../../src/providers/xunfei/sign.js';
import { foldStream } from '../../src/providers/shared/stream-fold.js';
import { UpstreamAnswerError } from '../../src/providers/shared/upstream-error.js';
import { ChannelConfigurationError } from '../../src/providers/shared/url.js';
import { chatOf, type AuthorizeTools, type StreamOutput } from '../../src/providers/types.js';
import { channel, chunksOf, context, fixtureJson, fixtureText, lastUsage, runStream, sampleChatRequest, textOf } from './support.js';

const KEY = '4f2a9c1e|NjU2ZTk1YmFkZWFmMWQ3ZmE0NjFiNzE2|a1b2c3d4e5f60718293a4b5c6d7e8f90';
const SECRET = 'NjU2ZTk1YmFkZWFmMWQ3ZmE0NjFiNzE2';
const spark = (overrides: Parameters<typeof context>[0] = {}, other = 'v3.5', baseUrl = '') =>
  context({
    key: KEY,
    upstreamModel: 'SparkDesk',
    requestedModel: 'spark',
    channel: channel({ type: ChannelType.Xunfei, other, base_url: baseUrl }),
    ...overrides,
  });
const chat = chatOf(xunfeiProvider);
const noTools: AuthorizeTools = { accessToken: () => Promise.reject(new Error('Spark exchanges no token')) };
const messageOf = (body: Record<string, unknown>, ctx = spark()) => JSON.parse(chat.request(body, ctx).body!) as Record<string, any>;
const runSpark = (text: string, chunkSize = 13): StreamOutput[] => runStream(chat.stream(spark({ stream: true })), text, chunkSize);

describe('iFlytek Spark provider: the signed socket URL', () => {
  it("computes iFlytek's documented example: HMAC-SHA256 of host, date and request line, in the authorization parameter", () => {
    const example = fixtureJson('xunfei/signed-url.json') as Record<string, string>;
    const signed = signSparkUrl(example.unsigned!, { apiKey: example.apiKey!, apiSecret: example.apiSecret! }, new Date(example.date!));
    expect(signed).toBe(example.signed);
    const query = new URL(signed).searchParams;
    expect(query.get('authorization')).toBe(example.authorization);
    expect(Buffer.from(query.get('authorization')!, 'base64').toString('utf8')).toContain(`signature="${example.signature}"`);
    expect(signed).not.toContain(example.apiSecret);
  });

  it('signs when the call is sent (authorize, at the clock of that moment), for the host of the channel base_url, never carrying the APISecret', async () => {
    jest.useFakeTimers({ now: Date.parse('2024-03-01T08:30:00Z') });
    try {
      const ctx = spark({}, 'v3.5', 'http://127.0.0.1:9300/');
      const built = chat.request({ messages: [{ role: 'user', content: 'Hi' }] }, ctx);
      expect(built).toMatchObject({ method: 'GET', url: 'ws://127.0.0.1:9300/v3.5/chat', websocket: true, headers: {} });
      const signed = await xunfeiProvider.authorize!(built, ctx, noTools);
      expect({ ...signed, url: '' }).toEqual({ ...built, url: '' });
      const url = new URL(signed.url);
      expect(`${url.origin}${url.pathname}`).toBe('ws://127.0.0.1:9300/v3.5/chat');
      expect(Object.fromEntries(url.searchParams)).toEqual({
        authorization: expect.any(String),
        date: 'Fri, 01 Mar 2024 08:30:00 GMT',
        host: '127.0.0.1:9300',
      });
      // Recomputed here from iFlytek's documented steps, independently of the signer.
      const signature = createHmac('sha256', SECRET)
        .update('host: 127.0.0.1:9300\ndate: Fri, 01 Mar 2024 08:30:00 GMT\nGET /v3.5/chat HTTP/1.1')
        .digest('base64');
      expect(Buffer.from(url.searchParams.get('authorization')!, 'base64').toString('utf8')).toBe(
        `api_key="a1b2c3d4e5f60718293a4b5c6d7e8f90", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`,
      );
      expect(signed.url).not.toContain(SECRET);
      expect(signed.body).not.toContain(SECRET);
    } finally {
      jest.useRealTimers();
    }
  });

  it.each([
    ['', 'wss://spark-api.xf-yun.com/v3.5/chat'],
    ['https://spark.example.com/ignored/path', 'wss://spark.example.com/v3.5/chat'],
    ['ws://10.0.0.5:8080', 'ws://10.0.0.5:8080/v3.5/chat'],
    ['wss://spark-proxy.example.com:8443/', 'wss://spark-proxy.example.com:8443/v3.5/chat'],
  ])('base_url %j: the socket is %s', (baseUrl, url) => {
    expect(chat.request({ messages: [{ role: 'user', content: 'Hi' }] }, spark({}, 'v3.5', baseUrl)).url).toBe(url);
  });

  it('refuses, as a configuration error, a base_url of another scheme and a key that is not APPID|APISecret|APIKey', () => {
    const hi = { messages: [{ role: 'user', content: 'Hi' }] };
    expect(() => sparkUrl(spark({}, 'v3.5', 'ftp://spark.example.com'), sparkVersion(spark()))).toThrow(ChannelConfigurationError);
    for (const key of ['4f2a9c1e|secret', '4f2a9c1e||key', 'a|b|c|d']) {
      expect(() => chat.request(hi, spark({ key }))).toThrow(expect.objectContaining({ code: 'channel_key_malformed' }));
    }
    expect(() => chat.request(hi, spark({ key: ' 4f2a9c1e | s | k ' }))).not.toThrow();
  });
});

describe('iFlytek Spark provider: the version, the domain and the message', () => {
  it.each([
    ['v3.5', 'anything', 'v3.5', '/v3.5/chat', 'generalv3.5'],
    [' V4.0 ', 'SparkDesk-v1.1', 'v4.0', '/v4.0/chat', '4.0Ultra'],
    ['pro-128k', '', 'pro-128k', '/chat/pro-128k', 'pro-128k'],
    ['v3.5-32K', '', 'max-32k', '/chat/max-32k', 'max-32k'],
    ['', 'SparkDesk-v3.1', 'v3.1', '/v3.1/chat', 'generalv3'],
    ['', 'SparkDesk-v3.1-128K', 'pro-128k', '/chat/pro-128k', 'pro-128k'],
    ['', 'SparkDesk-v2.1', 'v2.1', '/v2.1/chat', 'generalv2'],
    ['', 'Spark-Max', 'v3.5', '/v3.5/chat', 'generalv3.5'],
    ['', 'SparkDesk', 'v1.1', '/v1.1/chat', 'lite'],
    ['', 'gpt-4o', 'v1.1', '/v1.1/chat', 'lite'],
  ])('other %j, model %j: version %s at %s, domain %s', (other, model, version, path, domain) => {
    const resolved = sparkVersion(spark({ upstreamModel: model }, other));
    expect(resolved).toMatchObject({ version, path, domain });
    expect(messageOf({ messages: [{ role: 'user', content: 'Hi' }] }, spark({ upstreamModel: model }, other)).parameter.chat.domain).toBe(domain);
  });

  it('refuses a version Spark does not have rather than guessing an endpoint', () => {
    expect(() => sparkVersion(spark({}, 'v9.9'))).toThrow('Spark version "v9.9" is unknown (one of v1.1, v2.1, v3.1, pro-128k, v3.5, max-32k, v4.0)');
    expect(() => sparkVersion(spark({ upstreamModel: 'SparkDesk-v5' }, ''))).toThrow(ChannelConfigurationError);
  });

  it('builds the message of a v3 version: app_id, domain, temperature, max_tokens, the system text, the tools as functions; reports what it drops', () => {
    const request = chat.request(sampleChatRequest(), spark());
    expect(JSON.parse(request.body!)).toEqual(fixtureJson('xunfei/chat-message-v3.5.json'));
    expect(request.warnings).toEqual([
      'parameter "top_p" is not supported by iFlytek Spark and was dropped',
      'parameter "stop" is not supported by iFlytek Spark and was dropped',
      'content part "image_url" is not supported by iFlytek Spark and was dropped',
      'content part "image_url" is not supported by iFlytek Spark and was dropped',
    ]);
  });

  it('puts the system text at the head of the first user turn before v3, and drops the tools there', () => {
    const request = chat.request(sampleChatRequest({ max_completion_tokens: 100, tool_choice: 'required' }), spark({}, 'v1.1'));
    expect(JSON.parse(request.body!)).toEqual({
      header: { app_id: '4f2a9c1e' },
      parameter: { chat: { domain: 'lite', temperature: 0.2, max_tokens: 100 } },
      payload: { message: { text: [{ role: 'user', content: 'You are a terse assistant.\n\nWhat is in this picture? Then get the weather in Paris.' }] } },
    });
    expect(request.warnings).toContain('tools are not supported by iFlytek Spark v1.1 and were dropped');
    expect(request.warnings).toContain('parameter "tool_choice" is not supported by iFlytek Spark and was dropped');
  });

  it('folds a conversation into alternating text turns, drops tool calls and results with warnings, and sends no functions for tool_choice none', () => {
    const request = chat.request(
      {
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: '18C' },
          { role: 'assistant', content: 'It is 18C.' },
          { role: 'user', content: 'Thanks.' },
          { role: 'user', content: 'And tomorrow?' },
        ],
        tools: [{ type: 'function', function: { name: 'get_weather' } }],
        tool_choice: 'none',
      },
      spark(),
    );
    expect(JSON.parse(request.body!).payload).toEqual({
      message: {
        text: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: 'It is 18C.' },
          { role: 'user', content: 'Thanks.\n\nAnd tomorrow?' },
        ],
      },
    });
    expect(request.warnings).toEqual([
      'tool calls are not supported by iFlytek Spark and were dropped',
      'tool results are not supported by iFlytek Spark and were dropped',
    ]);
  });

  it("sends the client's user as uid (at most 32 characters) and merges param_override in depth, the domain kept", () => {
    const ctx = spark({
      channel: channel({ type: ChannelType.Xunfei, other: 'v4.0', param_override: { parameter: { chat: { top_k: 4 } }, header: { patch_id: ['p1'] } } }),
    });
    expect(messageOf({ messages: [{ role: 'user', content: 'Hi' }], user: 'user-42' }, ctx)).toEqual({
      header: { app_id: '4f2a9c1e', uid: 'user-42', patch_id: ['p1'] },
      parameter: { chat: { domain: '4.0Ultra', top_k: 4 } },
      payload: { message: { text: [{ role: 'user', content: 'Hi' }] } },
    });
    const long = chat.request({ messages: [{ role: 'user', content: 'Hi' }], user: 'u'.repeat(33) }, spark());
    expect(JSON.parse(long.body!).header).toEqual({ app_id: '4f2a9c1e' });
    expect(long.warnings).toEqual(['parameter "user" is longer than Spark\'s 32-character uid and was dropped']);
  });
});

describe('iFlytek Spark provider: answers, errors and the folded whole answer', () => {
  it.each([1, 13, 500])('converts the answer messages (chunks of %i bytes): deltas, the finish chunk, then the usage of the last message', (chunkSize) => {
    const outputs = runSpark(fixtureText('xunfei/chat-stream.sse'), chunkSize);
    const chunks = chunksOf(outputs);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '你好' },
      { content: '！我是讯飞星火认知大模型，' },
      { content: '很高兴为你服务。' },
      {},
      null,
    ]);
    expect(chunks.every((chunk) => chunk.id === 'cht000cb087@dx18793cd421fb894542' && chunk.model === 'SparkDesk')).toBe(true);
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe('stop');
    expect(outputs.at(-1)!.usageOnly).toBe(true);
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 12, completion_tokens: 14, total_tokens: 26, prompt_tokens_details: { cached_tokens: 0 } });
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 12, completion_tokens: 14, cached_tokens: 0 });
    expect(textOf(outputs)).toBe('你好！我是讯飞星火认知大模型，很高兴为你服务。');
  });

  it('turns a function_call into an OpenAI tool call and finishes with tool_calls', () => {
    const chunks = chunksOf(runSpark(fixtureText('xunfei/function-call-stream.sse')));
    expect(chunks[0]!.choices[0]).toEqual({
      index: 0,
      delta: {
        role: 'assistant',
        tool_calls: [
          {
            index: 0,
            id: 'call_cht000b41d5@dx18b5e2c6e6ab8f2540_0',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"datetime":"今天","location":"合肥"}' },
          },
        ],
      },
      finish_reason: null,
    });
    expect(chunks[1]!.choices[0].finish_reason).toBe('tool_calls');
    expect(chunks[2]!.usage).toMatchObject({ prompt_tokens: 96, completion_tokens: 23 });
  });

  it('reports an error code as a stream error with the status it stands for, after the text already sent', () => {
    const outputs = runSpark(fixtureText('xunfei/moderated-stream.sse'));
    expect(textOf(outputs)).toBe('这个问题');
    expect(outputs.at(-1)).toEqual({
      error: { message: 'OutputIllegalError:(10014)output contains sensitive information', type: 'invalid_request_error', code: '10014', status: 400 },
    });
    expect(lastUsage(outputs)).toBeNull();
  });

  it.each([
    [11200, 'authentication_error', 401],
    [11500, 'authentication_error', 401],
    [10013, 'invalid_request_error', 400],
    [10019, 'invalid_request_error', 400],
    [10907, 'invalid_request_error', 400],
    [10007, 'rate_limit_error', 429],
    [11201, 'rate_limit_error', 429],
    [11203, 'rate_limit_error', 429],
    [10016, 'permission_error', 403],
    [10110, 'server_error', 503],
    [10222, 'server_error', 502],
  ])('maps header.code %i to %s (%i)', (code, type, status) => {
    const frame = JSON.stringify({ header: { code, message: `error ${code}`, sid: 's1', status: 2 } });
    expect(runSpark(`data: ${frame}\n\n`)).toEqual([{ error: { message: `error ${code}`, type, code: String(code), status } }]);
  });

  it('reports a message that is not Spark JSON, and a socket closed before the last message (the text so far kept, no usage)', () => {
    expect(runSpark('data: {"header": broken\n\n')).toEqual([
      { error: { message: 'iFlytek Spark sent a message that is not its answer JSON', type: 'upstream_error', code: 'bad_stream_event', status: 502 } },
    ]);
    const cut = runSpark(fixtureText('xunfei/chat-stream.sse').split('\n\n').slice(0, 2).join('\n\n'));
    expect(textOf(cut)).toBe('你好！我是讯飞星火认知大模型，');
    expect(lastUsage(cut)).toBeNull();
    expect(cut.at(-1)).toEqual({
      error: { message: 'iFlytek Spark closed the socket before the answer ended', type: 'upstream_error', code: 'stream_incomplete', status: 502 },
    });
  });

  it('folds a whole answer from the stream: one completion with the sid, the text and the usage', () => {
    const { body, usage } = foldStream(xunfeiProvider, fixtureText('xunfei/chat-stream.sse'), spark());
    expect(usage).toEqual({ prompt_tokens: 12, completion_tokens: 14, cached_tokens: 0 });
    expect(body).toEqual({
      id: 'cht000cb087@dx18793cd421fb894542',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'SparkDesk',
      choices: [{ index: 0, message: { role: 'assistant', content: '你好！我是讯飞星火认知大模型，很高兴为你服务。' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 14, total_tokens: 26 },
    });
    const called = foldStream(xunfeiProvider, fixtureText('xunfei/function-call-stream.sse'), spark());
    expect((called.body.choices as unknown[])[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_cht000b41d5@dx18b5e2c6e6ab8f2540_0',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"datetime":"今天","location":"合肥"}' },
          },
        ],
      },
      finish_reason: 'tool_calls',
    });
  });

  it("folds an error message into the channel's failure: the licence error is an authentication failure (401)", () => {
    const frame = JSON.stringify(fixtureJson('xunfei/licence-error.json'));
    const fold = () => foldStream(xunfeiProvider, `data: ${frame}\n\n`, spark());
    expect(fold).toThrow(UpstreamAnswerError);
    expect(fold).toThrow(
      expect.objectContaining({ statusCode: 401, type: 'authentication_error', code: '11200', message: 'AppIdNoAuthError:(11200)auth no license' }),
    );
    expect(() => foldStream(xunfeiProvider, fixtureText('xunfei/moderated-stream.sse'), spark())).toThrow(
      expect.objectContaining({ statusCode: 400, code: '10014' }),
    );
  });

  it("maps the gateway's handshake refusals: a signature is an authentication failure, a stale date is the relay's clock, not the key", () => {
    expect(xunfeiProvider.error(401, fixtureText('xunfei/handshake-401.json'))).toEqual({
      message: 'HMAC signature does not match',
      type: 'authentication_error',
      code: '401',
    });
    expect(xunfeiProvider.error(403, fixtureText('xunfei/handshake-403-date.json'))).toMatchObject({ type: 'upstream_error', code: '403' });
    expect(xunfeiProvider.error(403, '{"message":"Your IP address is not allowed"}')).toMatchObject({ type: 'permission_error' });
    expect(xunfeiProvider.error(200, fixtureText('xunfei/licence-error.json'))).toEqual({
      message: 'AppIdNoAuthError:(11200)auth no license',
      type: 'authentication_error',
      code: '11200',
    });
    expect(xunfeiProvider.error(502, 'Bad Gateway')).toEqual({ message: 'Bad Gateway', type: 'upstream_error', code: '502' });
  });

  it('serves chat only, always over the socket, with no whole-answer conversion of its own', () => {
    expect(xunfeiProvider.operations).toEqual(['chat']);
    expect(Object.keys(xunfeiProvider.chat!)).toEqual(['request', 'stream']);
    expect(xunfeiProvider.streamUsage).toBe(true);
    const whole = chat.request({ messages: [{ role: 'user', content: 'Hi' }], stream: false }, spark({ stream: false }));
    const streamed = chat.request({ messages: [{ role: 'user', content: 'Hi' }], stream: true }, spark({ stream: true }));
    expect(whole).toEqual(streamed);
    expect(whole.websocket).toBe(true);
  });
});
