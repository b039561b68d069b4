import { ChannelType } from '@aigw/contracts';
import { baiduProvider } from '../../src/providers/baidu/index.js';
import { baiduEndpoint, baiduTokenExchange } from '../../src/providers/baidu/api.js';
import { BaiduAnswerError } from '../../src/providers/baidu/error.js';
import { ChannelConfigurationError } from '../../src/providers/shared/url.js';
import type { AuthorizeTools, StreamOutput, TokenExchange } from '../../src/providers/types.js';
import { channel, chunksOf, context, fixtureJson, fixtureText, lastUsage, sampleChatRequest, textOf, runStream } from './support.js';

const KEY = 'Vx7nq2LkT9pZ|Sk4mW8rYc1Jd';
const baidu = (overrides: Parameters<typeof context>[0] = {}) =>
  context({ key: KEY, upstreamModel: 'ERNIE-Speed-8K', requestedModel: 'ernie', channel: channel({ type: ChannelType.Baidu }), ...overrides });
const CHAT_URL = 'https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie_speed';
const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };

/** The relay's side of `authorize`: records the exchanges asked for, answers with a fixed token. */
function tokenTools(token = '24.abc.2592000.1722000000.282335-1'): AuthorizeTools & { asked: TokenExchange[] } {
  const asked: TokenExchange[] = [];
  return {
    asked,
    accessToken: async (exchange) => {
      asked.push(exchange);
      return token;
    },
  };
}

/** Feeds a stream through the provider's own framer and the converter, as the relay does. */
const runBaiduStream = (text: string, chunkSize = 11): StreamOutput[] =>
  runStream(baiduProvider.chat.stream(baidu({ stream: true })), text, chunkSize, baiduProvider.framing!());

describe('baidu ERNIE provider: requests', () => {
  it('sends chat to the endpoint of the model, the system apart, the parameters mapped', () => {
    const request = baiduProvider.chat.request(
      sampleChatRequest({ tools: undefined, tool_choice: undefined, frequency_penalty: 1, user: 'user-42', response_format: { type: 'json_object' } }),
      baidu(),
    );
    expect(request).toEqual({
      method: 'POST',
      url: CHAT_URL,
      headers,
      body: JSON.stringify({
        messages: [{ role: 'user', content: 'What is in this picture? Then get the weather in Paris.' }],
        system: 'You are a terse assistant.',
        temperature: 0.2,
        top_p: 0.9,
        penalty_score: 1.5,
        max_output_tokens: 256,
        stop: ['END'],
        user_id: 'user-42',
        response_format: 'json_object',
      }),
      warnings: [
        'content part "image_url" is not supported by Baidu ERNIE and was dropped',
        'content part "image_url" is not supported by Baidu ERNIE and was dropped',
      ],
    });
  });

  it('alternates the turns from the user, streams, and reports what ERNIE cannot take', () => {
    const request = baiduProvider.chat.request(
      {
        model: 'ernie',
        messages: [
          { role: 'assistant', content: 'Welcome!' },
          { role: 'user', content: 'Hi' },
          { role: 'user', content: 'there' },
          { role: 'assistant', content: 'Hello', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c', content: '{}' },
          { role: 'user', content: 'Bye' },
        ],
        temperature: 1.5,
        max_tokens: 1,
        frequency_penalty: -1,
        presence_penalty: 0.5,
        n: 2,
        stream: true,
        stream_options: { include_usage: true },
      },
      baidu(),
    );
    expect(JSON.parse(request.body!)).toEqual({
      messages: [
        { role: 'user', content: 'Hi\n\nthere' },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: 'Bye' },
      ],
      temperature: 1,
      max_output_tokens: 2,
      stream: true,
    });
    expect(request.warnings).toEqual([
      'parameter "presence_penalty" is not supported by Baidu ERNIE and was dropped',
      'parameter "n" is not supported by Baidu ERNIE and was dropped',
      'tool calls are not supported by Baidu ERNIE and were dropped',
      'tool results are not supported by Baidu ERNIE and were dropped',
      'ERNIE conversations start with the user: the assistant turns before the first user message were dropped',
      "temperature 1.5 is outside ERNIE's (0, 1] and was sent as 1",
      "frequency_penalty -1: ERNIE's penalty_score cannot reward repetition; it was dropped",
      "max_tokens 1 is below ERNIE's minimum and was sent as 2",
    ]);
  });

  it.each([
    ['ERNIE-4.0-8K', 'completions_pro'],
    ['ERNIE-3.5-8K', 'completions'],
    ['ERNIE-Speed-8K', 'ernie_speed'],
    ['ERNIE-Speed-128K', 'ernie-speed-128k'],
    ['ERNIE-Lite-8K', 'ernie-lite-8k'],
    ['ERNIE-Bot-turbo', 'eb-instant'],
    ['Embedding-V1', 'embedding-v1'],
    ['bge-large-zh', 'bge_large_zh'],
    ['my_custom_deploy', 'my_custom_deploy'],
    ['toString', 'toString'],
  ])('serves %s at the endpoint %s', (model, endpoint) => {
    expect(baiduEndpoint(model)).toBe(endpoint);
  });

  it('takes base_url as the host override and keeps the key out of the URL until authorize adds the token', async () => {
    const ctx = baidu({ channel: channel({ type: ChannelType.Baidu, base_url: 'http://127.0.0.1:9200/' }) });
    const built = baiduProvider.chat.request({ messages: [{ role: 'user', content: 'Hi' }] }, ctx);
    expect(built.url).toBe('http://127.0.0.1:9200/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie_speed');
    const tools = tokenTools();
    const signed = await baiduProvider.authorize!(built, ctx, tools);
    expect(signed).toEqual({ ...built, url: `${built.url}?access_token=24.abc.2592000.1722000000.282335-1` });
    expect(signed.url).not.toContain('Sk4mW8rYc1Jd');
    expect(signed.url).not.toContain('Vx7nq2LkT9pZ');
    // The exchange it asked the relay to run (and cache): the client-credentials grant at the same host.
    const [exchange] = tools.asked;
    expect(exchange!.scope).toBe('');
    expect(exchange!.request).toEqual({
      method: 'POST',
      url: 'http://127.0.0.1:9200/oauth/2.0/token?grant_type=client_credentials&client_id=Vx7nq2LkT9pZ&client_secret=Sk4mW8rYc1Jd',
      headers,
      body: '{}',
    });
  });

  it('reads the exchange answer: the token and its expiry, or the refusal without the secret', () => {
    const exchange = baiduTokenExchange(baidu());
    expect(exchange.parse(fixtureJson('baidu/token-response.json'), 1_000)).toEqual({
      token: '24.6c5e1ff107f0e8bcef8c46d3424a0e78.2592000.1485516651.282335-8574074',
      expiresAt: 1_000 + 2_592_000_000,
    });
    expect(() => exchange.parse(fixtureJson('baidu/token-refused.json'), 1_000)).toThrow(
      'Baidu refused the key: invalid_client (Client authentication failed)',
    );
    expect(() => exchange.parse({ expires_in: 5 }, 1_000)).toThrow('Baidu answered the token exchange without an access_token');
  });

  it('refuses a key that is not API Key|Secret Key before any exchange', async () => {
    const built = baiduProvider.chat.request({ messages: [{ role: 'user', content: 'Hi' }] }, baidu());
    const tools = tokenTools();
    for (const key of ['only-one-part', 'a|b|c', '|secret']) {
      await expect(baiduProvider.authorize!(built, baidu({ key }), tools)).rejects.toThrow(ChannelConfigurationError);
    }
    expect(tools.asked).toHaveLength(0);
  });
});

