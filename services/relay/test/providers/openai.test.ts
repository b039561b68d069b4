import { openAiProvider } from '../../src/providers/openai/index.js';
import { channel, chunksOf, context, fixtureJson, fixtureText, lastUsage, runStream, sampleChatRequest, textOf } from './support.js';

describe('openai provider: request', () => {
  it('posts the client body to {base}/v1/chat/completions with the upstream model and the channel overrides', () => {
    const body = sampleChatRequest({ stream: true, stream_options: { include_usage: true } });
    const request = openAiProvider.chat.request(
      body,
      context({
        upstreamModel: 'gpt-4o-2024-08-06',
        channel: channel({ param_override: { temperature: 0, service_tier: 'flex' } }),
      }),
    );
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(request.headers).toEqual({ 'Content-Type': 'application/json', Authorization: 'Bearer sk-upstream-key' });
    expect(JSON.parse(request.body!)).toEqual({ ...body, model: 'gpt-4o-2024-08-06', temperature: 0, service_tier: 'flex' });
    expect(request.warnings).toBeUndefined();
  });

  it.each([
    ['https://proxy.example.com', 'https://proxy.example.com/v1/chat/completions'],
    ['https://proxy.example.com/', 'https://proxy.example.com/v1/chat/completions'],
    ['https://proxy.example.com/v1', 'https://proxy.example.com/v1/chat/completions'],
    ['https://proxy.example.com/openai/v1/', 'https://proxy.example.com/openai/v1/chat/completions'],
  ])('base_url %s -> %s', (baseUrl, url) => {
    expect(openAiProvider.chat.request(sampleChatRequest(), context({ channel: channel({ base_url: baseUrl }) })).url).toBe(url);
  });

  it('sends OpenAI-Organization when the channel has one', () => {
    const request = openAiProvider.chat.request(sampleChatRequest(), context({ channel: channel({ openai_organization: 'org-Lq3xYt8' }) }));
    expect(request.headers['OpenAI-Organization']).toBe('org-Lq3xYt8');
  });
});

describe('openai provider: answers', () => {
  it('passes the answer through and reads usage, cached tokens included', () => {
    const json = fixtureJson('openai/chat-response.json');
    const result = openAiProvider.chat.response(json, context());
    // The very object parsed from the upstream's text: the relay then sends that text, not a re-serialised copy.
    expect(result.body).toBe(json);
    expect(result.usage).toEqual({ prompt_tokens: 1187, completion_tokens: 16, cached_tokens: 1024 });
  });

  it('refuses an answer that is not a JSON object, naming what came', () => {
    for (const [json, received] of [
      [[1, 2], 'an array'],
      ['text', 'string'],
      [null, 'null'],
    ] as const) {
      expect(() => openAiProvider.chat.response(json, context())).toThrow(
        `openai upstream answered with an unexpected body: body: expected an object, received ${received}`,
      );
    }
  });

  it('answers without usage give null usage', () => {
    expect(openAiProvider.chat.response({ id: 'x', choices: [] }, context()).usage).toBeNull();
  });

  it('forwards every stream chunk unchanged, reads text and the usage-only chunk, and leaves [DONE] to the relay', () => {
    const sse = fixtureText('openai/chat-stream.sse');
    const upstreamData = sse
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
      .map((line) => line.slice(6));
    const outputs = runStream(openAiProvider.chat.stream(context({ stream: true })), sse);

    expect(outputs.map((output) => output.data)).toEqual(upstreamData);
    expect(textOf(outputs)).toBe('A small red pixel. Let me check Paris.{"city":"Paris"}');
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 1187, completion_tokens: 27, cached_tokens: 1024 });
    expect(outputs.filter((output) => output.usageOnly)).toEqual([outputs.at(-1)]);
    const chunks = chunksOf(outputs);
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe('tool_calls');
    expect(chunks[3]!.choices[0].delta.tool_calls[0]).toMatchObject({ index: 0, id: 'call_Xz81LqP0vB4nYt6Rk2Wm', function: { name: 'get_weather' } });
  });

  it('counts reasoning_content as completion text', () => {
    const converter = openAiProvider.chat.stream(context());
    const [output] = converter.onEvent({ data: '{"choices":[{"index":0,"delta":{"reasoning_content":"Let me think."}}]}' });
    expect(output!.text).toBe('Let me think.');
  });

  it('reports an error object inside the stream as a stream error', () => {
    const converter = openAiProvider.chat.stream(context());
    expect(
      converter.onEvent({ data: '{"error":{"message":"The server had an error while processing your request.","type":"server_error","code":null}}' }),
    ).toEqual([{ error: { message: 'The server had an error while processing your request.', type: 'server_error', code: 'server_error' } }]);
  });

  it('forwards a chunk that is not JSON as is, without text', () => {
    expect(openAiProvider.chat.stream(context()).onEvent({ data: '{"choices":[' })).toEqual([{ data: '{"choices":[' }]);
  });
});

describe('openai provider: passthrough, models, errors', () => {
  it.each([
    ['/v1/embeddings', 'https://api.openai.com/v1/embeddings'],
    ['/v1/completions', 'https://api.openai.com/v1/completions'],
    ['/v1/moderations', 'https://api.openai.com/v1/moderations'],
  ] as const)('passes %s through to %s with the upstream model', (path, url) => {
    const request = openAiProvider.passthrough!.request(
      path,
      { model: 'text-embedding-3-small', input: 'hello' },
      context({ upstreamModel: 'text-embedding-3-large' }),
    );
    expect(request).toMatchObject({ method: 'POST', url, headers: { Authorization: 'Bearer sk-upstream-key' } });
    expect(JSON.parse(request.body!)).toEqual({ model: 'text-embedding-3-large', input: 'hello' });
  });

  it('reads passthrough usage', () => {
    expect(openAiProvider.passthrough!.usage({ object: 'list', data: [], usage: { prompt_tokens: 2, total_tokens: 2 } })).toEqual({
      prompt_tokens: 2,
      completion_tokens: 0,
      cached_tokens: 0,
    });
  });

  it('lists models from GET {base}/v1/models', () => {
    const request = openAiProvider.models!.request({ channel: channel(), key: 'sk-upstream-key' });
    expect(request).toMatchObject({ method: 'GET', url: 'https://api.openai.com/v1/models', headers: { Authorization: 'Bearer sk-upstream-key' } });
    const list = {
      object: 'list',
      data: [
        { id: 'gpt-4o', object: 'model', created: 1715367049, owned_by: 'system' },
        { id: 'o3-mini', object: 'model', created: 1737146383, owned_by: 'system' },
      ],
    };
    expect(openAiProvider.models!.parse(list)).toEqual(['gpt-4o', 'o3-mini']);
  });

  it('normalises an OpenAI error body', () => {
    expect(openAiProvider.error(429, fixtureText('openai/error-429.json'))).toEqual({
      message: expect.stringContaining('Rate limit reached for gpt-4o'),
      type: 'tokens',
      code: 'rate_limit_exceeded',
    });
  });
});
