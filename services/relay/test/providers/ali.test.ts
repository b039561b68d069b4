import { ChannelType } from '@aigw/contracts';
import { aliProvider } from '../../src/providers/ali/index.js';
import { InvalidChatRequestError } from '../../src/providers/shared/chat-request.js';
import { channel, chunksOf, context, fixtureJson, fixtureText, lastUsage, runStream, sampleChatRequest, textOf } from './support.js';

const ali = (overrides: Parameters<typeof context>[0] = {}) =>
  context({ upstreamModel: 'qwen-plus-2025-01-25', requestedModel: 'qwen-plus', channel: channel({ type: ChannelType.Ali }), ...overrides });
const headers = { 'Content-Type': 'application/json', Authorization: 'Bearer sk-upstream-key' };
const RERANK_URL = 'https://dashscope.aliyuncs.com/api/v1/services/rerank/text-rerank/text-rerank';

describe('ali (DashScope) provider: chat through the compatible mode', () => {
  it('forwards the client body to /compatible-mode/v1/chat/completions but for the model, the key as Bearer', () => {
    const body = sampleChatRequest({ stream: true, stream_options: { include_usage: true }, enable_search: true });
    const request = aliProvider.chat.request(body, ali());
    expect(request).toEqual({
      method: 'POST',
      url: 'https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions',
      headers,
      body: JSON.stringify({ ...body, model: 'qwen-plus-2025-01-25' }),
    });
    // DashScope's own parameters (enable_search) go through; nothing is dropped.
    expect(request.warnings).toBeUndefined();
  });

  it('keeps stream_options (the compatible mode reports stream usage) and applies the channel overrides last', () => {
    const request = aliProvider.chat.request(
      { model: 'qwen-plus', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true }, temperature: 0.3 },
      ali({ channel: channel({ type: ChannelType.Ali, param_override: { temperature: 1, enable_thinking: false } }) }),
    );
    expect(JSON.parse(request.body!)).toEqual({
      model: 'qwen-plus-2025-01-25',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 1,
      enable_thinking: false,
    });
    expect(aliProvider.streamUsage).toBe(true);
  });

  it('takes base_url as the host override, a pasted /compatible-mode/v1 or /api/v1 dropped', () => {
    for (const base_url of [
      'https://dashscope-intl.aliyuncs.com',
      'https://dashscope-intl.aliyuncs.com/',
      'https://dashscope-intl.aliyuncs.com/compatible-mode/v1',
      'https://dashscope-intl.aliyuncs.com/api/v1/',
    ]) {
      const ctx = ali({ channel: channel({ type: ChannelType.Ali, base_url }) });
      expect(aliProvider.chat.request({ messages: [{ role: 'user', content: 'Hi' }] }, ctx).url).toBe(
        'https://dashscope-intl.aliyuncs.com/compatible-mode/v1/chat/completions',
      );
      expect(aliProvider.passthrough!.request('/v1/rerank', { query: 'q', documents: ['d'] }, ctx).url).toBe(
        'https://dashscope-intl.aliyuncs.com/api/v1/services/rerank/text-rerank/text-rerank',
      );
    }
  });

  it('reads the answer and its usage, cached prompt tokens included', () => {
    const result = aliProvider.chat.response(fixtureJson('ali/chat-response.json'), ali());
    expect(result.usage).toEqual({ prompt_tokens: 3019, completion_tokens: 9, cached_tokens: 2048 });
    expect(result.body).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'A cat is sitting on a windowsill.' } }] });
    expect(() => aliProvider.chat.response('not an object', ali())).toThrow('ali upstream answered with an unexpected body');
  });

  it('passes the stream through byte for byte, its last chunk the usage', () => {
    const sse = fixtureText('ali/chat-stream.sse');
    const outputs = runStream(aliProvider.chat.stream(ali({ stream: true })), sse);
    const upstreamChunks = sse
      .split('\n\n')
      .filter((event) => event.startsWith('data: {'))
      .map((event) => event.slice('data: '.length));
    expect(outputs.map((output) => output.data)).toEqual(upstreamChunks);
    expect(chunksOf(outputs).map((chunk) => chunk.choices[0]?.delta.content ?? null)).toEqual(['', 'I am', ' Qwen.', '', null]);
    expect(textOf(outputs)).toBe('I am Qwen.');
    expect(outputs.at(-1)!.usageOnly).toBe(true);
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 22, completion_tokens: 4, cached_tokens: 0 });
  });

  it('reports an error chunk in the stream as a stream error', () => {
    const [output] = aliProvider.chat.stream(ali()).onEvent({
      data: '{"error":{"message":"Input data may contain inappropriate content.","type":"data_inspection_failed","code":"data_inspection_failed"}}',
    });
    expect(output).toEqual({
      error: { message: 'Input data may contain inappropriate content.', type: 'data_inspection_failed', code: 'data_inspection_failed' },
    });
  });
});