describe('baidu ERNIE provider: answers and streams', () => {
  it('converts an answer with its usage and finish reason', () => {
    const result = baiduProvider.chat.response(fixtureJson('baidu/chat-response.json'), baidu());
    expect(result.usage).toEqual({ prompt_tokens: 4, completion_tokens: 9, cached_tokens: 0 });
    expect(result.body).toEqual({
      id: 'as-bcmt5ct4iy',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'ERNIE-Speed-8K',
      choices: [{ index: 0, message: { role: 'assistant', content: '您好，我是文心一言。' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 4, completion_tokens: 9, total_tokens: 13, prompt_tokens_details: { cached_tokens: 0 } },
    });
    const truncated = { result: 'cut', is_truncated: true, usage: { prompt_tokens: 1, total_tokens: 3 } };
    expect(baiduProvider.chat.response(truncated, baidu())).toMatchObject({
      usage: { prompt_tokens: 1, completion_tokens: 2 },
      body: { choices: [{ finish_reason: 'length' }] },
    });
  });

  it('throws the error_code of a 200 answer as the error it is: a bad token is an authentication failure', () => {
    const refusal = () => baiduProvider.chat.response(fixtureJson('baidu/token-invalid.json'), baidu());
    expect(refusal).toThrow(BaiduAnswerError);
    expect(refusal).toThrow(
      expect.objectContaining({ statusCode: 401, type: 'authentication_error', code: '110', message: 'Access token invalid or no longer valid' }),
    );
    expect(() => baiduProvider.chat.response({ error_code: 18, error_msg: 'Open api qps request limit reached' }, baidu())).toThrow(
      expect.objectContaining({ statusCode: 429, type: 'rate_limit_error' }),
    );
    expect(() => baiduProvider.chat.response({ error_code: 336003, error_msg: 'the range of temperature is (0, 1.0]' }, baidu())).toThrow(
      expect.objectContaining({ statusCode: 400, type: 'invalid_request_error' }),
    );
    expect(() => baiduProvider.chat.response({ id: 'as-1' }, baidu())).toThrow('baidu upstream answered with an unexpected body: result: missing');
  });

  it.each([1, 11, 200])('converts the stream (chunks of %i bytes): text, the finish chunk, then the usage of the last event', (chunkSize) => {
    const outputs = runBaiduStream(fixtureText('baidu/chat-stream.sse'), chunkSize);
    const chunks = chunksOf(outputs);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([{ role: 'assistant', content: '您好，' }, { content: '我是文心一言。' }, {}, null]);
    expect(chunks.every((chunk) => chunk.id === 'as-vb0m37ti8y' && chunk.model === 'ERNIE-Speed-8K')).toBe(true);
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe('stop');
    expect(outputs.at(-1)!.usageOnly).toBe(true);
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 5, completion_tokens: 11, cached_tokens: 0 });
    expect(textOf(outputs)).toBe('您好，我是文心一言。');
  });

  it('reports the JSON error Baidu answers in place of a stream, an error event, and an event that is not JSON', () => {
    expect(runBaiduStream(`\r\n${fixtureText('baidu/token-invalid.json')}`, 4)).toEqual([
      { error: { message: 'Access token invalid or no longer valid', type: 'authentication_error', code: '110' } },
    ]);
    const midway = runBaiduStream('data: {"result":"Hi","is_end":false}\n\ndata: {"error_code":336100,"error_msg":"system busy"}\n\n');
    expect(textOf(midway)).toBe('Hi');
    expect(midway.at(-1)).toEqual({ error: { message: 'system busy', type: 'server_error', code: '336100' } });
    expect(runBaiduStream('data: {"result": broken\n\n')).toEqual([
      { error: { message: 'Baidu sent a stream event that is not valid JSON', type: 'upstream_error', code: 'bad_stream_event' } },
    ]);
  });
});