describe('ali (DashScope) provider: embeddings and rerank', () => {
  it('lists chat, embeddings, rerank and image generations (polled tasks: ali-images.test.ts)', () => {
    expect(aliProvider.operations).toEqual(['chat', 'embeddings', 'rerank', 'images']);
    expect(typeof aliProvider.passthrough?.answer).toBe('function');
    expect(typeof aliProvider.passthrough?.follow).toBe('function');
  });

  it('sends embeddings to the compatible mode, always asking for floats', () => {
    const request = aliProvider.passthrough!.request(
      '/v1/embeddings',
      { model: 'embed', input: ['hello', 'goodbye'], dimensions: 256, encoding_format: 'base64' },
      ali({ upstreamModel: 'text-embedding-v4' }),
    );
    expect(request).toEqual({
      method: 'POST',
      url: 'https://dashscope.aliyuncs.com/compatible-mode/v1/embeddings',
      headers,
      body: JSON.stringify({ model: 'text-embedding-v4', input: ['hello', 'goodbye'], dimensions: 256, encoding_format: 'float' }),
    });
  });

  it('answers embeddings as they came, or as base64 when the client asked for it, with their usage', () => {
    const json = fixtureJson('ali/embeddings-response.json');
    const floats = aliProvider.passthrough!.answer!('/v1/embeddings', json, { input: ['a', 'b'] }, ali());
    expect(floats).toEqual({ body: json, usage: { prompt_tokens: 23, completion_tokens: 0, cached_tokens: 0 } });

    const base64 = aliProvider.passthrough!.answer!('/v1/embeddings', json, { input: ['a', 'b'], encoding_format: 'base64' }, ali());
    const body = base64.body as { data: Array<{ object: string; index: number; embedding: string }>; usage: unknown; model: string };
    expect(body).toMatchObject({ object: 'list', model: 'text-embedding-v4', usage: { prompt_tokens: 23, total_tokens: 23 } });
    expect(body.data.map(({ object, index }) => [object, index])).toEqual([
      ['embedding', 0],
      ['embedding', 1],
    ]);
    const decoded = Buffer.from(body.data[1]!.embedding, 'base64');
    expect(Array.from(new Float32Array(decoded.buffer, decoded.byteOffset, decoded.length / 4))).toEqual([0.5, -0.125, 0.0078125]);
    expect(base64.usage).toEqual({ prompt_tokens: 23, completion_tokens: 0, cached_tokens: 0 });
    expect(() => aliProvider.passthrough!.answer!('/v1/embeddings', { data: 'x' }, { encoding_format: 'base64' }, ali())).toThrow(
      'ali upstream answered with an unexpected body: data',
    );
  });

  const documents = ['Text ranking models are used in search engines.', { text: 'Pandas are bears.' }, 'Quantum computing uses qubits.'];

  it("converts /v1/rerank (Jina's shape) to the native text-rerank body, reporting what it drops", () => {
    const request = aliProvider.passthrough!.request(
      '/v1/rerank',
      { model: 'rerank', query: 'what is quantum computing', documents, top_n: 2, instruction: 'x' },
      ali({ upstreamModel: 'gte-rerank-v2' }),
    );
    expect(request).toEqual({
      method: 'POST',
      url: RERANK_URL,
      headers,
      body: JSON.stringify({
        model: 'gte-rerank-v2',
        input: { query: 'what is quantum computing', documents: [documents[0], 'Pandas are bears.', documents[2]] },
        parameters: { return_documents: true, top_n: 2 },
      }),
      warnings: ['parameter "instruction" is not supported by DashScope\'s rerank and was dropped'],
    });
    const noDocuments = aliProvider.passthrough!.request('/v1/rerank', { query: 'q', documents: ['d'], return_documents: false }, ali());
    expect(JSON.parse(noDocuments.body!).parameters).toEqual({ return_documents: false });
    expect(() => aliProvider.passthrough!.request('/v1/rerank', { query: 'q', documents: [1] }, ali())).toThrow(InvalidChatRequestError);
  });

  it("answers a rerank in Jina's shape with DashScope's token count as the usage", () => {
    const request = { model: 'rerank', query: 'what is quantum computing', documents };
    const { body, usage } = aliProvider.passthrough!.answer!(
      '/v1/rerank',
      fixtureJson('ali/rerank-response.json'),
      request,
      ali({ upstreamModel: 'gte-rerank-v2' }),
    );
    expect(body).toEqual({
      id: '30d0a4c2-4c31-9d4b-a9d6-65e38e7fd0bf',
      model: 'gte-rerank-v2',
      results: [
        { index: 2, relevance_score: 0.9334521432, document: { text: 'Quantum computing uses qubits.' } },
        { index: 0, relevance_score: 0.3462412311, document: { text: 'Text ranking models are used in search engines.' } },
      ],
      usage: { prompt_tokens: 79, total_tokens: 79 },
    });
    expect(usage).toEqual({ prompt_tokens: 79, completion_tokens: 0, cached_tokens: 0 });

    // Documents the upstream did not send back are taken from the request; none when the client said so.
    const bare = { output: { results: [{ index: 1, relevance_score: 0.5 }] } };
    expect(aliProvider.passthrough!.answer!('/v1/rerank', bare, request, ali())).toEqual({
      body: { model: 'qwen-plus-2025-01-25', results: [{ index: 1, relevance_score: 0.5, document: { text: 'Pandas are bears.' } }] },
      usage: null,
    });
    expect(aliProvider.passthrough!.answer!('/v1/rerank', bare, { ...request, return_documents: false }, ali()).body).toMatchObject({
      results: [{ index: 1, relevance_score: 0.5 }],
    });
    expect(() => aliProvider.passthrough!.answer!('/v1/rerank', { results: [] }, request, ali())).toThrow(
      'ali upstream answered with an unexpected body: output',
    );
  });
});

describe('ali (DashScope) provider: errors', () => {
  it('maps both error shapes; a bad key is an authentication error, arrears a quota error', () => {
    expect(aliProvider.error(401, fixtureText('ali/error-401-native.json'))).toEqual({
      message: 'Invalid API-key provided.',
      type: 'authentication_error',
      code: 'InvalidApiKey',
    });
    expect(aliProvider.error(401, fixtureText('ali/error-401-compatible.json'))).toEqual({
      message: 'Incorrect API key provided. For details, see: https://help.aliyun.com/zh/model-studio/error-code#apikey-error',
      type: 'authentication_error',
      code: 'invalid_api_key',
    });
    expect(aliProvider.error(400, fixtureText('ali/error-400-arrearage.json'))).toMatchObject({ type: 'insufficient_quota', code: 'Arrearage' });
    expect(aliProvider.error(429, '{"code":"Throttling.RateQuota","message":"Requests rate limit exceeded, please try again later."}')).toMatchObject({
      type: 'rate_limit_error',
      code: 'Throttling.RateQuota',
    });
    expect(aliProvider.error(500, '{"code":"InternalError","message":"An internal error has occured, please try again later."}').type).toBe('server_error');
    expect(aliProvider.error(502, '<html>bad gateway</html>')).toEqual({ message: '<html>bad gateway</html>', type: 'upstream_error', code: '502' });
  });
});