describe('baidu ERNIE provider: embeddings and errors', () => {
  it('embeds through embeddings/{endpoint}, answered in OpenAI shape, floats or base64', () => {
    const ctx = baidu({ upstreamModel: 'Embedding-V1' });
    const request = baiduProvider.passthrough!.request('/v1/embeddings', { model: 'embed', input: 'hello', user: 'u-1', dimensions: 3 }, ctx);
    expect(request).toEqual({
      method: 'POST',
      url: 'https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/embedding-v1',
      headers,
      body: JSON.stringify({ input: ['hello'], user_id: 'u-1' }),
      warnings: ['parameter "dimensions" is not supported by Baidu and was dropped'],
    });
    expect(() => baiduProvider.passthrough!.request('/v1/embeddings', { input: [1, 2] }, ctx)).toThrow('Baidu embeds text only');

    const json = fixtureJson('baidu/embed-response.json');
    expect(baiduProvider.passthrough!.usage(json)).toEqual({ prompt_tokens: 12, completion_tokens: 0, cached_tokens: 0 });
    const { body, usage } = baiduProvider.passthrough!.answer!('/v1/embeddings', json, { input: ['a', 'b'] }, ctx);
    expect(usage).toEqual({ prompt_tokens: 12, completion_tokens: 0, cached_tokens: 0 });
    expect(body).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.018314670771360397, 0.00942440889775753, -0.25] },
        { object: 'embedding', index: 1, embedding: [0.0013, -0.5, 0.125] },
      ],
      model: 'Embedding-V1',
      usage: { prompt_tokens: 12, total_tokens: 12 },
    });
    const encoded = baiduProvider.passthrough!.answer!('/v1/embeddings', json, { encoding_format: 'base64' }, ctx).body as {
      data: Array<{ embedding: string }>;
    };
    const bytes = Buffer.from(encoded.data[1]!.embedding, 'base64');
    expect(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, 3))).toEqual([Math.fround(0.0013), -0.5, 0.125]);
    expect(() => baiduProvider.passthrough!.answer!('/v1/embeddings', fixtureJson('baidu/token-invalid.json'), {}, ctx)).toThrow(BaiduAnswerError);
  });

  it('maps error bodies of any status: the API codes, the OAuth refusal, anything else by its text', () => {
    expect(baiduProvider.error(200, fixtureText('baidu/token-invalid.json'))).toEqual({
      message: 'Access token invalid or no longer valid',
      type: 'authentication_error',
      code: '110',
    });
    expect(baiduProvider.error(401, fixtureText('baidu/token-refused.json'))).toEqual({
      message: 'Client authentication failed',
      type: 'authentication_error',
      code: 'invalid_client',
    });
    expect(baiduProvider.error(200, '{"error_code":17,"error_msg":"Open api daily request limit reached"}').type).toBe('rate_limit_error');
    expect(baiduProvider.error(200, '{"error_code":6,"error_msg":"No permission to access data"}').type).toBe('permission_error');
    expect(baiduProvider.error(500, '{"error_msg":"x?access_token=24.secret"}').message).toBe('x?access_token=***');
    expect(baiduProvider.error(503, '')).toEqual({ message: 'upstream answered HTTP 503 with an empty body', type: 'upstream_error', code: '503' });
  });

  it('lists chat and embeddings, with usage in every finished stream', () => {
    expect(baiduProvider.operations).toEqual(['chat', 'embeddings']);
    expect(baiduProvider.streamUsage).toBe(true);
  });
});
